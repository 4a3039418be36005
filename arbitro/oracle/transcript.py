"""Transcripts: a whole game as canonical JSON Lines, written by `arbitro play`, read by `arbitro check`.

Line 1 is the header (protocol, rulebook, options and overrides, seating, first dealer, the deck
order or the dealt cards of every hand, and where a game that starts part-way starts); then one
`action` line per action, each with its step, hand and seat (and, if the producer gives it, its own
list of legal actions at that moment); after a hand ends the producer may claim its scores in a
`hand` line; the last line is the `result` the producer claims. Lines are read with the protocol's
strict JSON (`arbitro.oracle.jsonio`): a line nested too deeply or holding a number beyond 64 bits is
malformed, named by its line, never a crash.
Each line is `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`, so the
same game written twice is byte-identical.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.errors import ArbitroError
from arbitro.oracle.jsonio import JSONError, loads, shorten

PROTOCOL = "arbitro/1"


class TranscriptError(ArbitroError, ValueError):
    """A transcript that is not well formed: names the line, the field and what was expected."""

    def __init__(self, line: int, field_name: str, expected: str) -> None:
        self.line = line
        self.field = shorten(field_name, 80)
        self.expected = shorten(expected, 500)
        super().__init__(f"line {line}: {self.field}: {self.expected}")


def canonical_line(obj: Mapping[str, Any]) -> str:
    """One transcript line, canonical."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


Deal = tuple[str, ...] | Mapping[str, Any]
"""A hand's deck order (card names, top of the stock first), or the cards as dealt (an object:
hands, and the table or the upcard and red threes, and the stock; docs/protocol.md, dealing)."""


@dataclass(frozen=True)
class Header:
    rulebook: str
    options: dict[str, str | bool]
    players: int
    sides: int
    layout: str
    dealer: int
    deals: tuple[Deal, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """Clause id → the value played instead of the book's (a house rule; not the book's game)."""
    hand: int = 0
    """The number of the first hand the transcript plays (a game may be taken up part-way)."""
    scores: tuple[int, ...] | None = None
    """The totals before that hand; None: a game from its start (all zero)."""
    config: str | None = None
    """A small configuration of the rulebook (spec/configs/) the game was played in, as the
    explorer's witnesses say; None: the book's own game."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "header",
            "protocol": PROTOCOL,
            "rulebook": self.rulebook,
            "options": dict(self.options),
            "players": self.players,
            "sides": self.sides,
            "layout": self.layout,
            "dealer": self.dealer,
            "deals": [d if isinstance(d, Mapping) else list(d) for d in self.deals],
        }
        if self.overrides:
            out["overrides"] = dict(self.overrides)
        if self.hand:
            out["hand"] = self.hand
        if self.scores is not None:
            out["scores"] = list(self.scores)
        if self.config is not None:
            out["config"] = self.config
        return out


@dataclass(frozen=True)
class ActionLine:
    line: int
    step: int
    hand: int
    seat: int
    action: Mapping[str, Any]
    text: str = field(default="", compare=False, repr=False)
    """The action object's JSON text when the line was read in its canonical form, else "": equal
    texts describe equal actions, so a reader may parse each distinct one once."""
    legal: tuple[Mapping[str, Any], ...] | None = None
    """The producer's own list of the legal actions before this one, if it gives it."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "action",
            "step": self.step,
            "hand": self.hand,
            "seat": self.seat,
            "action": dict(self.action),
        }
        if self.legal is not None:
            out["legal"] = [dict(a) for a in self.legal]
        return out


@dataclass(frozen=True)
class HandLine:
    line: int
    hand: int
    scores: tuple[int, ...]
    categories: tuple[Mapping[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "hand",
            "hand": self.hand,
            "scores": list(self.scores),
            "categories": [dict(c) for c in self.categories],
        }


@dataclass(frozen=True)
class ResultLine:
    line: int
    scores: tuple[int, ...]
    winner: int | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "result", "scores": list(self.scores), "winner": self.winner}


Body = ActionLine | HandLine | ResultLine


@dataclass
class Transcript:
    header: Header
    body: list[Body] = field(default_factory=list)

    def lines(self) -> Iterator[str]:
        yield canonical_line(self.header.to_json())
        for item in self.body:
            yield canonical_line(item.to_json())

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines())


# ---------------------------------------------------------------- reading, with precise errors


def _show(v: Any) -> str:
    return shorten(json.dumps(v, ensure_ascii=False), 80)


def _obj(raw: str, n: int) -> dict[str, Any]:
    try:
        data = loads(raw)
    except JSONError as e:
        raise TranscriptError(n, "<json>", f"a JSON object; {e}") from None
    if not isinstance(data, dict):
        raise TranscriptError(n, "<json>", f"a JSON object, got {type(data).__name__}")
    return data


def _int(d: Mapping[str, Any], key: str, n: int, low: int | None = None) -> int:
    if key not in d:
        raise TranscriptError(n, key, "a required integer field is missing")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise TranscriptError(n, key, f"an integer, got {_show(v)}")
    if low is not None and v < low:
        raise TranscriptError(n, key, f"an integer ≥ {low}, got {v}")
    return v


def _str(d: Mapping[str, Any], key: str, n: int) -> str:
    v = d.get(key)
    if not isinstance(v, str):
        raise TranscriptError(n, key, "a string" + ("" if key in d else " (missing)"))
    return v


def _ints(d: Mapping[str, Any], key: str, n: int) -> tuple[int, ...]:
    v = d.get(key)
    if not isinstance(v, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in v
    ):
        raise TranscriptError(n, key, "an array of integers" + ("" if key in d else " (missing)"))
    return tuple(v)


def _only(d: Mapping[str, Any], allowed: Sequence[str], n: int) -> None:
    extra = sorted(set(d) - set(allowed))
    if extra:
        raise TranscriptError(
            n, extra[0], f"no such field; a {d.get('type')} line has {', '.join(allowed)}"
        )


HEADER_FIELDS = (
    "type",
    "protocol",
    "rulebook",
    "options",
    "overrides",
    "players",
    "sides",
    "layout",
    "dealer",
    "deals",
    "hand",
    "scores",
    "config",
)


def parse_header(raw: str, n: int = 1) -> Header:
    d = _obj(raw, n)
    if d.get("type") != "header":
        raise TranscriptError(n, "type", f'"header" on the first line, got {_show(d.get("type"))}')
    _only(d, HEADER_FIELDS, n)
    if d.get("protocol") != PROTOCOL:
        raise TranscriptError(n, "protocol", f'"{PROTOCOL}", got {_show(d.get("protocol"))}')
    options = d.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(v, (str, bool)) for v in options.values()
    ):
        raise TranscriptError(n, "options", "an object of reading labels (strings) or true/false")
    deals = d.get("deals")
    if not isinstance(deals, list) or not all(
        isinstance(o, dict) or (isinstance(o, list) and all(isinstance(c, str) for c in o))
        for o in deals
    ):
        raise TranscriptError(
            n,
            "deals",
            "an array with, for each hand, a deck order (an array of card names) or the cards "
            "as dealt (an object)",
        )
    overrides = d.get("overrides", {})
    if not isinstance(overrides, dict):
        raise TranscriptError(n, "overrides", "an object of clause id → value")
    scores = None
    if "scores" in d:
        scores = _ints(d, "scores", n)
    return Header(
        rulebook=_str(d, "rulebook", n),
        options=dict(options),
        players=_int(d, "players", n, 1),
        sides=_int(d, "sides", n, 1),
        layout=d.get("layout", "")
        if isinstance(d.get("layout", ""), str)
        else _str(d, "layout", n),
        dealer=_int(d, "dealer", n, 0),
        deals=tuple(o if isinstance(o, dict) else tuple(o) for o in deals),
        overrides=overrides,
        hand=_int(d, "hand", n, 0) if "hand" in d else 0,
        scores=scores,
        config=_str(d, "config", n) if "config" in d else None,
    )


_ACTION_KEYS = frozenset(("type", "step", "hand", "seat", "action"))


def parse_body(raw: str, n: int) -> Body:
    d = _obj(raw, n)
    kind = d.get("type")
    if kind == "action" and d.keys() == _ACTION_KEYS:
        # the common, well-formed case in one pass; anything odd falls through to the full checks
        step, hand, seat, action = d["step"], d["hand"], d["seat"], d["action"]
        if (
            type(step) is int
            and type(hand) is int
            and type(seat) is int
            and step >= 1
            and hand >= 0
            and seat >= 0
            and type(action) is dict
        ):
            return ActionLine(n, step, hand, seat, action)
    if kind == "action":
        _only(d, ("type", "step", "hand", "seat", "action", "legal"), n)
        action = d.get("action")
        if not isinstance(action, dict):
            raise TranscriptError(n, "action", "an action object (see docs/protocol.md)")
        legal = d.get("legal")
        if legal is not None and (
            not isinstance(legal, list) or not all(isinstance(a, dict) for a in legal)
        ):
            raise TranscriptError(n, "legal", "an array of action objects (the producer's list)")
        return ActionLine(
            n,
            _int(d, "step", n, 1),
            _int(d, "hand", n, 0),
            _int(d, "seat", n, 0),
            action,
            legal=None if legal is None else tuple(legal),
        )
    if kind == "hand":
        _only(d, ("type", "hand", "scores", "categories"), n)
        cats = d.get("categories", [])
        if not isinstance(cats, list) or not all(
            isinstance(c, dict)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in c.values())
            for c in cats
        ):
            raise TranscriptError(
                n, "categories", "an array, one object per side, of category → integer"
            )
        return HandLine(n, _int(d, "hand", n, 0), _ints(d, "scores", n), tuple(cats))
    if kind == "result":
        _only(d, ("type", "scores", "winner"), n)
        winner = d.get("winner")
        if winner is not None and (isinstance(winner, bool) or not isinstance(winner, int)):
            raise TranscriptError(n, "winner", "a side number or null")
        return ResultLine(n, _ints(d, "scores", n), winner)
    raise TranscriptError(n, "type", f'"action", "hand" or "result", got {_show(kind)}')


_ACTION_HEAD = '{"action":{'
_ACTION_TAIL = re.compile(
    r',"hand":(0|[1-9][0-9]{0,17}),"seat":(0|[1-9][0-9]{0,17}),"step":([1-9][0-9]{0,17}),'
    r'"type":"action"\}[ \t\n\r]*\Z'
)
"""After the action object, the rest of an action line as `canonical_line` writes it: every field
then has the type and range `parse_body` requires (steps from 1, hands and seats from 0, at most
18 digits)."""


def _action_line(
    line: int, step: int, hand: int, seat: int, action: Mapping[str, Any], text: str
) -> ActionLine:
    """`ActionLine(line, step, hand, seat, action, text)`: the same instance dictionary, filled
    without the frozen dataclass's `object.__setattr__` call per field (one line per action)."""
    new = object.__new__(ActionLine)
    fields = new.__dict__
    fields["line"] = line
    fields["step"] = step
    fields["hand"] = hand
    fields["seat"] = seat
    fields["action"] = action
    fields["text"] = text
    return new


_plain = json.JSONDecoder().decode


def _object_or_none(text: str) -> dict[str, Any] | None:
    """The action object of a canonical action line, or None to leave the line to `parse_body`.

    The plain decoder is faster than the strict one; whatever it lets through that the strict
    one would not (NaN, a long number) is a value no action field accepts, so the action's own
    checks refuse it, and what it cannot read goes to the general reading."""
    try:
        got = _plain(text)
    except (ValueError, RecursionError):
        return None
    return got if isinstance(got, dict) else None


def read(lines: Iterable[str]) -> tuple[Header, Iterator[Body]]:
    """The header, and the body lines parsed lazily (errors surface at the line they are on).

    An action line in canonical form whose action object holds no nested object skips the general
    checks (`_ACTION_TAIL`), and each distinct action object is decoded once; every other line,
    valid or not, is read by `parse_body`. The lines read are the ones `parse_body` returns.
    """
    it = iter(enumerate(lines, start=1))
    for n, raw in it:
        if raw.strip():
            header = parse_header(raw, n)
            break
    else:
        raise TranscriptError(1, "<file>", "a header line; the transcript is empty")

    head, tail = _ACTION_HEAD, _ACTION_TAIL.match
    decoded: dict[str, dict[str, Any]] = {}

    def body() -> Iterator[Body]:
        for m, line in it:
            if line.startswith(head):
                # the action object ends at its first "}" if it decodes as a whole: then that "}"
                # closed no nested object and sat in no string
                end = line.find("}", 11) + 1
                got = tail(line, end) if end else None
                if got is not None:
                    text = line[10:end]
                    action = decoded.get(text)
                    if action is None:
                        action = _object_or_none(text)
                        if action is not None:
                            decoded[text] = action
                    if action is not None:
                        hand, seat, step = got.groups()
                        yield _action_line(m, int(step), int(hand), int(seat), action, text)
                        continue
            if line.strip():
                yield parse_body(line, m)

    return header, body()
