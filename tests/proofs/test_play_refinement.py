"""Refinement: every step of random play satisfies the encoded relations, and every hand's score
is the encoding's.

Hands are played through the model's `GameModel` methods (uniformly at random, and by a player
that melds eagerly so that canastas and going out occur). Each step — state, action, next state,
read through the protocol's JSON — must satisfy every effect and guard of the relations it goes
through; each deal the deal relation; and each finished hand, read into the score encoding, must
satisfy the encoding's facts (so its score lies within the proved bounds) and give exactly the
model's points in every category. A disagreement fails naming the move and the clause.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arbitro.proofs.facts import FactChecker
from arbitro.proofs.rummy import abstract, score
from arbitro.proofs.rummy.scoring import card_unit
from arbitro.proofs.terms import Evaluator
from tests.support.proofs import RUMMY_BOOKS, hands, model, rummy
from tests.support.quick import first_of_each

# readings that change how cards move or score, played besides each book's defaults
READINGS = {
    "samba-en": [{"red_three_initial_replacement": "on-turn"}, {"pile_rest_after_opening": "canasta-practice"}],
    "samba-es": [{"several_sets_same_rank": "several", "merge_sets": "merge"}],
    "samba-fr": [{"wild_cap": "ratio-only"}, {"draw_short_stock": "hand-ends"}],
    "canasta-es": [{"stock_out": "take-pile"}, {"clean_by_replacing_wilds": "canastas-only"}],
}  # fmt: skip


def play_and_check(book: str, options: dict[str, Any], per_seating: int, layouts: int, seed: int, eager: bool) -> Counter[str]:  # fmt: skip
    r = rummy(book, **options)
    m = model(book)
    ck = abstract.Checker(r)
    for seat, steps, _ in hands(book, r, list(m.seatings(r))[:layouts], per_seating, seed, eager):
        if steps:
            first = m.state_to_json(steps[0][0])
            lay = next(x for x in r.layouts if x.name == seat.layout)
            status = abstract.deal_consistent(r, lay, first)
            assert status == "sat", f"{book} {options}: no deal the relation allows gives {first}"
        for before, action, after in steps:
            pre, act, post = (
                m.state_to_json(before),
                m.action_to_json(action),
                m.state_to_json(after),
            )
            bad = abstract.step_checks(ck, pre, act, post)
            assert not bad, f"{book} {options}: {act} breaks {[str(b) for b in bad]}"
    return ck.seen


# a quick run plays one book; CI plays the four
@pytest.mark.parametrize("book", first_of_each(RUMMY_BOOKS))
def test_every_step_of_random_play_is_an_encoded_move(book: str) -> None:
    seen = play_and_check(book, {}, 1, 2, seed=1, eager=False)
    seen += play_and_check(book, {}, 1, 2, seed=2, eager=True)
    # the moves every book has were exercised, so the test could have failed on them
    for move in ("draw", "discard", "turn-start", "lay", "add", "finish-opening"):
        assert seen[move] > 0, f"{book}: no {move} was played"
    assert any(k.startswith("take-pile") for k in seen)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("book", "options"), [(b, o) for b in RUMMY_BOOKS for o in [{}, *READINGS[b]]]
)
def test_every_step_every_layout_and_reading(book: str, options: dict[str, Any]) -> None:
    play_and_check(book, options, 2, 99, seed=3, eager=False)
    play_and_check(book, options, 2, 99, seed=4, eager=True)


def test_a_deal_that_loses_a_card_is_caught() -> None:
    """The same check on a doctored deal: a card of the stock vanishes."""
    r = rummy("canasta-es")
    m = model("canasta-es")
    seat = next(iter(m.seatings(r)))
    for _, steps, _ in hands("canasta-es", r, [seat], 1, seed=6, eager=False):
        first = m.state_to_json(steps[0][0])
        lay = next(x for x in r.layouts if x.name == seat.layout)
        assert abstract.deal_consistent(r, lay, first) == "sat"
        first["stock"] = first["stock"][1:]
        assert abstract.deal_consistent(r, lay, first) == "unsat"


def test_a_step_that_loses_a_card_is_caught() -> None:
    """The same check on a doctored step: the card discarded vanishes instead of reaching the
    pile. The relation names what broke."""
    r = rummy("samba-en")
    m = model("samba-en")
    ck = abstract.Checker(r)
    for _, steps, _ in hands("samba-en", r, list(m.seatings(r)), 1, seed=5, eager=False):
        for before, action, after in steps:
            act = m.action_to_json(action)
            if act["type"] == "discard" and m.phase(after) == "play":
                post = m.state_to_json(after)
                post["pile"] = post["pile"][:-1]
                bad = abstract.step_checks(ck, m.state_to_json(before), act, post)
                assert bad and any("discard" in str(b) or "turn-start" in str(b) for b in bad)
                return
    pytest.fail("no discard was played")


def score_checkers(book: str, options: dict[str, Any]) -> tuple[Any, Any, FactChecker, Evaluator, list[str]]:  # fmt: skip
    r = rummy(book, **options)
    cfg = score.config(r)
    names = cfg.unknowns()
    return r, cfg, FactChecker(cfg.facts.items, names), Evaluator(list(cfg.categories.values()), names), names  # fmt: skip


def check_hand_scores(book: str, options: dict[str, Any], per_seating: int, layouts: int, seed: int) -> Counter[str]:  # fmt: skip
    r, cfg, fc, ev, names = score_checkers(book, options)
    m = model(book)
    unit = card_unit(r)
    scored: Counter[str] = Counter()
    for seat, _, end in hands(
        book, r, list(m.seatings(r))[:layouts], per_seating, seed, eager=True
    ):
        res = m.last_hand(end)
        if res is None:
            continue
        state = m.state_to_json(end)
        index = next(i for i, g in enumerate(cfg.seatings) if seat.layout in g.names)
        for side in range(seat.sides):
            v = abstract.config_values(cfg, state, side, index)
            values = [v.get(n, 0) for n in names]
            broken = fc.failing(values)
            assert not broken, (
                f"{book}: a finished hand the encoding excludes: {[f.note for f in broken]}"
            )
            mine = dict(zip(cfg.categories, (int(x) for x in ev(values)), strict=True))
            assert mine == dict(res.categories[side]), (
                f"{book} side {side}: encoding {mine}, model {dict(res.categories[side])}"
            )
            assert res.scores[side] % unit == 0
            scored.update(k for k, x in mine.items() if x)
            scored[res.reason] += 1
    return scored


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_every_hand_score_is_the_encodings(book: str) -> None:
    scored = check_hand_scores(book, {}, 3, 2, seed=7)
    assert scored["went-out"] > 0
    for category in ("melds", "hand", "canastas", "red-threes", "going-out"):
        assert scored[category] > 0, f"{book}: no hand scored {category}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("book", "options"), [(b, o) for b in RUMMY_BOOKS for o in [{}, *READINGS[b]]]
)
def test_every_hand_score_every_layout(book: str, options: dict[str, Any]) -> None:
    check_hand_scores(book, options, 4, 99, seed=8)


def test_a_hand_scored_differently_is_caught() -> None:
    """A score encoding with one wrong value disagrees with the model on some hand."""
    import dataclasses

    r = rummy("canasta-es")
    wrong = dataclasses.replace(r, bonus_going_out=150)
    cfg = score.config(wrong)
    names = cfg.unknowns()
    ev = Evaluator(list(cfg.categories.values()), names)
    m = model("canasta-es")
    for seat, _, end in hands("canasta-es", r, list(m.seatings(r))[:1], 6, seed=9, eager=True):
        res = m.last_hand(end)
        if res is None or res.reason != "went-out":
            continue
        state = m.state_to_json(end)
        side = int(state["seat"]) % seat.sides
        v = abstract.config_values(cfg, state, side, 0)
        mine = dict(
            zip(cfg.categories, (int(x) for x in ev([v.get(n, 0) for n in names])), strict=True)
        )
        assert mine["going-out"] == 150 != res.categories[side]["going-out"]
        return
    pytest.fail("no hand was won by going out")


_ = random


@pytest.mark.slow
@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_hand_scores_lie_within_the_proved_bounds(book: str) -> None:
    """The bounds `score-bounds` proves, against the scores of eagerly played hands."""
    from arbitro.proofs.rummy import scoring
    from arbitro.proofs.verdict import Verdict

    r = rummy(book)
    res = scoring.bounds(r, 60)
    assert res.verdict is Verdict.PROVED
    bounds = res.values["bounds"]
    m = model(book)
    for _, _, end in hands(book, r, list(m.seatings(r))[:2], 4, seed=12, eager=True):
        hand = m.last_hand(end)
        if hand is None:
            continue
        for side, cats in enumerate(hand.categories):
            for cat, points in cats.items():
                lo, hi = bounds[cat]
                assert lo <= points <= hi, f"{book}: {cat} {points} outside {lo}..{hi}"
            lo, hi = bounds["total"]
            assert lo <= hand.scores[side] <= hi


@pytest.mark.slow
def test_a_bound_proved_past_the_best_found_contains_the_optimum() -> None:
    """Where an optimum is left open, `score-bounds` states the best configuration found and a
    bound proved past it. Started from a value short of canasta-es' greatest and least hand
    scores (each proved optimal here by the solver's own search), the bound lands at or past the
    optimum — never inside what a configuration reaches."""
    from arbitro.proofs import smt
    from arbitro.proofs.rummy import scoring

    r = rummy("canasta-es")
    cfg = score.config(r)
    problem = smt.Problem(cfg.facts.items, [cfg.score])
    unit = card_unit(r)
    for maximise in (True, False):
        opt = problem.optimum(cfg.score, maximise=maximise, timeout=600)
        assert opt.status == "proved" and opt.value is not None
        short = opt.value - 1000 if maximise else opt.value + 1000
        bound = scoring._ceiling(problem, cfg.score, maximise, short, unit, 600)
        assert bound is not None
        assert bound >= opt.value if maximise else bound <= opt.value
