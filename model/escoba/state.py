"""The values the Escoba model passes around: a game state and a play.

Both are NamedTuples of ints, tuples and strings (no object with a hash of its own written in
Python), so they are immutable, hashable and compare by value, and hashing a state costs a few
integer hashes: the explorer hashes every state it meets. Piles (hands, table, captured cards) are
bitmasks of cards (see model.escoba.cards); the stock is the rest of the hand's deck order, next
card first. The state holds no rule parameter: the same state means the same situation under any
options.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, NamedTuple

from arbitro.model.escoba.cards import card_name, cards_of
from arbitro.model.game import HandResult, Phase, Seating

CATEGORIES = ("cards", "oros", "velo", "setenta", "escobas")
"""The scoring categories of a hand, in the book's order."""

HAND_END_REASON = "cards-played"
"""An Escoba hand ends one way: every card of the stock was dealt and played."""

NOBODY: Final = -1
"""`last_capturer` before anyone captured in the hand; `to_move` when nobody is to play."""


class Play(NamedTuple):
    """Seat ``seat`` plays ``card`` and takes the table cards in the mask ``capture`` (0: takes none).

    Tuples order plays canonically: by seat, then card, then capture mask as an integer.
    """

    seat: int
    card: int
    capture: int

    def captured(self) -> tuple[int, ...]:
        """The table cards taken, ascending."""
        return cards_of(self.capture)

    def describe(self) -> str:
        taken = " ".join(card_name(c) for c in self.captured())
        what = f"takes {taken}" if taken else "takes nothing"
        return f"seat {self.seat} plays {card_name(self.card)} and {what}"


class Tally(Mapping[str, int]):
    """One side's points of a hand by category: an immutable, hashable mapping."""

    __slots__ = ("_items",)

    def __init__(self, items: tuple[tuple[str, int], ...]) -> None:
        self._items = items

    def __getitem__(self, key: str) -> int:
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tally):
            return self._items == other._items
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"Tally({dict(self._items)!r})"

    def total(self) -> int:
        return sum(v for _, v in self._items)


_RESULTS: dict[tuple[tuple[int, ...], ...], HandResult] = {}
"""HandResult by points: a hand's result is built once per distinct outcome (bounded)."""


def hand_result(points: tuple[tuple[int, ...], ...]) -> HandResult:
    """The HandResult of per-side points listed in CATEGORIES order."""
    hit = _RESULTS.get(points)
    if hit is None:
        if len(_RESULTS) >= 4096:
            _RESULTS.clear()
        tallies = tuple(Tally(tuple(zip(CATEGORIES, side, strict=True))) for side in points)
        hit = _RESULTS[points] = HandResult(
            reason=HAND_END_REASON,
            scores=tuple(t.total() for t in tallies),
            categories=tallies,
        )
    return hit


_SEATINGS: dict[tuple[int, int, str], Seating] = {}


def seating_of(players: int, sides: int, layout: str) -> Seating:
    """The Seating of these players, sides and layout (one object per distinct seating)."""
    hit = _SEATINGS.get((players, sides, layout))
    if hit is None:
        if len(_SEATINGS) >= 64:
            _SEATINGS.clear()
        hit = _SEATINGS[players, sides, layout] = Seating(players, sides, layout)
    return hit


class EscobaState(NamedTuple):
    """A whole game of Escoba between two moments.

    After a hand ends the hands are empty and the captured piles (and any unclaimed table cards)
    stay as they were until the next deal, so the hand's score can be recounted from the state.
    The seating is kept as its three numbers and the last hand's result as its points, so that
    every field hashes in C; `seating` and `result` give them back as the shared types.
    """

    players: int
    sides: int  # seat s plays for side s % sides
    layout: str  # "" or "teams"
    phase: Phase
    dealer: int
    to_move: int  # the seat to play in phase "play", else NOBODY
    hand_number: int  # hands dealt since the game began
    deal_number: int  # deals made in the current hand, the opening deal being 1
    hands: tuple[int, ...]  # per seat, a mask
    table: int
    stock: tuple[int, ...]  # undealt cards, next to be dealt first
    piles: tuple[int, ...]  # per side, the cards it captured this hand
    escobas: tuple[int, ...]  # per side, escobas this hand
    last_capturer: int  # the side that captured last this hand, else NOBODY
    scores: tuple[int, ...]  # per side, the game's running total
    # the last finished hand, kept until the next one ends: per side, its points in CATEGORIES
    # order; None before the first hand ends
    last_points: tuple[tuple[int, ...], ...] | None

    @property
    def seating(self) -> Seating:
        """Who plays: the players and how they form sides."""
        return seating_of(self.players, self.sides, self.layout)

    @property
    def result(self) -> HandResult | None:
        """The last finished hand, by category and in total, or None before the first ends."""
        points = self.last_points
        return None if points is None else hand_result(points)


def put(values: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    """``values`` with item ``i`` replaced by ``v``."""
    out = list(values)
    out[i] = v
    return tuple(out)


def progress(state: EscobaState) -> int:
    """Plays made in the hand, up to a constant: each takes one card out of the hands and the
    stock (a later deal moves cards from one to the other), so it grows by one with every
    transition; the explorer relies on it, and checks it on every state."""
    n = len(state.stock)
    for h in state.hands:
        while h:  # a hand holds a few cards: one step each
            h &= h - 1
            n += 1
    return -n
