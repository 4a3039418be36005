"""Samba and Canasta: the engine of this checkout plays exactly the games a baseline's engine plays.

A differential check for the engine's speed work, which must not change what the engine does.
Two worker processes, one importing this checkout's engine and one a baseline commit's (extracted
with `git archive`, as `bench_rummy.py` does), play the same seeded hands: the deal from a deck
order shuffled by the seed, then at every step the list of `RUMMY.legal_actions` and a uniform
choice among them (one `random.Random(seed)` for both), played with `RUMMY.apply`. Each worker
writes, per step, a digest of the whole list of legal actions and of the state reached (their
`repr`: actions and states are tuples of ints, strings and booleans). A hand is the same game when
every digest agrees; for the first step where two hands part, the state and both lists are shown,
so that a difference can be traced to a rule fixed since the baseline.

Usage: uv run python benchmarks/rummy_same_games.py [--baseline REV] [--hands N] [--first N] [BOOK ...]
Exit status 1 when some hand differs (0ab071d: see docs/scaling.md for the hands a rule fix
changes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_rummy import BOOKS, ROOT, SEATING, extract

WORKER = (
    r"""
import hashlib, json, random, sys
"""
    + SEATING
    + r"""

book, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules = rules_for(book)
seating = seating_for(rules)
deck = list(RUMMY.deck(rules, seating))
for seed in range(first, first + count):
    rng = random.Random(seed)
    order = deck[:]
    rng.shuffle(order)
    s = RUMMY.new_game(rules, seating, dealer=seed % seating.players)
    s = RUMMY.deal(rules, s, order)
    steps = [hashlib.sha1(repr(tuple(s)).encode()).hexdigest()[:16]]
    shown = []
    while RUMMY.phase(s) == "play":
        acts = RUMMY.legal_actions(rules, s)
        a = acts[rng.randrange(len(acts))]
        before = s
        s = RUMMY.apply(rules, s, a)
        steps.append(hashlib.sha1(repr((tuple(acts), tuple(s))).encode()).hexdigest()[:16])
        shown.append((repr(tuple(before)), [repr(tuple(x)) for x in acts]))
    print(json.dumps({"seed": seed, "steps": steps, "shown": shown}), flush=True)
"""
)


def play(path: Path, book: str, first: int, count: int) -> list[dict[str, Any]]:
    """The digests of the hands `first` to `first + count - 1` played by the engine under `path`."""
    env = dict(os.environ, PYTHONPATH=str(path), ARBITRO_SPEC_DIR=str(path / "spec"))
    env["PYTHONHASHSEED"] = "0"
    done = subprocess.run(
        [sys.executable, "-c", WORKER, book, str(first), str(count)],
        env=env,
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def parted(base: Path, this: Path, book: str, first: int, count: int) -> tuple[list[str], int]:
    """The hands the two engines play differently, each described where they part, and the
    steps played by `this`."""
    out: list[str] = []
    steps = 0
    theirs = play(base, book, first, count)
    ours = play(this, book, first, count)
    for b, t in zip(theirs, ours, strict=True):
        bs, ts = b["steps"], t["steps"]
        steps += len(ts)
        if bs == ts:
            continue
        k = next(
            (i for i, (x, y) in enumerate(zip(bs, ts, strict=False)) if x != y),
            min(len(bs), len(ts)),
        )
        lines = [f"{book} seed {b['seed']}: parts at step {k}"]
        if k > 0:
            state, base_acts = b["shown"][k - 1]
            _, this_acts = t["shown"][k - 1]
            lines.append(f"  state {state}")
            lines.append(f"  only baseline: {sorted(set(base_acts) - set(this_acts))}")
            lines.append(f"  only this:     {sorted(set(this_acts) - set(base_acts))}")
        out.append("\n".join(lines))
    return out, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("books", nargs="*", default=list(BOOKS))
    ap.add_argument("--baseline", default="0ab071d", help="the commit to compare with")
    ap.add_argument("--hands", type=int, default=20, help="hands per book")
    ap.add_argument("--first", type=int, default=0, help="the first seed")
    args = ap.parse_args()
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = extract(args.baseline, Path(tmp))
        for book in args.books:
            found, steps = parted(base, ROOT, book, args.first, args.hands)
            for line in found:
                print(line)
            differ += len(found)
            same = args.hands - len(found)
            print(f"{book}: {same}/{args.hands} hands the same game ({steps} steps)", flush=True)
    print(json.dumps({"differ": differ}))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
