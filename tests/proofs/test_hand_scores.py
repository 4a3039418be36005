"""Property `hand-scores`: the exact set of a side's Escoba hand scores per seating.

The expected sets come from the book's clauses by counting, not from the search: four
categories of 1 point (cards, oros, velo, setenta) and 1 point an escoba. Every escoba takes
cards worth 15 and the pack is worth 4 x (1 + ... + 10) = 220 = 14 x 15 + 10, so at most 14
escobas a hand, all sides together. The hand's last play is never an escoba: the table after it
is worth 220 less a multiple of 15, never 0. The dealer plays last and may score two escobas at
the deal (an opening table worth 30). So:

- 2 players: 14 escobas at most (the pack), 4 + 14 = 18;
- 3 players: the dealer plays 12 cards, the last no escoba: 11 + 2 = 13 (the others: 12), so 17;
- 4 players each alone: the dealer plays 9 cards: 8 + 2 = 10, so 14;
- 4 players in teams: 18 cards a side, the pack's 14 binds: 18.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from arbitro.model.escoba import ESCOBA
from arbitro.model.game import HandResult
from arbitro.model.schema import EscobaRules, rules_for
from arbitro.oracle.check import check_lines
from arbitro.proofs import refine
from arbitro.proofs.escoba import hand_scores as H
from arbitro.proofs.explore_config import load_config
from arbitro.proofs.verdict import Verdict

BOOK = rules_for("escoba-es")
assert isinstance(BOOK, EscobaRules)
TOP = {"scores/2": 18, "scores/3": 17, "scores/4": 14, "scores/4t": 18}


@pytest.fixture(scope="module")
def result() -> Any:
    return H.run(BOOK, 30.0, search=False)


@pytest.mark.slow
def test_the_book_s_hand_scores_are_exactly_zero_to_the_counted_top(result: Any) -> None:
    assert result.verdict is Verdict.PROVED
    for check in result.checks:
        assert check.verdict is Verdict.PROVED, check.reason
        assert check.values["scores"] == list(range(TOP[check.name] + 1)), check.name


def test_every_kept_hand_replays_in_arbitro_check() -> None:
    kept = H.stored("escoba-es")
    assert {(w.players, w.sides) for w in kept} == {(2, 2), (3, 3), (4, 4), (4, 2)}
    for w in kept[:: max(1, len(kept) // 8)]:
        again = H.replay(BOOK, w.players, w.sides, w.dealer, w.order, w.plays)
        lines = again.transcript(BOOK)
        assert lines[-1]["scores"][0] == w.scores[0]
        # one hand of a game played to 21: every play legal and the hand line's scores the
        # referee's own, the game unfinished
        report = check_lines([json.dumps(x) for x in lines])
        assert (report.status, report.hands, report.mismatches) == ("incomplete", 1, []), report
        lines[-1]["scores"][0] += 1
        assert check_lines([json.dumps(x) for x in lines]).status == "score-mismatch"


def test_the_search_is_the_engine_s_most_on_every_deal_of_escoba_tiny() -> None:
    """Every deal of escoba-tiny (8 cards) played out every way in the engine, against the
    search's most escobas; and the search with a bound one too tight falls short, so the
    comparison can fail."""
    cfg = load_config("escoba-tiny")
    orders, _ = refine.orders_for(ESCOBA, cfg.rules, cfg.seating, None)
    most = 0
    for order in orders:
        for dealer in range(cfg.seating.players):
            state = ESCOBA.deal(cfg.rules, ESCOBA.new_game(cfg.rules, cfg.seating, dealer), order)
            most = max(most, _engine_most(cfg.rules, state))
    found = H.most_escobas(cfg.rules, cfg.seating.players, cfg.seating.sides)
    assert found.proved and found.value == most
    tight = H._Game.bound

    def too_tight(self: Any, pool: Any, table: Any, t: int) -> int:
        return tight(self, pool, table, t) - 1

    H._Game.bound = too_tight  # type: ignore[method-assign]
    try:
        again = H.most_escobas.__wrapped__(cfg.rules, cfg.seating.players, cfg.seating.sides)
        assert again.value < most
    finally:
        H._Game.bound = tight  # type: ignore[method-assign]


def _engine_most(rules: Any, state: Any) -> int:
    if ESCOBA.phase(state) != "play":
        result = ESCOBA.last_hand(state)
        assert result is not None
        return int(result.categories[0]["escobas"])
    return max(
        _engine_most(rules, ESCOBA.apply(rules, state, a))
        for a in ESCOBA.legal_actions(rules, state)
    )


class EscobasTwice:
    """The Escoba engine with a bug planted: a hand's escobas are scored twice."""

    def __getattr__(self, name: str) -> Any:
        return getattr(ESCOBA, name)

    def last_hand(self, state: Any) -> HandResult | None:
        real = ESCOBA.last_hand(state)
        if real is None:
            return None
        cats = tuple({**c, "escobas": 2 * c["escobas"]} for c in real.categories)
        return HandResult(real.reason, tuple(sum(c.values()) for c in cats), cats)


def test_an_engine_that_counts_escobas_twice_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "_engine", EscobasTwice)
    out = H.run(BOOK, 30.0, search=False)
    assert out.verdict is Verdict.REFUTED
    bad = next(c for c in out.checks if c.verdict is Verdict.REFUTED)
    assert bad.witness is not None and "above the" in bad.witness.text


@pytest.mark.slow
def test_a_changed_score_value_changes_the_set_and_refutes_the_engine_s_hands() -> None:
    """The relation counting escobas at 0 points while the engine plays the book's 1: the
    engine's hands score above what the relation allows."""
    zero = dataclasses.replace(BOOK, escoba_points=0)
    out = H.run(BOOK, 30.0, search=False, relation=zero)
    assert out.verdict is Verdict.REFUTED
    assert all(c.values["top"] == 4 for c in out.checks)


@pytest.mark.slow
def test_the_rest_counted_as_an_escoba_raises_the_most() -> None:
    """*:rest-is-escoba turned on: the last capturer's rest (never empty: 220 is no multiple of
    15) is one more escoba, so two players reach 15."""
    on = dataclasses.replace(BOOK, rest_is_escoba=True)
    assert H.most_escobas(on, 2, 2).value == 15
    assert H.most_escobas(BOOK, 2, 2).value == 14


def test_the_relation_s_proof_of_the_most_escobas_runs_by_default_and_the_search_by_name() -> None:
    """`prove` runs `most-escobas` (the most escobas unsat on the guarded relation) by default,
    and score-bounds takes its most from the same proof (one job: proved once); the exhaustive
    search (`hand-scores`) and table-ceiling are asked for by name."""
    from arbitro.proofs.runner import TOGETHER, check_properties

    assert "most-escobas" in check_properties(None)
    assert "hand-scores" not in check_properties(None)
    assert "table-ceiling" not in check_properties(None)
    assert check_properties(["hand-scores"]) == ["hand-scores"]
    assert any({"score-bounds", "most-escobas"} <= set(g) for g in TOGETHER)


@pytest.mark.slow
def test_on_the_relation_the_book_s_sets_are_exact_and_an_engine_counting_twice_is_refuted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the most escobas unsat above on the guarded relation (`most-escobas`): the book's
    sets, and the engine scoring escobas twice scores its kept 14-escoba hand above 18."""
    out = H.run(BOOK, 600.0, search=False, solver=True)
    assert out.verdict is Verdict.PROVED, [c.reason for c in out.checks]
    for check in out.checks:
        assert check.values["scores"] == list(range(TOP[check.name] + 1)), check.name
    monkeypatch.setattr(H, "_engine", EscobasTwice)
    bad = H.run(BOOK, 600.0, search=False, solver=True)
    assert bad.verdict is Verdict.REFUTED
    wit = next(c.witness for c in bad.checks if c.verdict is Verdict.REFUTED)
    assert wit is not None and "above the" in wit.text


FOURTEEN = dataclasses.replace(BOOK, rulebook="escoba-es-fourteen", capture_sum=14)
"""The spec mutant `escoba-es-capture-sum`: a capture makes 14, under an id of its own."""


def test_hands_kept_for_another_book_are_tried_only() -> None:
    """A spec of one's own (another id) is given the kept hands to try; the book is not."""
    kept = H.stored("escoba-es")
    assert not H.stored("escoba-es", other=True)
    assert not H.stored("my-escoba")
    assert len(H.stored("my-escoba", other=True)) == len(kept)


def test_under_a_capture_sum_of_14_hands_are_found_up_to_the_pack_s_bound() -> None:
    """No kept hand replays under a capture sum of 14 (the first capture of 15 is refused), so
    hands are sought count by count: up to 220 // 14 = 15 escobas for two players (the pack's
    worth bounds the captures), each replayed by the changed engine and refused by the book's."""
    got = H.reach(FOURTEEN, 2, 2)
    assert max(w.escobas for w in got.values()) == 220 // 14
    w = max(got.values(), key=lambda x: x.escobas)
    assert H.replay(FOURTEEN, 2, 2, w.dealer, w.order, w.plays).scores == w.scores
    with pytest.raises(H.ReplayError):
        H.replay(BOOK, 2, 2, w.dealer, w.order, w.plays)


def test_the_search_cut_short_proves_no_most() -> None:
    """The exhaustive search has a budget over all its counts: spent, the most is not proved
    (the seating UNKNOWN), never taken from the hands found so far."""
    m = H.most_escobas(BOOK, 2, 2, total=1_000)
    assert not m.proved and "1,000 states spent" in m.reason
    assert H.most_escobas(BOOK, 2, 2, total=H.SEARCH_TOTAL).value == 14
