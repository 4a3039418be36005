"""The explorer against an independent walker, symmetry against no symmetry, broken rules caught.

Every expected number here is computed by `escoba_brute` (written from the book, sharing no code
with the model) and by the Escoba tests' own referee for scores, or follows from a rule changed
on purpose.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from arbitro.model.errors import MalformedInput
from arbitro.model.escoba import ESCOBA, EscobaModel, EscobaState, turn
from arbitro.model.schema import EscobaRules, Sweep
from arbitro.proofs.explore import (
    Result,
    Symmetry,
    deal_order,
    explore_deal,
    explore_deals,
    perft,
)
from arbitro.proofs.explore_config import Config, ConfigError, config_from_data, load_config
from tests.support import escoba_brute as brute
from tests.support.escoba_referee import recount
from tests.support.inline_client import InlineClient


def _finish(r: object, s: brute.Spot) -> tuple[tuple[frozenset[int], ...], tuple[int, ...]]:
    """The hand's end as the book says: the last capturer takes what is left (no escoba)."""
    piles = list(s.piles)
    if s.table and s.last >= 0:
        piles[s.last] = piles[s.last] | s.table
    return tuple(piles), s.escobas


@pytest.mark.parametrize(("name", "seed"), [("escoba-12", 0), ("escoba-12", 3), ("escoba-16", 1)])
def test_counts_and_scores_match_an_independent_walk(name: str, seed: int) -> None:
    """States, terminal states and the score distribution agree with the brute-force walker."""
    c = load_config(name)
    r = c.rules
    order = deal_order(ESCOBA, c, seed)
    seen, ends = brute.reachable(r, brute.deal(r, order, 2))
    finals = {_finish(r, s) for s in ends}
    res = explore_deal(c, seed)
    assert res.states == len(seen) - len(ends) + len(finals)
    assert res.terminal == len(finals)
    want: Counter[tuple[int, ...]] = Counter()
    for piles, escobas in finals:
        pts = recount(r, [set(p) for p in piles], list(escobas))
        want[tuple(sum(p.values()) for p in pts)] += 1
    assert res.scores == want
    assert res.deadlock_count == 0
    assert not res.violations


@pytest.mark.parametrize(("name", "seed", "depth"), [("escoba-16", 2, 6), ("escoba-20", 0, 5)])
def test_perft_matches_the_brute_force_count(name: str, seed: int, depth: int) -> None:
    """Action sequences from a seeded deal, depth by depth, counted both ways."""
    c = load_config(name)
    order = deal_order(ESCOBA, c, seed)
    spot = brute.deal(c.rules, order, 2)
    state = ESCOBA.deal(c.rules, ESCOBA.new_game(c.rules, c.seating), order)
    for d in range(depth + 1):
        assert perft(ESCOBA, c.rules, state, d) == brute.perft(c.rules, spot, d), d


def test_perft_of_the_books_game_matches_at_small_depth() -> None:
    """The full pack, two players: the first four plays."""
    from arbitro.model.schema import rules_for

    r = rules_for("escoba-es")
    seating = ESCOBA.seatings(r)[0]
    order = list(range(40))
    import random

    random.Random(7).shuffle(order)
    state = ESCOBA.deal(r, ESCOBA.new_game(r, seating), order)
    spot = brute.deal(r, order, 2)  # type: ignore[arg-type]
    for d in range(5):
        assert perft(ESCOBA, r, state, d) == brute.perft(r, spot, d)  # type: ignore[arg-type]


def _renamed_orders(c: Config, order: list[int]) -> list[list[int]]:
    """The deal under every renaming of the suits the rules treat alike (oros stays)."""
    alike = [1, 2, 3]
    out = []
    for p in itertools.permutations(alike):
        m = dict(zip(alike, p, strict=True))
        out.append([m.get(x // 10, x // 10) * 10 + x % 10 for x in order])
    return out


@pytest.mark.parametrize(
    ("name", "seed"),
    [("escoba-12", 0), ("escoba-12", 5), pytest.param("escoba-16", 2, marks=pytest.mark.slow)],
)
def test_symmetry_gives_what_every_renamed_deal_gives(name: str, seed: int) -> None:
    """Walking orbits covers exactly the states of all renamed deals, with the same scores."""
    c = load_config(name)
    order = deal_order(ESCOBA, c, seed)
    states: set[object] = set()
    terminal: dict[object, tuple[int, ...]] = {}
    for o in _renamed_orders(c, order):
        todo = [ESCOBA.deal(c.rules, ESCOBA.new_game(c.rules, c.seating), o)]
        while todo:
            s = todo.pop()
            if s in states:
                continue
            states.add(s)
            if s.phase != "play":
                assert s.result is not None
                terminal[s] = s.result.scores
                continue
            todo.extend(ESCOBA.apply(c.rules, s, a) for a in ESCOBA.legal_actions(c.rules, s))
    reduced = explore_deal(c, seed, symmetry=True)
    assert reduced.states == len(states)
    assert reduced.terminal == len(terminal)
    assert reduced.scores == Counter(terminal.values())
    assert reduced.orbits < reduced.states
    assert Symmetry.of(c).letters == ("c", "b", "e")


class TurnKeeper(EscobaModel):
    """Escoba with one transition broken on purpose: a card laid on the table keeps the turn."""

    def apply(self, rules: EscobaRules, state: EscobaState, action: Any) -> EscobaState:  # type: ignore[override]
        after = turn.apply(rules, state, action)
        if action.capture == 0 and after.phase == "play" and after.deal_number == state.deal_number:
            return after._replace(to_move=state.to_move)
        return after


def test_a_transition_that_keeps_the_turn_leaves_a_player_without_a_move() -> None:
    """The broken transition lets a player lay every card and then face an empty hand; the
    witness, replayed through the same broken engine, ends with no legal play."""
    c = load_config("escoba-12")
    broken = TurnKeeper()
    res = explore_deal(c, 0, model=broken)
    assert res.deadlock_count > 0
    w = res.deadlocks[0]
    order = [ESCOBA.parse_card(n) for n in w["transcript"][0]["deals"][0]]
    s = broken.deal(c.rules, broken.new_game(c.rules, c.seating), order)
    for line in w["transcript"][1:]:
        s = broken.apply(c.rules, s, ESCOBA.action_from_json(line["action"]))
    assert s.phase == "play"
    assert broken.legal_actions(c.rules, s) == ()
    assert explore_deal(c, 0).deadlock_count == 0


def test_a_clause_that_can_never_fire_is_reported() -> None:
    """Opening sweeps at a total no four cards reach are never exercised; the book's are."""
    c = load_config("escoba-tiny")
    seeds = range(40)
    book = explore_deals(c, seeds)
    sweep = c.rules.cid("opening_sweeps")
    assert sweep in book.clauses
    never = dataclasses.replace(
        c, rules=dataclasses.replace(c.rules, opening_sweeps=(Sweep(total=99, escobas=1),))
    )
    assert sweep not in explore_deals(never, seeds).clauses


def test_refusals_count_as_exercise() -> None:
    """The forced capture only ever refuses (a lay of a card that could take): it is seen."""
    c = load_config("escoba-16")
    res = explore_deal(c, 0)
    assert c.rules.cid("capture_forced") in res.clauses
    assert c.rules.cid("play_direction") in res.clauses


def _untimed(r: Result) -> dict[str, Any]:
    r.seconds = r.walk_seconds = r.cpu_seconds = 0
    return r.to_json([])


def test_deals_fanned_out_give_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three deals fanned out one task each (to a stand-in client that runs each task here): the
    same merged result as one process. Over real Dask workers: the slow test below."""

    @contextlib.contextmanager
    def inline(scheduler: str | None, workers: int) -> Iterator[InlineClient]:
        yield InlineClient()

    monkeypatch.setattr("arbitro.proofs.explore.dask_client", inline)
    c = load_config("escoba-12")
    one = explore_deals(c, [0, 1, 2])
    assert _untimed(explore_deals(c, [0, 1, 2], workers=2)) == _untimed(one)
    assert one.deals == [0, 1, 2]


@pytest.mark.slow  # the fan-out's code, fast: test_deals_fanned_out_give_the_same_result
def test_deals_fanned_out_over_dask_workers_give_the_same_result() -> None:
    """Two local Dask workers, three deals: the same merged result as one process."""
    pytest.importorskip("dask.distributed")
    c = load_config("escoba-12")
    one = explore_deals(c, [0, 1, 2])
    many = explore_deals(c, [0, 1, 2], workers=2)
    assert _untimed(one) == _untimed(many)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"hand_size": 9}, "hand_size"),
        ({"hand_size": 3, "ranks": ["1", "7", "rey"]}, "hand_size"),
        ({"suits": ["copas", "bastos"]}, "suits"),
        ({"suits": ["oros", "dinero"]}, "suits"),
        ({"capture_sum": 14}, "capture_sum"),
        ({"players": 5}, "players"),
        ({"rulebook": "escoba-xx"}, "rulebook"),
    ],
)
def test_a_bad_configuration_names_the_field(data: dict[str, object], field: str) -> None:
    base: dict[str, object] = {"name": "t", "rulebook": "escoba-es", "ranks": ["1", "7"]}
    with pytest.raises(ConfigError) as e:
        config_from_data({**base, **data}, "t.toml")
    assert e.value.field == field
    assert str(e.value).startswith("t.toml: " + field)


def test_a_configuration_says_it_is_not_the_book() -> None:
    assert "not the book's" in load_config("escoba-16").describe()


class _Facts:
    def __init__(self, bounds: tuple[int, int] | None, reach: frozenset[int] | None) -> None:
        self._b, self._r = bounds, reach

    def bounds(self) -> tuple[int, int] | None:
        return self._b

    def reachable(self) -> frozenset[int] | None:
        return self._r


def test_scores_are_checked_against_proved_facts() -> None:
    """The seam for the proofs: a score outside proved bounds, or not reachable, is reported."""
    from arbitro.proofs.explore import check_scores

    res = explore_deal(load_config("escoba-12"), 0)
    seen = {s for scores in res.scores for s in scores}
    wide = check_scores(res, _Facts((0, 100), frozenset(range(101))))
    assert wide["agrees"]
    narrow = check_scores(res, _Facts((0, max(seen) - 1), None))
    assert narrow["outside_bounds"] == [max(seen)]
    holes = check_scores(res, _Facts(None, frozenset(seen - {min(seen)})))
    assert holes["not_in_reachable_set"] == [min(seen)]
    assert check_scores(res, None)["checked"] is False


def test_states_of_a_smaller_pack_read_back_from_json() -> None:
    """escoba-es:suits, escoba-es:ranks — a partial pack's states and plays keep their JSON."""
    c = load_config("escoba-12")
    graph: dict[str, Any] = {}
    explore_deal(c, 4, graph=graph)
    for node in graph["nodes"]:
        s = ESCOBA.state_from_json(c.rules, node["state"])
        assert ESCOBA.state_to_json(s) == node["state"]
        assert ESCOBA.violations(c.rules, s) == []
    for _, _, action in graph["edges"]:
        assert ESCOBA.action_to_json(ESCOBA.action_from_json(action)) == action
    with pytest.raises(MalformedInput, match="not a card of the 12-card deck"):
        ESCOBA.state_from_json(c.rules, {**graph["nodes"][0]["state"], "table": ["1o"]})
