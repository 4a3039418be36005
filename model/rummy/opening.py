"""The opening: a side's first melds must reach a minimum set by its score.

While the mover's side has not opened, the melds laid this turn are pending; `FinishOpening` is
legal once their points reach the minimum (*:opening-minimums, the top card of a taken pile
counting per *:pile-top-counts-for-opening; only card points count, never bonuses). The pile's
rest is held aside until then when *:pile-rest-after-opening holds. A side that goes out in the
turn it opens is exempt under *:opening-concealed-exempt.

Design choice (no withdrawal): pending melds cannot be taken back. Instead every laying action
of a pending opening is legal only if, after it, the minimum can still be reached while keeping
cards to discard (or going out is still possible), so a player never gets stuck with an opening
too small to finish. Taking the pile to open is legal under the same test (penalty
take_upcard_unable_to_open when refused).
"""

from __future__ import annotations

from arbitro.model.rummy.arrange import reaches
from arbitro.model.rummy.going_out import can_go_out
from arbitro.model.rummy.state import State
from arbitro.model.rummy.table import mover_side, opening_points
from arbitro.model.rummy.tables import Tables


def minimum_of(t: Tables, state: State) -> int:
    """The mover's side's opening minimum, fixed at the deal. *:opening-minimums, *:opening-rule."""
    t.consult("opening_minimums", "opening_rule")
    return state.minimums[state.seat % state.sides]


def reached(t: Tables, state: State) -> bool:
    """The pending melds reach the minimum."""
    return opening_points(t, state) >= minimum_of(t, state)


def reach_ok(t: Tables, state: State) -> bool:
    """From this pending opening the player can still finish the opening and end the turn."""
    need_pts = minimum_of(t, state) - opening_points(t, state)
    keep = max(0, 2 - len(state.held))
    hand = state.hands[state.seat]
    if reaches(t, hand, mover_side(state).melds, need_pts, keep):
        return True
    return can_go_out(t, state)
