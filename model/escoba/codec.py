"""States and plays as canonical JSON: plain objects of ints, lists and strings.

Cards are written by name (``7o``, ``Rc``: see `arbitro.model.escoba.cards.card_name`); piles are lists of
names in card order (suit, then rank); the stock keeps its order (next card first). Reading back
checks the shape, the ranges and that no pile lists a card twice, and raises MalformedInput naming
the field; whether the situation is possible is for `arbitro.model.escoba.checks.violations` to say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arbitro.model.errors import MalformedInput, OptionError
from arbitro.model.escoba.cards import card_name, cards_of, parse_card, tables
from arbitro.model.escoba.seats import TEAMS, check_seating
from arbitro.model.escoba.state import (
    CATEGORIES,
    HAND_END_REASON,
    NOBODY,
    EscobaState,
    Play,
    hand_result,
)
from arbitro.model.game import HandResult, Seating
from arbitro.model.schema import EscobaRules

STATE_KEYS = (
    "game",
    "players",
    "sides",
    "layout",
    "phase",
    "dealer",
    "to_move",
    "hand_number",
    "deal_number",
    "hands",
    "table",
    "stock",
    "piles",
    "escobas",
    "last_capturer",
    "scores",
    "last_hand",
)
PLAY_KEYS = ("seat", "card", "capture")
SPANISH_PACK = (1 << 40) - 1
"""Every card a play may name; whether the rules' pack has it is for `apply` to say."""


def hand_number_json(state: EscobaState) -> int:
    """The protocol's hand number: the hand being played, or the next one to be dealt, counted
    from 0 as transcripts count hands (the state counts the hands dealt)."""
    return state.hand_number - (1 if state.phase == "play" else 0)


def _opt(x: int) -> int | None:
    return None if x == NOBODY else x


def result_to_json(result: HandResult) -> dict[str, Any]:
    return {
        "reason": result.reason,
        "scores": list(result.scores),
        "categories": [{k: side[k] for k in CATEGORIES} for side in result.categories],
    }


def state_to_json(state: EscobaState) -> dict[str, Any]:
    """The state as a JSON object; `json.dumps(..., sort_keys=True)` of it is canonical."""
    return {
        "game": "escoba",
        "players": state.players,
        "sides": state.sides,
        "layout": state.layout,
        "phase": state.phase,
        "dealer": state.dealer,
        "to_move": _opt(state.to_move),
        "hand_number": hand_number_json(state),
        "deal_number": state.deal_number,
        "hands": [_names(cards_of(h)) for h in state.hands],
        "table": _names(cards_of(state.table)),
        "stock": _names(state.stock),
        "piles": [_names(cards_of(p)) for p in state.piles],
        "escobas": list(state.escobas),
        "last_capturer": _opt(state.last_capturer),
        "scores": list(state.scores),
        "last_hand": None if state.result is None else result_to_json(state.result),
    }


VIEW_PRIVATE: tuple[str, ...] = ("hand",)
"""The fields of a view that only the viewing seat sees; the rest is public to every seat."""


def view_to_json(state: EscobaState, seat: object) -> dict[str, Any]:
    """What seat ``seat`` sees of the state: its own hand, what lies face up, and counts of the rest.

    The other hands and the stock are face down (escoba-es:hand-size: the three cards are dealt
    face down); captured cards are kept face down like tricks, so only each side's count shows,
    with its escobas marked face up (escoba-es:escoba-points). What a seat saw earlier and may
    remember is the sequence of its views. ``seat`` is checked as a plain object before it is
    read as a seat number.
    """
    players = state.players
    if type(seat) is not int or not 0 <= seat < players:
        raise MalformedInput(f"seat {seat!r} is not a seat of {players} players")
    return {
        "game": "escoba",
        "viewer": seat,
        "players": players,
        "sides": state.sides,
        "layout": state.layout,
        "phase": state.phase,
        "dealer": state.dealer,
        "to_move": _opt(state.to_move),
        "hand_number": hand_number_json(state),
        "deal_number": state.deal_number,
        "hand": _names(cards_of(state.hands[seat])),
        "hand_sizes": [h.bit_count() for h in state.hands],
        "table": _names(cards_of(state.table)),
        "stock_size": len(state.stock),
        "captured": [p.bit_count() for p in state.piles],
        "escobas": list(state.escobas),
        "last_capturer": _opt(state.last_capturer),
        "scores": list(state.scores),
        "last_hand": None if state.result is None else result_to_json(state.result),
    }


def action_to_json(action: Play) -> dict[str, Any]:
    return {
        "seat": action.seat,
        "card": card_name(action.card),
        "capture": _names(cards_of(action.capture)),
    }


def _names(cards: Iterable[int]) -> list[str]:
    return [card_name(c) for c in cards]


def _exact_keys(data: object, keys: tuple[str, ...], what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise MalformedInput(f"{what} must be a JSON object, got {type(data).__name__}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise MalformedInput(f"{what} lacks {', '.join(missing)}")
    extra = sorted(str(k) for k in data if k not in keys)
    if extra:
        raise MalformedInput(f"{what} has unknown field {extra[0]!r}; fields: {', '.join(keys)}")
    return data


def _int(data: Mapping[str, Any], key: str, low: int, high: int, what: str) -> int:
    v = data[key]
    if type(v) is not int or not low <= v < high:
        raise MalformedInput(f"{what}.{key} must be an integer from {low} to {high - 1}, got {v!r}")
    return v


def _opt_int(data: Mapping[str, Any], key: str, high: int, what: str) -> int:
    if data[key] is None:
        return NOBODY
    return _int(data, key, 0, high, what)


def _int_list(data: Mapping[str, Any], key: str, length: int, what: str) -> tuple[int, ...]:
    v = data[key]
    if not isinstance(v, list) or len(v) != length:
        raise MalformedInput(f"{what}.{key} must be a list of {length} integers, got {v!r}")
    for x in v:
        if type(x) is not int or x < 0:
            raise MalformedInput(f"{what}.{key} must hold non-negative integers, got {x!r}")
    return tuple(v)


def _cards(v: object, deck: int, where: str) -> list[int]:
    """The cards named in ``v``; ``deck`` is the mask of the pack's cards."""
    if not isinstance(v, list):
        raise MalformedInput(f"{where} must be a list of card names, got {v!r}")
    cards: list[int] = []
    for name in v:
        if not isinstance(name, str):
            raise MalformedInput(f"{where} holds {name!r}, not a card name such as '7o'")
        try:
            c = parse_card(name)
        except MalformedInput as e:
            raise MalformedInput(f"{where}: {e}") from None
        if not deck >> c & 1:
            raise MalformedInput(
                f"{where} holds {name!r}, not a card of the {deck.bit_count()}-card deck"
            )
        cards.append(c)
    if len(set(cards)) != len(cards):
        raise MalformedInput(f"{where} lists a card twice")
    return cards


def _mask(v: object, deck: int, where: str) -> int:
    cards = _cards(v, deck, where)
    if cards != sorted(cards):
        raise MalformedInput(f"{where} must list its cards in card order (suit, then rank)")
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _masks(data: Mapping[str, Any], key: str, length: int, deck: int, what: str) -> tuple[int, ...]:
    v = data[key]
    if not isinstance(v, list) or len(v) != length:
        raise MalformedInput(f"{what}.{key} must be a list of {length} card lists")
    return tuple(_mask(x, deck, f"{what}.{key}[{i}]") for i, x in enumerate(v))


def result_from_json(data: object, sides: int) -> HandResult:
    d = _exact_keys(data, ("reason", "scores", "categories"), "state.last_hand")
    if d["reason"] != HAND_END_REASON:
        raise MalformedInput(f"state.last_hand.reason must be {HAND_END_REASON!r}")
    cats = d["categories"]
    if not isinstance(cats, list) or len(cats) != sides:
        raise MalformedInput(f"state.last_hand.categories must list {sides} sides")
    points = []
    for i, side in enumerate(cats):
        s = _exact_keys(side, CATEGORIES, f"state.last_hand.categories[{i}]")
        points.append(
            tuple(_int(s, k, 0, 1 << 31, f"state.last_hand.categories[{i}]") for k in CATEGORIES)
        )
    result = hand_result(tuple(points))
    if _int_list(d, "scores", sides, "state.last_hand") != result.scores:
        raise MalformedInput("state.last_hand.scores must be the sums of its categories")
    return result


def _points(result: HandResult) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(side[k] for k in CATEGORIES) for side in result.categories)


def state_from_json(rules: EscobaRules, data: Mapping[str, Any]) -> EscobaState:
    """The state a JSON object describes; MalformedInput names the first bad field."""
    d = _exact_keys(data, STATE_KEYS, "state")
    if d["game"] != "escoba":
        raise MalformedInput(f"state.game must be 'escoba', got {d['game']!r}")
    players = _int(d, "players", 1, 64, "state")
    sides = _int(d, "sides", 1, 64, "state")
    layout = d["layout"]
    if layout not in ("", TEAMS):
        raise MalformedInput(f"state.layout must be '' or {TEAMS!r}, got {layout!r}")
    seating = Seating(players, sides, layout)
    try:
        check_seating(rules, seating)
    except OptionError as e:
        raise MalformedInput(f"state seating: {e}") from None
    phase = d["phase"]
    if phase not in ("deal", "play", "over"):
        raise MalformedInput(f"state.phase must be deal, play or over, got {phase!r}")
    deck = tables(rules).full
    stock = tuple(_cards(d["stock"], deck, "state.stock"))
    result = None if d["last_hand"] is None else result_from_json(d["last_hand"], sides)
    return EscobaState(
        players=players,
        sides=sides,
        layout=layout,
        phase=phase,
        dealer=_int(d, "dealer", 0, players, "state"),
        to_move=_opt_int(d, "to_move", players, "state"),
        # hands dealt: the one being played is counted
        hand_number=_int(d, "hand_number", 0, 1 << 31, "state") + (1 if phase == "play" else 0),
        deal_number=_int(d, "deal_number", 0, 1 << 31, "state"),
        hands=_masks(d, "hands", players, deck, "state"),
        table=_mask(d["table"], deck, "state.table"),
        stock=stock,
        piles=_masks(d, "piles", sides, deck, "state"),
        escobas=_int_list(d, "escobas", sides, "state"),
        last_capturer=_opt_int(d, "last_capturer", sides, "state"),
        scores=_int_list(d, "scores", sides, "state"),
        last_points=None if result is None else _points(result),
    )


def action_from_json(data: Mapping[str, Any]) -> Play:
    """The play a JSON object describes (its legality is checked by apply)."""
    d = _exact_keys(data, PLAY_KEYS, "play")
    seat = d["seat"]
    if type(seat) is not int or seat < 0:
        raise MalformedInput(f"play.seat must be a seat number, got {seat!r}")
    (c,) = _cards([d["card"]], SPANISH_PACK, "play.card")
    cap = _mask(d["capture"], SPANISH_PACK, "play.capture")
    return Play(seat, c, cap)
