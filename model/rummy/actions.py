"""The atomic actions of a turn, and their JSON form.

A turn is a sequence of atomic actions chosen so that the legal ones can be listed exactly:

- `Draw(seat, count)`: draw from the stock (`count` is what the rules give, *:draw-count).
- `TakePile(seat, use, meld, cards)`: take the whole discard pile, using its top card at once:
  `use="set"` with `cards` from the hand to start a set, `use="escalera"` to start an escalera,
  `use="add"` to put it on the side's meld number `meld`.
- `LayMeld(seat, cards)`: lay a new meld with exactly its minimum size (a set: max(set_min,
  set_start_min_naturals) cards; an escalera: sequence_min; a wild meld: wild_meld_min_start); a
  black-three meld, laid only to go out, with all the black threes it will ever hold.
- `AddToMeld(seat, meld, card)`: one card onto one of the side's melds.
- `Merge(seat, meld, other)`: join two sets of one rank (*:merge-sets).
- `ReplaceWild(seat, meld, natural, wild)`: clean a canasta by swapping a wild for a natural from
  the hand (*:clean-by-replacing-wilds); the freed wild is then placed by `AddToMeld`/`LayMeld`.
- `FinishOpening(seat)`: the opening melds reach the minimum; the side has opened.
- `Discard(seat, card)`: end the turn (discarding the last card goes out).
- `AskPartner(seat)` / `Answer(seat, yes)`: "may I go out?" and the binding answer.
- `Stop(seat)`: play stops after the last card of the stock was a red three (no discard).

Bigger melds are built by laying the minimum and adding cards one at a time, which reaches every
arrangement the books allow while keeping the list of legal actions short. Every action names the
seat that acts, so acting out of turn is expressible and refused with the book's penalty.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy.cards import card_name, parse_card


class _Action(tuple[Any, ...]):
    """An action: an immutable tuple of its type's tag (its place in the canonical order of
    types) and then its fields, so that building, hashing and comparing one is tuple work and
    actions of two types are never equal."""

    __slots__ = ()
    TAG: ClassVar[int]
    FIELDS: ClassVar[tuple[str, ...]]

    @property
    def seat(self) -> int:
        seat: int = self[1]
        return seat

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(self.FIELDS, self[1:], strict=True))
        return f"{type(self).__name__}({inner})"

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self[1:])

    def with_seat(self, seat: int) -> Self:
        """The same action by another seat."""
        return tuple.__new__(type(self), (self[0], seat, *self[2:]))


class Draw(_Action):
    __slots__ = ()
    TAG = 0
    FIELDS = ("seat", "count")

    def __new__(cls, seat: int, count: int) -> Self:
        return tuple.__new__(cls, (0, seat, count))

    @property
    def count(self) -> int:  # type: ignore[override]  # the field, in place of tuple.count
        got: int = self[2]
        return got


class TakePile(_Action):
    __slots__ = ()
    TAG = 1
    FIELDS = ("seat", "use", "meld", "cards")

    def __new__(cls, seat: int, use: str, meld: int = -1, cards: tuple[int, ...] = ()) -> Self:
        return tuple.__new__(cls, (1, seat, use, meld, cards))

    @property
    def use(self) -> str:  # "set", "escalera", "add"
        got: str = self[2]
        return got

    @property
    def meld(self) -> int:
        got: int = self[3]
        return got

    @property
    def cards(self) -> tuple[int, ...]:
        got: tuple[int, ...] = self[4]
        return got


class LayMeld(_Action):
    __slots__ = ()
    TAG = 2
    FIELDS = ("seat", "cards")

    def __new__(cls, seat: int, cards: tuple[int, ...]) -> Self:
        return tuple.__new__(cls, (2, seat, cards))

    @property
    def cards(self) -> tuple[int, ...]:
        got: tuple[int, ...] = self[2]
        return got


class AddToMeld(_Action):
    __slots__ = ()
    TAG = 3
    FIELDS = ("seat", "meld", "card")

    def __new__(cls, seat: int, meld: int, card: int) -> Self:
        return tuple.__new__(cls, (3, seat, meld, card))

    @property
    def meld(self) -> int:
        got: int = self[2]
        return got

    @property
    def card(self) -> int:
        got: int = self[3]
        return got


class Merge(_Action):
    __slots__ = ()
    TAG = 4
    FIELDS = ("seat", "meld", "other")

    def __new__(cls, seat: int, meld: int, other: int) -> Self:
        return tuple.__new__(cls, (4, seat, meld, other))

    @property
    def meld(self) -> int:
        got: int = self[2]
        return got

    @property
    def other(self) -> int:
        got: int = self[3]
        return got


class ReplaceWild(_Action):
    __slots__ = ()
    TAG = 5
    FIELDS = ("seat", "meld", "natural", "wild")

    def __new__(cls, seat: int, meld: int, natural: int, wild: int) -> Self:
        return tuple.__new__(cls, (5, seat, meld, natural, wild))

    @property
    def meld(self) -> int:
        got: int = self[2]
        return got

    @property
    def natural(self) -> int:
        got: int = self[3]
        return got

    @property
    def wild(self) -> int:
        got: int = self[4]
        return got


class FinishOpening(_Action):
    __slots__ = ()
    TAG = 6
    FIELDS = ("seat",)

    def __new__(cls, seat: int) -> Self:
        return tuple.__new__(cls, (6, seat))


class Discard(_Action):
    __slots__ = ()
    TAG = 7
    FIELDS = ("seat", "card")

    def __new__(cls, seat: int, card: int) -> Self:
        return tuple.__new__(cls, (7, seat, card))

    @property
    def card(self) -> int:
        got: int = self[2]
        return got


class AskPartner(_Action):
    __slots__ = ()
    TAG = 8
    FIELDS = ("seat",)

    def __new__(cls, seat: int) -> Self:
        return tuple.__new__(cls, (8, seat))


class Answer(_Action):
    __slots__ = ()
    TAG = 9
    FIELDS = ("seat", "yes")

    def __new__(cls, seat: int, yes: bool) -> Self:
        return tuple.__new__(cls, (9, seat, yes))

    @property
    def yes(self) -> bool:
        got: bool = self[2]
        return got


class Stop(_Action):
    __slots__ = ()
    TAG = 10
    FIELDS = ("seat",)

    def __new__(cls, seat: int) -> Self:
        return tuple.__new__(cls, (10, seat))


Action = (
    Draw
    | TakePile
    | LayMeld
    | AddToMeld
    | Merge
    | ReplaceWild
    | FinishOpening
    | Discard
    | AskPartner
    | Answer
    | Stop
)

_TYPES: dict[type[Any], str] = {
    Draw: "draw",
    TakePile: "take-pile",
    LayMeld: "lay",
    AddToMeld: "add",
    Merge: "merge",
    ReplaceWild: "replace-wild",
    FinishOpening: "finish-opening",
    Discard: "discard",
    AskPartner: "ask-partner",
    Answer: "answer",
    Stop: "stop",
}
USES = ("set", "escalera", "add")


def action_key(a: Action) -> tuple[Any, ...]:
    """The canonical order of actions: by type, then by fields."""
    if type(a) is TakePile:
        return (1, USES.index(a.use), a.meld, a.cards)
    if type(a) is Answer:
        return (9, not a.yes)
    return (a[0], *a[2:])


def action_to_json(a: Action) -> dict[str, Any]:
    """A JSON object naming the action type and its fields; cards by name."""
    t = _TYPES.get(type(a))
    if t is None:
        raise MalformedInput(f"not a rummy action: {a!r}")
    out: dict[str, Any] = {"type": t, "seat": a.seat}
    if isinstance(a, Draw):
        out["count"] = a.count
    elif isinstance(a, TakePile):
        out["use"] = a.use
        if a.use == "add":
            out["meld"] = a.meld
        else:
            out["cards"] = [card_name(c) for c in a.cards]
    elif isinstance(a, LayMeld):
        out["cards"] = [card_name(c) for c in a.cards]
    elif isinstance(a, AddToMeld):
        out["meld"] = a.meld
        out["card"] = card_name(a.card)
    elif isinstance(a, Merge):
        out["meld"] = a.meld
        out["other"] = a.other
    elif isinstance(a, ReplaceWild):
        out["meld"] = a.meld
        out["natural"] = card_name(a.natural)
        out["wild"] = card_name(a.wild)
    elif isinstance(a, Discard):
        out["card"] = card_name(a.card)
    elif isinstance(a, Answer):
        out["yes"] = a.yes
    return out


def _int(data: Mapping[str, Any], key: str) -> int:
    v = data.get(key)
    if type(v) is int:
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        raise MalformedInput(f"action field {key!r} must be an integer, got {v!r}")
    return v


def _cards(data: Mapping[str, Any], key: str) -> tuple[int, ...]:
    v = data.get(key)
    if not isinstance(v, list):
        raise MalformedInput(f"action field {key!r} must be a list of card names, got {v!r}")
    return tuple(sorted(parse_card(x) for x in v))


def _card(data: Mapping[str, Any], key: str) -> int:
    v = data.get(key)
    if not isinstance(v, str):
        raise MalformedInput(f"action field {key!r} must be a card name, got {v!r}")
    return parse_card(v)


_FIELDS: dict[str, set[str]] = {
    "draw": {"count"},
    "take-pile": {"use", "meld", "cards"},
    "lay": {"cards"},
    "add": {"meld", "card"},
    "merge": {"meld", "other"},
    "replace-wild": {"meld", "natural", "wild"},
    "finish-opening": set(),
    "discard": {"card"},
    "ask-partner": set(),
    "answer": {"yes"},
    "stop": set(),
}


_ALLOWED = {t: frozenset({"type", "seat", *f}) for t, f in _FIELDS.items()}


def action_from_json(data: Mapping[str, Any]) -> Action:
    """The action a JSON object describes; MalformedInput names what is wrong."""
    if type(data) is not dict and not isinstance(data, Mapping):
        raise MalformedInput(f"an action is a JSON object, got {data!r}")
    t = data.get("type")
    if t not in _FIELDS:
        raise MalformedInput(f"unknown action type {t!r}; known: {', '.join(_FIELDS)}")
    if not data.keys() <= _ALLOWED[t]:
        extra = sorted(set(data) - _ALLOWED[t])
        raise MalformedInput(f"action {t!r} has no field {extra[0]!r}")
    seat = _int(data, "seat")
    if t == "draw":
        return Draw(seat, _int(data, "count"))
    if t == "take-pile":
        use = data.get("use")
        if use not in USES:
            raise MalformedInput(f"take-pile 'use' must be one of {', '.join(USES)}, got {use!r}")
        if use == "add":
            return TakePile(seat, "add", _int(data, "meld"), ())
        return TakePile(seat, use, -1, _cards(data, "cards"))
    if t == "lay":
        return LayMeld(seat, _cards(data, "cards"))
    if t == "add":
        return AddToMeld(seat, _int(data, "meld"), _card(data, "card"))
    if t == "merge":
        return Merge(seat, _int(data, "meld"), _int(data, "other"))
    if t == "replace-wild":
        return ReplaceWild(seat, _int(data, "meld"), _card(data, "natural"), _card(data, "wild"))
    if t == "finish-opening":
        return FinishOpening(seat)
    if t == "discard":
        return Discard(seat, _card(data, "card"))
    if t == "ask-partner":
        return AskPartner(seat)
    if t == "answer":
        yes = data.get("yes")
        if not isinstance(yes, bool):
            raise MalformedInput(f"answer 'yes' must be true or false, got {yes!r}")
        return Answer(seat, yes)
    return Stop(seat)
