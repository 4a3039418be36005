"""clauses_used and refusals: which clauses decided a play, and every clause that refuses one.

A clause left out of `clauses_used` must not matter: the play stays legal and leads to the same
state when that clause's value is changed (each change below is one the model can play). The
changes are written here from the book's values, not taken from the model.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.escoba import ESCOBA, Play
from arbitro.model.escoba.state import EscobaState
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules
from tests.support.escoba_helpers import (
    DECK,
    FOUR,
    TEAMS,
    THREE,
    TWO,
    cards,
    deal_order,
    last_play_state,
    mask,
    rules,
    start_of_deal_state,
)

Change = Callable[[EscobaRules], EscobaRules]
CHANGES: dict[str, Change] = {
    "capture_forced": lambda r: dataclasses.replace(r, capture_forced=not r.capture_forced),
    "escoba_points": lambda r: dataclasses.replace(r, escoba_points=r.escoba_points + 1),
    "last_capturer_takes_rest": lambda r: dataclasses.replace(
        r, last_capturer_takes_rest=not r.last_capturer_takes_rest
    ),
    "rest_is_escoba": lambda r: dataclasses.replace(r, rest_is_escoba=not r.rest_is_escoba),
    "rest_without_capturer": lambda r: dataclasses.replace(
        r, rest_without_capturer="dealer" if r.rest_without_capturer == "stay" else "stay"
    ),
    "cards_points": lambda r: dataclasses.replace(r, cards_points=r.cards_points + 1),
    "oros_points": lambda r: dataclasses.replace(r, oros_points=r.oros_points + 1),
    "velo_points": lambda r: dataclasses.replace(r, velo_points=r.velo_points + 1),
    "setenta_points": lambda r: dataclasses.replace(r, setenta_points=r.setenta_points + 1),
    "setenta_order": lambda r: dataclasses.replace(
        r, setenta_order=tuple(reversed(r.setenta_order))
    ),
    "setenta_missing_suit": lambda r: dataclasses.replace(
        r,
        setenta_missing_suit="lowest" if r.setenta_missing_suit == "no_setenta" else "no_setenta",
    ),
    "variant_cards_double": lambda r: dataclasses.replace(
        r, variant_cards_double=not r.variant_cards_double
    ),
    "variant_cards_double_rule": lambda r: dataclasses.replace(
        r,
        variant_cards_double_rule="opponents_together"
        if r.variant_cards_double_rule == "each_opponent"
        else "each_opponent",
    ),
    "variant_oros_all": lambda r: dataclasses.replace(r, variant_oros_all=not r.variant_oros_all),
    "variant_sevens_all": lambda r: dataclasses.replace(
        r, variant_sevens_all=not r.variant_sevens_all
    ),
    "target_score": lambda r: dataclasses.replace(r, target_score=1),
    "deals_per_hand": lambda r: dataclasses.replace(
        r, deals_per_hand=tuple(dataclasses.replace(d, deals=d.deals + 1) for d in r.deals_per_hand)
    ),
    "redeal_size": lambda r: dataclasses.replace(r, redeal_size=r.redeal_size - 1),
    "redeal_table": lambda r: dataclasses.replace(r, redeal_table=r.redeal_table + 1),
    "hand_size": lambda r: dataclasses.replace(r, hand_size=r.hand_size + 1),
    "table_initial": lambda r: dataclasses.replace(r, table_initial=r.table_initial + 1),
    "opening_sweeps": lambda r: dataclasses.replace(r, opening_sweeps=()),
}


_CHANGED: dict[int, tuple[EscobaRules, dict[str, EscobaRules]]] = {}


def _changed(r: EscobaRules) -> dict[str, EscobaRules]:
    """Each change of CHANGES applied to ``r``, made once per rules object."""
    hit = _CHANGED.get(id(r))
    if hit is None or hit[0] is not r:
        hit = _CHANGED[id(r)] = (r, {key: change(r) for key, change in CHANGES.items()})
    return hit[1]


def deciding_but_unlisted(
    r: EscobaRules,
    s: EscobaState,
    a: Play,
    used: Callable[[EscobaRules, EscobaState, Play], frozenset[str]] = ESCOBA.clauses_used,
) -> list[str]:
    """The clauses left out of ``used`` whose change alters whether ``a`` is legal or what it does."""
    listed = used(r, s, a)
    after = ESCOBA.apply(r, s, a)
    wrong = []
    for key, other in _changed(r).items():
        if r.cid(key) in listed:
            continue
        try:
            same = ESCOBA.apply(other, s, a) == after
        except (IllegalAction, IndexError, ValueError):
            same = False
        if not same:
            wrong.append(r.cid(key))
    return wrong


def _transitions(
    r: EscobaRules, seating: Seating, hands: int, seed: int
) -> list[tuple[EscobaState, Play]]:
    rng = random.Random(seed)
    out = []
    for h in range(hands):
        order = list(DECK)
        rng.shuffle(order)
        s = ESCOBA.deal(r, ESCOBA.new_game(r, seating, dealer=h % seating.players), order)
        while s.phase == "play":
            acts = ESCOBA.legal_actions(r, s)
            a = acts[rng.randrange(len(acts))]
            out.append((s, a))
            s = ESCOBA.apply(r, s, a)
    return out


OPTIONS: list[dict[str, str | bool]] = [
    {},
    {"variant_cards_double": True, "variant_oros_all": True, "variant_sevens_all": True},
    {"setenta_missing_suit": "lowest", "rest_without_capturer": "dealer"},
]


@pytest.mark.parametrize("seating", [TWO, THREE, FOUR, TEAMS])
@pytest.mark.parametrize("which", range(len(OPTIONS)))
def test_a_clause_left_out_changes_nothing(seating: Seating, which: int) -> None:
    """Every clause clauses_used leaves out can change without changing the play or its result."""
    r = rules(OPTIONS[which])
    for s, a in _transitions(r, seating, 1, seed=which * 10 + seating.players):
        assert deciding_but_unlisted(r, s, a) == [], (s, a)


def test_with_capture_optional_a_lay_that_could_capture_lists_capture_forced() -> None:
    """escoba-es:capture-forced — when laying a capturing card is allowed, the clause allowed it."""
    r = dataclasses.replace(rules(), capture_forced=False)
    for s, a in _transitions(r, TWO, 2, seed=5):
        assert deciding_but_unlisted(r, s, a) == [], (s, a)


def test_the_check_catches_a_clause_dropped_from_the_list() -> None:
    """A clauses_used that forgets escobas at the end of the hand is caught."""
    r = rules()

    def forgetful(r: EscobaRules, s: EscobaState, a: Play) -> frozenset[str]:
        return ESCOBA.clauses_used(r, s, a) - {r.cid("escoba_points"), r.cid("cards_points")}

    caught = set()
    for s, a in _transitions(r, TWO, 3, seed=1):
        caught.update(deciding_but_unlisted(r, s, a, used=forgetful))
    assert r.cid("cards_points") in caught


def _state(hand: str, table: str) -> EscobaState:
    s = start_of_deal_state(TWO, dealer=0, hands={1: hand}, table=table, deal_number=2, deals=6)
    assert s.to_move == 1
    return s


def test_a_choice_between_groups_lists_capture_choice() -> None:
    """escoba-es:capture-choice — the book's example: a 4 takes 4+7 or 1+3+7."""
    r = rules()
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    four = cards("4o")[0]
    used = ESCOBA.clauses_used(r, s, Play(1, four, mask("4b 7e")))
    assert "escoba-es:capture-choice" in used
    assert "escoba-es:escoba-points" not in used
    # a rey takes 1+4 only: no choice
    used = ESCOBA.clauses_used(r, s, Play(1, cards("Rc")[0], mask("1c 4b")))
    assert "escoba-es:capture-choice" not in used


def test_a_sweep_lists_escoba_points() -> None:
    """escoba-es:escoba-points — taking every card on the table is an escoba."""
    r = rules()
    s = _state("5o Rc Rb", "Re")
    used = ESCOBA.clauses_used(r, s, Play(1, cards("5o")[0], mask("Re")))
    assert "escoba-es:escoba-points" in used


def test_an_opening_sweep_lists_the_sweep_clause() -> None:
    """escoba-es:opening-sweeps — only a deal whose four table cards total 15 or 30 uses it."""
    r = rules()
    g = ESCOBA.new_game(r, TWO)
    swept = deal_order(2, 0, {}, "1c 3c 4b 7e")
    assert "escoba-es:opening-sweeps" in ESCOBA.clauses_used(r, g, swept)
    plain = deal_order(2, 0, {}, "1c 3c 4b 6e")
    assert "escoba-es:opening-sweeps" not in ESCOBA.clauses_used(r, g, plain)
    assert "escoba-es:player-counts" in ESCOBA.clauses_used(r, g, plain)


def test_a_twenty_twenty_split_lists_the_tie_clause() -> None:
    """escoba-es:category-tie — twenty cards each: the cards point goes to nobody."""
    r = rules()
    five, rey = cards("5o Rc")
    others = [c for c in DECK if c not in (five, rey)]
    # side 0 holds 18 cards and takes 2 with the last play; the other 20 went to side 1
    s = last_play_state(
        TWO,
        dealer=0,
        last_card="5o",
        table="Rc",
        piles={0: " ".join(ESCOBA.card_name(c) for c in others[:18])},
        rest_to=1,
        deals=6,
    )
    play = Play(0, five, mask("Rc"))
    after = ESCOBA.apply(r, s, play)
    assert [p.bit_count() for p in after.piles] == [20, 20]
    used = ESCOBA.clauses_used(r, s, play)
    assert "escoba-es:category-tie" in used
    assert "escoba-es:target-score" in used


def test_refusals_lists_every_clause_in_the_order_apply_rules() -> None:
    """escoba-es:play-direction, escoba-es:hand-size, escoba-es:capture-sum — all three, in order."""
    r = rules()
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    # seat 0 is not to move, does not hold the 5 of oros, and 5 + 7 is not 15
    wrong = Play(0, cards("5o")[0], mask("7e"))
    got = [e.clause for e in ESCOBA.refusals(r, s, wrong)]
    assert got == ["escoba-es:play-direction", "escoba-es:hand-size", "escoba-es:capture-sum"]
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(r, s, wrong)
    assert e.value.clause == got[0]
    # laying the 4 when it can take: forced capture, and nothing else
    lay = Play(1, cards("4o")[0], 0)
    assert [e.clause for e in ESCOBA.refusals(r, s, lay)] == ["escoba-es:capture-forced"]
    for a in ESCOBA.legal_actions(r, s):
        assert ESCOBA.refusals(r, s, a) == ()
