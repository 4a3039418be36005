"""The bound of every cache of the Samba/Canasta engine, sized by measurement.

`benchmarks/bench_rummy_memory.py --trace` plays a server's workload (random hands of every book
under its defaults and random combinations of readings, with legal actions, moves, refusals,
clause traces, state checks and JSON round trips) with every cache unbounded, records each
lookup, and replays the lookups through caches of several sizes (the per-rules ones as one
cache per variant, cleared when full). Each bound below is the smallest size whose hit rate is
within about a point of the unbounded one over 240 such hands of 16 variants (the rates in the
comments: that size / unbounded). Without bounds these caches grow with every
new hand shape (83 MB after 300,000 server requests); `bench_rummy_memory.py` without `--trace`
shows the memory levelling off with them.

The caches keyed by an object's identity (a side's melds tuple, a meld) hold entries only while
the states that share those objects are in play, so they stay small; the others are keyed by
values (card tuples, counts) and are least-recently-used (`functools.lru_cache`) or, per rules,
cleared when full.
"""

from __future__ import annotations

from typing import Any, Final

RULES: Final = 16
"""`tables.tables` and `checks`: the rules objects whose tables are kept (a server session uses
one; rebuilding the tables of another takes about a millisecond)."""
MEMO: Final = 4096
"""`Tables.memo`, per rules: meld classifications and what each meld takes (85.1% / 85.1%,
at most 2,436 keys for one variant; 80.4% at 1,024), and the exact search's answers of
`arrange.reaches` (a listing and the play of a refused candidate ask the same question)."""
SIDES: Final = 256
"""`Tables.by_id`, per rules: a side's melds and what they take (73.3% / 74.6%)."""
MELDS: Final = 1024
"""`Tables.per_meld`, per rules: what a meld takes, by the meld object (86.5% / 86.9%)."""
RANK_OPTIONS: Final = 1024
"""`arrange.rank_options` (98.2% / 98.2%, 818 keys) and its packed outcomes (`arrange._rank_packed`,
keyed as it), `arrange._rank_pairs` (99.4%, 101 keys), `arrange._rank_row` and `arrange._rank_ends`
(its outcomes filtered for going out, keyed as `rank_options` and whether a card may be kept
over), and `going_out._rank_gains` (what `rank_options` completes, keyed as it)."""
SUIT_MOVES: Final = 4096
"""`arrange._suit_moves` (77.2% / 77.2%, 2,027 keys); `arrange.suit_options` is called only
through it and keeps no cache of its own."""
LAYS: Final = 4096
"""`laying._choose` (86.2% / 86.2%), `laying._LAID` (a rank's new sets, measured 82.5% / 83.5%
when a function of the rank's counts kept them; worked out on a miss of `_LAID`, cleared when
full) and the parts a miss is built of (`laying._NATS`, `laying._ENDS`, cleared when full), and
`engine._lay` (the LayMeld actions a listing shares, kept per seat, each seat's cleared when
full; the listing's Discard and AddToMeld actions are kept per seat and meld, a few hundred at
most)."""
SMALL: Final = 1024
"""`pile._some_combos` (`pile._combos` of two or more cards from three or more)."""
CHECKS: Final = 2048
"""`checks`, per rules: the whole-state check of each meld (the deck per layout besides); melds
recur as `Tables.per_meld` shows."""
RESULTS: Final = 256
"""`scoring.hand_result`: the protocol's view of the finished hands last asked about."""


def remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """`Tables.remember` for the compiled modules: keep `value` in a per-rules `memo` under
    `key`, clearing it first when it holds `MEMO` entries (the method is interpreted code, a
    frame of the interpreter per call)."""
    if len(memo) >= MEMO:
        memo.clear()
    memo[key] = value


__all__ = [
    "CHECKS",
    "LAYS",
    "MELDS",
    "MEMO",
    "RANK_OPTIONS",
    "RESULTS",
    "RULES",
    "SIDES",
    "SMALL",
    "SUIT_MOVES",
    "remember",
]
