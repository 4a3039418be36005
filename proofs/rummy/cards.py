"""The French-suited card kinds of Samba and Canasta, their classes and points, and the deck.

The encodings count cards per kind: kind ``rank * 4 + suit`` (ranks 2, 3, 4 … K, A; suits C, D,
H, S) and 52 for the joker. Names are the protocol's (``10H``, ``3D``, ``JK``), which is all the
proofs share with the model: refinement tests translate through the model's own `parse_card`.
Implements *:packs, *:jokers-per-pack and *:card-points as counts and point tables.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbitro.model.schema import Layout, RummyRules

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "CDHS"
KINDS = 53
JOKER = 52
TWO, THREE, FOUR, EIGHT, ACE = 0, 1, 2, 6, 12
NATURAL_RANKS = tuple(range(FOUR, ACE + 1))
"""Ranks 4 to ace: the ranks of sets and escaleras."""
TWOS = tuple(range(0, 4))
WILDS = (*TWOS, JOKER)
BLACK_THREES = (THREE * 4 + 0, THREE * 4 + 3)
RED_THREES = (THREE * 4 + 1, THREE * 4 + 2)
NATURALS = tuple(k for k in range(52) if k // 4 in NATURAL_RANKS)


def kind(rank: int, suit: int) -> int:
    return rank * 4 + suit


def rank_of(k: int) -> int:
    return k // 4


def suit_of(k: int) -> int:
    return k % 4


def name(k: int) -> str:
    """The protocol name of a card kind."""
    if k == JOKER:
        return "JK"
    return RANKS[k // 4] + SUITS[k % 4]


def kind_of(text: str) -> int:
    """The kind called `text` (a protocol name)."""
    if text == "JK":
        return JOKER
    r, s = text[:-1], text[-1]
    if r not in RANKS or s not in SUITS:
        raise ValueError(f"unknown card {text!r}")
    return kind(RANKS.index(r), SUITS.index(s))


def names(counts: list[int] | tuple[int, ...]) -> list[str]:
    """A count vector as a sorted list of names (copies repeated)."""
    out: list[str] = []
    for k, n in enumerate(counts):
        out += [name(k)] * n
    return out


_KIND_OF = {name(k): k for k in range(KINDS)}


def counts_of(cards: list[str] | tuple[str, ...]) -> list[int]:
    v = [0] * KINDS
    table = _KIND_OF
    for c in cards:
        k = table.get(c)
        v[kind_of(c) if k is None else k] += 1
    return v


def is_wild(k: int) -> bool:
    return k == JOKER or k < 4


def points(rules: RummyRules) -> tuple[int, ...]:
    """What each kind counts in a meld or (negated) in a hand; red threes count nothing here,
    they are honours scored apart. *:card-points."""
    p = rules.card_points
    out = []
    for k in range(KINDS):
        r = k // 4
        if k == JOKER:
            v = p.joker
        elif r == TWO:
            v = p.two
        elif r == THREE:
            v = p.black_three if k in BLACK_THREES else 0
        elif r == ACE:
            v = p.ace
        elif r >= EIGHT:
            v = p.high
        else:
            v = p.low
        out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class Deck:
    """How many copies of each kind a layout's deck holds. *:packs, *:jokers-per-pack."""

    packs: int
    jokers: int

    def copies(self, k: int) -> int:
        return self.jokers if k == JOKER else self.packs

    def counts(self) -> tuple[int, ...]:
        return tuple(self.copies(k) for k in range(KINDS))

    @property
    def size(self) -> int:
        return 52 * self.packs + self.jokers

    @property
    def red_threes(self) -> int:
        return 2 * self.packs

    @property
    def black_threes(self) -> int:
        return 2 * self.packs


def deck(rules: RummyRules, layout: Layout | None = None) -> Deck:
    """The deck of a layout (the book's packs unless the layout names its own)."""
    packs = (layout.packs if layout is not None and layout.packs else 0) or rules.packs
    return Deck(packs, packs * rules.jokers_per_pack)


def largest_deck(rules: RummyRules) -> Deck:
    """The biggest deck any layout of the book uses: a meld possible in a smaller one is
    possible in it."""
    return max((deck(rules, lay) for lay in rules.layouts), key=lambda d: d.size)


def sequence_positions(rules: RummyRules) -> tuple[int, ...]:
    """The rank of each escalera position, lowest first (*:sequence-ranks); empty without
    escaleras."""
    out: list[int] = []
    for text in rules.sequence_ranks:
        t = "10" if text in ("T", "10") else text.upper()
        if t not in RANKS:
            raise ValueError(f"{rules.rulebook}: unknown rank {text!r} in sequence_ranks")
        out.append(RANKS.index(t))
    return tuple(out)


__all__ = [
    "ACE",
    "BLACK_THREES",
    "JOKER",
    "KINDS",
    "NATURALS",
    "NATURAL_RANKS",
    "RANKS",
    "RED_THREES",
    "SUITS",
    "TWOS",
    "WILDS",
    "Deck",
    "counts_of",
    "deck",
    "is_wild",
    "kind",
    "kind_of",
    "largest_deck",
    "name",
    "names",
    "points",
    "rank_of",
    "sequence_positions",
    "suit_of",
]
