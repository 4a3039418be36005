"""The Spanish pack: cards as small ints, piles as bitmasks, and per-rules lookup tables.

A card is ``suit * 10 + rank``: suits in the Spanish pack's order (oros first), ranks 0..9 standing
for 1..7, sota, caballo, rey. A rulebook's pack is that pack or, for a small configuration, part of
it (the suits and ranks its rules name); a card keeps its number and its name either way. There is
one copy of each card, so a pile is an int whose bit ``c`` is set when card ``c`` is in it: equal
piles are equal ints. Implements escoba-es:suits, escoba-es:ranks and escoba-es:capture-values.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from arbitro.model.errors import MalformedInput, SpecError
from arbitro.model.escoba.seats import next_dealer, next_seat, turn_order
from arbitro.model.schema import EscobaRules

OROS, COPAS, BASTOS, ESPADAS = 0, 1, 2, 3
SOTA, CABALLO, REY = 7, 8, 9
"""Rank indices of the figures (rank index r < 7 is the card numbered r + 1)."""
RANKS = 10
SUIT_LETTERS = "ocbe"
RANK_LETTERS = "1234567SCR"
SUIT_NAMES = ("oros", "copas", "bastos", "espadas")
"""The suits of the Spanish pack as a spec names them, in card-number order."""
RANK_NAMES = ("1", "2", "3", "4", "5", "6", "7", "sota", "caballo", "rey")
"""The ranks of the Spanish pack as a spec names them, in card-number order."""


def card(suit: int, rank: int) -> int:
    """The card of this suit and rank index."""
    return suit * RANKS + rank


def suit_of(c: int) -> int:
    return c // RANKS


def rank_of(c: int) -> int:
    return c % RANKS


SIETE_DE_VELO = card(OROS, 6)
"""The seven of oros (siete de velo, guindis)."""


def card_name(c: int) -> str:
    """A short name: rank letter then suit letter, e.g. ``7o`` (seven of oros), ``Rc`` (rey de copas)."""
    return RANK_LETTERS[rank_of(c)] + SUIT_LETTERS[suit_of(c)]


def parse_card(name: str) -> int:
    """The card called ``name`` (see `card_name`); MalformedInput names what is wrong."""
    if len(name) != 2 or name[0] not in RANK_LETTERS or name[1] not in SUIT_LETTERS:
        raise MalformedInput(
            f"unknown card {name!r}; expected a rank of {RANK_LETTERS!r} then a suit of {SUIT_LETTERS!r}"
        )
    return card(SUIT_LETTERS.index(name[1]), RANK_LETTERS.index(name[0]))


def parse_cards(names: str) -> tuple[int, ...]:
    """Cards written as space-separated names, e.g. ``"1o 3c 4b 7e"``."""
    return tuple(parse_card(n) for n in names.split())


def mask_of(cards: Iterable[int]) -> int:
    """The pile holding these cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a pile, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def setenta_label(rank: int) -> str:
    """The name a rank has in the book's setenta order: ``"1"``..``"7"``, or ``"figures"``."""
    return str(rank + 1) if rank < 7 else "figures"


class Listed:
    """The state `legal_actions` listed last and its plays: `apply` on that same state object finds
    its play among them without listing again. Changed in place, each listing."""

    def __init__(self) -> None:
        self.state: object = None
        self.plays: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Tables:
    """What the model precomputes from one EscobaRules value; built once per rules object."""

    deck: tuple[int, ...]  # the cards of the pack, ascending
    deck_set: frozenset[int]  # the same as a set (compared with a deck order's cards)
    full: int  # mask of the whole pack
    size: int  # cards in the pack
    values: tuple[int, ...]  # capture value by card number (0 for a card not in the pack)
    suit_shifts: tuple[int, ...]  # by suit of the pack: where its ten rank bits start in a mask
    oros: int  # mask of the first suit
    velo: int  # the seven of the first suit, -1 when the pack has no seven
    sevens: int  # mask of every seven of the pack
    # by the set of ranks held in one suit (10 bits): the setenta strength of the best, 0 if none
    suit_best: tuple[int, ...]
    target: int  # the capture sum
    capture_forced: bool  # a card that can capture must
    most_needed: int  # the largest sum a capture takes from the table (target - lowest value)
    # by card: the sum it needs from the table, or 0 when no group can be worth that
    needs: tuple[int, ...]
    sums_mask: int  # the sums a capture may need, as bits 0 .. most_needed (model.escoba.capture)
    # by players (a tuple indexed by the count; empty for a count the book does not seat): the
    # seat that plays after each seat
    after: tuple[tuple[int, ...], ...]
    deals: dict[int, int]  # players -> deals in a hand
    turn_orders: dict[int, tuple[tuple[int, ...], ...]]  # players -> by dealer, the turn order
    hand_size: int  # cards to each seat in the opening deal
    table_initial: int  # cards to the table in the opening deal
    zeros: tuple[tuple[int, ...], ...]  # by a count up to the most players seated, that many 0s
    redeal_size: int  # cards to each seat in a later deal
    redeal_table: int  # cards to the table in a later deal
    # by players (indexed as `after`), by dealer: who deals the next hand
    next_dealers: tuple[tuple[int, ...], ...]
    takes_rest: bool  # the last side to capture takes what is left on the table
    rest_to_dealer: bool  # nobody captured in the hand: the dealer's side takes the rest
    rest_is_escoba: bool  # taking the rest counts as an escoba
    target_score: int  # a game ends once a side reaches it at the end of a hand
    # the points of a hand (model.escoba.scoring), read once from the rules
    cards_points: int
    oros_points: int
    velo_points: int
    setenta_points: int
    escoba_points: int
    variant_cards_double: bool
    variant_oros_all: bool
    variant_sevens_all: bool
    setenta_needs_all: bool  # a side missing a suit shows no setenta (model.escoba.setenta)
    # what the model remembers per rules object, each bounded (see the modules that fill them)
    listings: dict[int, tuple[Any, ...]]  # model.escoba.capture
    seen: list[int]  # model.escoba.capture.listing
    listed: Listed  # the state last listed and its plays (model.escoba.capture)
    # the capturing plays made, and their keys, by slot (model.escoba.capture.add_groups)
    captures: list[Any]
    capture_keys: list[int]
    points: dict[Hashable, Any]  # model.escoba.scoring
    stocks: dict[tuple[int, ...], tuple[int, bool]]  # model.escoba.checks
    # the stock last looked up in `stocks` and its answer, in one slot (model.escoba.checks)
    last_stock: list[tuple[object, tuple[int, bool]]]
    expected: dict[Hashable, Any]  # model.escoba.checks
    clause_sets: dict[Hashable, frozenset[str]]  # model.escoba.clauses
    refusable: dict[str, frozenset[str]]  # by phase (model.escoba.capture.refusal_clauses)
    deal_checked: set[int]  # the player counts whose deals were checked against the pack


def _build(rules: EscobaRules) -> Tables:
    spec = f"{rules.rulebook}.toml"
    if len(rules.capture_values) != len(rules.ranks):
        raise SpecError(
            spec,
            "capture_values",
            f"{len(rules.capture_values)} values for {len(rules.ranks)} ranks; one per rank",
        )
    for key, names, known in (
        ("suits", rules.suits, SUIT_NAMES),
        ("ranks", rules.ranks, RANK_NAMES),
    ):
        unknown = [n for n in names if n not in known]
        if unknown or len(set(names)) != len(names) or not names:
            raise SpecError(
                spec,
                key,
                f"expected distinct names of the Spanish pack's {key} ({', '.join(known)}), got {list(names)}",
            )
    suit_ids = sorted(SUIT_NAMES.index(n) for n in rules.suits)
    rank_ids = sorted(RANK_NAMES.index(n) for n in rules.ranks)
    value_of = {
        RANK_NAMES.index(n): v for n, v in zip(rules.ranks, rules.capture_values, strict=True)
    }
    deck = tuple(card(s, r) for s in suit_ids for r in rank_ids)
    values = tuple(
        value_of.get(rank_of(c), 0) if c in deck else 0 for c in range(len(SUIT_NAMES) * RANKS)
    )
    order = rules.setenta_order
    labels = {r: setenta_label(r) for r in rank_ids}
    missing = sorted(set(labels.values()) - set(order))
    if missing:
        raise SpecError(spec, "setenta_order", f"ranks {missing} have no place in the order")
    rank_strength = [
        len(order) - order.index(labels[r]) if r in labels else 0 for r in range(RANKS)
    ]
    suit_best = tuple(
        max((rank_strength[r] for r in range(RANKS) if bits >> r & 1), default=0)
        for bits in range(1 << RANKS)
    )
    first = SUIT_NAMES.index(rules.suits[0])
    seven = RANK_NAMES.index("7")
    present_values = [values[c] for c in deck]
    most_needed = rules.capture_sum - min(present_values)
    seat_counts = {*rules.player_counts, *rules.team_player_counts}
    return Tables(
        deck=deck,
        deck_set=frozenset(deck),
        full=mask_of(deck),
        size=len(deck),
        values=values,
        suit_shifts=tuple(RANKS * s for s in suit_ids),
        oros=mask_of(c for c in deck if suit_of(c) == first),
        velo=card(first, seven) if card(first, seven) in deck else -1,
        sevens=mask_of(c for c in deck if rank_of(c) == seven),
        suit_best=suit_best,
        target=rules.capture_sum,
        capture_forced=rules.capture_forced,
        most_needed=most_needed,
        needs=tuple(
            rules.capture_sum - v if c in deck and 0 < rules.capture_sum - v <= most_needed else 0
            for c, v in enumerate(values)
        ),
        sums_mask=(1 << max(most_needed, 0) + 1) - 1,
        after=tuple(
            tuple(next_seat(rules, n, s) for s in range(n)) if n in seat_counts else ()
            for n in range(max(seat_counts, default=0) + 1)
        ),
        deals={dc.players: dc.deals for dc in rules.deals_per_hand},
        turn_orders={
            n: tuple(turn_order(rules, n, dealer) for dealer in range(n)) for n in seat_counts
        },
        hand_size=rules.hand_size,
        table_initial=rules.table_initial,
        zeros=tuple((0,) * n for n in range(max(seat_counts, default=0) + 1)),
        redeal_size=rules.redeal_size,
        redeal_table=rules.redeal_table,
        next_dealers=tuple(
            tuple(next_dealer(rules, n, dealer) for dealer in range(n)) if n in seat_counts else ()
            for n in range(max(seat_counts, default=0) + 1)
        ),
        takes_rest=rules.last_capturer_takes_rest,
        rest_to_dealer=rules.rest_without_capturer == "dealer",
        rest_is_escoba=rules.rest_is_escoba,
        target_score=rules.target_score,
        cards_points=rules.cards_points,
        oros_points=rules.oros_points,
        velo_points=rules.velo_points,
        setenta_points=rules.setenta_points,
        escoba_points=rules.escoba_points,
        variant_cards_double=rules.variant_cards_double,
        variant_oros_all=rules.variant_oros_all,
        variant_sevens_all=rules.variant_sevens_all,
        setenta_needs_all=rules.setenta_missing_suit == "no_setenta",
        listings={},
        seen=[-1] * SEEN_SLOTS,
        listed=Listed(),
        captures=[None] * CAPTURE_SLOTS,
        capture_keys=[-1] * CAPTURE_SLOTS,
        points={},
        stocks={},
        last_stock=[(None, (0, True))],
        expected={},
        clause_sets={},
        refusable={},
        deal_checked=set(),
    )


CAPTURE_SLOTS: Final = 32749
"""Slots of `Tables.captures` (model.escoba.capture.add_groups): a prime, the slot being a play's
key modulo it."""

SEEN_SLOTS: Final = 65521
"""Slots of `Tables.seen`, the filter of listings met once (model.escoba.capture.listing): a prime,
the slot being the key modulo it (and its entry a fingerprint of the key)."""


_TABLES: Final[dict[int, tuple[EscobaRules, Tables]]] = {}
_LATEST: Final[list[tuple[object, Any]]] = [(None, None)]
"""The last rules asked for and their tables, as the one item of a list: most calls in a row are
for the same rules. A list changed in place, not a global rebound, so that compiled code reads it
directly."""


def tables(rules: EscobaRules) -> Tables:
    """The lookup tables of these rules (cached by identity; the rules object is kept alive)."""
    latest = _LATEST[0]
    if latest[0] is rules:
        found: Tables = latest[1]
        return found
    hit = _TABLES.get(id(rules))
    if hit is None or hit[0] is not rules:
        if len(_TABLES) > 256:
            _TABLES.clear()
        hit = _TABLES[id(rules)] = (rules, _build(rules))
    _LATEST[0] = hit
    return hit[1]


def pile_value(t: Tables, mask: int) -> int:
    """The sum of the capture values of a pile."""
    total = 0
    values = t.values
    while mask:
        low = mask & -mask
        total += values[low.bit_length() - 1]
        mask ^= low
    return total
