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
from dataclasses import dataclass
from typing import Any

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy.cards import card_name, parse_card


@dataclass(frozen=True, slots=True)
class Draw:
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class TakePile:
    seat: int
    use: str  # "set", "escalera", "add"
    meld: int = -1
    cards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LayMeld:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AddToMeld:
    seat: int
    meld: int
    card: int


@dataclass(frozen=True, slots=True)
class Merge:
    seat: int
    meld: int
    other: int


@dataclass(frozen=True, slots=True)
class ReplaceWild:
    seat: int
    meld: int
    natural: int
    wild: int


@dataclass(frozen=True, slots=True)
class FinishOpening:
    seat: int


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class AskPartner:
    seat: int


@dataclass(frozen=True, slots=True)
class Answer:
    seat: int
    yes: bool


@dataclass(frozen=True, slots=True)
class Stop:
    seat: int


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
_ORDER = {t: i for i, t in enumerate(_TYPES)}
USES = ("set", "escalera", "add")


def action_key(a: Action) -> tuple[Any, ...]:
    """The canonical order of actions: by type, then by fields."""
    if isinstance(a, TakePile):
        return (_ORDER[TakePile], USES.index(a.use), a.meld, a.cards)
    if isinstance(a, Answer):
        return (_ORDER[Answer], not a.yes)
    fields = tuple(getattr(a, f) for f in a.__slots__ if f != "seat")
    return (_ORDER[type(a)], *fields)


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
