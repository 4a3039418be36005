"""Per-rules lookup tables, computed once per RummyRules object.

Nothing here decides a rule; it turns spec fields into the arrays the engine indexes (card points,
which cards freeze or block the pile, escalera positions). Implements no clause of its own.
"""

from __future__ import annotations

from collections.abc import Callable
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

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # not installed: the decorator only speaks to mypyc, which compiled this

    def mypyc_attr(*args: Any, **kwargs: Any) -> Callable[[Any], Any]:  # type: ignore[misc]
        return lambda c: c


@mypyc_attr(allow_interpreted_subclasses=True)
class Tables:
    """What the engine looks up for one rules object.

    A class of the compiled engine: its fields are read without an attribute lookup. Each field
    computed from the rules, and the rules themselves, is a property over a private attribute,
    so that the clause tracer (`trace`) can subclass it and note the clauses behind every read.
    """

    def __init__(
        self,
        rules: RummyRules,
        points: tuple[int, ...],
        frozen_by: tuple[bool, ...],
        blocked_by: tuple[bool, ...],
        cover: tuple[bool, ...],
        seq_pos: tuple[int, ...],
        seq_rank: tuple[int, ...],
        set_lay: int,
        wild_cap: int,
        completed: int,
        nat_rank: tuple[int, ...],
        seq_bit: tuple[int, ...],
    ) -> None:
        self._rules = rules
        self._points = points
        self._frozen_by = frozen_by
        self._blocked_by = blocked_by
        self._cover = cover
        self._seq_pos = seq_pos
        self._seq_rank = seq_rank
        self._set_lay = set_lay
        self._wild_cap = wild_cap
        self._completed = completed
        self._nat_rank = nat_rank
        self._seq_bit = seq_bit
        # the rules' own fields the engine reads, each once here (see `RULE_FIELDS`)
        self._sequences: bool = rules.sequences
        self._sequence_min: int = rules.sequence_min
        self._sequence_max: int = rules.sequence_max
        self._set_min: int = rules.set_min
        self._set_start_min_naturals: int = rules.set_start_min_naturals
        self._wilds_at_most_naturals: bool = rules.wilds_at_most_naturals
        self._completed_set_growth: str = rules.completed_set_growth
        self._merge_sets: bool = rules.merge_sets
        self._several_sets_same_rank: bool = rules.several_sets_same_rank
        self._black_threes_meld: str = rules.black_threes_meld
        self._black_three_meld_wilds: bool = rules.black_three_meld_wilds
        self._wild_canasta: bool = rules.wild_canasta
        self._wild_meld_min_start: int = rules.wild_meld_min_start
        self._clean_by_replacing_wilds: bool = rules.clean_by_replacing_wilds
        self._opening_concealed_exempt: bool = rules.opening_concealed_exempt
        self._pile_new_set_naturals: int = rules.pile_new_set_naturals
        self._pile_wild_pair_after: str = rules.pile_wild_pair_after
        self._pile_add_after: str = rules.pile_add_after
        self._pile_to_own_set: bool = rules.pile_to_own_set
        self._pile_to_completed_set: bool = rules.pile_to_completed_set
        self._pile_to_own_sequence: bool = rules.pile_to_own_sequence
        self._pile_new_sequence: bool = rules.pile_new_sequence
        self._pile_one_card_rule: bool = rules.pile_one_card_rule
        self._pile_top_counts_for_opening: bool = rules.pile_top_counts_for_opening
        self._pile_rest_after_opening: bool = rules.pile_rest_after_opening
        self._draw_count: int = rules.draw_count
        self._draw_short_stock: str = rules.draw_short_stock
        self._stock_out: str = rules.stock_out
        self._go_out_min_completed: int = rules.go_out_min_completed
        self._go_out_min_clean: int = rules.go_out_min_clean
        self._go_out_min_dirty: int = rules.go_out_min_dirty
        self._go_out_discard: str = rules.go_out_discard
        self._go_out_wait_after_clean: bool = rules.go_out_wait_after_clean
        self._ask_partner: bool = rules.ask_partner
        self.memo: dict[Any, Any] = {}
        """Answers that depend only on these rules and a hashable key (such as a meld),
        remembered by the modules that compute them; cleared at `caches.MEMO` entries
        (`remember`)."""
        self.per_meld: dict[int, Any] = {}
        """Per meld object, keyed by its id, (the meld, (its index where it was met, then what
        `melds.takes` says of it)): a meld left alone is the same object from state to state;
        cleared at `caches.MELDS` entries."""
        self.needs: dict[int, Any] = {}
        """Per clean-canasta count at the start of a turn, what going out requires
        (`going_out.need`)."""
        self.by_id: dict[int, Any] = {}
        """Per side's melds tuple, keyed by its id (`table.side_view`): each entry keeps the
        tuple alive, so a hit is checked by identity; cleared at `caches.SIDES` entries."""

    @property
    def rules(self) -> RummyRules:
        return self._rules

    @property
    def points(self) -> tuple[int, ...]:
        """Per card kind."""
        return self._points

    @property
    def frozen_by(self) -> tuple[bool, ...]:
        """Per card kind: its presence in the pile freezes it."""
        return self._frozen_by

    @property
    def blocked_by(self) -> tuple[bool, ...]:
        """Per card kind: as top card it stops the pile being taken."""
        return self._blocked_by

    @property
    def cover(self) -> tuple[bool, ...]:
        """Per card kind: as upcard it is covered by the next card."""
        return self._cover

    @property
    def seq_pos(self) -> tuple[int, ...]:
        """Per rank index: position among sequence_ranks, -1 if none."""
        return self._seq_pos

    @property
    def seq_rank(self) -> tuple[int, ...]:
        """Per position: rank index."""
        return self._seq_rank

    @property
    def set_lay(self) -> int:
        """Cards in a newly laid set: max(set_min, set_start_min_naturals)."""
        return self._set_lay

    @property
    def wild_cap(self) -> int:
        """Most wilds in a set, from wild_cap (and completed size)."""
        return self._wild_cap

    @property
    def completed(self) -> int:
        return self._completed

    @property
    def nat_rank(self) -> tuple[int, ...]:
        """Per card kind: its rank if natural (4 to ace), else -1."""
        return self._nat_rank

    @property
    def seq_bit(self) -> tuple[int, ...]:
        """Per card kind: 1 << (16 * suit + escalera position), else 0."""
        return self._seq_bit

    # the rules' own fields (`RULE_FIELDS`), each under its clause's name

    @property
    def sequences(self) -> bool:
        return self._sequences

    @property
    def sequence_min(self) -> int:
        return self._sequence_min

    @property
    def sequence_max(self) -> int:
        return self._sequence_max

    @property
    def set_min(self) -> int:
        return self._set_min

    @property
    def set_start_min_naturals(self) -> int:
        return self._set_start_min_naturals

    @property
    def wilds_at_most_naturals(self) -> bool:
        return self._wilds_at_most_naturals

    @property
    def completed_set_growth(self) -> str:
        return self._completed_set_growth

    @property
    def merge_sets(self) -> bool:
        return self._merge_sets

    @property
    def several_sets_same_rank(self) -> bool:
        return self._several_sets_same_rank

    @property
    def black_threes_meld(self) -> str:
        return self._black_threes_meld

    @property
    def black_three_meld_wilds(self) -> bool:
        return self._black_three_meld_wilds

    @property
    def wild_canasta(self) -> bool:
        return self._wild_canasta

    @property
    def wild_meld_min_start(self) -> int:
        return self._wild_meld_min_start

    @property
    def clean_by_replacing_wilds(self) -> bool:
        return self._clean_by_replacing_wilds

    @property
    def opening_concealed_exempt(self) -> bool:
        return self._opening_concealed_exempt

    @property
    def pile_new_set_naturals(self) -> int:
        return self._pile_new_set_naturals

    @property
    def pile_wild_pair_after(self) -> str:
        return self._pile_wild_pair_after

    @property
    def pile_add_after(self) -> str:
        return self._pile_add_after

    @property
    def pile_to_own_set(self) -> bool:
        return self._pile_to_own_set

    @property
    def pile_to_completed_set(self) -> bool:
        return self._pile_to_completed_set

    @property
    def pile_to_own_sequence(self) -> bool:
        return self._pile_to_own_sequence

    @property
    def pile_new_sequence(self) -> bool:
        return self._pile_new_sequence

    @property
    def pile_one_card_rule(self) -> bool:
        return self._pile_one_card_rule

    @property
    def pile_top_counts_for_opening(self) -> bool:
        return self._pile_top_counts_for_opening

    @property
    def pile_rest_after_opening(self) -> bool:
        return self._pile_rest_after_opening

    @property
    def draw_count(self) -> int:
        return self._draw_count

    @property
    def draw_short_stock(self) -> str:
        return self._draw_short_stock

    @property
    def stock_out(self) -> str:
        return self._stock_out

    @property
    def go_out_min_completed(self) -> int:
        return self._go_out_min_completed

    @property
    def go_out_min_clean(self) -> int:
        return self._go_out_min_clean

    @property
    def go_out_min_dirty(self) -> int:
        return self._go_out_min_dirty

    @property
    def go_out_discard(self) -> str:
        return self._go_out_discard

    @property
    def go_out_wait_after_clean(self) -> bool:
        return self._go_out_wait_after_clean

    @property
    def ask_partner(self) -> bool:
        return self._ask_partner

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


RULE_FIELDS = (
    "sequences",
    "sequence_min",
    "sequence_max",
    "set_min",
    "set_start_min_naturals",
    "wilds_at_most_naturals",
    "completed_set_growth",
    "merge_sets",
    "several_sets_same_rank",
    "black_threes_meld",
    "black_three_meld_wilds",
    "wild_canasta",
    "wild_meld_min_start",
    "clean_by_replacing_wilds",
    "opening_concealed_exempt",
    "pile_new_set_naturals",
    "pile_wild_pair_after",
    "pile_add_after",
    "pile_to_own_set",
    "pile_to_completed_set",
    "pile_to_own_sequence",
    "pile_new_sequence",
    "pile_one_card_rule",
    "pile_top_counts_for_opening",
    "pile_rest_after_opening",
    "draw_count",
    "draw_short_stock",
    "stock_out",
    "go_out_min_completed",
    "go_out_min_clean",
    "go_out_min_dirty",
    "go_out_discard",
    "go_out_wait_after_clean",
    "ask_partner",
)
"""The fields of the rules that `Tables` copies, each a property of the same name: the compiled
engine reads one through the class's vtable, where `rules.x` is a generic attribute lookup on an
interpreted dataclass (about 200 instructions); the clause tracer overrides each property to
note the clause of that name (`trace`)."""


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
