"""Refinement for Escoba: random play satisfies the encoded moves, scores are the encoding's,
and the hands that show what a hand can leave on the table are legal and leave it.

The hands kept by `arbitro.proofs.escoba.search` are checked twice: replayed through the model,
and by the small referee below, written from the book's rules without the model: a capture takes
cards worth 15 with the card played, a card that can take something must, a card laid could take
nothing.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from arbitro.model.escoba import score_piles
from arbitro.proofs.escoba import abstract, scoring, search
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.facts import FactChecker
from arbitro.proofs.terms import Evaluator
from tests.support.proofs import escoba, hands, model
from tests.support.quick import first_of_each
from tests.support.sizes import sized

VARIANTS = {
    "variant_cards_double": True,
    "variant_oros_all": True,
    "variant_sevens_all": True,
}


# a quick run plays the default readings; CI plays the other reading too
@pytest.mark.parametrize("options", first_of_each([{}, {"rest_without_capturer": "dealer"}]))
def test_every_play_is_an_encoded_move(options: dict[str, Any]) -> None:
    r = escoba(**options)
    m = model("escoba-es")
    ck = abstract.Checker(r)
    for _, steps, _ in hands("escoba-es", r, list(m.seatings(r)), 3, seed=1):
        first = m.state_to_json(steps[0][0])
        assert abstract.deal_checks(r, first) == []
        for before, play, after in steps:
            bad = abstract.step_checks(
                ck, m.state_to_json(before), m.action_to_json(play), m.state_to_json(after)
            )
            assert not bad, f"{m.action_to_json(play)} breaks {bad}"
    for move in ("lay", "capture", "redeal/2", "redeal/4", "rest/pile"):
        assert ck.seen.get(move, 0) > 0, f"no {move} was played"


def test_a_play_that_keeps_the_card_is_caught() -> None:
    r = escoba()
    m = model("escoba-es")
    ck = abstract.Checker(r)
    for _, steps, _ in hands("escoba-es", r, list(m.seatings(r))[:1], 1, seed=2):
        before, play, after = steps[0]
        post = m.state_to_json(after)
        post["hands"][int(m.action_to_json(play)["seat"])].append(m.action_to_json(play)["card"])
        assert abstract.step_checks(ck, m.state_to_json(before), m.action_to_json(play), post)


def encoding(options: dict[str, Any]) -> tuple[Any, Any, FactChecker, Evaluator, list[str]]:
    r = escoba(**options)
    cfg = scoring.config(r)
    names = cfg.unknowns()
    return r, cfg, FactChecker(cfg.facts.items, names), Evaluator(list(cfg.categories.values()), names), names  # fmt: skip


def admitted(cfg: Any, fc: FactChecker, ev: Evaluator, names: list[str], state: dict[str, Any], side: int) -> dict[str, int] | None:  # fmt: skip
    """The encoding's categories for a finished hand's side, if some split of its escobas
    between play and an opening sweep satisfies the encoding."""
    for v in abstract.escoba_splits(abstract.config_values(cfg, state, side)):
        values = [v.get(n, 0) for n in names]
        if not fc.failing(values):
            return dict(zip(cfg.categories, (int(x) for x in ev(values)), strict=True))
    return None


@pytest.mark.parametrize("options", [{}, VARIANTS, {"setenta_missing_suit": "lowest"}])
def test_every_hand_score_is_the_encodings(options: dict[str, Any]) -> None:
    r, cfg, fc, ev, names = encoding(options)
    m = model("escoba-es")
    for seat, _, end in hands("escoba-es", r, list(m.seatings(r)), 4, seed=3):
        res = m.last_hand(end)
        assert res is not None
        state = m.state_to_json(end)
        for side in range(seat.sides):
            mine = admitted(cfg, fc, ev, names, state, side)
            assert mine == dict(res.categories[side]), (state["piles"], res.categories)


PILE_OPTIONS = [{}, VARIANTS, {"setenta_missing_suit": "lowest"}, {**VARIANTS, "variant_cards_double_rule": "together"}]  # fmt: skip


# a quick run scores under the first readings; CI under each
@pytest.mark.parametrize("options", first_of_each(PILE_OPTIONS))
def test_the_scoring_of_any_piles_is_the_encodings(options: dict[str, Any]) -> None:
    """Random, often lopsided, shares of the pack among 2 to 4 sides: the model's score_piles and
    the encoding's categories agree for every side."""
    compare_piles(options, sized(40, 100))


@pytest.mark.slow
@pytest.mark.parametrize("options", PILE_OPTIONS)
def test_the_scoring_of_many_piles_is_the_encodings(options: dict[str, Any]) -> None:
    # 400 more shares per reading (each one solver query per side): what fits the suite's budget
    compare_piles(options, 400)


def compare_piles(options: dict[str, Any], samples: int) -> None:
    r, cfg, fc, ev, names = encoding(options)
    rng = random.Random(f"{options}{samples}")
    n = E.kinds(r)
    for _ in range(samples):
        seat = rng.choice(scoring.seatings(r))
        weights = [rng.random() ** 3 for _ in range(seat.sides)]
        owner = [rng.choices(range(seat.sides), weights)[0] for _ in range(n)]
        piles = tuple(sum(1 << c for c in range(n) if owner[c] == s) for s in range(seat.sides))
        # an escoba takes a table card besides the card played: at most half the cards taken
        escobas = tuple(rng.randint(0, min(3, owner.count(s) // 2)) for s in range(seat.sides))
        model_points = score_piles(r, piles, escobas)
        state = {
            "players": seat.players,
            "sides": seat.sides,
            "piles": [[E.name(c) for c in range(n) if owner[c] == s] for s in range(seat.sides)],
            "escobas": list(escobas),
        }
        for side in range(seat.sides):
            mine = admitted(cfg, fc, ev, names, state, side)
            assert mine is not None
            assert tuple(mine.values()) == tuple(model_points[side]), (state, side)


# ---------------------------------------------------------------- the hands kept by the search


def referee(hand: search.Hand) -> int:
    """Play the hand by the book, without the model; what is left on the table at the end."""
    order = list(hand.order)
    players = hand.players
    value = {f"{r}{s}": v for r, v in zip("1234567SCR", range(1, 11), strict=True) for s in "ocbe"}
    deals = {2: 6, 3: 4, 4: 3}[players]
    pos = 0
    held: list[set[str]] = [set() for _ in range(players)]
    for _ in range(3):
        for p in range(players):
            held[p].add(order[pos])
            pos += 1
    table = set(order[pos : pos + 4])
    pos += 4
    if sum(value[c] for c in table) in (15, 30):
        table = set()
    plays = list(hand.plays)
    turn = 0
    for d in range(deals):
        for _ in range(3 * players):
            text = plays.pop(0)
            card, _, taken_text = text.partition(":")
            taken = set(taken_text.split("+")) if taken_text else set()
            p = turn % players
            assert card in held[p], f"{text}: not in the hand of the player to move"
            held[p].remove(card)
            need = 15 - value[card]
            could = any(
                sum(value[c] for c in group) == need
                for k in range(1, len(table) + 1)
                for group in itertools.combinations(sorted(table), k)
            )
            if taken:
                assert taken <= table and sum(value[c] for c in taken) == need, text
                table -= taken
            else:
                assert not could, f"{text}: laid a card that could capture"
                table.add(card)
            turn += 1
        if d + 1 < deals:
            for _ in range(3):
                for p in range(players):
                    held[p].add(order[pos])
                    pos += 1
    assert not plays and pos == 40
    return sum(value[c] for c in table)


def test_the_kept_hands_are_legal_and_leave_what_they_say() -> None:
    r = escoba()
    kept = search.stored()
    assert kept, f"no hands in {search.WITNESSES}"
    lefts = set()
    for hand in kept:
        assert search.replay(r, hand) == hand.left
        assert referee(hand) == hand.left
        lefts.add(hand.left)
    # the book (Estrategia) names 10, 25, 40 and 55; hands leave more
    assert {10, 25, 40, 55} <= lefts
    assert max(lefts) > 55


def test_a_doctored_hand_is_refused() -> None:
    r = escoba()
    hand = search.stored()[0]
    plays = list(hand.plays)
    # the first capture made to take one card fewer
    i = next(j for j, p in enumerate(plays) if ":" in p and "+" in p)
    card, _, taken = plays[i].partition(":")
    plays[i] = f"{card}:{taken.split('+')[0]}"
    bad = search.Hand(hand.players, hand.order, tuple(plays), hand.left)
    with pytest.raises(search.ReplayError, match="not legal"):
        search.replay(r, bad)


def test_the_search_proposes_hands_the_model_accepts() -> None:
    r = escoba()
    found = search.search(r, 2, seconds=3, seed=11, wanted={10, 25})
    assert found
    for hand in found.values():
        assert search.replay(r, hand) == hand.left == referee(hand)


def test_the_unknowns_are_walked_again_after_a_fact_or_a_category_changes() -> None:
    """`Config.unknowns` remembers its last walk; a fact or a category added or replaced since
    must be walked again (a memo that never looked again would miss the new unknowns)."""
    from arbitro.proofs.terms import Int, variables

    cfg = scoring.config(escoba())

    def fresh() -> list[str]:
        terms = [f.term for f in cfg.facts] + list(cfg.categories.values())
        return [v.name for v in variables(terms)]

    first = cfg.unknowns()
    assert first == fresh() and cfg.unknowns() == first
    cfg.facts.given(Int("a new unknown") >= 0)
    assert cfg.unknowns() == fresh() and "a new unknown" in cfg.unknowns()
    cat = next(iter(cfg.categories))
    cfg.categories[cat] = Int("another new unknown") + 0
    assert cfg.unknowns() == fresh() and "another new unknown" in cfg.unknowns()
    # the list returned is the caller's own: changing it leaves the memo alone
    cfg.unknowns().clear()
    assert cfg.unknowns() == fresh()
