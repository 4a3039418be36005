"""The book's own arithmetic (Estrategia): the pack totals 220, so 10, 25, 40 or 55 stay on the table.

The total and the remainder modulo 15 hold; the list of four values does not: the witness hand below
ends with 70 points on the table, every play of it legal.
"""

from __future__ import annotations

from arbitro.model.escoba import ESCOBA, Play
from tests.support.escoba_helpers import DECK, TWO, cards, mask, rules, value
from tests.support.escoba_referee import Referee

R = rules()

# Source: a random search over two-player hands whose policy lays a card whenever it may
# (seed 835 of a 6,000-hand search; 12 of those hands ended at 70). The deck order, top card
# first, and the plays in order ("card" lays it, "card:a+b" takes a and b); the legality of each
# play is checked below by the test's own referee, not taken from the model.
WITNESS_ORDER = (
    "Cc 6b 2e 3c 5o 7e 6o 2c 3e 7o 2o 6c 7c 5e 5c Co 1c 6e Ce 3o 1o 4e 3b Se Cb 1e Sc Ro 1b 4o "
    "5b Sb 7b Rb Rc 2b So 4b 4c Re"
)
WITNESS_PLAYS = (
    "5o:7o+3e 3c 2e 7e:6o+2e Cc 6b:Cc 5c 6c 7c:3c+5c 5e 2o:2c+6c+5e Co 1o 4e Ce 3o "
    "1c:1o+Co+4e 6e:Ce Sc Ro Cb Se 3b:3o+Cb 1e 1b Sb 5b:Sc+1b+1e Rb 7b:Se 4o 4c 2b So Re Rc 4b"
)


def test_the_pack_totals_220() -> None:
    """escoba-es:capture-values — 4 x (1 + ... + 7 + 8 + 9 + 10) = 220 = 14 x 15 + 10."""
    assert sum(value(c) for c in DECK) == 220 == 14 * 15 + 10


def test_seventy_can_stay_on_the_table() -> None:
    """escoba-es:capture-sum, escoba-es:capture-forced — a legal hand leaving 70, not in the book's list."""
    order = list(cards(WITNESS_ORDER))
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO), order)
    referee = Referee(R, s)
    for text in WITNESS_PLAYS.split():
        card, _, taken = text.partition(":")
        play = Play(s.to_move, cards(card)[0], mask(taken.replace("+", " ")))
        referee.play(play)  # the independent check: sums to 15, and a lay only when it must
        assert play in ESCOBA.legal_actions(R, s)
        s = ESCOBA.apply(R, s, play)
    assert s.phase != "play"
    left = referee.finish()
    assert left == 70
    assert left % 15 == 10
    assert left not in (10, 25, 40, 55)
