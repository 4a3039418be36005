"""Memory of the Samba/Canasta engine over a long run, and the hit rate of each of its caches.

The workload is what a long-running server answers: random hands of every rulebook under its
defaults and under random combinations of readings, and at every state the legal actions, the
action played, and at every third state a refused action's refusals, the clauses the played
action used, the whole-state checks and a JSON round trip of the state.

Default mode: plays `--hands` hands per variant and prints, after each round of variants, the
memory Python holds (tracemalloc, current and peak) and the size of every cache: with every
cache bounded, the memory levels off.

`--trace`: runs the same workload once with every cache unbounded, records the key of each
lookup, and prints for each cache the hit rate an LRU cache (or, for the per-rules caches
cleared when full, one such cache per variant) would have at several sizes, next to the
unbounded hit rate and the number of distinct keys (for a per-rules cache, of the variant with
most): the bounds in `arbitro.model.rummy.caches` are the smallest sizes within about a point
of the unbounded rate.

Usage: uv run python benchmarks/bench_rummy_memory.py [--hands N] [--rounds N] [--trace]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
import tracemalloc
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from arbitro.model.errors import ArbitroError
from arbitro.model.rummy import RUMMY, arrange, caches, checks, laying, pile, scoring, tables
from arbitro.model.rummy.actions import AddToMeld, Discard, Draw, LayMeld
from arbitro.model.schema import RummyRules, rules_for
from arbitro.model.spec import load_rulebook

BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")


def variants(per_book: int, seed: int = 0) -> list[RummyRules]:
    """Each book's defaults, then random combinations of its readings."""
    rng = random.Random(seed)
    out: list[RummyRules] = []
    for book in BOOKS:
        out.append(_rules(book, {}))
        choices = [
            (c.key, [*c.labels()] if c.readings else [False, True])
            for c in load_rulebook(book).clauses
            # a clause that follows another takes its leader's reading
            if (len(c.readings) > 1 or c.optional) and c.follows is None
        ]
        for _ in range(per_book):
            out.append(_rules(book, {k: rng.choice(v) for k, v in choices}))
    return out


def _rules(book: str, options: dict[str, Any]) -> RummyRules:
    r = rules_for(book, options or None)
    assert isinstance(r, RummyRules)
    return r


def play(rules: RummyRules, seed: int) -> int:
    """One random hand with the server's requests along it; the requests made."""
    rng = random.Random(seed)
    seating = RUMMY.seatings(rules)[seed % len(RUMMY.seatings(rules))]
    order = list(RUMMY.deck(rules, seating))
    rng.shuffle(order)
    try:
        s = RUMMY.deal(rules, RUMMY.new_game(rules, seating, seed % seating.players), order)
    except ArbitroError:
        return 1  # a rule gap at the deal
    requests = 1
    step = 0
    while RUMMY.phase(s) == "play":
        acts = RUMMY.legal_actions(rules, s)
        a = acts[rng.randrange(len(acts))]
        requests += 2
        if step % 3 == 0:
            seat = RUMMY.to_move(s)
            hand = s.hands[s.seat]
            probe = rng.choice(
                [Draw(seat, 1), Discard(seat, hand[0]) if hand else Draw(seat, 3)]
                + ([AddToMeld(seat, 0, hand[-1])] if hand else [])
                + ([LayMeld(seat, tuple(sorted(hand[:3])))] if len(hand) >= 3 else [])
            )
            with contextlib.suppress(ArbitroError):
                RUMMY.refusals(rules, s, probe)
            RUMMY.clauses_used(rules, s, a)
            RUMMY.violations(rules, s)
            RUMMY.state_from_json(rules, RUMMY.state_to_json(s))
            requests += 4
        s = RUMMY.apply(rules, s, a)
        step += 1
    return requests


# ---------------------------------------------------------------- sizes of the caches


def cache_sizes() -> dict[str, int]:
    """The entries each cache holds now."""
    out: dict[str, int] = {}
    for name, f in _LRU.items():
        out[name] = f().cache_info().currsize
    per = list(tables._CACHE.values())
    out["tables (per rules)"] = len(per)
    out["Tables.memo"] = sum(len(t.memo) for t in per)
    out["Tables.by_id"] = sum(len(t.by_id) for t in per)
    out["Tables.per_meld"] = sum(len(t.per_meld) for t in per)
    out["checks (per rules)"] = len(checks._MEMO)
    out["checks meld problems"] = sum(len(m.problems) for m in checks._MEMO.values())
    out["scoring results"] = len(scoring._RESULTS)
    return out


_LRU: dict[str, Callable[[], Any]] = {
    "arrange.rank_options": lambda: arrange.rank_options,
    "arrange._rank_pairs": lambda: arrange._rank_pairs,
    "arrange._rank_ends": lambda: arrange._rank_ends,
    "arrange._suit_moves": lambda: arrange._suit_moves,
    "laying._choose": lambda: laying._choose,
    "pile._some_combos": lambda: pile._some_combos,
}


def run(hands: int, rounds: int) -> None:
    rules = variants(3)
    tracemalloc.start()
    start = time.perf_counter()
    total = 0
    print(f"{len(rules)} variants, {hands} hands each per round")
    for k in range(rounds):
        for i, r in enumerate(rules):
            for h in range(hands):
                total += play(r, 1000 * k + 100 * i + h)
        cur, peak = tracemalloc.get_traced_memory()
        sizes = cache_sizes()
        print(
            f"round {k + 1}: {total:>8} requests, {time.perf_counter() - start:6.1f} s, "
            f"memory {cur / 2**20:6.1f} MB (peak {peak / 2**20:6.1f} MB)"
        )
        print("  " + ", ".join(f"{n} {v}" for n, v in sizes.items()))
    print("bounds:", ", ".join(f"{n} {getattr(caches, n)}" for n in caches.__all__))


# ---------------------------------------------------------------- hit rates by size


class Recorder:
    """The keys looked up in one cache, in order."""

    def __init__(self) -> None:
        self.keys: list[int] = []

    def note(self, key: Hashable) -> None:
        self.keys.append(hash(key))


def lru_hits(keys: list[int], size: int | None) -> float:
    if size is None:
        seen: set[int] = set()
        hits = 0
        for k in keys:
            hits += k in seen
            seen.add(k)
        return hits / max(1, len(keys))
    cache: OrderedDict[int, None] = OrderedDict()
    hits = 0
    for k in keys:
        if k in cache:
            hits += 1
            cache.move_to_end(k)
        else:
            cache[k] = None
            if len(cache) > size:
                cache.popitem(last=False)
    return hits / max(1, len(keys))


def cleared_hits(keys: list[int], size: int) -> float:
    cache: set[int] = set()
    hits = 0
    for k in keys:
        if k in cache:
            hits += 1
        else:
            if len(cache) >= size:
                cache.clear()
            cache.add(k)
    return hits / max(1, len(keys))


def trace(hands: int) -> None:
    recorders: dict[str, Recorder] = {}
    for name, get in _LRU.items():
        mod_name, fn = name.split(".")
        mod = {"arrange": arrange, "laying": laying, "pile": pile}[mod_name]
        rec = recorders[name] = Recorder()
        setattr(mod, fn, _bind(get().__wrapped__, rec))
    per_rules: dict[str, list[Recorder]] = {
        "Tables.memo": [],
        "Tables.by_id": [],
        "Tables.per_meld": [],
    }

    class Looked(dict[Any, Any]):
        """A dict that records the key of every lookup (an id key stands for its object while
        that lives, which is what the engine's identity caches rely on)."""

        def __init__(self, rec: Recorder) -> None:
            super().__init__()
            self.rec = rec

        def get(self, key: Any, default: Any = None) -> Any:
            self.rec.note(key)
            return super().get(key, default)

    old_build = tables._build

    def build(r: RummyRules) -> Any:
        t = old_build(r)
        for name, field in (
            ("Tables.memo", "memo"),
            ("Tables.by_id", "by_id"),
            ("Tables.per_meld", "per_meld"),
        ):
            rec = Recorder()
            per_rules[name].append(rec)
            object.__setattr__(t, field, Looked(rec))
        return t

    tables._build = build  # type: ignore[assignment]
    tables._CACHE.clear()
    rules = variants(3)
    for i, r in enumerate(rules):
        for h in range(hands):
            play(r, 100 * i + h)
    sizes = (64, 256, 1024, 4096, 16384, 65536)
    print(
        f"{'cache':<24}{'lookups':>9}{'keys':>8}{'unbounded':>10}"
        + "".join(f"{s:>8}" for s in sizes)
    )
    for name, rec in recorders.items():
        keys = rec.keys
        rates = [lru_hits(keys, s) for s in sizes]
        print(
            f"{name:<24}{len(keys):>9}{len(set(keys)):>8}{lru_hits(keys, None):>10.1%}"
            + "".join(f"{x:>8.1%}" for x in rates)
        )
    # per rules: each variant's own cache, cleared when full; rates over all lookups
    for name, recs in per_rules.items():
        n = sum(len(r.keys) for r in recs)
        most = max(len(set(r.keys)) for r in recs)
        whole = sum(lru_hits(r.keys, None) * len(r.keys) for r in recs) / n
        rates = [sum(cleared_hits(r.keys, s) * len(r.keys) for r in recs) / n for s in sizes]
        print(f"{name:<24}{n:>9}{most:>8}{whole:>10.1%}" + "".join(f"{x:>8.1%}" for x in rates))


def _bind(inner: Callable[..., Any], rec: Recorder) -> Callable[..., Any]:
    import functools

    cached = functools.lru_cache(maxsize=None)(inner)

    @functools.wraps(inner)
    def wrapped(*args: Any) -> Any:
        rec.note(args)
        return cached(*args)

    wrapped.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return wrapped


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=3, help="hands per variant and round")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--trace", action="store_true")
    args = ap.parse_args()
    if args.trace:
        trace(args.hands)
    else:
        run(args.hands, args.rounds)


if __name__ == "__main__":
    main()
