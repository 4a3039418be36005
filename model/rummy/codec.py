"""Canonical JSON for rummy states: cards by name, multisets sorted, every field explicit.

`state_from_json(state_to_json(s)) == s` for every state; malformed input raises MalformedInput
naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy.cards import RANK_NAMES, SUITS, card_name, parse_card
from arbitro.model.rummy.melds import KIND_NAMES, SEQ, SET, Meld
from arbitro.model.rummy.pile import frozen
from arbitro.model.rummy.state import STEPS, Result, Side, State
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import RummyRules


def _names(cards: tuple[int, ...]) -> list[str]:
    return [card_name(c) for c in cards]


def meld_to_json(m: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": KIND_NAMES[m.kind], "cards": _names(m.cards)}
    if m.kind == SET:
        out["rank"] = RANK_NAMES[m.key]
    elif m.kind == SEQ:
        out["suit"] = SUITS[m.key]
    return out


def state_to_json(s: State) -> dict[str, Any]:
    res: dict[str, Any] | None = None
    if s.result is not None:
        res = {
            "hand": s.result.hand,
            "reason": s.result.reason,
            "scores": list(s.result.scores),
            "categories": [dict(c) for c in s.result.categories],
            "finding": list(s.result.finding),
        }
    return {
        "game": "rummy",
        "players": s.players,
        "sides": s.sides,
        "layout": s.layout,
        "phase": s.phase,
        "hand_number": s.hand_no,
        "dealer": s.dealer,
        "scores": list(s.scores),
        "result": res,
        "hands": [_names(h) for h in s.hands],
        "stock": _names(s.stock),
        "pile": _names(s.pile),
        "table": [
            {
                "melds": [meld_to_json(m) for m in sd.melds],
                "red_threes": _names(sd.red_threes),
                "opened": sd.opened,
            }
            for sd in s.table
        ],
        "minimums": list(s.minimums),
        "owed": list(s.owed),
        "pile_taken": s.pile_taken,
        "seat": s.seat,
        "step": s.step,
        "took_pile": s.took_pile,
        "held": _names(s.held),
        "top_points": s.top_points,
        "asked": s.asked,
        "answer": s.answer,
        "melded": s.melded,
        "clean_start": s.clean_start,
        "no_discard": s.no_discard,
        "freed": card_name(s.freed) if s.freed >= 0 else None,
        "freed_meld": s.freed_meld,
    }


VIEW_PRIVATE: tuple[str, ...] = ("hand", "held")
"""The fields of a view that only the viewing seat sees; the rest is public to every seat."""

_HIDDEN = ("hands", "stock", "pile", "held")
"""Fields of the state a view replaces: cards face down, or covered in the discard pile."""


def view_to_json(rules: RummyRules, s: State, seat: int) -> dict[str, Any]:
    """What seat `seat` sees: its own hand, the table, the top of the discard pile, and counts.

    Hands and the stock are face down. Each discard covers the cards beneath it (canasta-es: the
    top card hides the others; samba-en: a freezing card is turned crosswise so that it shows when
    covered; the Spanish and French Samba books say nothing else), so the view gives the pile's top
    card, its size and whether it is frozen (*:frozen-by), and in `pile_shown` the pile with every
    covered card written "??" but the freezing ones, which stick out; a seat that watched every
    discard remembers them through the sequence of its views. The rest of a pile
    taken to open (`held`) is its taker's. Everything else (melds, red threes, scores, the turn's
    bookkeeping) lies open.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < s.players:
        raise MalformedInput(f"seat {seat!r} is not a seat of {s.players} players")
    # the hidden fields emptied first: naming the stock and every hand is most of the work
    bare = s._replace(hands=(), stock=(), pile=(), held=())
    out = {k: v for k, v in state_to_json(bare).items() if k not in _HIDDEN}
    own = s.hands[seat] if s.hands else ()
    mine = seat == s.seat
    out.update(
        {
            "viewer": seat,
            "hand": _names(own),
            "hand_sizes": [len(h) for h in s.hands],
            "held": _names(s.held) if mine else [],
            "held_size": len(s.held),
            "stock_size": len(s.stock),
            "pile_top": card_name(s.pile[-1]) if s.pile else None,
            "pile_size": len(s.pile),
            "pile_frozen": frozen(tables(rules), s.pile),
            "pile_shown": _pile_shown(rules, s.pile),
        }
    )
    return out


COVERED = "??"
"""A card of the discard pile that a seat cannot see: covered, and not turned crosswise."""


def _pile_shown(rules: RummyRules, pile: tuple[int, ...]) -> list[str]:
    """The pile, bottom first, as a seat sees it: the top card, and beneath it only the cards
    that freeze the pile (*:frozen-by), turned crosswise so that they stick out when covered
    (canasta-es, EL POZO: a wild discarded is laid crosswise; samba-en, Discard pile: a red three
    or wild at right angles); every other covered card is COVERED."""
    freezes = tables(rules).frozen_by
    last = len(pile) - 1
    return [card_name(c) if i == last or freezes[c] else COVERED for i, c in enumerate(pile)]


def _get(
    d: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str = "state"
) -> Any:
    if key not in d:
        raise MalformedInput(f"{where} has no field {key!r}")
    v = d[key]
    if kind is int and isinstance(v, bool):
        raise MalformedInput(f"{where}.{key} must be an integer, got {v!r}")
    if not isinstance(v, kind):
        raise MalformedInput(f"{where}.{key} has the wrong type: {v!r}")
    return v


def _cards(v: Any, where: str, keep_order: bool = False) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise MalformedInput(f"{where} must be a list of card names, got {v!r}")
    cards = tuple(parse_card(x) for x in v)
    return cards if keep_order else tuple(sorted(cards))


def _ints(v: Any, where: str) -> tuple[int, ...]:
    if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise MalformedInput(f"{where} must be a list of integers, got {v!r}")
    return tuple(v)


def meld_from_json(d: Any, where: str) -> Meld:
    if not isinstance(d, Mapping):
        raise MalformedInput(f"{where} must be an object")
    kind = d.get("kind")
    if kind not in KIND_NAMES:
        raise MalformedInput(f"{where}.kind must be one of {', '.join(KIND_NAMES)}, got {kind!r}")
    k = KIND_NAMES.index(kind)
    key = -1
    if k == SET:
        rank = d.get("rank")
        if rank not in RANK_NAMES:
            raise MalformedInput(f"{where}.rank must be a rank name, got {rank!r}")
        key = RANK_NAMES.index(rank)
    elif k == SEQ:
        suit = d.get("suit")
        if not isinstance(suit, str) or suit not in SUITS or len(suit) != 1:
            raise MalformedInput(f"{where}.suit must be one of C, D, H, S, got {suit!r}")
        key = SUITS.index(suit)
    return Meld(k, key, _cards(d.get("cards"), f"{where}.cards"))


def state_from_json(data: Mapping[str, Any]) -> State:
    """The state a JSON object describes (as written by `state_to_json`)."""
    if not isinstance(data, Mapping):
        raise MalformedInput("a state is a JSON object")
    players = _get(data, "players", int)
    sides = _get(data, "sides", int)
    if players < 1 or sides < 1 or sides > players:
        raise MalformedInput(f"bad players/sides: {players}/{sides}")
    phase = _get(data, "phase", str)
    if phase not in ("deal", "play", "over"):
        raise MalformedInput(f"state.phase must be deal, play or over, got {phase!r}")
    step = _get(data, "step", str)
    if step not in (*STEPS, ""):
        raise MalformedInput(f"state.step must be one of {', '.join(STEPS)} or empty, got {step!r}")
    res_d = data.get("result")
    result: Result | None = None
    if res_d is not None:
        if not isinstance(res_d, Mapping):
            raise MalformedInput("state.result must be an object or null")
        cats = _get(res_d, "categories", list, "state.result")
        if not all(isinstance(c, Mapping) for c in cats):
            raise MalformedInput("state.result.categories must be a list of objects")
        finding = _get(res_d, "finding", list, "state.result")
        result = Result(
            _get(res_d, "hand", int, "state.result"),
            _get(res_d, "reason", str, "state.result"),
            _ints(_get(res_d, "scores", list, "state.result"), "state.result.scores"),
            tuple(tuple((str(k), int(v)) for k, v in c.items()) for c in cats),
            tuple(str(x) for x in finding),
        )
    table_d = _get(data, "table", list)
    table = []
    for i, sd in enumerate(table_d):
        w = f"state.table[{i}]"
        if not isinstance(sd, Mapping):
            raise MalformedInput(f"{w} must be an object")
        melds = _get(sd, "melds", list, w)
        table.append(
            Side(
                tuple(sorted(meld_from_json(m, f"{w}.melds[{j}]") for j, m in enumerate(melds))),
                _cards(_get(sd, "red_threes", list, w), f"{w}.red_threes"),
                bool(_get(sd, "opened", bool, w)),
            )
        )
    hands_d = _get(data, "hands", list)
    freed = data.get("freed")
    answer = _get(data, "answer", str)
    if answer not in ("", "yes", "no"):
        raise MalformedInput(f"state.answer must be '', 'yes' or 'no', got {answer!r}")
    return State(
        players=players,
        sides=sides,
        layout=_get(data, "layout", str),
        phase=phase,
        hand_no=_get(data, "hand_number", int),
        dealer=_get(data, "dealer", int),
        scores=_ints(_get(data, "scores", list), "state.scores"),
        result=result,
        hands=tuple(_cards(h, f"state.hands[{i}]") for i, h in enumerate(hands_d)),
        stock=_cards(_get(data, "stock", list), "state.stock", keep_order=True),
        pile=_cards(_get(data, "pile", list), "state.pile", keep_order=True),
        table=tuple(table),
        minimums=_ints(_get(data, "minimums", list), "state.minimums"),
        owed=_ints(_get(data, "owed", list), "state.owed"),
        pile_taken=_get(data, "pile_taken", bool),
        seat=_get(data, "seat", int),
        step=step,
        took_pile=_get(data, "took_pile", bool),
        held=_cards(_get(data, "held", list), "state.held"),
        top_points=_get(data, "top_points", int),
        asked=_get(data, "asked", bool),
        answer=answer,
        melded=_get(data, "melded", bool),
        clean_start=_get(data, "clean_start", int),
        no_discard=_get(data, "no_discard", bool),
        freed=-1 if freed is None else parse_card(freed),
        freed_meld=_get(data, "freed_meld", int),
    )
