"""Capturing: groups worth fifteen with the card played, the forced capture, the player's choice."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.escoba import ESCOBA, Play, capture_groups, cards_of
from arbitro.model.escoba.state import EscobaState
from tests.support.escoba_helpers import (
    DECK,
    TWO,
    cards,
    deal_order,
    mask,
    rules,
    start_of_deal_state,
    value,
)

R = rules()


def _state(hand: str, table: str) -> EscobaState:
    """Two players, dealer 0, second deal: seat 1 (the dealer's right) to play holding ``hand``.

    (A later deal, because the book's example table 1+3+4+7 = 15 would be swept by the dealer in
    an opening deal.)
    """
    s = start_of_deal_state(TWO, dealer=0, hands={1: hand}, table=table, deal_number=2, deals=6)
    assert ESCOBA.violations(R, s) == []
    assert s.to_move == 1
    return s


def test_an_opening_table_of_the_example_is_swept() -> None:
    """escoba-es:opening-sweeps — the book's example table, 1+3+4+7, totals 15."""
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO), deal_order(2, 0, {}, "1c 3c 4b 7e"))
    assert s.table == 0
    assert s.escobas == (1, 0)


def test_the_books_example() -> None:
    """escoba-es:capture-choice, escoba-es:capture-sum — table 1, 3, 4, 7: a 4 takes 4+7 or 1+3+7."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    fours = [a for a in ESCOBA.legal_actions(R, s) if a.card == cards("4o")[0]]
    got = {frozenset(a.captured()) for a in fours}
    assert got == {frozenset(cards("4b 7e")), frozenset(cards("1c 3c 7e"))}


def test_legal_actions_are_sorted_and_exact() -> None:
    """escoba-es:capture-forced — each card: its capturing plays only, else a plain lay; sorted."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    acts = ESCOBA.legal_actions(R, s)
    assert list(acts) == sorted(acts)
    assert len(set(acts)) == len(acts)
    four, rey_c, rey_b = cards("4o Rc Rb")
    # a rey (10) needs 5 from the table: 1+4; a 4 needs 11: 4+7 or 1+3+7
    expected = {
        Play(1, four, mask("4b 7e")),
        Play(1, four, mask("1c 3c 7e")),
        Play(1, rey_c, mask("1c 4b")),
        Play(1, rey_b, mask("1c 4b")),
    }
    assert set(acts) == expected


def test_a_card_that_cannot_capture_is_laid() -> None:
    """escoba-es:capture-forced — playing a card that takes nothing is legal."""
    s = _state("2o 2c 2b", "Rc Re Cb Co")  # a 2 needs 13: no group of 10, 10, 9, 9 makes it
    acts = ESCOBA.legal_actions(R, s)
    assert [a.capture for a in acts] == [0, 0, 0]
    s2 = ESCOBA.apply(R, s, acts[0])
    assert s2.table == mask("Rc Re Cb Co 2o")
    assert s2.piles == s.piles


def test_not_obliged_to_choose_a_capturing_card() -> None:
    """escoba-es:capture-forced — a player may lay a card that cannot capture though another could."""
    s = _state("5o 2c 2b", "Rc Re Cb Co")  # the 5 takes a rey; a 2 takes nothing
    lay = Play(1, cards("2c")[0], 0)
    assert lay in ESCOBA.legal_actions(R, s)
    s2 = ESCOBA.apply(R, s, lay)
    assert s2.table == mask("Rc Re Cb Co 2c")


def test_a_card_that_can_capture_must() -> None:
    """escoba-es:capture-forced — laying a card that could capture is refused, naming the clause."""
    s = _state("5o 2c 2b", "Rc Re Cb Co")
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(R, s, Play(1, cards("5o")[0], 0))
    assert e.value.clause == "escoba-es:capture-forced"
    assert "Rc" in e.value.reason and "Re" in e.value.reason


def test_capture_must_make_fifteen() -> None:
    """escoba-es:capture-sum — a group that does not make 15 with the card is refused."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(R, s, Play(1, cards("4o")[0], mask("1c 3c")))
    assert e.value.clause == "escoba-es:capture-sum"
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(R, s, Play(1, cards("4o")[0], mask("4b 7o")))  # 7o is not on the table
    assert e.value.clause == "escoba-es:capture-sum"


def test_other_refusals() -> None:
    """escoba-es:play-direction, escoba-es:hand-size — out of turn, or a card not held."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(R, s, Play(0, next(iter(cards_of(s.hands[0]))), 0))
    assert e.value.clause == "escoba-es:play-direction"
    with pytest.raises(IllegalAction) as e:
        ESCOBA.apply(R, s, Play(1, cards("5o")[0], 0))
    assert e.value.clause == "escoba-es:hand-size"


@pytest.mark.parametrize(
    "action",
    [
        Play(2, 0, 0),
        Play(-1, 0, 0),
        Play(1, 40, 0),
        Play(1, 3, 1 << 40),
        (1, 3),
        "play",
        (1, "4o", 0),
    ],
)
def test_malformed_plays(action: object) -> None:
    """escoba-es:suits, escoba-es:player-counts — no such seat or card: malformed, not illegal."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    with pytest.raises(MalformedInput):
        ESCOBA.apply(R, s, action)


def test_a_legal_play_written_with_other_numbers_is_the_listed_play() -> None:
    """escoba-es:capture-sum — a play equal to a legal one (here floats) is played and its clauses
    named as the listed play's, by either engine."""
    s = _state("4o Rc Rb", "1c 3c 4b 7e")
    for play in ESCOBA.legal_actions(R, s):
        same = tuple(float(x) for x in play)
        assert ESCOBA.apply(R, s, same) == ESCOBA.apply(R, s, play)
        assert ESCOBA.clauses_used(R, s, same) == ESCOBA.clauses_used(R, s, play)


def test_capture_and_escoba() -> None:
    """escoba-es:escoba-points — taking every table card is an escoba for the capturing side."""
    s = _state("4o Rc Rb", "1c 4b Sc Se")
    # a rey (10) needs 5: 1+4; the sotas stay, so no escoba
    s2 = ESCOBA.apply(R, s, Play(1, cards("Rc")[0], mask("1c 4b")))
    assert s2.piles[1] == mask("Rc 1c 4b")
    assert s2.table == mask("Sc Se")
    assert s2.escobas == (0, 0)
    assert s2.last_capturer == 1
    # 1 + 2 + 1 + 3 = 7 on the table: a sota (8) takes all of it
    s3 = _state("So Rc Rb", "1c 2c 1b 3e")
    sweep = ESCOBA.apply(R, s3, Play(1, cards("So")[0], mask("1c 2c 1b 3e")))
    assert sweep.table == 0
    assert sweep.escobas == (0, 1)
    assert sweep.last_capturer == 1
    assert ESCOBA.violations(R, sweep) == []


def test_with_capture_not_forced_laying_is_allowed() -> None:
    """escoba-es:capture-forced — the model reads the field: off, a capturing card may be laid."""
    loose = dataclasses.replace(R, capture_forced=False)
    s = _state("5o 2c 2b", "Rc Re Cb Co")
    five = cards("5o")[0]
    acts = [a for a in ESCOBA.legal_actions(loose, s) if a.card == five]
    assert acts == [Play(1, five, 0), Play(1, five, mask("Rc")), Play(1, five, mask("Re"))]
    ESCOBA.apply(loose, s, Play(1, five, 0))


def _brute_groups(table: tuple[int, ...], card: int) -> list[int]:
    need = 15 - value(card)
    out = []
    for k in range(1, len(table) + 1):
        for combo in itertools.combinations(table, k):
            if sum(value(c) for c in combo) == need:
                out.append(mask(combo))
    return sorted(out)


@given(st.lists(st.sampled_from(DECK), min_size=1, max_size=14, unique=True))
def test_groups_match_brute_force(picked: list[int]) -> None:
    """escoba-es:capture-sum, escoba-es:capture-choice — every group, exactly, in ascending order."""
    card, *table = picked
    tmask = mask(table)
    assert list(capture_groups(R, tmask, card)) == _brute_groups(tuple(table), card)
