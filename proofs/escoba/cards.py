"""The Spanish pack of Escoba: card kinds, names, capture values, setenta strengths.

Kind ``suit * 10 + rank`` (suits oros, copas, bastos, espadas; ranks 1 to 7, sota, caballo,
rey), one copy each. Names are the protocol's (``7o``, ``Rc``). Implements *:suits,
*:capture-values and *:setenta-order as tables.
"""

from __future__ import annotations

from arbitro.model.escoba.cards import RANK_NAMES, SUIT_NAMES
from arbitro.model.schema import EscobaRules
from arbitro.proofs.verdict import NotEncoded

RANK_LETTERS = "1234567SCR"
SUIT_LETTERS = "ocbe"
RANKS = 10
KINDS = len(SUIT_NAMES) * RANKS
"""Every card of the whole Spanish pack; a pack without some ranks gives those kinds no copy."""
SEVEN = 6
"""The rank index of the sevens."""


def whole_pack(rules: EscobaRules) -> bool:
    """Whether the rules deal the whole 40-card pack (every suit and rank, in the pack's order)."""
    return tuple(rules.suits) == SUIT_NAMES and tuple(rules.ranks) == RANK_NAMES


def kinds(rules: EscobaRules) -> int:
    """The number of card kinds, for the encodings that count the whole pack: a pack with ranks or
    suits removed (a small configuration, a spec of one's own) is not encoded by them."""
    if not whole_pack(rules):
        raise NotEncoded("ranks and suits", (tuple(rules.suits), tuple(rules.ranks)))
    return KINDS


def copies(rules: EscobaRules) -> tuple[int, ...]:
    """How many of each kind the pack holds (1, or 0 for a rank the rules leave out), for the
    encodings that take any pack of the four suits (the scoring). *:ranks, *:suits."""
    if tuple(rules.suits) != SUIT_NAMES:
        raise NotEncoded("suits", tuple(rules.suits))
    present = {RANK_NAMES.index(r) for r in rules.ranks}
    return tuple(1 if rank_of(k) in present else 0 for k in range(KINDS))


def kind(suit: int, rank: int) -> int:
    return suit * RANKS + rank


def suit_of(k: int) -> int:
    return k // RANKS


def rank_of(k: int) -> int:
    return k % RANKS


def name(k: int) -> str:
    return RANK_LETTERS[k % RANKS] + SUIT_LETTERS[k // RANKS]


def kind_of(text: str) -> int:
    if len(text) != 2 or text[0] not in RANK_LETTERS or text[1] not in SUIT_LETTERS:
        raise ValueError(f"unknown card {text!r}")
    return kind(SUIT_LETTERS.index(text[1]), RANK_LETTERS.index(text[0]))


def names(cards: list[int] | tuple[int, ...]) -> list[str]:
    """Card names of the kinds whose count is not zero, in kind order."""
    return [name(k) for k, n in enumerate(cards) for _ in range(n)]


def values(rules: EscobaRules) -> tuple[int, ...]:
    """The capture value of each kind. *:capture-values."""
    return tuple(rules.capture_values[rank_of(k)] for k in range(kinds(rules)))


def strengths(rules: EscobaRules) -> tuple[int, ...]:
    """Each kind's strength in a setenta, higher is better, every card above 0. *:setenta-order."""
    order = rules.setenta_order
    labels = [str(r + 1) if r < 7 else "figures" for r in range(RANKS)]
    return tuple(len(order) - order.index(labels[rank_of(k)]) for k in range(KINDS))


__all__ = [
    "RANKS",
    "RANK_LETTERS",
    "SEVEN",
    "SUIT_LETTERS",
    "kind",
    "kind_of",
    "kinds",
    "name",
    "names",
    "rank_of",
    "strengths",
    "suit_of",
    "values",
]
