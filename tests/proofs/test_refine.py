"""`prove --refine`: Escoba's guarded relation against the engine, state by state. It agrees on
every deal of escoba-tiny and on sampled full-size play; it catches an engine broken in one rare
case and a relation built from a broken rule, and its transcript replays in `arbitro check`."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.model.escoba import ESCOBA
from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, rules_for
from arbitro.oracle.check import check_lines
from arbitro.proofs import refine
from arbitro.proofs.escoba.refine import EscobaRefiner
from arbitro.proofs.explore_config import Config, load_config
from tests.support.sizes import sized


class Broken:
    """The Escoba engine with `legal_actions` or `apply` replaced (a bug planted on purpose)."""

    def __init__(
        self,
        legal: Callable[[Any, EscobaState], tuple[Play, ...]] | None = None,
        apply: Callable[[Any, EscobaState, Play], EscobaState] | None = None,
    ) -> None:
        self._legal = legal
        self._apply = apply

    def __getattr__(self, name: str) -> Any:
        return getattr(ESCOBA, name)

    def legal_actions(self, rules: Any, state: EscobaState) -> tuple[Play, ...]:
        if self._legal is not None:
            return self._legal(rules, state)
        return ESCOBA.legal_actions(rules, state)

    def apply(self, rules: Any, state: EscobaState, action: Play) -> EscobaState:
        if self._apply is not None:
            return self._apply(rules, state, action)
        return ESCOBA.apply(rules, state, action)


@functools.cache
def _refiner(rules: EscobaRules, seating: Seating) -> refine.StateCheck:
    """The book's relation for these rules and seating, compiled once for the whole file (the
    engines below are broken, not the relation, so their walks judge with the same one; a test
    that patches how the relation is built builds its own)."""
    return refine.refiner_for(rules, seating)


def _walk(
    cfg: Config, model: Any, deals: int, check: Any = None, deep: int | None = None
) -> refine.Report:
    """The first `deals` deals, each walked whole (or its first `deep` states)."""
    orders, _ = refine.orders_for(model, cfg.rules, cfg.seating, deals)
    return refine.exhaustive(
        model, cfg.rules, cfg.seating, orders, rulebook=cfg.rulebook, config=cfg.name,
        check=check or _refiner(cfg.rules, cfg.seating), max_states=deep,
    )  # fmt: skip


@pytest.mark.slow  # the same walk, fast: test_the_cli_reports_agreement_and_exit_status
def test_every_deal_of_escoba_tiny_agrees() -> None:
    """8 cards: 2 to each of two players and 4 to the table, so 8!/(2!·2!·4!) = 420 deals."""
    cfg = load_config("escoba-tiny")
    orders, how = refine.orders_for(ESCOBA, cfg.rules, cfg.seating, None)
    assert how == "every deal"
    rep = refine.exhaustive(
        ESCOBA, cfg.rules, cfg.seating, orders, rulebook=cfg.rulebook, config=cfg.name
    )
    assert rep.deals == 420
    assert rep.ok, rep.first
    assert rep.states >= rep.deals


def test_escoba_12_agrees_on_its_first_deals() -> None:
    cfg = load_config("escoba-12")
    deals = sized(8, 20)
    rep = _walk(cfg, ESCOBA, deals)
    assert rep.ok, rep.first
    assert rep.deals == deals and rep.states > deals


@pytest.mark.slow
def test_sampled_full_size_play_agrees_with_two_players() -> None:
    rules = rules_for("escoba-es")
    check = _refiner(rules, Seating(2, 2))
    states = sized(100, 300)
    rep = refine.sampled(ESCOBA, rules, Seating(2, 2), states, rulebook="escoba-es", check=check)
    assert rep.ok, rep.first
    assert rep.states == states


@pytest.mark.slow
def test_sampled_full_size_play_agrees_in_every_seating() -> None:
    rules = rules_for("escoba-es")
    for seating in ESCOBA.seatings(rules):
        rep = refine.sampled(ESCOBA, rules, seating, 300, rulebook="escoba-es")
        assert rep.ok, (seating, rep.first)
        assert rep.states == 300


# ---------------------------------------------------------------- broken engines are caught


def _lay_anything(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """`apply` that lays a card even where the book forces a capture (the engine's own code for
    a play already known legal)."""
    from arbitro.model.escoba import cards, turn

    return turn.play_unchecked(rules, cards.tables(rules), state, action)


def _lay_despite_capture(rules: Any, state: EscobaState) -> tuple[Play, ...]:
    """Forced capture skipped in one case: a 7 that could capture may also be laid."""
    plays = ESCOBA.legal_actions(rules, state)
    extra = [
        Play(p.seat, p.card, 0)
        for p in plays
        if p.capture and p.card % 10 == 6 and Play(p.seat, p.card, 0) not in plays
    ]
    return tuple(sorted({*plays, *extra}))


def _no_three_card_captures(rules: Any, state: EscobaState) -> tuple[Play, ...]:
    """A capture of three table cards or more is never offered."""
    return tuple(p for p in ESCOBA.legal_actions(rules, state) if p.capture.bit_count() < 3)


def _drop_a_card_in_big_captures(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """In a capture of three table cards, the lowest one is lost instead of captured."""
    after = ESCOBA.apply(rules, state, action)
    if action.capture.bit_count() < 3 or after.phase != "play":
        return after
    low = action.capture & -action.capture
    side = action.seat % state.sides
    piles = list(after.piles)
    piles[side] &= ~low
    return after._replace(piles=tuple(piles))


def _escoba_not_counted(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """Clearing the table scores no escoba."""
    after = ESCOBA.apply(rules, state, action)
    if action.capture and after.escobas != state.escobas and after.phase == "play":
        return after._replace(escobas=state.escobas)
    return after


def _rest_to_the_wrong_side(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """At the end, the table's rest goes to the side after the one that captured last."""
    after = ESCOBA.apply(rules, state, action)
    if after.phase == "play" or after.last_capturer < 0:
        return after
    taker = after.last_capturer
    played = action.capture | 1 << action.card if action.capture else 0
    rest = after.piles[taker] & ~state.piles[taker] & ~played
    if not rest:
        return after
    piles = list(after.piles)
    piles[taker] &= ~rest
    piles[(taker + 1) % state.sides] |= rest
    return after._replace(piles=tuple(piles))


def _tie_to_the_first_side(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """A cards category tied between the sides gives its point to side 0 (the book: nobody)."""
    after = ESCOBA.apply(rules, state, action)
    if after.phase == "play" or after.last_points is None:
        return after
    if any(p[0] for p in after.last_points):
        return after
    first = (rules.cards_points, *after.last_points[0][1:])
    points = (first, *after.last_points[1:])
    scores = (after.scores[0] + rules.cards_points, *after.scores[1:])
    return after._replace(last_points=points, scores=scores)


def _exactly_on_target_plays_on(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """A side exactly on the target score, alone in front, does not end the game."""
    after = ESCOBA.apply(rules, state, action)
    if after.phase == "over" and max(after.scores) == rules.target_score:
        return after._replace(phase="deal")
    return after


# a capture of three table cards is a move of a hand's first turns: escoba-16's deals are walked
# 500 states deep each, not whole (a whole deal of it has thousands)
@pytest.mark.parametrize(
    ("broken", "config", "kind", "deep"),
    [
        (Broken(apply=_tie_to_the_first_side), "escoba-12", "successor", None),
        (Broken(legal=_lay_despite_capture, apply=_lay_anything), "escoba-12", "enabled", None),
        (Broken(legal=_no_three_card_captures), "escoba-16", "enabled", 500),
        (Broken(apply=_drop_a_card_in_big_captures), "escoba-16", "successor", 500),
        (Broken(apply=_escoba_not_counted), "escoba-12", "successor", None),
        (Broken(apply=_rest_to_the_wrong_side), "escoba-12", "successor", None),
    ],
    ids=["tie-scored", "forced-capture-skipped", "three-card-capture-missing", "card-dropped",
         "escoba-uncounted", "rest-misdirected"],
)  # fmt: skip
def test_a_broken_engine_is_caught(
    broken: Broken, config: str, kind: str, deep: int | None
) -> None:
    cfg = load_config(config)
    rep = _walk(cfg, broken, 30, deep=deep)
    assert rep.first is not None, "the planted bug went unnoticed"
    assert rep.first.kind == kind, rep.first


class BrokenDeal:
    """The Escoba engine with its opening deal changed after the fact (a bug planted)."""

    def __init__(self, change: Callable[[EscobaState], EscobaState]) -> None:
        self._change = change

    def __getattr__(self, name: str) -> Any:
        return getattr(ESCOBA, name)

    def deal(self, rules: Any, state: EscobaState, order: Any) -> EscobaState:
        return self._change(ESCOBA.deal(rules, state, order))


def _sweep_to_the_other_side(s: EscobaState) -> EscobaState:
    side = s.dealer % s.sides
    if not s.escobas[side]:
        return s
    other = (side + 1) % s.sides
    piles, escobas = list(s.piles), list(s.escobas)
    piles[other], piles[side] = piles[side], 0
    escobas[other], escobas[side] = escobas[side], 0
    return s._replace(piles=tuple(piles), escobas=tuple(escobas), last_capturer=other)


def _double_sweep_scores_one(s: EscobaState) -> EscobaState:
    return s._replace(escobas=tuple(min(e, 1) for e in s.escobas))


def _stock_starts_early(s: EscobaState) -> EscobaState:
    if not s.table or not s.stock:
        return s
    low = (s.table & -s.table).bit_length() - 1
    return s._replace(stock=(low, *s.stock[:-1]))


@pytest.mark.parametrize(
    ("change", "config"),
    [
        (_sweep_to_the_other_side, "escoba-tiny"),
        (_double_sweep_scores_one, "escoba-tiny"),
        (_stock_starts_early, "escoba-12"),
    ],
    ids=["sweep-to-the-wrong-side", "double-sweep-scores-one", "stock-overlaps-the-table"],
)
def test_a_broken_deal_is_caught(change: Callable[[EscobaState], EscobaState], config: str) -> None:
    """escoba-tiny's tables of 5, 5, rey, rey are worth 30: two escobas to the dealer's side."""
    cfg = load_config(config)
    rep = _walk(cfg, BrokenDeal(change), 30)
    assert rep.first is not None, "the planted bug went unnoticed"
    assert rep.first.kind == "invariant", rep.first


def test_a_game_that_does_not_end_on_the_target_is_caught() -> None:
    """escoba-tiny played to a target of 3 (a hand scores up to 7 there): a side exactly on 3
    and alone in front has won (escoba-es:target-score)."""
    cfg = load_config("escoba-tiny")
    three = dataclasses.replace(cfg, rules=dataclasses.replace(cfg.rules, target_score=3))
    assert _walk(three, ESCOBA, 60).ok
    rep = _walk(three, Broken(apply=_exactly_on_target_plays_on), 60)
    assert rep.first is not None and rep.first.kind == "successor", rep.first
    assert "target" in rep.first.detail


def test_a_game_end_encoding_off_the_engine_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand-end row evaluates the game-end encoding `book-numbers` proves the target of
    (`proofs/escoba/game_end.over`): an encoding that asks for more than the target (a side
    exactly on it plays on) disagrees with the book's engine where a side lands exactly on 3."""
    from arbitro.proofs.escoba import game_end
    from arbitro.proofs.terms import Evaluator, all_of, any_of

    def strict(rules: EscobaRules, sides: int) -> Evaluator:
        xs = game_end.totals(sides)
        t = rules.target_score
        over = any_of(
            (x > t) & all_of(x > y for j, y in enumerate(xs) if j != i) for i, x in enumerate(xs)
        )
        return Evaluator([over], [f"side {i} total" for i in range(sides)])

    cfg = load_config("escoba-tiny")
    three = dataclasses.replace(cfg, rules=dataclasses.replace(cfg.rules, target_score=3))
    monkeypatch.setattr(game_end, "evaluator", strict)
    # a relation built under the patch, not the file's shared one
    rep = _walk(three, ESCOBA, 60, check=refine.refiner_for(three.rules, three.seating))
    assert rep.first is not None and rep.first.kind == "successor", rep.first
    assert "target 3" in rep.first.detail


@pytest.mark.slow  # the same bug caught fast: test_a_game_that_does_not_end_on_the_target_is_caught
def test_sampled_play_ends_games_and_catches_one_that_does_not_end_on_the_target() -> None:
    """Full-size play starts some hands near the game's end (`escoba/refine.start`), so sampled
    hands end games: a side exactly on escoba-es' 21 and alone in front has won
    (escoba-es:target-score). The transcript starts the game at those totals and replays."""
    rules = rules_for("escoba-es")
    seating = Seating(2, 2)
    assert refine.sampled(ESCOBA, rules, seating, 1000, rulebook="escoba-es").ok
    broken = Broken(apply=_exactly_on_target_plays_on)
    rep = refine.sampled(broken, rules, seating, 1000, rulebook="escoba-es")
    assert rep.first is not None and rep.first.kind == "successor", rep.first
    assert "target 21" in rep.first.detail
    head = rep.transcript[0]
    assert isinstance(head["scores"], list) and max(head["scores"]) < 21
    verdict = check_lines([json.dumps(t) for t in rep.transcript])
    assert verdict.status == "incomplete", verdict  # replayed to its last line, no hand claimed


# ---------------------------------------------------------------- broken rules in the relation


def _relation_of(rules: EscobaRules, seating: Seating) -> EscobaRefiner:
    return EscobaRefiner(rules, seating)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"capture_forced": False}, "laid"),
        ({"capture_sum": 14}, "takes"),
    ],
)
def test_a_relation_from_a_broken_rule_disagrees_and_check_replays_it(
    change: dict[str, Any], words: str
) -> None:
    """The relation built from a changed rule (the engine plays the book): the walk stops at the
    first state where they part, and `arbitro check` replaying its transcript reports the same
    difference as a legal-mismatch at the last step."""
    cfg = load_config("escoba-12")
    wrong = dataclasses.replace(cfg.rules, **change)
    rep = _walk(cfg, ESCOBA, 30, check=_relation_of(wrong, cfg.seating))
    assert rep.first is not None and rep.first.kind == "enabled"
    assert words in rep.first.detail
    lines = [json.dumps(t) for t in rep.transcript]
    verdict = check_lines(lines)
    assert verdict.status == "legal-mismatch", verdict
    assert verdict.step == len(rep.transcript) - 1


@pytest.mark.slow
def test_the_cli_reports_agreement_and_exit_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["prove", "--refine", "--config", "escoba-tiny"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "AGREE" in out and "escoba-tiny (every deal: 420)" in out


def test_the_cli_refuses_bad_refine_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prove", "--refine", "--config", "nosuch"]) == 2
    assert "no such configuration" in capsys.readouterr().err
    assert main(["prove", "--refine", "--deals", "0"]) == 2
    assert "--deals must be at least 1" in capsys.readouterr().err


def _velo_double_past_thirty(rules: Any, state: EscobaState, action: Play) -> EscobaState:
    """The seven of coins scores two for a side holding more than 30 cards (the book: one)."""
    after = ESCOBA.apply(rules, state, action)
    if after.phase == "play" or after.last_points is None:
        return after
    points, scores = list(after.last_points), list(after.scores)
    for side, p in enumerate(after.piles):
        if p.bit_count() > 30 and points[side][2]:
            points[side] = (*points[side][:2], 2 * points[side][2], *points[side][3:])
            scores[side] += points[side][2] // 2
    return after._replace(last_points=tuple(points), scores=tuple(scores))


@pytest.mark.slow
def test_the_kept_hands_agree_and_catch_a_broken_engine() -> None:
    """The kept hand-score hands (a side taking all 40 cards, fourteen escobas, among them)
    walked state by state: the book's engine agrees; one scoring the velo twice past 30 cards
    is caught there."""
    rules = rules_for("escoba-es")
    seating = Seating(2, 2)
    check = _refiner(rules, seating)
    rep = refine.directed(ESCOBA, rules, seating, rulebook="escoba-es", target="kept", check=check)
    assert rep is not None and rep.ok, rep and rep.first
    assert rep.deals >= 19 and rep.states >= 19 * 36
    broken = Broken(apply=_velo_double_past_thirty)
    bad = refine.directed(broken, rules, seating, rulebook="escoba-es", target="kept", check=check)
    assert bad is not None and bad.first is not None and bad.first.kind == "successor"
