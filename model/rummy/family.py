"""The rummy family's entry in the registry (`arbitro.model.family`): Samba and Canasta."""

from __future__ import annotations

from arbitro.model.family import GameFamily
from arbitro.model.rummy.model import RUMMY
from arbitro.model.rummy.scoring import CATEGORIES
from arbitro.model.rummy.scoring import end_hand as _end_hand
from arbitro.model.rummy.state import State
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import RummyRules


def end_hand(rules: RummyRules, state: State, reason: str, out_seat: int) -> State:
    """The state after the hand in `state` ended for `reason`; `out_seat` went out (-1: nobody).
    The hand is scored and the game goes on to the next deal or ends."""
    return _end_hand(tables(rules), state, reason, out_seat)


FAMILY: GameFamily[RummyRules, State] = GameFamily(
    name="rummy",
    games=("samba", "canasta"),
    rules_type=RummyRules,
    state_type=State,
    engine=RUMMY,
    categories=CATEGORIES,
    end_hand=end_hand,
)
