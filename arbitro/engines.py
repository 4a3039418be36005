"""The few entry points of the engines that the protocol needs beyond `GameModel`: ending a hand.

Scoring a finished position (`score`, `position` with `ended`) runs the engine's own end of a hand
on a state the engine did not reach by itself. `GameModel` has no method for that, so it is
reached here, in one place, through each engine's scoring module.
"""

from __future__ import annotations

from typing import Any

from arbitro.model.escoba import turn as escoba_turn
from arbitro.model.rummy import scoring as rummy_scoring
from arbitro.model.rummy.tables import tables as rummy_tables


def rummy_end_hand(rules: Any, state: Any, reason: str, out_seat: int) -> Any:
    """The Samba/Canasta state after the hand in `state` ended for `reason`; `out_seat` went out
    (-1: nobody). The hand is scored and the game goes on to the next deal or ends."""
    return rummy_scoring.end_hand(rummy_tables(rules), state, reason, out_seat)


def escoba_end_hand(rules: Any, state: Any) -> Any:
    """The Escoba state after the last card of the hand in `state` was played: the rest of the
    table goes to the last side that captured, the hand is scored, the game goes on or ends."""
    return escoba_turn.end_hand(
        rules,
        state,
        state.deal_number,
        state.hands,
        state.table,
        state.piles,
        state.escobas,
        state.last_capturer,
    )
