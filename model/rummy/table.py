"""Read-only views of the table that several rule modules share: a side's completed melds and the
points of a pending opening. Implements no clause of its own.
"""

from __future__ import annotations

from arbitro.model.rummy.melds import SEQ, SET, WILDS, Meld, is_clean
from arbitro.model.rummy.state import Side, State
from arbitro.model.rummy.tables import Tables


def mover_side(state: State) -> Side:
    """The side of the player whose turn it is."""
    return state.table[state.seat % state.sides]


def going_out_counts(t: Tables, melds: tuple[Meld, ...]) -> tuple[int, int, int]:
    """Completed melds that count to go out, and how many of them are clean and dirty.

    Canastas and sambas count; a completed wild-only meld does not (canasta-es says it never lets a
    side go out on its own; reading: it counts neither as clean nor as dirty).
    """
    done = clean = dirty = 0
    size = t.completed
    for m in melds:
        if (m.kind == SET or m.kind == SEQ) and len(m.cards) >= size:
            done += 1
            if is_clean(m):
                clean += 1
            else:
                dirty += 1
    return done, clean, dirty


def completed_count(t: Tables, melds: tuple[Meld, ...]) -> int:
    """Completed melds of any kind but black threes (red threes, canastón, canasta de canastas)."""
    return sum(1 for m in melds if m.kind in (SET, SEQ, WILDS) and len(m.cards) >= t.completed)


def pending(state: State) -> bool:
    """The mover's side has melds but has not opened: they are this turn's opening."""
    sd = mover_side(state)
    return not sd.opened and bool(sd.melds)


def opening_points(t: Tables, state: State) -> int:
    """Card points of the mover's side's melds, as counted for the opening minimum.

    The top card taken from the pile counts unless *:pile-top-counts-for-opening says otherwise.
    """
    sd = mover_side(state)
    pts = t.points
    total = sum(pts[c] for m in sd.melds for c in m.cards)
    if not t.rules.pile_top_counts_for_opening:
        total -= state.top_points
    return total
