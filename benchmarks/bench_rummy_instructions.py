"""Samba and Canasta through `legal_actions` + `apply`: instructions counted by callgrind, as a ratio.

Wall-clock ratios on a shared machine drift with its load (`bench_rummy.py` prints their spread);
instruction counts do not. Each engine (this checkout's, and a baseline commit's extracted with
`git archive` as in `bench_rummy.py`) runs once under `valgrind --tool=callgrind` and plays, per
book, one warming hand and then the same seeded hands as `bench_rummy.py` (uniform choices among
`RUMMY.legal_actions`, each played with `RUMMY.apply`). The worker calls `os.getppid()` between
books, and callgrind dumps its counts before each such call (`--dump-before`), so each dump holds
the instructions of one book's hands alone, imports and warming excluded. The ratio printed is the
baseline's instructions over this engine's, per hand and per action (games whose actions differ,
because a rule was fixed since the baseline, make the two differ).

Those counts hold the whole loop: the deal, the random draw (`rng.randrange`, interpreted
Python) and the loop itself as well as the engine's two calls. The second table counts what the
target names alone: the instructions inside the compiled `legal_actions` and `apply` (callgrind's
inclusive cost of their entry points, `CPyPy_engine___legal_actions` and `CPyPy_engine___apply`,
read with `callgrind_annotate`), per action. An engine running from source has no such entry
points; its row says so.

Each book is played in a worker process of its own (`--one-process` plays them all in one, one
after another, as this script did before): in one process, every full collection of the cyclic
garbage collector that falls within a book's hands also walks what the books before it left in
the engine's caches, so a book's count depended on the books played before it.

Twenty hands a book by default. Three, the old default, said the engine was faster than it is:
the exact arrangement searches (`arrange.places_all`, from going out's and the opening's checks)
cost little in the first hands of the seeds and much in some later ones (samba-en, on the same
engine: 38,145 instructions an action over 3 hands, 56,688 over 20), so few hands miss them.

Usage: uv run python benchmarks/bench_rummy_instructions.py [--baseline REV] [--hands N]
[--jobs N] [--one-process] [BOOK ...]
Needs valgrind. Slow: the baseline and this engine play each book under callgrind, a run per
core at once (`--jobs`): the default 20 hands of the four books took 23 minutes of wall time on 2
cores with the test suite running beside it. The README's table of measurements holds the ratios last measured.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_rummy import BASELINE, BOOKS, ROOT, SEATING, extract, target_for

WORKER = (
    r"""
import json, os, random, sys
"""
    + SEATING
    + r"""

def hand(rules, seating, deck, seed):
    rng = random.Random(seed)
    order = deck[:]
    rng.shuffle(order)
    s = RUMMY.new_game(rules, seating, dealer=seed % seating.players)
    s = RUMMY.deal(rules, s, order)
    n = 0
    while RUMMY.phase(s) == "play":
        acts = RUMMY.legal_actions(rules, s)
        s = RUMMY.apply(rules, s, acts[rng.randrange(len(acts))])
        n += 1
    return n

books, hands = sys.argv[1].split(","), int(sys.argv[2])
setup = []
for book in books:
    rules = rules_for(book)
    seating = seating_for(rules)
    deck = list(RUMMY.deck(rules, seating))
    hand(rules, seating, deck, 10**6)  # the per-rules tables, outside the counted part
    setup.append((rules, seating, deck))
actions = []
for rules, seating, deck in setup:
    os.getppid()  # callgrind dumps here: what follows is this book's hands alone
    actions.append(sum(hand(rules, seating, deck, seed) for seed in range(hands)))
os.getppid()
try:
    from arbitro import native
    engine = native.status().describe()
except ImportError:  # a tree from before the compiled build: its engine runs from source
    engine = "pure-Python engine (a tree without the compiled build)"
print(json.dumps({"actions": actions, "engine": engine}))
"""
)


def count(
    path: Path, books: list[str], hands: int, out: Path
) -> tuple[list[int], list[int], str, list[int | None]]:
    """The instructions and actions of each book's hands for the engine under `path`, which
    engine that was (compiled or from source), and each book's instructions inside
    `legal_actions` and `apply` alone (None: not compiled)."""
    env = dict(os.environ, PYTHONPATH=str(path), ARBITRO_SPEC_DIR=str(path / "spec"))
    env["PYTHONHASHSEED"] = "0"
    got = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--dump-before=os_getppid*",
            f"--callgrind-out-file={out}/cg.%p",
            sys.executable,
            "-c",
            WORKER,
            ",".join(books),
            str(hands),
        ],
        env=env,
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    reply = json.loads(got.stdout.strip().splitlines()[-1])
    actions: list[int] = reply["actions"]
    dumps = sorted(out.glob("cg.*.*"), key=lambda p: int(p.suffix[1:]))
    totals = []
    for d in dumps:
        m = re.search(r"^summary: (\d+)", d.read_text(encoding="utf-8"), re.M)
        assert m is not None, d
        totals.append(int(m.group(1)))
    # dump k (1-based) ends before the k-th getppid: dump 1 is imports and warming, dumps 2..
    # are the books in order
    engine_ir = [_entry_points(d) for d in dumps[1 : 1 + len(books)]]
    return totals[1 : 1 + len(books)], actions, str(reply["engine"]), engine_ir


ENTRY_POINTS = ("CPyPy_engine___legal_actions", "CPyPy_engine___apply")
"""The compiled engine's entry points for `legal_actions` and `apply` (mypyc's wrappers, which
every call from Python goes through)."""


def _entry_points(dump: Path) -> int | None:
    """The instructions spent inside `legal_actions` and `apply` in one dump (inclusive costs;
    neither calls the other), or None when the dump has neither (an engine run from source)."""
    got = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(dump)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, int] = {}
    for line in got.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*?:(\w+) ", line)
        if m and m.group(2) in ENTRY_POINTS:
            found[m.group(2)] = int(m.group(1).replace(",", ""))
    if set(found) != set(ENTRY_POINTS):
        return None
    return sum(found.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("books", nargs="*", default=list(BOOKS))
    ap.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    ap.add_argument("--hands", type=int, default=20, help="hands per book (default 20)")
    ap.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="runs under callgrind at once (default: one per core); the counts do not depend on it",
    )
    ap.add_argument(
        "--one-process",
        action="store_true",
        help="play every book in one worker process, one after another (by default each book "
        "has a process of its own)",
    )
    args = ap.parse_args()
    # by default each book is played in a process of its own, so that its count does not depend
    # on the books played before it: in one process, the objects an earlier book leaves in the
    # engine's caches are walked by every full collection of the cyclic collector that falls in
    # a later book's hands (thousands of instructions an action, by where collections fall)
    groups = [args.books] if args.one_process else [[b] for b in args.books]
    with tempfile.TemporaryDirectory() as tmp:
        base_path = extract(args.baseline, Path(tmp, "base"))
        base_ir: list[int] = []
        base_n: list[int] = []
        base_eng: list[int | None] = []
        this_ir: list[int] = []
        this_n: list[int] = []
        this_eng: list[int | None] = []
        # every run (a group of books under one engine) is a process of its own under
        # callgrind, whose counts do not depend on what else runs: they run `--jobs` at a time
        runs = []
        for k, books in enumerate(groups):
            for side, path in (("base", base_path), ("this", ROOT)):
                where = Path(tmp, f"{side}-cg{k}")
                where.mkdir()
                runs.append((path, books, where))
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            done = list(
                pool.map(lambda r: count(r[0], r[1], args.hands, r[2]), runs)  # in order
            )
        for k in range(len(groups)):
            ir, n, base_engine, eng = done[2 * k]
            base_ir += ir
            base_n += n
            base_eng += eng
            ir, n, this_engine, eng = done[2 * k + 1]
            this_ir += ir
            this_n += n
            this_eng += eng
    how = "all books in one process" if args.one_process else "each book in its own process"
    print(
        f"baseline {args.baseline} against this checkout: {args.hands} hands per book, "
        f"callgrind, {how}"
    )
    print(f"baseline: {base_engine}; this checkout: {this_engine}")
    print(
        f"{'rulebook':<12}{'baseline Ir/act':>16}{'this Ir/act':>13}{'ratio/hand':>12}"
        f"{'ratio/action':>14}{'actions':>14}"
    )
    for book, bi, ti, bn, tn in zip(args.books, base_ir, this_ir, base_n, this_n, strict=True):
        print(
            f"{book:<12}{bi / bn:>16,.0f}{ti / tn:>13,.0f}{bi / ti:>11.2f}x"
            f"{(bi / bn) / (ti / tn):>13.2f}x{bn:>7}/{tn:<6}"
        )
    print("legal_actions + apply alone (the deal, the random draw and the loop left out):")
    print(f"{'rulebook':<12}{'baseline Ir/act':>16}{'this Ir/act':>13}{'ratio/action':>14}")
    for book, bi, ti, bn, tn in zip(args.books, base_eng, this_eng, base_n, this_n, strict=True):
        if bi is None or ti is None:
            print(f"{book:<12}  (an engine run from source: no compiled entry points to count)")
            continue
        print(f"{book:<12}{bi / bn:>16,.0f}{ti / tn:>13,.0f}{(bi / bn) / (ti / tn):>13.2f}x")
    target = target_for(args.baseline)
    if target is not None:
        print(f"target against {args.baseline}: at least {target:g}x (reported, never asserted)")


if __name__ == "__main__":
    main()
