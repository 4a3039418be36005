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


_INDEX = {name: i for i, name in enumerate(State._fields)}


def replaced(state: State, **changes: Any) -> State:
    """`state._replace(**changes)` without its generic machinery (the engine builds a state or
    two per action); an unknown field name raises KeyError."""
    fields = list(state)
    for name, value in changes.items():
        fields[_INDEX[name]] = value
    return tuple.__new__(State, fields)


HANDS: Final = _INDEX["hands"]
PILE: Final = _INDEX["pile"]
SEAT: Final = _INDEX["seat"]
STEP: Final = _INDEX["step"]
TURN_FIELDS = State._fields[STEP + 1 :]
"""The per-turn fields (`TURN_START`): they follow `step` in `State`."""
_CLEAN_START: Final = _INDEX["clean_start"]


def next_turn(
    state: State,
    seat: int,
    hands: tuple[tuple[int, ...], ...],
    pile: tuple[int, ...],
    clean_start: int,
) -> State:
    """`state` with the hands and pile given, at the start of `seat`'s turn (step `draw`, every
    per-turn field as a turn begins, `clean_start` as given): the state after each discard."""
    fields = list(state[:STEP])
    fields[HANDS] = hands
    fields[PILE] = pile
    fields[SEAT] = seat
    fields.append(DRAW)
    fields.extend(_TURN_DEFAULTS)
    fields[_CLEAN_START] = clean_start
    return tuple.__new__(State, fields)


_STOCK: Final = _INDEX["stock"]
_TABLE: Final = _INDEX["table"]
_MELDED: Final = _INDEX["melded"]
_FREED: Final = _INDEX["freed"]
_FREED_MELD: Final = _INDEX["freed_meld"]
_NO_DISCARD: Final = _INDEX["no_discard"]


def after_meld(state: State, hands: tuple[tuple[int, ...], ...], table: tuple[Side, ...]) -> State:
    """`replaced(state, hands=..., table=..., step=PLAY, freed=-1, freed_meld=-1,
    melded=True)`, field by field: the state after every laying action."""
    f = list(state)
    f[HANDS] = hands
    f[_TABLE] = table
    f[STEP] = PLAY
    f[_MELDED] = True
    f[_FREED] = -1
    f[_FREED_MELD] = -1
    return tuple.__new__(State, f)


def after_draw(state: State, hands: tuple[tuple[int, ...], ...], stock: tuple[int, ...]) -> State:
    """`replaced(state, hands=..., stock=..., step=PLAY, no_discard=False)`, field by field: the
    state after a draw with no red three."""
    f = list(state)
    f[HANDS] = hands
    f[_STOCK] = stock
    f[STEP] = PLAY
    f[_NO_DISCARD] = False
    return tuple.__new__(State, f)


_PILE_TAKEN: Final = _INDEX["pile_taken"]
_TOOK_PILE: Final = _INDEX["took_pile"]
_HELD: Final = _INDEX["held"]
_TOP_POINTS: Final = _INDEX["top_points"]


def after_take(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    table: tuple[Side, ...],
    held: tuple[int, ...],
    top_points: int,
) -> State:
    """`replaced(state, table=..., hands=..., pile=(), pile_taken=True, took_pile=True,
    held=..., top_points=..., step=PLAY)`, field by field: the state after a pile take."""
    f = list(state)
    f[HANDS] = hands
    f[_TABLE] = table
    f[PILE] = ()
    f[_PILE_TAKEN] = True
    f[_TOOK_PILE] = True
    f[_HELD] = held
    f[_TOP_POINTS] = top_points
    f[STEP] = PLAY
    return tuple.__new__(State, f)


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


_TURN_DEFAULTS = tuple(TURN_START[f] for f in TURN_FIELDS)
