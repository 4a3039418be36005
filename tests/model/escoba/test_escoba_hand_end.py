"""The end of a hand: the rest of the table, the final escoba, the 21 rule and the next dealer."""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.escoba import ESCOBA, Play, game_winner
from arbitro.model.escoba.state import NOBODY
from tests.support.escoba_helpers import (
    FOUR,
    TEAMS,
    TWO,
    cards,
    last_play_state,
    mask,
    right_of,
    rules,
)

R = rules()


def test_last_capturer_takes_the_rest_and_it_is_no_escoba() -> None:
    """escoba-es:last-capturer-takes-rest, escoba-es:rest-is-escoba — leftovers to the last capturer."""
    # the dealer's 2 needs 13 from 10 + 10: it cannot capture and is laid
    s = last_play_state(
        TWO, dealer=0, last_card="2o", table="Rc Re", last_capturer=1, rest_to=1, deals=6
    )
    assert ESCOBA.violations(R, s) == []
    assert ESCOBA.legal_actions(R, s) == (Play(0, cards("2o")[0], 0),)
    end = ESCOBA.apply(R, s, Play(0, cards("2o")[0], 0))
    assert end.table == 0
    assert end.piles[1] & mask("Rc Re 2o") == mask("Rc Re 2o")
    assert end.escobas == (0, 0)
    assert end.result is not None
    assert [side["escobas"] for side in end.result.categories] == [0, 0]
    assert ESCOBA.violations(R, end) == []


def test_sweeping_with_the_last_card_is_an_escoba() -> None:
    """escoba-es:escoba-points — the book makes no exception for the hand's last card."""
    s = last_play_state(TWO, dealer=0, last_card="5o", table="Rc", last_capturer=1, deals=6)
    end = ESCOBA.apply(R, s, Play(0, cards("5o")[0], mask("Rc")))
    assert end.escobas == (1, 0)
    assert end.result is not None
    assert end.result.categories[0]["escobas"] == 1


def test_rest_goes_to_the_last_capturing_team() -> None:
    """escoba-es:last-capturer-takes-rest — a partnership: the rest goes to the side, not the seat."""
    s = last_play_state(
        TEAMS,
        dealer=1,
        last_card="2o",
        table="Rc Re",
        piles={0: "5c Sc"},  # what side 0 captured last
        last_capturer=0,
        rest_to=1,
        deals=3,
    )
    assert ESCOBA.violations(R, s) == []
    end = ESCOBA.apply(R, s, Play(1, cards("2o")[0], 0))
    assert end.piles[0] == mask("Rc Re 2o 5c Sc")
    assert len(end.scores) == 2


def test_nobody_capturing_cannot_happen_with_forced_capture() -> None:
    """escoba-es:rest-without-capturer — unreachable: a last card facing 39 table cards must capture."""
    table = " ".join(f"{r}{s}" for s in "ocbe" for r in "1234567SCR" if f"{r}{s}" != "2o")
    s = last_play_state(TWO, dealer=0, last_card="2o", table=table, last_capturer=NOBODY, deals=6)
    assert s.piles == (0, 0)
    acts = ESCOBA.legal_actions(R, s)
    assert acts and all(a.capture for a in acts)


@pytest.mark.parametrize(("reading", "taker"), [("default", None), ("dealer", 0)])
def test_rest_without_capturer(reading: str, taker: int | None) -> None:
    """escoba-es:rest-without-capturer — with capture not forced, the unclaimed rest stays or goes to the dealer."""
    r = dataclasses.replace(rules({"rest_without_capturer": reading}), capture_forced=False)
    table = " ".join(f"{x}{s}" for s in "ocbe" for x in "1234567SCR" if f"{x}{s}" != "5o")
    s = last_play_state(TWO, dealer=0, last_card="5o", table=table, last_capturer=NOBODY, deals=6)
    end = ESCOBA.apply(r, s, Play(0, cards("5o")[0], 0))
    if taker is None:
        assert end.table == (1 << 40) - 1
        assert end.piles == (0, 0)
        assert end.result is not None and end.result.scores == (0, 0)
    else:
        assert end.table == 0
        assert end.piles == ((1 << 40) - 1, 0)
    assert ESCOBA.violations(r, end) == []


# ---------------------------------------------------------------- winning the game


@pytest.mark.parametrize(
    ("scores", "winner"),
    [
        ((21, 10), 0),  # first to 21
        ((20, 25), 1),
        ((20, 20), None),  # nobody there yet
        ((22, 21), 0),  # both reach: the higher wins
        ((24, 30), 1),
        ((21, 21), None),  # both reach, level: play on
        ((23, 23, 10), None),  # three players: level at the top
        ((23, 23, 25), 2),
        ((23, 10, 12), 0),
    ],
)
def test_game_winner(scores: tuple[int, ...], winner: int | None) -> None:
    """escoba-es:target-score, escoba-es:target-tie — 21 or more at a hand's end; ties play on."""
    assert game_winner(R, scores) == winner


# Side 0 holds everything but the dealer's last card, the table and three low cards: it wins cards,
# oros, velo and setenta, 4 points; side 1 scores only the escobas we give it.
def _final(scores: tuple[int, int], escobas_1: int) -> tuple[int, int]:
    s = last_play_state(
        TWO,
        dealer=0,
        last_card="2o",
        table="Rc Re",
        piles={1: "1c 1b 1e 2c 2b 2e"},
        escobas=(0, escobas_1),
        last_capturer=0,
        scores=scores,
        deals=6,
    )
    assert ESCOBA.violations(R, s) == []
    end = ESCOBA.apply(R, s, Play(0, cards("2o")[0], 0))
    assert end.result is not None
    assert end.result.scores == (4, escobas_1)
    assert ESCOBA.violations(R, end) == []
    return end.scores


def test_reaching_21_ends_the_game() -> None:
    """escoba-es:target-score — 17 + 4 = 21: over, side 0 wins."""
    s = last_play_state(
        TWO,
        dealer=0,
        last_card="2o",
        table="Rc Re",
        piles={1: "1c 1b 1e 2c 2b 2e"},
        scores=(17, 3),
        deals=6,
    )
    end = ESCOBA.apply(R, s, Play(0, cards("2o")[0], 0))
    assert end.scores == (21, 3)
    assert end.phase == "over"
    assert ESCOBA.winner(end) == 0
    assert ESCOBA.legal_actions(R, end) == ()


def test_both_reach_the_higher_wins() -> None:
    """escoba-es:target-tie — 20 + 4 = 24 against 19 + 3 = 22: side 0 wins."""
    assert _final((20, 19), 3) == (24, 22)


def test_both_reach_level_another_hand() -> None:
    """escoba-es:target-tie — 17 + 4 = 21 against 20 + 1 = 21: play on, the deal passes."""
    s = last_play_state(
        TWO,
        dealer=0,
        last_card="2o",
        table="Rc Re",
        piles={1: "1c 1b 1e 2c 2b 2e"},
        escobas=(0, 1),
        scores=(17, 20),
        deals=6,
    )
    end = ESCOBA.apply(R, s, Play(0, cards("2o")[0], 0))
    assert end.scores == (21, 21)
    assert end.phase == "deal"
    assert ESCOBA.winner(end) is None
    assert end.dealer == right_of(0, 2)


def test_dealer_passes_right_after_a_hand() -> None:
    """escoba-es:dealer-rotation — four players, dealer 1: the next hand is dealt by seat 0."""
    s = last_play_state(FOUR, dealer=1, last_card="2o", table="Rc Re", deals=3)
    assert ESCOBA.violations(R, s) == []
    end = ESCOBA.apply(R, s, Play(1, cards("2o")[0], 0))
    assert end.phase == "deal"
    assert end.dealer == right_of(1, 4) == 0
    assert end.hand_number == 1
