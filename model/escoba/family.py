"""The Escoba family's entry in the registry (`arbitro.model.family`)."""

from __future__ import annotations

from arbitro.model.escoba.model import ESCOBA
from arbitro.model.escoba.state import CATEGORIES, EscobaState
from arbitro.model.escoba.turn import end_hand as _end_hand
from arbitro.model.family import GameFamily
from arbitro.model.schema import EscobaRules


def end_hand(rules: EscobaRules, state: EscobaState, reason: str, out_seat: int) -> EscobaState:
    """The state after the last card of the hand in `state` was played: the rest of the table
    goes to the last side that captured, the hand is scored, the game goes on or ends. An Escoba
    hand ends one way only, so `reason` and `out_seat` do not enter."""
    return _end_hand(
        rules,
        state,
        state.deal_number,
        state.hands,
        state.table,
        state.piles,
        state.escobas,
        state.last_capturer,
    )


FAMILY: GameFamily[EscobaRules, EscobaState] = GameFamily(
    name="escoba",
    games=("escoba",),
    rules_type=EscobaRules,
    state_type=EscobaState,
    engine=ESCOBA,
    categories=CATEGORIES,
    end_hand=end_hand,
)
