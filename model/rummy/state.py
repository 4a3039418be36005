"""The state of a Samba or Canasta game: an immutable, hashable value.

Hands, the red threes laid out and the melds are sorted multisets, so equal situations are equal
values; the stock keeps the dealt order (top first) and the discard pile its order (top last). A
pile is frozen while it holds a card of a `frozen_by` class: that is read off the pile itself,
which is always taken whole. Per turn the state records the step (draw, play, the partner's
answer, placing a freed wild) and the bookkeeping the rules need: whether the pile was taken this
turn, the rest of the pile held aside until the opening is laid, the points of the top card taken
(for *:pile-top-counts-for-opening), the partner's answer, and how many clean canastas the side had
when the turn began (*:go-out-wait-after-clean).

A side has *opened* once its opening melds are accepted; while the player to move lays melds for
a side that has not opened, those melds are the pending opening (a side without an opening has
no other melds).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from arbitro.model.rummy.melds import Meld

DRAW: Final = "draw"
PLAY: Final = "play"
ANSWER: Final = "answer"
FREED: Final = "freed"
STEPS = (DRAW, PLAY, ANSWER, FREED)


class Side(NamedTuple):
    """What a side has on the table."""

    melds: tuple[Meld, ...]  # sorted
    red_threes: tuple[int, ...]  # sorted
    opened: bool


EMPTY_SIDE = Side((), (), False)


class Result(NamedTuple):
    """A finished hand, hashable (HandResult is built from it on demand)."""

    hand: int
    reason: str  # "went-out", "stock-out", "dead-end"
    scores: tuple[int, ...]
    categories: tuple[tuple[tuple[str, int], ...], ...]
    finding: tuple[str, ...]  # clause ids behind a dead end; empty otherwise


class State(NamedTuple):
    """A whole game. Before the first deal the hand fields are empty; after a hand they keep its
    final position until the next deal."""

    players: int
    sides: int
    layout: str
    phase: str  # "deal", "play", "over"
    hand_no: int  # the current (or next) hand, from 0
    dealer: int
    scores: tuple[int, ...]  # per side
    result: Result | None  # the hand most recently finished
    hands: tuple[tuple[int, ...], ...]  # per seat, sorted
    stock: tuple[int, ...]  # top first
    pile: tuple[int, ...]  # bottom first, top last
    table: tuple[Side, ...]
    minimums: tuple[int, ...]  # per side: the opening minimum of this hand
    owed: tuple[int, ...]  # per seat: red-three replacements still to draw
    pile_taken: bool  # someone has taken the pile this hand
    seat: int  # whose turn
    step: str
    took_pile: bool  # the player to move took the pile this turn
    held: tuple[int, ...]  # the rest of a pile taken to open, until the opening is laid
    top_points: int  # points of the top card taken this turn for a pending opening, else 0
    asked: bool  # the player asked the partner this turn
    answer: str  # "", "yes", "no"
    melded: bool  # the player has laid or added cards this turn
    clean_start: int  # clean canastas the side had when the turn began
    no_discard: bool  # the last card of the stock was a red three: play stops without a discard
    freed: int  # a wild freed by cleaning a meld, to be placed now; -1 if none
    freed_meld: int  # the index of the meld it came from (it may not go back there); -1 if none

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    def to_move(self) -> int:
        if self.step == ANSWER:
            return partner(self, self.seat)
        return self.seat


_INDEX: Final = {name: i for i, name in enumerate(State._fields)}


_new: Final[Any] = tuple.__new__
_STATE: Final[Any] = State
"""The builders below make a state as `_new(_STATE, (field, ...))`: every field of `State` in its
order, each one kept read by index (`s[i]`, a direct read in the compiled code), so that no list
of the fields and no second tuple is made (`tests/model/rummy/test_rummy_fast_paths.py` checks
each against `replaced`)."""


_ZERO: Final[Any] = 0
_NONE: Final[Any] = -1
"""The ints the builders put in a state (`top_points` 0, `freed` and `freed_meld` -1), as
objects read from the module's constants: a literal int is boxed at each use."""


def replaced(state: State, **changes: Any) -> State:
    """`state._replace(**changes)` without its generic machinery (the engine builds a state or
    two per action); an unknown field name raises KeyError."""
    fields = list(state)
    index = _INDEX
    for name, value in changes.items():
        fields[index[name]] = value
    got: State = _new(_STATE, fields)
    return got


HANDS: Final = _INDEX["hands"]
PILE: Final = _INDEX["pile"]
SEAT: Final = _INDEX["seat"]
STEP: Final = _INDEX["step"]
TURN_FIELDS = State._fields[STEP + 1 :]
"""The per-turn fields (`TURN_START`): they follow `step` in `State`."""


def next_turn(
    state: State,
    seat: int,
    hands: tuple[tuple[int, ...], ...],
    pile: tuple[int, ...],
    clean_start: int,
) -> State:
    """`state` with the hands and pile given, at the start of `seat`'s turn (step `draw`, every
    per-turn field as a turn begins, `clean_start` as given): the state after each discard."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, s[9], pile, s[11], s[12], s[13],
        s[14], seat, DRAW, False, (), _ZERO, False, "", False, clean_start, False, _NONE, _NONE,
    ))
    # fmt: on
    return got


def after_meld(state: State, hands: tuple[tuple[int, ...], ...], table: tuple[Side, ...]) -> State:
    """`replaced(state, hands=..., table=..., step=PLAY, freed=-1, freed_meld=-1,
    melded=True)`, field by field: the state after every laying action."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, s[9], s[10], table, s[12], s[13],
        s[14], s[15], PLAY, s[17], s[18], s[19], s[20], s[21], True, s[23], s[24], _NONE, _NONE,
    ))
    # fmt: on
    return got


def after_draw(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    stock: tuple[int, ...],
    table: tuple[Side, ...] | None = None,
    no_discard: bool = False,
) -> State:
    """`replaced(state, hands=..., stock=..., step=PLAY, no_discard=...)`, field by field: the
    state after a draw; with `table` too when red threes drawn were laid out."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, stock, s[10],
        s[11] if table is None else table, s[12], s[13], s[14], s[15], PLAY, s[17], s[18], s[19],
        s[20], s[21], s[22], s[23], no_discard, s[25], s[26],
    ))
    # fmt: on
    return got


def after_take(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    table: tuple[Side, ...],
    held: tuple[int, ...],
    top_points: int,
) -> State:
    """`replaced(state, table=..., hands=..., pile=(), pile_taken=True, took_pile=True,
    held=..., top_points=..., step=PLAY)`, field by field: the state after a pile take."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, s[9], (), table, s[12], s[13], True,
        s[15], PLAY, True, held, top_points, s[20], s[21], s[22], s[23], s[24], s[25], s[26],
    ))
    # fmt: on
    return got


def after_clean(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    table: tuple[Side, ...],
    freed: int,
    freed_meld: int,
) -> State:
    """`replaced(state, hands=..., table=..., step=FREED, melded=True, freed=...,
    freed_meld=...)`, field by field: the state after a cleaning, its freed wild to be placed."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, s[9], s[10], table, s[12], s[13],
        s[14], s[15], FREED, s[17], s[18], s[19], s[20], s[21], True, s[23], s[24], freed,
        freed_meld,
    ))
    # fmt: on
    return got


def after_opening(
    state: State, hands: tuple[tuple[int, ...], ...], table: tuple[Side, ...]
) -> State:
    """`replaced(state, hands=..., table=..., held=(), top_points=0)`, field by field: the
    state after the opening is finished (the held rest of the pile in the hand)."""
    s: tuple[Any, ...] = state  # fields kept as objects: no int unboxed and boxed again
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], hands, s[9], s[10], table, s[12], s[13],
        s[14], s[15], s[16], s[17], (), _ZERO, s[20], s[21], s[22], s[23], s[24], s[25], s[26],
    ))
    # fmt: on
    return got


def partner(state: State, seat: int) -> int:
    """The partner who answers "may I go out?": the next player of the side in play order."""
    return (seat + state.sides) % state.players


TURN_START: dict[str, Any] = {
    "took_pile": False,
    "held": (),
    "top_points": 0,
    "asked": False,
    "answer": "",
    "melded": False,
    "clean_start": 0,
    "no_discard": False,
    "freed": -1,
    "freed_meld": -1,
}
"""The per-turn fields of a state as they stand when a hand begins."""


def new_state(players: int, sides: int, layout: str, dealer: int) -> State:
    return State(
        players=players,
        sides=sides,
        layout=layout,
        phase="deal",
        hand_no=0,
        dealer=dealer,
        scores=(0,) * sides,
        result=None,
        hands=(),
        stock=(),
        pile=(),
        table=(),
        minimums=(),
        owed=(),
        pile_taken=False,
        seat=-1,
        step="",
        **TURN_START,
    )
