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

from arbitro.model.errors import OptionError, SpecError, did_you_mean
from arbitro.model.spec import Clause, Rulebook, load_rulebook, set_schema_check

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
    # the minimum of a side whose total no row of opening_minimums covers; -1: none is given
    # (dealing then is a gap in the book, RuleGap)
    opening_minimum_past_table: int
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
    # total (a negative number) for every red three of the deck when they count minus; 0: no
    # such total, each costs red_three_each as it does when the side holds fewer
    red_three_negative_all: int
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

    def problems(self) -> list[Problem]:
        """Every way these rules cannot be played (see `problems`)."""
        return _rummy_problems(self)

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
    suits: tuple[str, ...]  # the suits of the pack, oros first
    ranks: tuple[str, ...]  # the ranks of every suit: "1".."7", "sota", "caballo", "rey"
    capture_values: tuple[int, ...]  # capture value of each rank of `ranks`, in that order
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

    def problems(self) -> list[Problem]:
        """Every way these rules cannot be played (see `problems`)."""
        return _escoba_problems(self)


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


def _first_names(names: list[str], most: int = 8) -> str:
    """The first `most` names, then how many more: a spec missing every key still gets one line."""
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def check_rulebook(rb: Rulebook) -> None:
    """Every schema key present, no other, and every reading's value of the right type."""
    keys = set(schema_keys(rb.game))
    have = set(rb.keys())
    missing = sorted(keys - have)
    if missing:
        raise SpecError(
            rb.path,
            missing[0],
            f"missing clause; a {rb.game} spec must define {len(keys)} keys "
            f"({len(missing)} missing: {_first_names(missing)})",
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
    _check_meaning(rb)


set_schema_check(check_rulebook)  # every rulebook loaded is checked against the schema

_SOUND: dict[int, Rulebook] = {}


def _check_meaning(rb: Rulebook) -> None:
    """The book's own rules, and each reading it offers, playable (see `problems`)."""
    if _SOUND.get(id(rb)) is rb:
        return
    validate(_typed(rb, {}), rb.path)
    for c in rb.clauses:
        if c.follows is not None:
            continue  # chosen with the clause it follows
        for r in c.readings:
            if r.label == c.default:
                continue
            found = problems(_typed(rb, {c.key: r.label}))
            if found:
                key, problem = found[0]
                where = key if key != c.key else f"{key} (reading {r.label!r})"
                if key != c.key:
                    problem += f" (with {c.key} = {r.label!r})"
                raise SpecError(rb.path, where, problem)
    if len(_SOUND) > 256:
        _SOUND.clear()
    _SOUND[id(rb)] = rb


# ---------------------------------------------------------------- meaning, beyond types


Problem = tuple[str, str]
"""A semantic problem of typed rules: the clause key, and what is wrong with its value."""


def problems(rules: Rules) -> list[Problem]:
    """Every way typed rules cannot be played, as (key, problem), in schema order; empty when sound.

    Types are checked when a spec loads; this checks what types cannot say: counts that must be
    positive, seatings the deck can deal, tables that must name each row once. It never judges
    what a book chose (a gap in an opening table is a finding, not an error).
    """
    return rules.problems()


MAX_PACKS = 8
"""The most packs a Samba/Canasta spec may shuffle together (the books use 2 or 3)."""
MAX_JOKERS_PER_PACK = 4
MAX_PLAYERS = 12
"""The most players a spec may seat (the books seat at most 10)."""
MAX_HAND_SIZE = 64
"""The most cards a spec may deal to one hand (the books deal at most 15)."""
MAX_SUITS = 8
"""The most suits of an Escoba pack (the book's has 4)."""
MAX_RANKS = 20
"""The most capture values of an Escoba suit (the book's has 10)."""
MAX_DEALS = 40
"""The most deals of an Escoba hand to one player count."""


def _at_least(out: list[Problem], key: str, value: int, low: int) -> None:
    if value < low:
        out.append((key, f"must be at least {low}, got {value}"))


def _at_most(out: list[Problem], key: str, value: int, high: int, what: str) -> None:
    if value > high:
        out.append((key, f"must be at most {high:,} {what}, got {value:,}"))


def _escoba_problems(r: EscobaRules) -> list[Problem]:
    out: list[Problem] = []
    if not r.suits:
        out.append(("suits", "a pack needs at least one suit, got none"))
    elif len(set(r.suits)) != len(r.suits):
        out.append(("suits", "a suit is listed twice"))
    if any(v < 1 for v in r.capture_values):
        out.append(("capture_values", "every capture value must be at least 1"))
    if not r.player_counts:
        out.append(("player_counts", "no player count given"))
    for n in r.player_counts:
        if n < 2:
            out.append(("player_counts", f"a game needs at least 2 players, got {n}"))
    if len(set(r.player_counts)) != len(r.player_counts):
        out.append(("player_counts", "a player count is listed twice"))
    for n in r.team_player_counts:
        if n < 4 or n % 2:
            out.append(
                ("team_player_counts", f"two teams need an even number of at least 4, got {n}")
            )
    _at_least(out, "hand_size", r.hand_size, 1)
    _at_least(out, "table_initial", r.table_initial, 0)
    _at_least(out, "redeal_size", r.redeal_size, 1)
    _at_least(out, "redeal_table", r.redeal_table, 0)
    _at_least(out, "capture_sum", r.capture_sum, 1)
    for key in ("escoba_points", "cards_points", "oros_points", "velo_points", "setenta_points"):
        _at_least(out, key, getattr(r, key), 0)
    _at_least(out, "target_score", r.target_score, 1)
    deals = {}
    for dc in r.deals_per_hand:
        if dc.players in deals:
            out.append(("deals_per_hand", f"{dc.players} players are given two deal counts"))
        deals[dc.players] = dc.deals
        _at_least(out, "deals_per_hand", dc.deals, 1)
    _at_most(out, "suits", len(r.suits), MAX_SUITS, "suits")
    _at_most(out, "capture_values", len(r.capture_values), MAX_RANKS, "cards a suit")
    _at_most(out, "hand_size", r.hand_size, MAX_HAND_SIZE, "cards")
    for n in (*r.player_counts, *r.team_player_counts):
        _at_most(out, "player_counts", n, MAX_PLAYERS, "players")
    for dc in r.deals_per_hand:
        _at_most(out, "deals_per_hand", dc.deals, MAX_DEALS, "deals")
    if out:
        return out  # the deck arithmetic below needs sound counts
    deck = len(r.suits) * len(r.capture_values)
    for n in sorted({*r.player_counts, *r.team_player_counts}):
        if n not in deals:
            out.append(("deals_per_hand", f"no deal count for {n} players"))
            continue
        first = n * r.hand_size + r.table_initial
        used = first + (deals[n] - 1) * (n * r.redeal_size + r.redeal_table)
        if first > deck:
            out.append(
                (
                    "hand_size",
                    f"{n} players with {r.hand_size} cards each and {r.table_initial} on the "
                    f"table need {first} cards; the pack has {deck}",
                )
            )
        elif used != deck:
            out.append(
                (
                    "deals_per_hand",
                    f"{deals[n]} deals to {n} players use {used} cards, but the pack has {deck}",
                )
            )
    return out


def _rummy_problems(r: RummyRules) -> list[Problem]:
    out: list[Problem] = []
    _at_least(out, "packs", r.packs, 1)
    _at_most(out, "packs", r.packs, MAX_PACKS, "packs")
    _at_least(out, "jokers_per_pack", r.jokers_per_pack, 0)
    _at_most(out, "jokers_per_pack", r.jokers_per_pack, MAX_JOKERS_PER_PACK, "jokers")
    if not r.layouts:
        out.append(("layouts", "no seating given"))
    names = [lay.name for lay in r.layouts]
    if len(set(names)) != len(names):
        out.append(("layouts", "two layouts share a name"))
    for lay in r.layouts:
        where = f"layout {lay.name!r}"
        if lay.players < 2:
            out.append(("layouts", f"{where}: a game needs at least 2 players, got {lay.players}"))
        elif lay.sides < 2 or lay.sides > lay.players or lay.players % lay.sides:
            out.append(
                (
                    "layouts",
                    f"{where}: {lay.players} players cannot sit as {lay.sides} equal sides",
                )
            )
        if lay.players > MAX_PLAYERS:
            out.append(("layouts", f"{where}: at most {MAX_PLAYERS} players, got {lay.players:,}"))
        if lay.hand_size > MAX_HAND_SIZE:
            out.append(
                ("layouts", f"{where}: at most {MAX_HAND_SIZE} cards a hand, got {lay.hand_size:,}")
            )
        if lay.packs > MAX_PACKS:
            out.append(("layouts", f"{where}: at most {MAX_PACKS} packs, got {lay.packs:,}"))
        if lay.hand_size < 1:
            out.append(("layouts", f"{where}: a hand size must be at least 1, got {lay.hand_size}"))
        if lay.packs < 0:
            out.append(("layouts", f"{where}: packs must be 0 (the book's) or more"))
        packs = lay.packs or r.packs
        deck = packs * (52 + r.jokers_per_pack)
        # every hand dealt, the upcard, and one draw for the first player
        need = lay.players * lay.hand_size + 1 + r.draw_count
        if lay.players >= 2 and lay.hand_size >= 1 and packs >= 1 and need > deck:
            out.append(
                (
                    "layouts",
                    f"{where}: {lay.players} hands of {lay.hand_size}, the upcard and a first "
                    f"draw need {need} cards; {packs} packs hold {deck}",
                )
            )
    _at_least(out, "draw_count", r.draw_count, 1)
    _at_least(out, "pile_new_set_naturals", r.pile_new_set_naturals, 1)
    _at_least(out, "set_min", r.set_min, 1)
    _at_least(out, "set_start_min_naturals", r.set_start_min_naturals, 1)
    _at_least(out, "wild_cap", r.wild_cap, 0)
    _at_least(out, "completed_size", r.completed_size, max(r.set_min, 1))
    if r.wild_canasta:
        _at_least(out, "wild_meld_min_start", r.wild_meld_min_start, 1)
    if r.sequences:
        _at_least(out, "sequence_min", r.sequence_min, 1)
        if r.sequence_max < r.sequence_min:
            out.append(
                (
                    "sequence_max",
                    f"is {r.sequence_max}, below sequence_min {r.sequence_min}",
                )
            )
        if len(set(r.sequence_ranks)) != len(r.sequence_ranks):
            out.append(("sequence_ranks", "a rank is listed twice"))
    if not r.opening_minimums:
        out.append(("opening_minimums", "no row given"))
    for b in r.opening_minimums:
        if b.minimum < 0:
            out.append(("opening_minimums", f"a minimum must be 0 or more, got {b.minimum}"))
        if b.low is not None and b.high is not None and b.low > b.high:
            out.append(("opening_minimums", f"a row runs from {b.low} down to {b.high}"))
    for key in ("go_out_min_completed", "go_out_min_clean", "go_out_min_dirty"):
        _at_least(out, key, getattr(r, key), 0)
    for key in ("canaston_count", "canasta_de_canastas_count"):
        _at_least(out, key, getattr(r, key), 0)
    acts = [p.act for p in r.penalties]
    for act in acts:
        if act not in PENALTY_ACTS:
            out.append(("penalties", f"unknown act {act!r}; known: {', '.join(PENALTY_ACTS)}"))
    if len(set(acts)) != len(acts):
        out.append(("penalties", "an act is priced twice"))
    _at_least(out, "target_score", r.target_score, 1)
    return out


def validate(rules: Rules, file: str) -> None:
    """SpecError naming `file` and the key of the first problem of the rules, if any."""
    found = problems(rules)
    if found:
        key, problem = found[0]
        raise SpecError(file, key, problem)


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
    rules = _typed(rb, options)
    if options:
        found = problems(rules)
        if found:
            key, problem = found[0]
            raise OptionError(
                f"the options {_shown(options)} give rules that cannot be played: {key}: {problem}"
            )
    return rules


def _shown(options: Options) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items())


def option_key(key: str) -> str:
    """An option key or clause key in either spelling (`draw-count`, `draw_count`) as the key."""
    return key.strip().replace("-", "_")


def normalize_options(rb: Rulebook, options: Options | None) -> dict[str, str | bool]:
    """Options with keys in the schema's spelling and labels as the spec writes them, a clause
    that follows another (`follows`) given the reading of its group; OptionError when two clauses
    of one group are given different readings, a mix no reading of the book gives."""
    opts: dict[str, str | bool] = {}
    for raw, value in (options or {}).items():
        key = option_key(raw)
        if key in opts and opts[key] != value:
            raise OptionError(f"option {key!r} is given twice, as {opts[key]!r} and {value!r}")
        if isinstance(value, str) and rb.has(key):
            labels = rb.clause(key).labels()
            if value not in labels and value.replace("_", "-") in labels:
                value = value.replace("_", "-")
        opts[key] = value
    for c in rb.clauses:
        if c.follows is None:
            continue
        group = [c.follows, *(d.key for d in rb.clauses if d.follows == c.follows)]
        given = {k: opts[k] for k in group if k in opts}
        if len(set(map(str, given.values()))) > 1:
            shown = ", ".join(f"{k}={v}" for k, v in given.items())
            raise OptionError(
                f"{shown}: no reading of {rb.id} gives that mix; {', '.join(group[1:])} "
                f"follows {group[0]}: give one reading for all of them, or only {group[0]}"
            )
        if given:
            choice = next(iter(given.values()))
            for k in group:
                opts[k] = choice
    return opts


def _typed(rb: Rulebook, options: Options | None) -> Rules:
    opts = normalize_options(rb, options)
    values: dict[str, Any] = {}
    for c in rb.clauses:
        values[c.key] = _chosen(c, opts.pop(c.key, None), rb)
    if opts:
        bad = sorted(opts)[0]
        choosable = sorted(c.key for c in rb.clauses if c.optional or len(c.readings) > 1)
        raise OptionError(
            f"{rb.id} has no option {bad!r}; options: {', '.join(choosable)}"
            + did_you_mean(bad, choosable)
        )
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
        raise OptionError(
            f"option {c.key!r} of {rb.id} takes a reading label; readings: {labels}"
            + (did_you_mean(choice, c.labels()) if isinstance(choice, str) else "")
        )
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
    "normalize_options",
    "option_key",
    "problems",
    "rules_for",
    "schema_keys",
    "validate",
]
_ = typing
