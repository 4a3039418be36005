"""Per-rules lookup tables, computed once per RummyRules object.

Nothing here decides a rule; it turns spec fields into the arrays the engine indexes (card points,
which cards freeze or block the pile, escalera positions). Implements no clause of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arbitro.model.errors import SpecError
from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import (
    BLACK_THREES,
    JOKER,
    KINDS,
    RANK_NAMES,
    RED_THREES,
    class_mask,
    is_natural,
    make_deck,
    point_table,
)
from arbitro.model.schema import Layout, RummyRules


@dataclass(frozen=True)
class Tables:
    """What the engine looks up for one rules object."""

    rules: RummyRules
    points: tuple[int, ...]  # per card kind
    frozen_by: tuple[bool, ...]  # per card kind: its presence in the pile freezes it
    blocked_by: tuple[bool, ...]  # per card kind: as top card it stops the pile being taken
    cover: tuple[bool, ...]  # per card kind: as upcard it is covered by the next card
    seq_pos: tuple[int, ...]  # per rank index: position among sequence_ranks, -1 if none
    seq_rank: tuple[int, ...]  # per position: rank index
    set_lay: int  # cards in a newly laid set: max(set_min, set_start_min_naturals)
    wild_cap: int  # most wilds in a set, from wild_cap (and completed size)
    completed: int
    nat_rank: tuple[int, ...]  # per card kind: its rank if natural (4 to ace), else -1
    seq_bit: tuple[int, ...]  # per card kind: 1 << (16 * suit + escalera position), else 0
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Answers that depend only on these rules and a hashable key (such as a meld), remembered
    by the modules that compute them; cleared at `caches.MEMO` entries (`remember`)."""
    per_meld: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)
    """Per meld object, keyed by its id, (the meld, (its index where it was met, then what
    `melds.takes` says of it)): a meld left alone is the same object from state to state;
    cleared at `caches.MELDS` entries."""
    by_id: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)
    """Per side's melds tuple, keyed by its id (`table.side_view`): each entry keeps the tuple
    alive, so a hit is checked by identity; cleared at `caches.SIDES` entries."""

    def remember(self, key: Any, value: Any) -> None:
        """Keep `value` in `memo` under `key`, clearing `memo` first when it is full."""
        memo = self.memo
        if len(memo) >= caches.MEMO:
            memo.clear()
        memo[key] = value

    def consult(self, *keys: str) -> None:
        """The rule being judged depends on these clauses through the state, not through a field
        read here (a minimum fixed at the deal, say): `trace` notes them; nothing otherwise."""

    def deck(self, layout: Layout) -> tuple[int, ...]:
        packs = layout.packs or self.rules.packs
        return make_deck(packs, self.rules.jokers_per_pack)

    def packs(self, layout: Layout) -> int:
        return layout.packs or self.rules.packs

    def red_threes_total(self, layout: Layout) -> int:
        return len(RED_THREES) * self.packs(layout)

    def black_threes_total(self, layout: Layout) -> int:
        return len(BLACK_THREES) * self.packs(layout)


_CACHE: dict[int, Tables] = {}


_LAST: list[Tables] = []
"""The tables asked for last (a driver asks for one rules object's, move after move)."""


def tables(rules: RummyRules) -> Tables:
    """The tables of `rules` (cached by identity; the entry keeps the rules alive)."""
    if _LAST and _LAST[0].rules is rules:
        return _LAST[0]
    t = _CACHE.get(id(rules))
    if t is None or t.rules is not rules:
        t = _build(rules)
        if len(_CACHE) >= caches.RULES:
            _CACHE.clear()
        _CACHE[id(rules)] = t
    _LAST[:] = [t]
    return t


def _build(rules: RummyRules) -> Tables:
    file = f"{rules.rulebook or 'rules'}.toml"
    seq_pos = [-1] * len(RANK_NAMES)
    seq_rank: list[int] = []
    for i, name in enumerate(rules.sequence_ranks):
        rn = "10" if name in ("T", "10") else name.upper()
        if rn not in RANK_NAMES:
            raise SpecError(file, "sequence_ranks", f"unknown rank {name!r}")
        r = RANK_NAMES.index(rn)
        if r < 2:
            raise SpecError(file, "sequence_ranks", f"rank {name!r} cannot be in an escalera")
        if seq_rank and r != seq_rank[-1] + 1:
            raise SpecError(file, "sequence_ranks", "the ranks must be consecutive, lowest first")
        seq_pos[r] = i
        seq_rank.append(r)
    points = point_table(rules.card_points)
    nat_rank = tuple(c >> 2 if is_natural(c) else -1 for c in range(KINDS))
    seq_bit = tuple(
        1 << (16 * (c & 3) + seq_pos[c >> 2])
        if rules.sequences and is_natural(c) and seq_pos[c >> 2] >= 0
        else 0
        for c in range(KINDS)
    )
    return Tables(
        rules=rules,
        points=points,
        frozen_by=class_mask(rules.frozen_by),
        blocked_by=class_mask(rules.blocked_by_top),
        cover=class_mask(rules.upcard_cover),
        seq_pos=tuple(seq_pos),
        seq_rank=tuple(seq_rank),
        set_lay=max(rules.set_min, rules.set_start_min_naturals),
        wild_cap=rules.wild_cap,
        completed=rules.completed_size,
        nat_rank=nat_rank,
        seq_bit=seq_bit,
    )


__all__ = ["JOKER", "Tables", "tables"]
