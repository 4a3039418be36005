"""Candidate new melds from a hand: every distinct multiset of cards that could be laid as one.

Sets are laid at their minimum size (max of *:set-min and *:set-start-min-naturals), escaleras at
*:sequence-min, wild-only melds at *:wild-meld-min-start; a black-three meld, laid only to go out,
holds all but at most one of the cards left (*:black-threes-meld). The rules of each candidate
are checked by `melds.classify` and the engine; this module only enumerates.
"""

from __future__ import annotations

from collections.abc import Iterator

from model.rummy.melds import SET, Meld
from model.rummy.tables import Tables


def submultisets(kinds: list[tuple[int, int]], size: int) -> Iterator[tuple[int, ...]]:
    """Sorted multisets of `size` cards drawn from (card, available count) pairs, each once."""
    if size == 0:
        yield ()
        return
    if not kinds:
        return
    (c, n), rest = kinds[0], kinds[1:]
    room = sum(k for _, k in rest)
    for take in range(min(n, size), -1, -1):
        if size - take > room:
            break
        for tail in submultisets(rest, size - take):
            yield (c,) * take + tail


def lay_candidates(
    t: Tables, pool: tuple[int, ...], melds: tuple[Meld, ...], must: int = -1
) -> list[tuple[int, ...]]:
    """New melds that could be laid from the sorted `pool`; with `must` >= 0 only those holding
    that card."""
    r = t.rules
    out: list[tuple[int, ...]] = []
    # run-length groups of the sorted pool
    wild_kinds: list[tuple[int, int]] = []
    black_kinds: list[tuple[int, int]] = []
    by_rank: dict[int, list[tuple[int, int]]] = {}
    rank_count: dict[int, int] = {}
    seq_pos = t.seq_pos
    masks = [0, 0, 0, 0]
    nw = 0
    prev = -1
    run = 0
    for c in (*pool, -1):
        if c == prev:
            run += 1
            continue
        if prev >= 0:
            if prev < 4 or prev == 52:
                wild_kinds.append((prev, run))
                nw += run
            elif prev >= 8:
                rank = prev >> 2
                by_rank.setdefault(rank, []).append((prev, run))
                rank_count[rank] = rank_count.get(rank, 0) + run
                p = seq_pos[rank]
                if p >= 0:
                    masks[prev & 3] |= 1 << p
            elif prev == 4 or prev == 7:
                black_kinds.append((prev, run))
        prev = c
        run = 1
    lay = t.set_lay
    lo_nat = max(1, r.set_start_min_naturals, lay - min(nw, t.wild_cap))
    several = r.several_sets_same_rank
    have_rank = set() if several else {m.key for m in melds if m.kind == SET}
    wilds_of: dict[int, list[tuple[int, ...]]] = {}
    for rank, kinds in by_rank.items():
        count = rank_count[rank]
        if count < lo_nat or rank in have_rank:
            continue
        for n in range(min(lay, count), lo_nat - 1, -1):
            w = lay - n
            if w == 0:
                out.extend(submultisets(kinds, n))
                continue
            wls = wilds_of.get(w)
            if wls is None:
                wls = wilds_of[w] = list(submultisets(wild_kinds, w))
            for nat in submultisets(kinds, n):
                for wl in wls:
                    out.append(tuple(sorted(nat + wl)))
    if r.sequences:
        smin = r.sequence_min
        ranks = t.seq_rank
        for suit in range(4):
            m = masks[suit]
            starts = m
            for k in range(1, smin):
                starts &= m >> k
            i = 0
            while starts:
                if starts & 1:
                    out.append(tuple(ranks[i + k] * 4 + suit for k in range(smin)))
                starts >>= 1
                i += 1
    if r.wild_canasta and nw >= r.wild_meld_min_start > 0:
        out.extend(submultisets(wild_kinds, r.wild_meld_min_start))
    if black_kinds and r.black_threes_meld != "never":
        nb = sum(k for _, k in black_kinds)
        size = len(pool)
        wmax = min(nw, t.wild_cap) if r.black_three_meld_wilds else 0
        for b in range(nb, 0, -1):
            for w in range(0, wmax + 1):
                if size - b - w > 1 or b + w < r.set_min:
                    continue
                for bl in submultisets(black_kinds, b):
                    for wl in submultisets(wild_kinds, w):
                        out.append(tuple(sorted(bl + wl)))
    if must >= 0:
        out = [c for c in out if must in c]
    return out
