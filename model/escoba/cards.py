"""The Spanish pack: cards as small ints, piles as bitmasks, and per-rules lookup tables.

A card is ``suit * 10 + rank``: suits in the book's order (oros first), ranks 0..9 standing for
1..7, sota, caballo, rey. The pack has one copy of each card, so a pile is an int whose bit ``c`` is
set when card ``c`` is in it: equal piles are equal ints. Implements escoba-es:suits and
escoba-es:capture-values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arbitro.model.errors import MalformedInput, SpecError
from arbitro.model.escoba.seats import next_seat
from arbitro.model.schema import EscobaRules

OROS, COPAS, BASTOS, ESPADAS = 0, 1, 2, 3
SOTA, CABALLO, REY = 7, 8, 9
"""Rank indices of the figures (rank index r < 7 is the card numbered r + 1)."""
RANKS = 10
SUIT_LETTERS = "ocbe"
RANK_LETTERS = "1234567SCR"


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


@dataclass(frozen=True)
class Tables:
    """What the model precomputes from one EscobaRules value; built once per rules object."""

    deck: tuple[int, ...]
    full: int  # mask of the whole deck
    values: tuple[int, ...]  # capture value by card
    suit_masks: tuple[int, ...]
    oros: int  # mask of the first suit
    velo: int  # the seven of the first suit
    sevens: int  # mask of every seven
    strength: tuple[int, ...]  # setenta strength by card, higher is better, all > 0
    # by the set of ranks held in one suit (10 bits): the strength of the best, 0 if none
    suit_best: tuple[int, ...]
    target: int  # the capture sum
    most_needed: int  # the largest sum a capture takes from the table (target - lowest value)
    after: dict[int, tuple[int, ...]]  # players -> the seat that plays after each seat
    deals: dict[int, int]  # players -> deals in a hand
    lane: int  # bits per coefficient of a subset-count polynomial (see model.escoba.capture)
    lane_mask: int
    poly_mask: int  # keeps the coefficients of x^0 .. x^most_needed
    shift: tuple[int, ...]  # by card: lane * value, multiplying a polynomial by x^value


def _build(rules: EscobaRules) -> Tables:
    n_suits, n_ranks = len(rules.suits), len(rules.capture_values)
    if n_ranks != RANKS:
        raise SpecError(
            f"{rules.rulebook}.toml",
            "capture_values",
            f"the escoba model reads a pack of {RANKS} ranks per suit, got {n_ranks}",
        )
    deck = tuple(range(n_suits * n_ranks))
    values = tuple(rules.capture_values[rank_of(c)] for c in deck)
    order = rules.setenta_order
    labels = [setenta_label(r) for r in range(n_ranks)]
    missing = sorted(set(labels) - set(order))
    if missing:
        raise SpecError(
            f"{rules.rulebook}.toml", "setenta_order", f"ranks {missing} have no place in the order"
        )
    strength = tuple(len(order) - order.index(labels[rank_of(c)]) for c in deck)
    rank_strength = [len(order) - order.index(labels[r]) for r in range(n_ranks)]
    suit_best = tuple(
        max((rank_strength[r] for r in range(n_ranks) if bits >> r & 1), default=0)
        for bits in range(1 << n_ranks)
    )
    suit_masks = tuple(mask_of(card(s, r) for r in range(n_ranks)) for s in range(n_suits))
    seven = labels.index("7")
    most_needed = rules.capture_sum - min(rules.capture_values)
    # the subset counts of the whole deck bound those of any table: size the lanes to hold them
    counts = [1] + [0] * most_needed
    for v in values:
        counts = [counts[s] + (counts[s - v] if s >= v else 0) for s in range(most_needed + 1)]
    lane = max(counts).bit_length() + 1
    return Tables(
        deck=deck,
        full=(1 << len(deck)) - 1,
        values=values,
        suit_masks=suit_masks,
        oros=suit_masks[0],
        velo=card(0, seven),
        sevens=mask_of(card(s, seven) for s in range(n_suits)),
        strength=strength,
        suit_best=suit_best,
        target=rules.capture_sum,
        most_needed=most_needed,
        lane=lane,
        lane_mask=(1 << lane) - 1,
        poly_mask=(1 << lane * (most_needed + 1)) - 1,
        shift=tuple(lane * v for v in values),
        after={
            n: tuple(next_seat(rules, n, s) for s in range(n))
            for n in {*rules.player_counts, *rules.team_player_counts}
        },
        deals={dc.players: dc.deals for dc in rules.deals_per_hand},
    )


_TABLES: dict[int, tuple[EscobaRules, Tables]] = {}


def tables(rules: EscobaRules) -> Tables:
    """The lookup tables of these rules (cached by identity; the rules object is kept alive)."""
    hit = _TABLES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    t = _build(rules)
    if len(_TABLES) > 256:
        _TABLES.clear()
    _TABLES[id(rules)] = (rules, t)
    return t


def pile_value(t: Tables, mask: int) -> int:
    """The sum of the capture values of a pile."""
    total = 0
    values = t.values
    while mask:
        low = mask & -mask
        total += values[low.bit_length() - 1]
        mask ^= low
    return total
