"""One-line notation for positions and moves (in the spirit of chess's FEN and SAN).

A *position line* is a state's JSON (docs/protocol.md, states) written as space-separated fields in
a fixed order per game family, each field in a compact form; a *move* is one action in a short
token. Both read back to the very JSON they came from, so the notation stands wherever a state or
an action does. The grammar is in docs/protocol.md (notation); this module is its one
implementation:

    escoba 2 2 _ play 0 1 0 1 1c2c3c/1b2b3b 1o5o6o7o 4o…Re -/- 0,0 - 0,0 -

Field forms: an integer (`-` for null); a word (`_` for the empty string); `1`/`0` for true and
false; a card list as its card names run together (`-` when empty); a list per seat or side joined
by `/`; integers joined by `,`. The Samba/Canasta table and a hand's result have forms of their
own (see `_table` and `_result`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arbitro.model.errors import MalformedInput

SPANISH_CARD = r"[1-7SCR][ocbe]"
FRENCH_CARD = r"(?:10|[2-9JQKA])[CDHS]|JK"
CARD = {"escoba": SPANISH_CARD, "rummy": FRENCH_CARD}

Enc = Callable[[Any], str]
Dec = Callable[[str, str, str], Any]  # (token, card pattern, field) -> value


def _bad(field: str, expected: str, got: str) -> MalformedInput:
    shown = got if len(got) <= 40 else got[:37] + "..."
    return MalformedInput(f"notation: {field}: {expected}, got {shown!r}")


# ---------------------------------------------------------------- field forms


def _enc_int(v: Any) -> str:
    return "-" if v is None else str(int(v))


def _dec_int(tok: str, card: str, field: str) -> int:
    if not re.fullmatch(r"-?(?:0|[1-9][0-9]{0,17})", tok):
        raise _bad(field, "an integer", tok)
    return int(tok)


def _dec_intn(tok: str, card: str, field: str) -> int | None:
    return None if tok == "-" else _dec_int(tok, card, field)


def _enc_word(v: Any) -> str:
    return str(v) or "_"


def _dec_word(tok: str, card: str, field: str) -> str:
    if not re.fullmatch(r"[a-z0-9_-]+", tok):
        raise _bad(field, "a word", tok)
    return "" if tok == "_" else tok


def _enc_bool(v: Any) -> str:
    return "1" if v else "0"


def _dec_bool(tok: str, card: str, field: str) -> bool:
    if tok not in ("0", "1"):
        raise _bad(field, "1 (true) or 0 (false)", tok)
    return tok == "1"


def _enc_cards(v: Sequence[str]) -> str:
    return "".join(v) or "-"


def _dec_cards(tok: str, card: str, field: str) -> list[str]:
    if tok == "-":
        return []
    if not re.fullmatch(f"(?:{card})+", tok):
        raise _bad(field, "card names run together (or - for none)", tok)
    return re.findall(card, tok)


def _enc_card(v: Any) -> str:
    return "-" if v is None else str(v)


def _dec_card(tok: str, card: str, field: str) -> str | None:
    if tok == "-":
        return None
    if not re.fullmatch(card, tok):
        raise _bad(field, "a card name (or -)", tok)
    return tok


def _enc_each(v: Sequence[Sequence[str]]) -> str:
    return "/".join(_enc_cards(x) for x in v)


def _dec_each(tok: str, card: str, field: str) -> list[list[str]]:
    return [_dec_cards(t, card, f"{field}[{i}]") for i, t in enumerate(tok.split("/"))]


def _enc_ints(v: Sequence[int]) -> str:
    return ",".join(str(x) for x in v) or "-"


def _dec_ints(tok: str, card: str, field: str) -> list[int]:
    if tok == "-":
        return []
    return [_dec_int(t, card, field) for t in tok.split(",")]


_KINDS = {"set": "s", "escalera": "e", "wilds": "w", "black-threes": "b"}
_KIND_OF = {v: k for k, v in _KINDS.items()}


def _enc_meld(m: Mapping[str, Any]) -> str:
    tag = _KINDS[m["kind"]] + str(m.get("rank", m.get("suit", "")))
    return f"{tag}={_enc_cards(m['cards'])}"


def _dec_meld(tok: str, card: str, field: str) -> dict[str, Any]:
    got = re.fullmatch(r"([sewb])((?:10|[2-9JQKA])|[CDHS])?=(.+)", tok)
    if not got:
        raise _bad(field, "a meld: s<rank>=cards, e<suit>=cards, w=cards or b=cards", tok)
    kind = _KIND_OF[got.group(1)]
    out: dict[str, Any] = {"kind": kind, "cards": _dec_cards(got.group(3), card, field)}
    if kind == "set":
        out["rank"] = got.group(2) or ""
    elif kind == "escalera":
        out["suit"] = got.group(2) or ""
    return out


def _enc_table(v: Sequence[Mapping[str, Any]]) -> str:
    sides = []
    for sd in v:
        melds = "+".join(_enc_meld(m) for m in sd["melds"]) or "-"
        sides.append(f"{_enc_bool(sd['opened'])}:{_enc_cards(sd['red_threes'])}:{melds}")
    return "/".join(sides)


def _dec_table(tok: str, card: str, field: str) -> list[dict[str, Any]]:
    out = []
    for i, side in enumerate(tok.split("/")):
        parts = side.split(":")
        where = f"{field}[{i}]"
        if len(parts) != 3:
            raise _bad(where, "opened:red threes:melds", side)
        melds = [] if parts[2] == "-" else parts[2].split("+")
        out.append(
            {
                "melds": [_dec_meld(m, card, f"{where}.melds") for m in melds],
                "red_threes": _dec_cards(parts[1], card, f"{where}.red_threes"),
                "opened": _dec_bool(parts[0], card, f"{where}.opened"),
            }
        )
    return out


def _enc_result(v: Mapping[str, Any] | None) -> str:
    """A hand's result: reason:scores:categories[:hand:finding], categories per side joined by
    `/`, each side's `name=points` joined by `,`; `-` when there is none."""
    if v is None:
        return "-"
    cats = "/".join(
        ",".join(f"{k}={n}" for k, n in side.items()) or "-" for side in v["categories"]
    )
    parts = [v["reason"], _enc_ints(v["scores"]), cats]
    if "hand" in v:
        parts += [str(v["hand"]), ",".join(v["finding"]) or "-"]
    return ":".join(parts)


def _dec_result(tok: str, card: str, field: str) -> dict[str, Any] | None:
    if tok == "-":
        return None
    # the finding's clause ids hold colons themselves (`samba-en:pile-one-card-rule`): it is the
    # last field, so everything after the fourth colon is the finding
    parts = tok.split(":", 4)
    if len(parts) not in (3, 5):
        raise _bad(field, "reason:scores:categories (and :hand:finding in Samba, Canasta)", tok)
    cats: list[dict[str, int]] = []
    for side in parts[2].split("/"):
        got: dict[str, int] = {}
        for item in [] if side == "-" else side.split(","):
            name, eq, n = item.partition("=")
            if not eq or not re.fullmatch(r"[a-z-]+", name):
                raise _bad(f"{field}.categories", "name=points", item)
            got[name] = _dec_int(n, card, f"{field}.categories.{name}")
        cats.append(got)
    out: dict[str, Any] = {}
    if len(parts) == 5:
        out["hand"] = _dec_int(parts[3], card, f"{field}.hand")
    out["reason"] = _dec_word(parts[0], card, f"{field}.reason")
    out["scores"] = _dec_ints(parts[1], card, f"{field}.scores")
    out["categories"] = cats
    if len(parts) == 5:
        out["finding"] = [] if parts[4] == "-" else parts[4].split(",")
    return out


INT: tuple[Enc, Dec] = (_enc_int, _dec_int)
INTN: tuple[Enc, Dec] = (_enc_int, _dec_intn)
WORD: tuple[Enc, Dec] = (_enc_word, _dec_word)
BOOL: tuple[Enc, Dec] = (_enc_bool, _dec_bool)
CARDS: tuple[Enc, Dec] = (_enc_cards, _dec_cards)
ONE_CARD: tuple[Enc, Dec] = (_enc_card, _dec_card)
EACH: tuple[Enc, Dec] = (_enc_each, _dec_each)
INTS: tuple[Enc, Dec] = (_enc_ints, _dec_ints)
TABLE: tuple[Enc, Dec] = (_enc_table, _dec_table)
RESULT: tuple[Enc, Dec] = (_enc_result, _dec_result)

FIELDS: dict[str, tuple[tuple[str, tuple[Enc, Dec]], ...]] = {
    "escoba": (
        ("players", INT),
        ("sides", INT),
        ("layout", WORD),
        ("phase", WORD),
        ("dealer", INT),
        ("to_move", INTN),
        ("hand_number", INT),
        ("deal_number", INT),
        ("hands", EACH),
        ("table", CARDS),
        ("stock", CARDS),
        ("piles", EACH),
        ("escobas", INTS),
        ("last_capturer", INTN),
        ("scores", INTS),
        ("last_hand", RESULT),
    ),
    "rummy": (
        ("players", INT),
        ("sides", INT),
        ("layout", WORD),
        ("phase", WORD),
        ("hand_number", INT),
        ("dealer", INT),
        ("scores", INTS),
        ("hands", EACH),
        ("pile", CARDS),
        ("stock", CARDS),
        ("table", TABLE),
        ("minimums", INTS),
        ("owed", INTS),
        ("pile_taken", BOOL),
        ("seat", INT),
        ("step", WORD),
        ("took_pile", BOOL),
        ("held", CARDS),
        ("top_points", INT),
        ("asked", BOOL),
        ("answer", WORD),
        ("melded", BOOL),
        ("clean_start", INT),
        ("no_discard", BOOL),
        ("freed", ONE_CARD),
        ("freed_meld", INT),
        ("result", RESULT),
    ),
}
"""Each family's position fields, in the order a position line writes them (after the family's
name), with their form."""


def position_line(state: Mapping[str, Any]) -> str:
    """A state's JSON as one position line."""
    game = state["game"]
    return " ".join([game, *(enc(state[key]) for key, (enc, _) in FIELDS[game])])


def is_position_line(text: object) -> bool:
    """Whether `text` is meant as a position line (it starts with a family's name and a space)."""
    return isinstance(text, str) and text.split(" ", 1)[0] in FIELDS and " " in text


def read_position_line(text: str) -> dict[str, Any]:
    """The state JSON a position line writes (its form only: the oracle checks the state)."""
    if not isinstance(text, str):
        raise MalformedInput("notation: a position line is a string")
    tokens = text.split()
    if not tokens or tokens[0] not in FIELDS:
        raise MalformedInput(
            f"notation: a position line starts with the game family ({', '.join(FIELDS)})"
        )
    game = tokens[0]
    fields = FIELDS[game]
    if len(tokens) != len(fields) + 1:
        names = " ".join(k for k, _ in fields)
        raise MalformedInput(
            f"notation: a {game} position line has {len(fields) + 1} fields ({game} {names}),"
            f" got {len(tokens)}"
        )
    out: dict[str, Any] = {"game": game}
    card = CARD[game]
    for (key, (_, dec)), tok in zip(fields, tokens[1:], strict=True):
        out[key] = dec(tok, card, key)
    return out


# ---------------------------------------------------------------- moves

_ESCOBA_MOVE = re.compile(rf"(?:(\d+)@)?({SPANISH_CARD})(?:x((?:{SPANISH_CARD})+))?")
_RUMMY_MOVE = re.compile(r"(?:(\d+)@)?([a-z]+(?:-[a-z]+)*)(.*)")


def move_text(action: Mapping[str, Any]) -> str:
    """An action's JSON as a move: `seat@` then the move (docs/protocol.md, notation)."""
    seat = action["seat"]
    if "card" in action and "type" not in action:  # Escoba
        took = "".join(action["capture"])
        return f"{seat}@{action['card']}" + (f"x{took}" if took else "")
    kind = action["type"]
    if kind == "draw":
        return f"{seat}@draw{action['count']}"
    if kind == "take-pile":
        if action["use"] == "add":
            return f"{seat}@take{_meld_ref(action['meld'])}"
        return f"{seat}@take-{action['use']}={_enc_cards(action['cards'])}"
    if kind == "lay":
        return f"{seat}@lay={_enc_cards(action['cards'])}"
    if kind == "add":
        return f"{seat}@add{_meld_ref(action['meld'])}={action['card']}"
    if kind == "merge":
        return f"{seat}@merge{_meld_ref(action['meld'])}{_meld_ref(action['other'])}"
    if kind == "replace-wild":
        return f"{seat}@replace{_meld_ref(action['meld'])}={action['natural']}/{action['wild']}"
    if kind == "discard":
        return f"{seat}@discard={action['card']}"
    if kind == "answer":
        return f"{seat}@answer-{'yes' if action['yes'] else 'no'}"
    return f"{seat}@{kind}"  # finish-opening, ask-partner, stop


def _meld_ref(meld: Any) -> str:
    return f"#{meld}" if isinstance(meld, int) else f"#{_enc_cards(meld)}"


def read_move(text: str, game: str, mover: int | None = None) -> dict[str, Any]:
    """The action JSON a move writes; without `seat@` the seat is `mover` (the seat to move).
    `game` is the game family's name (`GameFamily.name`)."""
    if not isinstance(text, str):
        raise MalformedInput("notation: a move is a string")
    return MOVES[game](text, mover)


def _escoba_move(text: str, mover: int | None) -> dict[str, Any]:
    got = _ESCOBA_MOVE.fullmatch(text)
    if not got:
        raise _bad("move", "[seat@]card or [seat@]card x cards taken, e.g. 4ox1o3b", text)
    seat = _seat(got.group(1), mover, text)
    taken = re.findall(SPANISH_CARD, got.group(3) or "")
    return {"seat": seat, "card": got.group(2), "capture": taken}


def _rummy_move(text: str, mover: int | None) -> dict[str, Any]:
    got = _RUMMY_MOVE.fullmatch(text)
    if not got:
        raise _bad("move", "[seat@]verb…, e.g. draw2, lay=7C7D2C, discard=9H", text)
    seat = _seat(got.group(1), mover, text)
    verb, rest = got.group(2), got.group(3)
    card = FRENCH_CARD
    if verb == "draw" and re.fullmatch(r"[1-9][0-9]?", rest):
        return {"type": "draw", "seat": seat, "count": int(rest)}
    if verb in ("take-set", "take-escalera") and rest.startswith("="):
        cards = _dec_cards(rest[1:], card, "move")
        return {"type": "take-pile", "seat": seat, "use": verb[5:], "cards": cards}
    if verb == "take":
        ref = re.fullmatch(r"#([^=]+)", rest)
        if ref:
            meld = _read_ref(ref.group(1), text)
            return {"type": "take-pile", "seat": seat, "use": "add", "meld": meld}
    if verb == "lay" and rest.startswith("="):
        return {"type": "lay", "seat": seat, "cards": _dec_cards(rest[1:], card, "move")}
    if verb == "add":
        got = re.fullmatch(rf"#([^=]+)=({card})", rest)
        if got:
            meld = _read_ref(got.group(1), text)
            return {"type": "add", "seat": seat, "meld": meld, "card": got.group(2)}
    if verb == "merge":
        got = re.fullmatch(r"#([^#]+)#(.+)", rest)
        if got:
            return {
                "type": "merge",
                "seat": seat,
                "meld": _read_ref(got.group(1), text),
                "other": _read_ref(got.group(2), text),
            }
    if verb == "replace":
        got = re.fullmatch(rf"#([^=]+)=({card})/({card})", rest)
        if got:
            return {
                "type": "replace-wild",
                "seat": seat,
                "meld": _read_ref(got.group(1), text),
                "natural": got.group(2),
                "wild": got.group(3),
            }
    if verb == "discard" and re.fullmatch(rf"=(?:{card})", rest):
        return {"type": "discard", "seat": seat, "card": rest[1:]}
    if verb == "answer-yes" and not rest:
        return {"type": "answer", "seat": seat, "yes": True}
    if verb == "answer-no" and not rest:
        return {"type": "answer", "seat": seat, "yes": False}
    if verb in ("finish-opening", "ask-partner", "stop") and not rest:
        return {"type": verb, "seat": seat}
    raise _bad(
        "move",
        "draw<n>, take-set=cards, take-escalera=cards, take#<meld>, lay=cards, add#<meld>=card,"
        " merge#<meld>#<meld>, replace#<meld>=natural/wild, finish-opening, discard=card,"
        " ask-partner, answer-yes, answer-no or stop",
        text,
    )


MOVES: dict[str, Callable[[str, int | None], dict[str, Any]]] = {
    "escoba": _escoba_move,
    "rummy": _rummy_move,
}
"""How each game family (`GameFamily.name`) writes a move, read back to its action JSON."""


def _seat(given: str | None, mover: int | None, text: str) -> int:
    if given is not None:
        return int(given)
    if mover is None:
        raise _bad("move", "seat@move: nobody is to move to take it", text)
    return mover


def _read_ref(ref: str, text: str) -> int | list[str]:
    if re.fullmatch(r"0|[1-9][0-9]{0,3}", ref):
        return int(ref)
    return _dec_cards(ref, FRENCH_CARD, "move meld")


__all__ = [
    "FIELDS",
    "is_position_line",
    "move_text",
    "position_line",
    "read_move",
    "read_position_line",
]
