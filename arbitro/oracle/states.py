"""States, positions, deals and views at the protocol level: the JSON of docs/protocol.md, per game.

The models read and write canonical state JSON (`GameModel.state_to_json` / `state_from_json`);
this module does what the protocol adds around them, working on that JSON and on the GameModel
methods only, so that it keeps working whatever a model does inside:

- `shape`: what a state must satisfy beyond its schema before a model reads it — list lengths
  that follow the seating, seats in range, the bookkeeping of the turn in agreement with its step,
  a finished hand's result, melds in canonical order (actions name a meld by its index);
- `build`: a full state from what an engine knows (a *position*), the bookkeeping filled in;
- `dealt_order`: the deck order that deals given hands, table or upcard and stock, found by
  dealing through the model (the convention is the model's; docs/protocol.md describes it);
- `view`: what one seat may know of a state; `complete`: a state consistent with a view;
- `resolve_action`: an action whose melds are named by their cards, with their indices.

Errors are MalformedInput naming the field; whole-state checks (`GameModel.violations`) are left
to the caller, which reports them as InconsistentState with the details `conservation` finds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arbitro.model.errors import MalformedInput
from arbitro.model.family import family_named
from arbitro.model.game import GameModel, Seating
from arbitro.model.rummy.scoring import CATEGORIES as rummy_categories
from arbitro.oracle.jsonio import copy_json, shorten

HIDDEN = "??"
"""How a view writes a card its seat cannot see."""

WILDS = frozenset(("JK", "2C", "2D", "2H", "2S"))
BLACK_THREES = frozenset(("3C", "3S"))
RED_THREES = frozenset(("3D", "3H"))


class InconsistentState(MalformedInput):
    """A well-formed state that no play reaches: it breaks whole-state checks, named as clause ids."""

    def __init__(self, clauses: Sequence[str], detail: str = "") -> None:
        self.clauses = list(clauses)
        self.detail = detail
        more = f": {detail}" if detail else ""
        super().__init__(f"the state breaks {', '.join(self.clauses)}{more}")


class Context(Protocol):
    """What the per-game code needs from an oracle."""

    model: GameModel
    rules: Any
    seating: Seating
    cache: dict[Any, Any]

    def card_key(self, name: str) -> int: ...


def _fail(where: str, expected: str) -> MalformedInput:
    return MalformedInput(f"{where}: {expected}")


def _cards_of(ctx: Context, names: Any, where: str) -> list[str]:
    if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
        raise _fail(where, f"an array of card names, got {shorten(repr(names), 60)}")
    for i, c in enumerate(names):
        try:
            ctx.model.parse_card(c)
        except MalformedInput as e:
            raise _fail(f"{where}[{i}]", str(e)) from None
    return list(names)


def _sorted_names(ctx: Context, names: Sequence[str]) -> list[str]:
    return sorted(names, key=ctx.card_key)


def deck_names(ctx: Context) -> Counter[str]:
    return Counter(ctx.model.card_name(c) for c in ctx.model.deck(ctx.rules, ctx.seating))


def _int(d: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int:
    v = d[key]
    if type(v) is not int or not low <= v <= high:
        raise _fail(
            f"{where}.{key}", f"an integer from {low} to {high}, got {shorten(repr(v), 40)}"
        )
    return v


def _length(d: Mapping[str, Any], key: str, n: int, what: str, where: str = "state") -> None:
    if len(d[key]) != n:
        raise _fail(f"{where}.{key}", f"{n} entries, one per {what}; got {len(d[key])}")


def _seating_matches(ctx: Context, d: Mapping[str, Any]) -> None:
    s = ctx.seating
    got = (d["players"], d["sides"], d["layout"])
    if got != (s.players, s.sides, s.layout):
        raise _fail(
            "state",
            f"the seating this oracle answers for ({s.players} players, {s.sides} sides, layout "
            f"{s.layout!r}); the state is for {got[0]} players, {got[1]} sides, layout {got[2]!r}",
        )


def conservation(ctx: Context, found: Counter[str]) -> str:
    """What differs between the cards a state holds and the deck, in words ('' when nothing)."""
    deck = deck_names(ctx)
    extra = found - deck
    missing = deck - found
    parts = []
    if extra:
        parts.append(
            "more than the deck holds: "
            + ", ".join(f"{n} × {c}" if n > 1 else c for c, n in sorted(extra.items())[:6])
            + (" …" if len(extra) > 6 else "")
        )
    if missing:
        parts.append(
            "missing: "
            + ", ".join(f"{n} × {c}" if n > 1 else c for c, n in sorted(missing.items())[:6])
            + (" …" if len(missing) > 6 else "")
        )
    return "; ".join(parts)


@dataclass(frozen=True)
class Game:
    """The protocol-level code of one game family."""

    name: str
    state_schema: str
    action_schema: str
    shape: Callable[[Context, dict[str, Any]], None]
    cards: Callable[[dict[str, Any]], Counter[str]]
    build: Callable[[Context, Mapping[str, Any]], dict[str, Any]]
    dealt_order: Callable[[Context, dict[str, Any], Mapping[str, Any]], list[str]]
    view: Callable[[Context, dict[str, Any], Sequence[str]], dict[str, Any]]
    """The model's view of a seat (GameModel.view, the one definition of what a seat sees),
    written in the state's shape with the state's fields."""
    complete: Callable[[Context, dict[str, Any]], dict[str, Any]]
    resolve_action: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
    hand_index: str  # the state field that numbers hands
    to_move: Callable[[dict[str, Any]], int | None]
    check_read: Callable[[Context, dict[str, Any], Any], None]
    """Checks of a state read (its JSON, the model's state) that the schema cannot make."""
    goes_on: Callable[[dict[str, Any]], tuple[str, str]]
    """Why a hand still being played goes on: the clause key, and the reason in words."""
    deal_replaced: frozenset[str]
    """The cards a deal replaces when dealt (Samba's and Canasta's red threes)."""
    deal_alike: frozenset[str]
    """The cards a deal may treat apart from the others, never used to trace it."""


def _with_defaults(
    desc: Mapping[str, Any], allowed: Sequence[str], where: str = "position"
) -> dict[str, Any]:
    if not isinstance(desc, Mapping):
        raise _fail(where, "an object describing the position (see docs/protocol.md)")
    extra = sorted(str(k) for k in desc if k not in allowed)
    if extra:
        raise _fail(where, f"no field {shorten(extra[0], 40)!r}; fields: {', '.join(allowed)}")
    return dict(desc)


def _opt_int(d: Mapping[str, Any], key: str, default: int, low: int, high: int, where: str) -> int:
    if key not in d:
        return default
    return _int(d, key, where, low, high)


def _opt_bool(d: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise _fail(f"{where}.{key}", f"true or false, got {shorten(repr(v), 40)}")
    return v


def _scores(d: Mapping[str, Any], sides: int, where: str) -> list[int]:
    v = d.get("scores", [0] * sides)
    if not isinstance(v, list) or len(v) != sides or not all(type(x) is int for x in v):
        raise _fail(f"{where}.scores", f"{sides} integers, one per side")
    for x in v:
        if abs(x) >= 2**53:
            # beyond 2^53 a total is no longer exact in every JSON reader
            raise _fail(
                f"{where}.scores",
                f"totals from -{2**53 - 1:,} to {2**53 - 1:,} (2^53 - 1), got {x}",
            )
    return list(v)


def _rest_of_deck(ctx: Context, used: Counter[str], where: str) -> list[str]:
    left = deck_names(ctx) - used
    over = used - deck_names(ctx)
    if over:
        raise InconsistentState(
            [_packs_clause(ctx)], f"{where}: " + conservation(ctx, used).split(";")[0]
        )
    return _sorted_names(ctx, list(left.elements()))


def pack_clause(ctx: Context) -> str:
    """The clause that fixes the deck (every card in one place)."""
    return _packs_clause(ctx)


def _packs_clause(ctx: Context) -> str:
    rules = ctx.rules
    key = "packs" if "packs" in rules.clause_ids else "suits"
    return str(rules.cid(key))


# ================================================================ Samba and Canasta


_RUMMY_TURN_START: dict[str, Any] = {
    "took_pile": False,
    "held": [],
    "top_points": 0,
    "asked": False,
    "answer": "",
    "melded": False,
    "no_discard": False,
    "freed": None,
    "freed_meld": -1,
}
_RUMMY_CATEGORIES = rummy_categories


def _rummy_cards(d: dict[str, Any]) -> Counter[str]:
    found: Counter[str] = Counter()
    for h in d["hands"]:
        found.update(h)
    found.update(d["stock"])
    found.update(d["pile"])
    found.update(d["held"])
    if d.get("freed") is not None:
        found[d["freed"]] += 1
    for side in d["table"]:
        found.update(side["red_threes"])
        for m in side["melds"]:
            found.update(m["cards"])
    return found


def _meld_key(ctx: Context, m: Mapping[str, Any]) -> tuple[str, tuple[int, ...]]:
    return (str(m.get("kind")), tuple(sorted(ctx.card_key(c) for c in m.get("cards", []))))


def _rummy_shape(ctx: Context, d: dict[str, Any]) -> None:
    _seating_matches(ctx, d)
    n, sides = d["players"], d["sides"]
    _length(d, "scores", sides, "side")
    _int(d, "dealer", "state", 0, n - 1)
    fresh = not d["hands"]
    if fresh:
        for key in ("stock", "pile", "table", "minimums", "owed", "held"):
            if d[key]:
                raise _fail(f"state.{key}", "empty before the first deal (state.hands is empty)")
        if d["phase"] != "deal" or d["result"] is not None or d["step"] or d["seat"] != -1:
            raise _fail(
                "state",
                'a state with no hands is a game before its first deal: phase "deal", '
                'result null, step "" and seat -1',
            )
        return
    _length(d, "hands", n, "seat")
    _length(d, "table", sides, "side")
    _length(d, "minimums", sides, "side")
    _length(d, "owed", n, "seat")
    if any(x < 0 for x in d["owed"]):
        raise _fail("state.owed", "counts of at least 0")
    if d["phase"] == "play":
        seat = _int(d, "seat", "state", 0, n - 1)
        step = d["step"]
        if not step:
            raise _fail("state.step", 'draw, play, answer or freed while phase is "play"')
        if step == "draw":
            for key, value in _RUMMY_TURN_START.items():
                if d[key] != value:
                    raise _fail(
                        f"state.{key}",
                        f"{shorten(repr(value), 20)} at the start of a turn (step draw),"
                        f" got {shorten(repr(d[key]), 40)}",
                    )
        if (step == "freed") != (d["freed"] is not None):
            raise _fail("state.freed", 'a card exactly when step is "freed", else null')
        melds = d["table"][seat % sides]["melds"]
        if step == "freed" and not -1 <= d["freed_meld"] < len(melds):
            raise _fail("state.freed_meld", f"-1 or the index of a meld of side {seat % sides}")
        if d["answer"] and not d["asked"]:
            raise _fail("state.answer", "empty unless the partner was asked (state.asked)")
        if step == "answer" and (not d["asked"] or d["answer"]):
            raise _fail("state.step", '"answer" only after asking and before the answer')
        if (d["held"] or d["top_points"]) and not d["took_pile"]:
            raise _fail("state.held", "empty unless the player took the pile this turn")
        if d["took_pile"] and not d["pile_taken"]:
            raise _fail("state.pile_taken", "true when the player took the pile this turn")
        if d["top_points"] < 0 or d["clean_start"] < 0:
            raise _fail("state", "top_points and clean_start of at least 0")
        if d["owed"][seat]:
            raise _fail(
                "state.owed",
                f"0 for seat {seat}: owed red-three replacements are drawn as its turn begins",
            )
        _rummy_turn_order(ctx, d, seat)
        if step == "draw":
            clean = _clean_canastas(ctx, melds)
            if d["clean_start"] != clean:
                raise _fail(
                    "state.clean_start",
                    f"{clean} at the start of a turn: the clean canastas side {seat % sides} has",
                )
    else:
        if d["step"]:
            raise _fail("state.step", f'"" while phase is {d["phase"]!r}')
        _int(d, "seat", "state", -1, n - 1)
        if d["result"] is None:
            raise _fail("state.result", f"the finished hand's result while phase is {d['phase']!r}")
    result = d["result"]
    if result is not None:
        if result["hand"] != d["hand_number"] - 1:
            raise _fail(
                "state.result.hand",
                f"{d['hand_number'] - 1}, the hand before hand_number {d['hand_number']}; got"
                f" {result['hand']}",
            )
        _length(result, "scores", sides, "side", "state.result")
        _length(result, "categories", sides, "side", "state.result")
        for i, cats in enumerate(result["categories"]):
            if set(cats) != set(_RUMMY_CATEGORIES):
                raise _fail(
                    f"state.result.categories[{i}]",
                    f"the categories {', '.join(_RUMMY_CATEGORIES)}",
                )
            if sum(cats.values()) != result["scores"][i]:
                raise _fail(f"state.result.scores[{i}]", "the sum of that side's categories")
        prefix = ctx.rules.rulebook + ":"
        for x in result["finding"]:
            if not x.startswith(prefix):
                raise _fail("state.result.finding", f"clause ids of {ctx.rules.rulebook}")


def _rummy_turn_order(ctx: Context, d: dict[str, Any], seat: int) -> None:
    """A seat still owed red-three replacements has not had its first turn of the hand, so it
    comes after the seat to move in the hand's order (from the player after the dealer)."""
    owed = [x for x, k in enumerate(d["owed"]) if k]
    if not owed:
        return
    n = d["players"]
    fresh = _rummy_fresh(ctx, [0] * d["sides"], d["dealer"], 0)
    _deal_positions(ctx, fresh)
    first = ctx.cache[("first-seat", d["dealer"])]
    for x in owed:
        if (x - first) % n <= (seat - first) % n:
            raise _fail(
                f"state.owed[{x}]",
                f"0: seat {x} has had its turn before seat {seat} in a hand dealt by seat"
                f" {d['dealer']}, and drew its replacements then",
            )


def meld_order(ctx: Context, given: dict[str, Any], canon: dict[str, Any]) -> None:
    """Melds must be listed as the model orders them (`canon`, the state as the model writes
    it): actions name a meld by its index."""
    for i, (mine, theirs) in enumerate(zip(given["table"], canon["table"], strict=True)):
        if [_meld_key(ctx, m) for m in mine["melds"]] != [
            _meld_key(ctx, m) for m in theirs["melds"]
        ]:
            listing = "; ".join(" ".join(m["cards"]) for m in theirs["melds"])
            raise _fail(
                f"state.table[{i}].melds",
                "the canonical order, since actions name a meld by its index: "
                f"[{shorten(listing, 200)}] (the position op returns a state in that order)",
            )


def _infer_meld(ctx: Context, m: Any, where: str) -> dict[str, Any]:
    """A meld object from its cards: a set of one rank, an escalera of one suit, wilds only or
    black threes. The whole-state checks then decide whether the book allows it."""
    if isinstance(m, list):
        m = {"cards": m}
    if not isinstance(m, Mapping):
        raise _fail(where, "a meld: an array of card names or an object with 'cards'")
    extra = sorted(str(k) for k in m if k not in ("kind", "cards", "rank", "suit"))
    if extra:
        raise _fail(
            where, f"no field {shorten(extra[0], 40)!r}; a meld has kind, cards, rank, suit"
        )
    cards = _sorted_names(ctx, _cards_of(ctx, m.get("cards"), f"{where}.cards"))
    if not cards:
        raise _fail(f"{where}.cards", "at least one card")
    naturals = [c for c in cards if c not in WILDS]
    if not naturals:
        kind: dict[str, Any] = {"kind": "wilds"}
    elif all(c in BLACK_THREES for c in naturals):
        kind = {"kind": "black-threes"}
    elif len({c[:-1] for c in naturals}) == 1:
        kind = {"kind": "set", "rank": naturals[0][:-1]}
    else:
        kind = {"kind": "escalera", "suit": naturals[0][-1]}
    given = {k: m[k] for k in ("kind", "rank", "suit") if k in m}
    if given and any(kind.get(k) != v for k, v in given.items()):
        raise _fail(where, f"the cards {' '.join(cards)} form a {kind['kind']} meld, not {given}")
    return {**kind, "cards": cards}


_RUMMY_POSITION_FIELDS = (
    "phase",
    "hands",
    "stock",
    "pile",
    "table",
    "scores",
    "dealer",
    "hand",
    "seat",
    "step",
    "pile_taken",
    "owed",
    "took_pile",
    "held",
    "top_points",
    "asked",
    "answer",
    "melded",
    "clean_start",
    "no_discard",
    "freed",
    "freed_meld",
    "ended",
)


def _rummy_fresh(ctx: Context, scores: list[int], dealer: int, hand: int) -> dict[str, Any]:
    d = ctx.model.state_to_json(ctx.model.new_game(ctx.rules, ctx.seating, dealer))
    d["scores"] = scores
    d["hand_number"] = hand
    return d


def _rummy_minimums(ctx: Context, fresh: dict[str, Any]) -> list[int]:
    """The opening minimums the totals call for, as the model sets them at a deal."""
    deck = [ctx.model.card_name(c) for c in ctx.model.deck(ctx.rules, ctx.seating)]
    dealt = ctx.model.state_to_json(
        ctx.model.deal(
            ctx.rules,
            ctx.model.state_from_json(ctx.rules, fresh),
            [ctx.model.parse_card(c) for c in deck],
        )
    )
    return list(dealt["minimums"])


def _rummy_build(ctx: Context, desc: Mapping[str, Any]) -> dict[str, Any]:
    w = "position"
    p = _with_defaults(desc, _RUMMY_POSITION_FIELDS)
    n, sides = ctx.seating.players, ctx.seating.sides
    scores = _scores(p, sides, w)
    dealer = _opt_int(p, "dealer", 0, 0, n - 1, w)
    hand = _opt_int(p, "hand", 0, 0, 2**31, w)
    phase = p.get("phase", "play")
    if phase not in ("play", "deal"):
        raise _fail(f"{w}.phase", '"play" (a hand being played) or "deal" (before a hand)')
    fresh = _rummy_fresh(ctx, scores, dealer, hand)
    if phase == "deal":
        extra = sorted(k for k in p if k not in ("phase", "scores", "dealer", "hand"))
        if extra:
            raise _fail(f"{w}.{extra[0]}", 'not part of a position before a deal (phase "deal")')
        return fresh
    if "hands" not in p or "seat" not in p:
        raise _fail(w, "hands and seat (whose turn it is) for a hand being played")
    hands = p["hands"]
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail(f"{w}.hands", f"{n} arrays of card names, one per seat")
    d = copy_json(fresh)
    d["hands"] = [
        _sorted_names(ctx, _cards_of(ctx, h, f"{w}.hands[{i}]")) for i, h in enumerate(hands)
    ]
    d["pile"] = _cards_of(ctx, p.get("pile", []), f"{w}.pile")
    table = p.get("table", [{} for _ in range(sides)])
    if not isinstance(table, list) or len(table) != sides:
        raise _fail(f"{w}.table", f"{sides} objects, one per side")
    d["table"] = []
    for i, sd in enumerate(table):
        ws = f"{w}.table[{i}]"
        sd = _with_defaults(sd, ("melds", "red_threes", "opened"), ws)
        melds_in = sd.get("melds", [])
        if not isinstance(melds_in, list):
            raise _fail(f"{ws}.melds", "an array of melds")
        melds = [_infer_meld(ctx, m, f"{ws}.melds[{j}]") for j, m in enumerate(melds_in)]
        d["table"].append(
            {
                "melds": melds,
                "red_threes": _sorted_names(
                    ctx, _cards_of(ctx, sd.get("red_threes", []), f"{ws}.red_threes")
                ),
                "opened": _opt_bool(sd, "opened", bool(melds), ws),
            }
        )
    seat = _int(p, "seat", w, 0, n - 1)
    step = p.get("step", "draw")
    if step not in ("draw", "play", "answer", "freed"):
        raise _fail(f"{w}.step", "one of draw, play, answer, freed")
    d.update(
        phase="play",
        seat=seat,
        step=step,
        pile_taken=_opt_bool(p, "pile_taken", False, w),
        owed=p.get("owed", [0] * n),
    )
    for key, default in _RUMMY_TURN_START.items():
        if key in p:
            d[key] = p[key]
        else:
            d[key] = default
    d["held"] = _sorted_names(ctx, _cards_of(ctx, d["held"], f"{w}.held"))
    if d["freed"] is not None:
        _cards_of(ctx, [d["freed"]], f"{w}.freed")
    d["minimums"] = _rummy_minimums(ctx, fresh)
    if "stock" in p:
        d["stock"] = _cards_of(ctx, p["stock"], f"{w}.stock")
    else:
        d["stock"] = []
        d["stock"] = _rest_of_deck(ctx, _rummy_cards(d), w)
    # the melds in the model's order, so that the indices in the answer are the ones to use
    try:
        canon = ctx.model.state_to_json(ctx.model.state_from_json(ctx.rules, d))
    except MalformedInput as e:
        raise _fail(w, str(e)) from None
    for i in range(sides):
        d["table"][i]["melds"] = canon["table"][i]["melds"]
    if "clean_start" in p:
        d["clean_start"] = p["clean_start"]
    else:
        d["clean_start"] = _clean_canastas(ctx, d["table"][seat % sides]["melds"])
    if "ended" in p:
        return _rummy_end(ctx, d, p["ended"], f"{w}.ended")
    return d


def _clean_canastas(ctx: Context, melds: list[dict[str, Any]]) -> int:
    """Clean canastas and sambas of a side: what `clean_start` records when its turn begins."""
    size = ctx.rules.completed_size
    return sum(
        1
        for m in melds
        if m["kind"] in ("set", "escalera")
        and len(m["cards"]) >= size
        and not any(c in WILDS for c in m["cards"])
    )


def _rummy_end(ctx: Context, d: dict[str, Any], ended: Any, where: str) -> dict[str, Any]:
    """The finished hand: the position as it ended, scored by the model."""
    if not isinstance(ended, Mapping) or set(ended) - {"reason", "seat"}:
        raise _fail(where, 'an object {"reason": "went-out" | "stock-out" | "dead-end", "seat": S}')
    reason = ended.get("reason")
    if reason not in ("went-out", "stock-out", "dead-end"):
        raise _fail(f"{where}.reason", '"went-out", "stock-out" or "dead-end"')
    out_seat = d["seat"]
    if "seat" in ended:
        out_seat = _int(ended, "seat", where, 0, ctx.seating.players - 1)
    if reason == "went-out" and (d["hands"][out_seat] or d["held"]):
        raise _fail(f"{where}.seat", f"a seat that went out: seat {out_seat} still holds cards")
    d["seat"] = out_seat
    state = ctx.model.state_from_json(ctx.rules, d)
    return ctx.model.state_to_json(
        family_named(ctx.model.game).end_hand(
            ctx.rules, state, reason, out_seat if reason == "went-out" else -1
        )
    )


def _rummy_dealt_order(ctx: Context, before: dict[str, Any], dealt: Mapping[str, Any]) -> list[str]:
    """The deck order that deals `dealt` from the state `before` (phase deal).

    `dealt` gives the hands each seat holds once the deal is done (red threes replaced), the red
    threes each seat laid out, the pile (the upcard and any cards that covered it, bottom first)
    and the stock (top first). With `red_three_initial_replacement` "at_deal" the replacements are
    drawn at the deal, seat by seat from the first player; with "on_turn" each seat draws them as
    its first turn begins, so only the first player's hand holds them already.
    """
    w = "dealt"
    p = _with_defaults(dealt, ("hands", "red_threes", "pile", "stock"), w)
    n = ctx.seating.players
    hands = p.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail(f"{w}.hands", f"{n} arrays of card names, one per seat")
    hands = [_cards_of(ctx, h, f"{w}.hands[{i}]") for i, h in enumerate(hands)]
    reds = p.get("red_threes", [[] for _ in range(n)])
    if not isinstance(reds, list) or len(reds) != n:
        raise _fail(f"{w}.red_threes", f"{n} arrays, one per seat: the red threes it laid out")
    reds = [_cards_of(ctx, r, f"{w}.red_threes[{i}]") for i, r in enumerate(reds)]
    for i, r in enumerate(reds):
        if any(c not in RED_THREES for c in r):
            raise _fail(f"{w}.red_threes[{i}]", "red threes only (3D, 3H)")
    pile = _cards_of(ctx, p.get("pile"), f"{w}.pile")
    if not pile:
        raise _fail(f"{w}.pile", "the upcard (and any cards that covered it), bottom first")
    stock = _cards_of(ctx, p.get("stock"), f"{w}.stock")
    _deal_positions(ctx, before)
    first = ctx.cache[("first-seat", before["dealer"])]
    at_deal = ctx.rules.red_three_initial_replacement == "at_deal"
    dealt_hands: list[list[str]] = []
    replacements: list[list[str]] = []
    for seat in range(n):
        h, r = list(hands[seat]), reds[seat]
        if not at_deal and seat != first:
            # its red threes are replaced only when its first turn begins
            dealt_hands.append(r + h)
            replacements.append([])
            continue
        if len(r) > len(h):
            raise _fail(f"{w}.hands[{seat}]", "at least one card for each red three laid out")
        keep = len(h) - len(r)
        dealt_hands.append(r + h[:keep])
        replacements.append(h[keep:])
    head = _place(_deal_positions(ctx, before), dealt_hands, w)
    extra: list[str] = []
    if at_deal:
        for k in range(n):
            extra += replacements[(first + k) % n]
        deck_order = head + extra + pile + stock
    else:
        deck_order = head + pile + replacements[first] + stock
    return deck_order


def _deal_positions(ctx: Context, before: dict[str, Any]) -> list[int]:
    """For each of the first places of a deck order, the seat whose hand it is dealt to.

    Learnt from the model (its convention, whatever it is): deck orders are dealt whose hand
    places hold a few marker cards, each the only copy of its kind among them, the others being
    cards the deal treats alike (no red threes, which are replaced); each marker is then found
    in one hand. Remembered per dealer.
    """
    key = ("deal-positions", before["dealer"])
    hit = ctx.cache.get(key)
    if hit is not None:
        return list(hit)
    model, rules = ctx.model, ctx.rules
    deck = [model.card_name(c) for c in model.deck(rules, ctx.seating)]
    kinds = Counter(deck)
    special, plain = game_for(model).deal_replaced, game_for(model).deal_alike
    naturals = [c for c in sorted(kinds, key=ctx.card_key) if c not in plain]
    state = model.state_from_json(rules, before)

    def deal(order: list[str]) -> dict[str, Any]:
        return model.state_to_json(model.deal(rules, state, [model.parse_card(c) for c in order]))

    # the cards of the first deal without red threes tell how many places the hands take
    first = sorted(deck, key=lambda c: (c in special, c not in naturals, ctx.card_key(c)))
    probe = deal(first)
    need = sum(len(h) for h in probe["hands"])
    ctx.cache[("first-seat", before["dealer"])] = game_for(model).to_move(probe)
    positions = [-1] * need
    todo = list(range(need))
    while todo:
        for m in range(min(len(naturals), len(todo)), 0, -1):
            markers = naturals[:m]
            filler = [c for c in first if c not in special and c not in markers]
            if len(filler) >= need - m:
                break
        else:  # pragma: no cover - every deck has more plain cards than a deal needs
            raise _fail("dealt", "this deck cannot be traced through a deal")
        batch, todo = todo[:m], todo[m:]
        region: list[str | None] = [None] * need
        for j, place in enumerate(batch):
            region[place] = markers[j]
        fill = iter(filler)
        head = [c if c is not None else next(fill) for c in region]
        rest = list((kinds - Counter(head)).elements())
        # a natural next: an upcard that nothing covers
        rest.sort(key=lambda c: (c not in naturals, ctx.card_key(c)))
        hands = deal(head + rest)["hands"]
        for j, place in enumerate(batch):
            positions[place] = next(s for s, h in enumerate(hands) if markers[j] in h)
    ctx.cache[key] = tuple(positions)
    return positions


def _place(positions: list[int], hands: list[list[str]], where: str) -> list[str]:
    """The hand places of a deck order filled with each seat's cards."""
    per_seat = Counter(positions)
    for seat, h in enumerate(hands):
        if len(h) != per_seat[seat]:
            raise _fail(
                f"{where}.hands[{seat}]",
                f"{per_seat[seat]} cards dealt to that seat (with any red threes it laid out),"
                f" got {len(h)}",
            )
    taken = [0] * len(hands)
    order = []
    for seat in positions:
        order.append(hands[seat][taken[seat]])
        taken[seat] += 1
    return order


def _hands_seen(seen: Mapping[str, Any]) -> list[list[str]]:
    seat = seen["viewer"]
    return [
        list(seen["hand"]) if i == seat else [HIDDEN] * n for i, n in enumerate(seen["hand_sizes"])
    ]


def _rummy_view(ctx: Context, seen: dict[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    """The model's view of a Samba/Canasta seat (GameModel.view) written in the state's shape:
    each card it does not show is "??" — the other hands, the stock, the covered cards of the
    discard pile that do not stick out, and the rest of a pile another seat took to open."""
    v = {k: copy_json(seen[k]) for k in fields if k in seen}
    v["hands"] = _hands_seen(seen)
    v["stock"] = [HIDDEN] * seen["stock_size"]
    v["pile"] = list(seen["pile_shown"])
    v["held"] = list(seen["held"]) if seen["held"] else [HIDDEN] * seen["held_size"]
    return {k: v[k] for k in fields}


def _complete(
    ctx: Context,
    d: dict[str, Any],
    lists: list[list[str]],
    cards: Counter[str],
    first: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Fill the hidden cards of a view (in `lists`, in that order) with the cards it does not
    show, in card order but the cards of `first` before the others (those of rank 0 first, then
    rank 1...); `cards` counts every card name the view holds."""
    first = first or {}
    hidden = cards.pop(HIDDEN, 0)
    pool = sorted(
        (deck_names(ctx) - cards).elements(),
        key=lambda c: (first.get(c, len(first) + 1), ctx.card_key(c)),
    )
    if len(pool) != hidden:
        raise InconsistentState(
            [_packs_clause(ctx)],
            f"the view hides {hidden} cards but {len(pool)} are not shown; "
            + conservation(ctx, cards + Counter(pool)),
        )
    it = iter(pool)
    for cards_list in lists:
        for i, c in enumerate(cards_list):
            if c == HIDDEN:
                cards_list[i] = next(it)
    return d


def _rummy_complete(ctx: Context, view: dict[str, Any]) -> dict[str, Any]:
    d = copy_json(view)
    # red threes are never held (a drawn one is laid at once), and a covered card that froze the
    # pile would stick out: the unseen red threes go to the stock, filled first, and the unseen
    # freezing cards after them to the stock and the hands, never under the pile's top
    first = {c: 1 for c in _freezing(ctx)} | {c: 0 for c in RED_THREES}
    lists = [d["stock"], *d["hands"], d["held"], d["pile"]]
    _complete(ctx, d, lists, _rummy_cards(d), first)
    d["hands"] = [_sorted_names(ctx, h) for h in d["hands"]]
    d["held"] = _sorted_names(ctx, d["held"])
    return d


def _freezing(ctx: Context) -> frozenset[str]:
    """The card names whose class freezes the pile (*:frozen-by)."""
    key = ("freezing", id(ctx.rules))
    if key not in ctx.cache:
        from arbitro.model.rummy.tables import tables

        frozen_by = tables(ctx.rules).frozen_by
        deck = set(ctx.model.deck(ctx.rules, ctx.seating))
        ctx.cache[key] = frozenset(ctx.model.card_name(c) for c in deck if frozen_by[c])
    names: frozenset[str] = ctx.cache[key]
    return names


def _rummy_resolve(state: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """Melds named by their cards, replaced by their index among the acting side's melds."""
    keys = [k for k in ("meld", "other") if isinstance(action.get(k), list)]
    if not keys:
        return action
    seat = action.get("seat")
    sides = state["sides"]
    if type(seat) is not int or not 0 <= seat < state["players"] or not state["table"]:
        return action  # the action's own checks name what is wrong
    melds = state["table"][seat % sides]["melds"]
    out = dict(action)
    for k in keys:
        want = Counter(action[k])
        hits = [i for i, m in enumerate(melds) if Counter(m["cards"]) == want]
        if not hits:
            listing = "; ".join(" ".join(m["cards"]) for m in melds) or "none"
            raise _fail(
                f"action.{k}",
                f"the cards of a meld of side {seat % sides} ({shorten(listing, 200)}); got "
                f"{shorten(' '.join(map(str, action[k])), 80)}",
            )
        out[k] = hits[0]
    return out


# ================================================================ Escoba


def _escoba_cards(d: dict[str, Any]) -> Counter[str]:
    found: Counter[str] = Counter()
    for h in d["hands"]:
        found.update(h)
    found.update(d["table"])
    found.update(d["stock"])
    for p in d["piles"]:
        found.update(p)
    return found


def _escoba_shape(ctx: Context, d: dict[str, Any]) -> None:
    _seating_matches(ctx, d)
    n, sides = d["players"], d["sides"]
    for key, count, what in (
        ("hands", n, "seat"),
        ("piles", sides, "side"),
        ("escobas", sides, "side"),
        ("scores", sides, "side"),
    ):
        _length(d, key, count, what)
    _int(d, "dealer", "state", 0, n - 1)
    if d["phase"] == "play":
        if d["to_move"] is None:
            raise _fail("state.to_move", 'the seat to play while phase is "play"')
        _int(d, "to_move", "state", 0, n - 1)
    elif d["to_move"] is not None:
        raise _fail("state.to_move", f"null while phase is {d['phase']!r}")
    if d["last_capturer"] is not None:
        _int(d, "last_capturer", "state", 0, sides - 1)
    if d["last_hand"] is not None:
        _length(d["last_hand"], "scores", sides, "side", "state.last_hand")
        _length(d["last_hand"], "categories", sides, "side", "state.last_hand")
    if any(s >= 2**53 for s in d["scores"]):
        raise _fail("state.scores", "totals below 2^53")


_ESCOBA_POSITION_FIELDS = (
    "phase",
    "hands",
    "table",
    "stock",
    "piles",
    "escobas",
    "last_capturer",
    "scores",
    "dealer",
    "hand",
    "to_move",
    "ended",
)


def _escoba_build(ctx: Context, desc: Mapping[str, Any]) -> dict[str, Any]:
    w = "position"
    p = _with_defaults(desc, _ESCOBA_POSITION_FIELDS)
    n, sides = ctx.seating.players, ctx.seating.sides
    scores = _scores(p, sides, w)
    dealer = _opt_int(p, "dealer", 0, 0, n - 1, w)
    hand = _opt_int(p, "hand", 0, 0, 2**31, w)
    phase = p.get("phase", "play")
    if phase not in ("play", "deal"):
        raise _fail(f"{w}.phase", '"play" (a hand being played) or "deal" (before a hand)')
    d = ctx.model.state_to_json(ctx.model.new_game(ctx.rules, ctx.seating, dealer))
    d["scores"] = scores
    if phase == "deal":
        extra = sorted(k for k in p if k not in ("phase", "scores", "dealer", "hand"))
        if extra:
            raise _fail(f"{w}.{extra[0]}", 'not part of a position before a deal (phase "deal")')
        d["hand_number"] = hand
        return d
    if "hands" not in p:
        raise _fail(w, "hands (per seat) for a hand being played")
    hands = p["hands"]
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail(f"{w}.hands", f"{n} arrays of card names, one per seat")
    d["hands"] = [
        _sorted_names(ctx, _cards_of(ctx, h, f"{w}.hands[{i}]")) for i, h in enumerate(hands)
    ]
    d["table"] = _sorted_names(ctx, _cards_of(ctx, p.get("table", []), f"{w}.table"))
    piles = p.get("piles", [[] for _ in range(sides)])
    if not isinstance(piles, list) or len(piles) != sides:
        raise _fail(f"{w}.piles", f"{sides} arrays of card names, one per side")
    d["piles"] = [
        _sorted_names(ctx, _cards_of(ctx, x, f"{w}.piles[{i}]")) for i, x in enumerate(piles)
    ]
    esc = p.get("escobas", [0] * sides)
    if (
        not isinstance(esc, list)
        or len(esc) != sides
        or not all(type(x) is int and 0 <= x < 2**31 for x in esc)
    ):
        raise _fail(f"{w}.escobas", f"{sides} counts, one per side")
    d["escobas"] = esc
    if "last_capturer" in p:
        last = p["last_capturer"]
        if last is not None:
            last = _int(p, "last_capturer", w, 0, sides - 1)
    elif any(d["piles"]):
        raise _fail(f"{w}.last_capturer", "the side that captured last, since some side has")
    else:
        last = None
    d["last_capturer"] = last
    if "stock" in p:
        d["stock"] = _cards_of(ctx, p["stock"], f"{w}.stock")
    else:
        d["stock"] = _rest_of_deck(ctx, _escoba_cards(d), w)
    per_deal = n * ctx.rules.redeal_size + ctx.rules.redeal_table
    deals = _escoba_deals(ctx)
    if per_deal <= 0 or len(d["stock"]) % per_deal:
        raise InconsistentState(
            [ctx.rules.cid("deals_per_hand")],
            f"a stock of {len(d['stock'])} cards is not a whole number of deals of {per_deal}",
        )
    d["deal_number"] = deals - len(d["stock"]) // per_deal
    d["hand_number"] = hand
    d["phase"] = "play"
    ended = p.get("ended", False)
    if not isinstance(ended, bool):
        raise _fail(f"{w}.ended", "true when the last card of the hand has been played")
    if ended:
        if any(d["hands"]) or d["stock"]:
            raise _fail(f"{w}.ended", "true only once every card is played (hands and stock empty)")
        if "to_move" in p:
            raise _fail(f"{w}.to_move", "nobody is to move once the hand has ended")
        d["to_move"] = 0
        state = ctx.model.state_from_json(ctx.rules, d)
        return ctx.model.state_to_json(
            family_named(ctx.model.game).end_hand(ctx.rules, state, "cards-played", -1)
        )
    if "to_move" not in p:
        raise _fail(f"{w}.to_move", "the seat to play")
    d["to_move"] = _int(p, "to_move", w, 0, n - 1)
    return d


def _escoba_deals(ctx: Context) -> int:
    for dc in ctx.rules.deals_per_hand:
        if dc.players == ctx.seating.players:
            return int(dc.deals)
    raise _fail("state", f"no deal count for {ctx.seating.players} players")  # pragma: no cover


def _escoba_dealt_order(
    ctx: Context, before: dict[str, Any], dealt: Mapping[str, Any]
) -> list[str]:
    """The deck order that deals `dealt`: the hands, the four cards dealt face up to the table
    (even when the dealer sweeps them at once) and the stock, next card first."""
    w = "dealt"
    p = _with_defaults(dealt, ("hands", "table", "stock"), w)
    n = ctx.seating.players
    hands = p.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail(f"{w}.hands", f"{n} arrays of card names, one per seat")
    hands = [_cards_of(ctx, h, f"{w}.hands[{i}]") for i, h in enumerate(hands)]
    table = _cards_of(ctx, p.get("table"), f"{w}.table")
    stock = _cards_of(ctx, p.get("stock"), f"{w}.stock")
    return _place(_deal_positions(ctx, before), hands, w) + table + stock


def _escoba_view(ctx: Context, seen: dict[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    """The model's view of an Escoba seat (GameModel.view) written in the state's shape: each
    card it does not show is "??" — the other hands, the stock, and the captured piles, kept
    face down like tricks (only their sizes show)."""
    v = {k: copy_json(seen[k]) for k in fields if k in seen}
    v["hands"] = _hands_seen(seen)
    v["stock"] = [HIDDEN] * seen["stock_size"]
    v["piles"] = [[HIDDEN] * n for n in seen["captured"]]
    return {k: v[k] for k in fields}


def _escoba_complete(ctx: Context, view: dict[str, Any]) -> dict[str, Any]:
    d = copy_json(view)
    _fill_opening_sweep(ctx, d)
    _complete(ctx, d, [*d["hands"], d["stock"], *d["piles"]], _escoba_cards(d))
    d["hands"] = [_sorted_names(ctx, h) for h in d["hands"]]
    d["piles"] = [_sorted_names(ctx, p) for p in d["piles"]]
    return d


def _fill_opening_sweep(ctx: Context, d: dict[str, Any]) -> None:
    """Before the first card of a hand is played, a captured pile is the opening deal the dealer
    swept: four cards adding up to the total of its escobas (escoba-es:opening-sweeps). Its
    hidden cards are filled with unseen cards that do so (the first such group in card order),
    since any other four would make a state no game reaches."""
    from itertools import combinations

    from arbitro.model.escoba.cards import tables

    rules = ctx.rules
    dealt = rules.hand_size * d["players"]
    if d["phase"] != "play" or d["deal_number"] != 1 or sum(map(len, d["hands"])) != dealt:
        return
    values = tables(rules).values
    shown = _escoba_cards(d)
    shown.pop(HIDDEN, None)
    pool = sorted((deck_names(ctx) - shown).elements(), key=ctx.card_key)
    for side, pile in enumerate(d["piles"]):
        if not pile or HIDDEN not in pile:
            continue
        totals = [w.total for w in rules.opening_sweeps if w.escobas == d["escobas"][side]]
        if len(pile) != rules.table_initial or len(totals) != 1 or any(c != HIDDEN for c in pile):
            return  # not an opening sweep: the checks name what is wrong
        value = {c: values[ctx.model.parse_card(c)] for c in set(pool)}
        for group in combinations(pool, len(pile)):
            if sum(value[c] for c in group) == totals[0]:
                d["piles"][side] = list(group)
                pool = list((Counter(pool) - Counter(group)).elements())
                pool.sort(key=ctx.card_key)
                break


def _no_melds(state: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    return action


def _escoba_check_read(ctx: Context, data: dict[str, Any], state: Any) -> None:
    return None


def _rummy_check_read(ctx: Context, data: dict[str, Any], state: Any) -> None:
    if any(len(sd["melds"]) > 1 for sd in data["table"]):
        meld_order(ctx, data, ctx.model.state_to_json(state))


def _escoba_goes_on(state: dict[str, Any]) -> tuple[str, str]:
    return "deals_per_hand", "cards remain to be played"


def _rummy_goes_on(state: dict[str, Any]) -> tuple[str, str]:
    key = "stock_out" if not state["stock"] else "go_out_min_completed"
    return key, f"nobody has gone out and the stock holds {len(state['stock'])} cards"


def _escoba_to_move(d: dict[str, Any]) -> int | None:
    v = d.get("to_move")
    return v if type(v) is int else None


def _rummy_to_move(d: dict[str, Any]) -> int | None:
    if d.get("phase") != "play":
        return None
    seat = d.get("seat")
    if type(seat) is not int:
        return None
    if d.get("step") == "answer":
        return int((seat + d["sides"]) % d["players"])
    return int(seat)


RUMMY = Game(
    name="rummy",
    state_schema="rummy-state",
    action_schema="rummy-action",
    shape=_rummy_shape,
    cards=_rummy_cards,
    build=_rummy_build,
    dealt_order=_rummy_dealt_order,
    view=_rummy_view,
    complete=_rummy_complete,
    resolve_action=_rummy_resolve,
    hand_index="hand_number",
    to_move=_rummy_to_move,
    check_read=_rummy_check_read,
    goes_on=_rummy_goes_on,
    deal_replaced=RED_THREES,
    deal_alike=WILDS | RED_THREES | BLACK_THREES,
)
ESCOBA = Game(
    name="escoba",
    state_schema="escoba-state",
    action_schema="escoba-action",
    shape=_escoba_shape,
    cards=_escoba_cards,
    build=_escoba_build,
    dealt_order=_escoba_dealt_order,
    view=_escoba_view,
    complete=_escoba_complete,
    resolve_action=_no_melds,
    hand_index="hand_number",
    to_move=_escoba_to_move,
    check_read=_escoba_check_read,
    goes_on=_escoba_goes_on,
    deal_replaced=frozenset(),
    deal_alike=frozenset(),
)
GAMES = {"rummy": RUMMY, "escoba": ESCOBA}


def game_for(model: GameModel) -> Game:
    return GAMES[model.game]


__all__ = ["ESCOBA", "HIDDEN", "RUMMY", "Context", "Game", "InconsistentState", "game_for"]
