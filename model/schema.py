"""The rule parameters each game's model reads, typed, and how a variant selects among readings.

A spec must give a clause for every field of its game's rules class and nothing else; the loader
checks each value against the field's type. Field docs say what a value means; the spec says which
value each book gives and where.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from arbitro.model.errors import OptionError, SpecError
from arbitro.model.spec import Clause, Rulebook, load_rulebook

CardClass = Literal["joker", "two", "wild", "red_three", "black_three"]
"""Classes of card that rules name: `wild` means joker or two."""


# ---------------------------------------------------------------- shared records


@dataclass(frozen=True)
class Layout:
    """A way to seat players: how many, how many sides, hand size, and packs (0: the book's `packs`)."""

    name: str
    players: int
    sides: int
    hand_size: int
    packs: int = 0


@dataclass(frozen=True)
class Band:
    """One row of an opening-minimum table: side scores from `low` to `high` inclusive (None: open end)."""

    minimum: int
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class CardPoints:
    """What each card counts when scored (melded: plus, in hand: minus)."""

    joker: int
    two: int
    ace: int
    high: int  # K, Q, J, 10, 9, 8
    low: int  # 7, 6, 5, 4
    black_three: int


@dataclass(frozen=True)
class Penalty:
    """A priced irregular act; `act` is one of PENALTY_ACTS."""

    act: str
    points: int


PENALTY_ACTS = (
    "draw_out_of_turn",
    "draw_out_of_turn_into_hand",
    "draw_two_instead_of_one",
    "take_pile_out_of_turn",
    "take_pile_before_showing",
    "take_upcard_unable_to_use",
    "take_upcard_unable_to_open",
    "meld_out_of_turn",
    "meld_in_partner_turn",
    "three_wilds_in_canasta",
    "go_out_after_refusal",
    "ask_and_cannot_go_out",
    "retract_draw",
)


@dataclass(frozen=True)
class Sweep:
    """An Escoba opening deal whose four table cards total `total` gives the dealer `escobas`."""

    total: int
    escobas: int


@dataclass(frozen=True)
class DealCount:
    """How many deals of three cards a hand of Escoba has for a player count."""

    players: int
    deals: int


# ---------------------------------------------------------------- Samba and Canasta


@dataclass(frozen=True)
class RummyRules:
    """Everything the Samba/Canasta engine reads. One instance per rulebook plus options."""

    # deck
    packs: int  # 52-card French packs shuffled together
    jokers_per_pack: int
    # players and deal
    layouts: tuple[Layout, ...]
    play_direction: Literal["left", "right"]  # the next player is on this side
    dealer_rotation: Literal["next_player"]  # who deals the next hand
    upcard_cover: tuple[
        CardClass, ...
    ]  # an upcard of these classes is covered by the next card, which stays on top
    # card values
    card_points: CardPoints
    # drawing
    draw_count: int  # cards drawn from the stock in a normal turn
    draw_short_stock: Literal["take_what_remains", "hand_ends"]  # fewer than draw_count left
    # the discard pile
    pile_new_set_naturals: (
        int  # naturals from hand needed with the top card for a new set (before opening / frozen)
    )
    pile_wild_pair_after: Literal[
        "never", "side_opened", "first_pile_take"
    ]  # when one natural + one wild may take it
    pile_add_after: Literal[
        "any_time", "first_pile_take"
    ]  # when the top card alone, put on a meld of the side, may take it
    pile_to_own_set: bool  # top card alone added to a set of the side (unfrozen pile)
    pile_to_completed_set: bool  # ... also to a completed canasta
    pile_to_own_sequence: bool  # top card alone extends an escalera of the side
    pile_new_sequence: bool  # top card may start a new escalera
    frozen_by: tuple[CardClass, ...]  # a pile holding any of these is frozen until taken
    blocked_by_top: tuple[CardClass, ...]  # a top card of these classes stops the pile being taken
    pile_one_card_rule: bool  # a player holding one card cannot take the pile while the stock lasts
    pile_top_counts_for_opening: bool  # the top card's points count toward the opening minimum
    pile_rest_after_opening: (
        bool  # the rest of the pile reaches the hand only after the opening melds are laid
    )
    # melds
    sequences: bool  # escaleras of one suit are melds
    sequence_ranks: tuple[str, ...]  # ranks an escalera may use, lowest first
    sequence_min: int
    sequence_max: int
    set_min: int
    set_start_min_naturals: int  # naturals a new set must have when laid
    wild_cap: int  # most wild cards in one set
    wilds_at_most_naturals: bool  # a set never holds more wilds than naturals
    completed_size: int  # a set or escalera of this many cards is a completed canasta / samba
    completed_set_growth: Literal["none", "naturals", "any", "one_natural_if_clean"]
    merge_sets: bool  # two sets of one rank of a side may be joined
    several_sets_same_rank: bool  # a side may hold two separate sets of one rank
    black_threes_meld: Literal["never", "going_out_only"]
    black_three_meld_wilds: bool  # wild cards may join a meld of black threes
    red_threes_meld: Literal["never", "going_out_only"]
    # special melds
    wild_canasta: bool  # a meld of wild cards only (canasta de comodines) is allowed
    wild_meld_min_start: int  # wild cards needed to lay a wild-only meld
    wild_canasta_bonus: int
    canaston_count: int  # completed canastas that make a canastón (0: no such bonus)
    canaston_bonus: int
    canasta_de_canastas_count: int  # 0: no such bonus
    canasta_de_canastas_bonus: int
    clean_by_replacing_wilds: bool  # a dirty meld may be cleaned by swapping its wilds for naturals
    # opening
    opening_minimums: tuple[Band, ...]
    opening_concealed_exempt: bool  # laying the whole hand at once needs no minimum
    opening_rule: Literal["meet", "exceed"]  # the opening's points must reach / go past the minimum
    # red threes
    red_three_initial_replacement: Literal["at_deal", "on_turn"]
    red_three_each: int
    red_three_all: int  # total when a side holds every red three of the deck
    red_three_positive_min_completed: (
        int  # completed melds the side needs for red threes to count plus
    )
    red_three_negative_below_completed: int  # with fewer completed melds than this they count minus
    red_three_negative_all: int  # total (negative number) for every red three when they count minus
    red_three_undeclared_penalty: (
        int  # per red three left in hand at the end (positive number deducted)
    )
    # black threes
    black_three_hand_penalty: int  # per black three in hand at the end, beyond its card value
    black_threes_all_melded_bonus: int  # a side melding every black three when going out
    black_threes_all_in_hand_penalty: int
    # going out
    go_out_min_completed: int
    go_out_min_clean: int
    go_out_min_dirty: int
    go_out_discard: Literal["optional", "required", "forbidden"]
    go_out_wait_after_clean: bool  # not in the same turn as completing the needed clean canasta
    ask_partner: bool  # "may I go out?" exists and the answer binds
    # stock
    stock_out: Literal["forced_take_if_matches_meld", "take_pile_if_able", "hand_ends"]
    last_red_three_ends_hand: bool
    # scoring
    bonus_samba: int
    bonus_clean_canasta: int
    bonus_dirty_canasta: int
    bonus_going_out: int
    going_out_bonus_on_stock_out: bool
    score_losing_melds: bool  # the sides that did not go out score their melded cards
    # penalties
    penalties: tuple[Penalty, ...]
    # game end
    target_score: int
    target_rule: Literal["reach", "exceed"]
    target_tie: Literal["play_on", "shared"]

    rulebook: str = field(default="", compare=False)
    clause_ids: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def cid(self, key: str) -> str:
        """The id of the clause behind a field, for refusals and findings."""
        return self.clause_ids[key]

    def penalty(self, act: str) -> int | None:
        """The points the book deducts for an irregular act, or None if it prices none."""
        for p in self.penalties:
            if p.act == act:
                return p.points
        return None


# ---------------------------------------------------------------- Escoba


@dataclass(frozen=True)
class EscobaRules:
    """Everything the Escoba model reads."""

    # deck
    suits: tuple[str, ...]  # the four suits, oros first
    capture_values: tuple[int, ...]  # capture value of ranks 1..7, sota, caballo, rey
    # players
    player_counts: tuple[int, ...]
    team_player_counts: tuple[
        int, ...
    ]  # counts that may also play as two teams of partners facing each other
    # deal
    hand_size: int
    table_initial: int
    redeal_size: int
    redeal_table: int
    deals_per_hand: tuple[DealCount, ...]
    play_direction: Literal["left", "right"]
    dealer_rotation: Literal["next_player"]
    # capture
    capture_sum: int
    capture_forced: bool  # a played card that can capture must capture
    capture_choice: Literal["player"]  # who picks among several capturing sets
    # escobas
    opening_sweeps: tuple[Sweep, ...]
    escoba_points: int
    last_capturer_takes_rest: bool
    rest_is_escoba: bool
    rest_without_capturer: Literal["stay", "dealer"]  # nobody captured in the whole hand
    # scoring
    cards_points: int
    oros_points: int
    velo_points: int
    setenta_points: int
    setenta_order: tuple[str, ...]  # best first: "7", "6", "1", ... "figures"
    setenta_missing_suit: Literal["no_setenta", "lowest"]
    category_tie: Literal["nobody"]  # a category tied at the top
    # game end
    target_score: int
    target_tie: Literal["higher_wins_else_play_on"]
    # variants (optional rules)
    variant_cards_double: bool
    variant_cards_double_rule: Literal["each_opponent", "opponents_together"]
    variant_oros_all: bool
    variant_sevens_all: bool

    rulebook: str = field(default="", compare=False)
    clause_ids: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def cid(self, key: str) -> str:
        return self.clause_ids[key]


Rules = RummyRules | EscobaRules
SCHEMAS: dict[str, type[RummyRules] | type[EscobaRules]] = {
    "samba": RummyRules,
    "canasta": RummyRules,
    "escoba": EscobaRules,
}
_META_FIELDS = {"rulebook", "clause_ids"}


def schema_keys(game: str) -> tuple[str, ...]:
    """The clause keys a spec of this game must define."""
    return tuple(f.name for f in dataclasses.fields(SCHEMAS[game]) if f.name not in _META_FIELDS)


Options = Mapping[str, str | bool]
"""Variant options: a reading label for a clause with readings, or on/off for an optional rule."""


def check_rulebook(rb: Rulebook) -> None:
    """Every schema key present, no other, and every reading's value of the right type."""
    keys = set(schema_keys(rb.game))
    have = set(rb.keys())
    missing = sorted(keys - have)
    if missing:
        raise SpecError(
            rb.path,
            missing[0],
            f"missing clause; a {rb.game} spec must define {len(keys)} keys ({len(missing)} missing: {', '.join(missing)})",
        )
    extra = sorted(have - keys)
    if extra:
        raise SpecError(
            rb.path,
            extra[0],
            f"not a rule the {rb.game} model reads; known keys are listed in model/schema.py",
        )
    hints = _hints(SCHEMAS[rb.game])
    for c in rb.clauses:
        for r in c.readings:
            where = c.key if r.label == c.default else f"{c.key} (reading {r.label!r})"
            _convert(hints[c.key], r.value, rb.path, where)
        if c.optional and hints[c.key] is not bool:
            raise SpecError(rb.path, c.key, "only a true/false rule can be optional")
        if c.optional and c.value is not False:
            raise SpecError(
                rb.path, c.key, "an optional rule is off (false) unless a variant turns it on"
            )


_RULES_CACHE: dict[tuple[int, str], tuple[Rulebook, Rules]] = {}


def rules_for(rulebook: str | Rulebook, options: Options | None = None) -> Rules:
    """The typed rules of a rulebook with options applied; unknown options are refused by name.

    Rules are immutable, so equal requests share one object (which also keeps the models' per-rules
    lookup tables warm).
    """
    rb = rulebook if isinstance(rulebook, Rulebook) else load_rulebook(rulebook)
    key = (id(rb), json.dumps(dict(options or {}), sort_keys=True))
    hit = _RULES_CACHE.get(key)
    if hit is not None and hit[0] is rb:
        return hit[1]
    rules = _build_rules(rb, options)
    if len(_RULES_CACHE) > 512:
        _RULES_CACHE.clear()
    _RULES_CACHE[key] = (rb, rules)
    return rules


def _build_rules(rb: Rulebook, options: Options | None) -> Rules:
    check_rulebook(rb)
    opts = dict(options or {})
    values: dict[str, Any] = {}
    for c in rb.clauses:
        values[c.key] = _chosen(c, opts.pop(c.key, None), rb)
    if opts:
        bad = sorted(opts)[0]
        choosable = sorted(c.key for c in rb.clauses if c.optional or len(c.readings) > 1)
        raise OptionError(f"{rb.id} has no option {bad!r}; options: {', '.join(choosable)}")
    cls = SCHEMAS[rb.game]
    hints = _hints(cls)
    typed = {k: _convert(hints[k], v, rb.path, k) for k, v in values.items()}
    ids = {c.key: c.id for c in rb.clauses}
    return cls(**typed, rulebook=rb.id, clause_ids=ids)


def _chosen(c: Clause, choice: str | bool | None, rb: Rulebook) -> Any:
    if choice is None:
        return c.value
    if c.optional:
        if not isinstance(choice, bool):
            raise OptionError(
                f"option {c.key!r} of {rb.id} is an optional rule: give true or false"
            )
        return choice
    if isinstance(choice, bool) or choice not in c.labels():
        labels = ", ".join(c.labels())
        raise OptionError(f"option {c.key!r} of {rb.id} takes a reading label; readings: {labels}")
    if len(c.readings) < 2:
        raise OptionError(f"{c.id} is {c.status} with a single value; it is not an option")
    return c.value_for(choice)


T = TypeVar("T")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(tp: type) -> dict[str, Any]:
    """get_type_hints, once per class: it compiles the annotations every time it is called."""
    hit = _HINTS.get(tp)
    if hit is None:
        hit = _HINTS[tp] = get_type_hints(tp)
    return hit


def _convert(tp: Any, value: Any, file: str, where: str) -> Any:
    """Check `value` against the type `tp` and build records; SpecError names file and key."""
    origin = get_origin(tp)
    if tp is bool:
        if not isinstance(value, bool):
            raise SpecError(file, where, f"expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(file, where, f"expected an integer, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise SpecError(file, where, f"expected a string, got {value!r}")
        return value
    if origin is Literal:
        allowed = get_args(tp)
        if value not in allowed:
            raise SpecError(
                file, where, f"expected one of {', '.join(map(repr, allowed))}, got {value!r}"
            )
        return value
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value, file, where)
    if origin is tuple:
        (item, _ellipsis) = get_args(tp)
        if not isinstance(value, list):
            raise SpecError(file, where, f"expected an array, got {value!r}")
        return tuple(_convert(item, v, file, f"{where}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, dict):
            raise SpecError(file, where, f"expected a table with {_field_list(tp)}, got {value!r}")
        hints = _hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        extra = sorted(set(value) - names)
        if extra:
            raise SpecError(
                file, f"{where}.{extra[0]}", f"unknown field; expected {_field_list(tp)}"
            )
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(tp):
            if f.name in value:
                kwargs[f.name] = _convert(hints[f.name], value[f.name], file, f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING:
                raise SpecError(file, f"{where}.{f.name}", "missing")
        return tp(**kwargs)
    raise TypeError(f"schema type {tp!r} is not supported")  # a bug in this module, not in a spec


def _field_list(tp: type) -> str:
    return ", ".join(f.name for f in dataclasses.fields(tp))


__all__ = [
    "PENALTY_ACTS",
    "SCHEMAS",
    "Band",
    "CardPoints",
    "DealCount",
    "EscobaRules",
    "Layout",
    "Options",
    "Penalty",
    "Rules",
    "RummyRules",
    "Sweep",
    "check_rulebook",
    "rules_for",
    "schema_keys",
]
_ = typing
