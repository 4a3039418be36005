"""The Escoba contracts (`arbitro.proofs.escoba.contracts`) run on concrete positions: they hold on
the engine, and each fails on an engine broken the way it guards against.

The slow tests run CrossHair on them (`benchmarks/crosshair_escoba.py`): it finds no failing
position of the engine within its limits, and finds one of the engine with one of
benchmarks/mutants.py's bugs planted (a card dropped in a three-card capture, forced capture
skipped for a card that needs 5 over a table of four cards or more).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.schema import EscobaRules
from arbitro.proofs.escoba import contracts

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS: tuple[Callable[..., None], ...] = (
    contracts.cards_conserved,
    contracts.captures_sum_to_target,
    contracts.capture_forced,
    contracts.capture_effects,
    contracts.turn_passes,
)
# two players, seat 1 to move in deal 2 holding the five of copas (rank index 4 in suit 1); on
# the table the five of espadas, the one of oros and the four of bastos: 5 + 5 + 1 + 4 = 15, the
# book's capture sum, so the five takes all three (the position CrossHair found)
THREE_CARD_CAPTURE = (0, 1, 2, -1, 4, -1, 4, 0, -1, 3, -1, -1)


def positions(n: int) -> list[tuple[int, ...]]:
    """``n`` tuples of ints naming positions (seeded), each one `position` builds."""
    rng = random.Random(7)
    rules = contracts.contract_rules()
    out: list[tuple[int, ...]] = []
    while len(out) < n:
        ints = (
            rng.randrange(4), rng.randrange(4), rng.randrange(1, 7),
            *(rng.randrange(-1, 10) for _ in range(9)),
        )  # fmt: skip
        if contracts.position(rules, *ints[:3], list(ints[3:6]), list(ints[6:])) is not None:
            out.append(ints)
    return out


def test_the_positions_are_states_of_play() -> None:
    rules = contracts.contract_rules()
    state = contracts.position(rules, *THREE_CARD_CAPTURE[:3], [-1, 4, -1], [4, 0, -1, 3, -1, -1])
    assert state is not None
    assert (state.players, state.to_move, state.deal_number) == (2, 1, 2)
    assert state.hands[1] == 1 << 14  # the five of copas: card 1 * 10 + 4
    assert state.table == 1 << 34 | 1 << 0 | 1 << 23
    # seat 1 plays first (it sits on the right of the dealer, seat 0, and play goes right):
    # holding one card of the deal's three it has played two, and so has seat 0
    assert state.hands[0].bit_count() == 1
    assert len(state.stock) == 4 * 6  # four deals to come, six cards each
    # a rank named twice takes the next suit free: the third table slot (the sixth slot, of
    # copas) names the five the hand holds, and gets the five of bastos
    again = contracts.position(rules, 0, 1, 2, [-1, 4, -1], [4, 0, 4, 3, -1, -1])
    assert again is not None and again.table == 1 << 34 | 1 << 0 | 1 << 24 | 1 << 23
    # the pack has four fives: a fifth is no position
    assert contracts.position(rules, 0, 1, 2, [-1, 4, -1], [4, 4, 4, 4, -1, -1]) is None


def test_the_contracts_hold_on_the_engine() -> None:
    for ints in [THREE_CARD_CAPTURE, *positions(60)]:
        for contract in CONTRACTS:
            contract(*ints)


def broken(monkeypatch: pytest.MonkeyPatch, name: str, wrap: Callable[..., Any]) -> None:
    """Replaces the engine function ``name`` as the contracts call it."""
    monkeypatch.setattr(contracts, name, wrap(getattr(contracts, name)))


def test_a_lost_card_breaks_conservation(monkeypatch: pytest.MonkeyPatch) -> None:
    def drop(apply: Any) -> Any:
        def dropping(rules: EscobaRules, state: EscobaState, play: Play) -> EscobaState:
            after: EscobaState = apply(rules, state, play)
            if play.capture.bit_count() == 3:
                low = play.capture & -play.capture
                side = play.seat % state.sides
                piles = list(after.piles)
                piles[side] &= ~low
                return after._replace(piles=tuple(piles))
            return after

        return dropping

    broken(monkeypatch, "apply", drop)
    with pytest.raises(AssertionError, match="are nowhere"):
        contracts.cards_conserved(*THREE_CARD_CAPTURE)


def test_a_capture_off_the_sum_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def widen(legal: Any) -> Any:
        def widened(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
            plays: tuple[Play, ...] = legal(rules, state)
            # the five of copas taking the five of espadas and the one of oros: 11, not 15
            return (*plays, Play(state.to_move, 14, 1 << 34 | 1 << 0))

        return widened

    broken(monkeypatch, "legal_actions", widen)
    with pytest.raises(AssertionError, match="makes 11, not 15"):
        contracts.captures_sum_to_target(*THREE_CARD_CAPTURE)


def test_a_lay_that_could_capture_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def lay_all(legal: Any) -> Any:
        def laying(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
            plays: tuple[Play, ...] = legal(rules, state)
            cards = {p.card for p in plays}
            return (*plays, *(Play(state.to_move, c, 0) for c in sorted(cards)))

        return laying

    broken(monkeypatch, "legal_actions", lay_all)
    with pytest.raises(AssertionError, match="can capture and is laid"):
        contracts.capture_forced(*THREE_CARD_CAPTURE)


def test_an_escoba_not_counted_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def uncount(apply: Any) -> Any:
        def uncounted(rules: EscobaRules, state: EscobaState, play: Play) -> EscobaState:
            after: EscobaState = apply(rules, state, play)
            return after._replace(escobas=state.escobas)

        return uncounted

    # the five takes all three table cards: the table is left bare, an escoba
    contracts.capture_effects(*THREE_CARD_CAPTURE)
    broken(monkeypatch, "apply", uncount)
    with pytest.raises(AssertionError, match=r"escobas \(0, 0\), not \[0, 1\]"):
        contracts.capture_effects(*THREE_CARD_CAPTURE)


@pytest.fixture
def unforced() -> Iterator[EscobaRules]:
    """The contracts checked under escoba-es with forced capture off, then the book again."""
    yield contracts.prepare(capture_forced=False)
    contracts.prepare()


def test_without_forced_capture_every_card_can_be_laid(
    unforced: EscobaRules, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not contracts.contract_rules().capture_forced
    for ints in [THREE_CARD_CAPTURE, *positions(20)]:
        contracts.capture_forced(*ints)

    def forcing(legal: Any) -> Any:
        def forced(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
            plays: tuple[Play, ...] = legal(rules, state)
            takers = {p.card for p in plays if p.capture}
            return tuple(p for p in plays if p.capture or p.card not in takers)

        return forced

    broken(monkeypatch, "legal_actions", forcing)
    with pytest.raises(AssertionError, match="cannot be laid where capture is not forced"):
        contracts.capture_forced(*THREE_CARD_CAPTURE)


def test_a_turn_that_does_not_pass_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def stay(apply: Any) -> Any:
        def staying(rules: EscobaRules, state: EscobaState, play: Play) -> EscobaState:
            after: EscobaState = apply(rules, state, play)
            return after._replace(to_move=play.seat) if after.phase == "play" else after

        return staying

    broken(monkeypatch, "apply", stay)
    with pytest.raises(AssertionError, match="seat 1 moves, not 0"):
        contracts.turn_passes(*THREE_CARD_CAPTURE)


def crosshair(*args: str) -> subprocess.CompletedProcess[str]:
    """benchmarks/crosshair_escoba.py in a process group of its own, killed whole if it overruns
    (its own limits stop it long before)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["ARBITRO_NATIVE"] = "0"
    p = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "crosshair_escoba.py"), *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        stdin=subprocess.DEVNULL, process_group=0,
    )  # fmt: skip
    try:
        out, _ = p.communicate(timeout=600)
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, "")


@pytest.mark.slow
def test_crosshair_finds_nothing_wrong_with_the_engine() -> None:
    got = crosshair("--iterations", "30", "--per-condition-timeout", "60")
    assert got.returncode == 0, got.stdout
    for contract in CONTRACTS:
        line = next(x for x in got.stdout.splitlines() if x.startswith(contract.__name__))
        assert "none found" in line, got.stdout
        # the paths reached positions (a precondition never met would say nothing)
        assert int(line.split("paths")[1].split()[0]) > 0, got.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mutant", "contract", "message"),
    [
        ("escoba-capture-three-drops-card", "cards_conserved", "are nowhere"),
        ("escoba-forced-capture-skipped", "capture_forced", "can capture and is laid"),
    ],
)
def test_crosshair_finds_a_planted_bug(mutant: str, contract: str, message: str) -> None:
    got = crosshair(
        "--plant", mutant, "--contract", contract,
        "--iterations", "150", "--per-condition-timeout", "120",
    )  # fmt: skip
    assert got.returncode == 1, got.stdout
    assert "counterexample" in got.stdout and message in got.stdout, got.stdout
