"""Escoba: the engine of this checkout plays exactly the games a baseline's engine plays.

A differential check for the engine's speed work, which must not change what the engine does.
The baseline commit's engine (its model, arbitro, proofs and spec folders, from `git archive` into
a temporary directory: the checkout itself is never touched) and this checkout's engine each run
in a worker process of their own and play the same seeded games:

- escoba-es at every seating it allows, and each small configuration of `spec/configs/` at its
  seating, each under every option set of OPTION_SETS (the book's rules, its optional rules and
  other readings, capture not forced, a short game);
- whole games: a deck order shuffled by the seed for each deal, then at every step a uniform choice
  among the legal actions (one `random.Random` for both engines), for at most --hands-per-game
  hands.

At every step each worker digests a record of what its engine answered: the state, the whole
list of `legal_actions` (asked again of an equal state that is not the object just listed, so the
listing's memory is met too), the play chosen and the clauses `clauses_used` names for it (for a
deal, for the deck order), `violations` of the state, the state `apply` reaches from the listed
play and from an equal plain tuple played on the copy, and for probe plays that are not legal
(out of turn, a card not held, a capture not worth the sum, a lay of a card that can capture, a
malformed play) every refusal's type, clause and message and what `apply` raises. When a hand
ends, the hand's result, the game's scores, the winner and the state's JSON are recorded too.

Two games are the same when every step's digest agrees. For the first step where they part, the
record is asked again of both workers and the fields that differ are shown side by side (a
listing as the plays only one engine has), so a difference can be traced to its rule.

Usage: uv run python benchmarks/escoba_same_games.py [--baseline REV] [--games N] [--first N]
       [--hands-per-game N] [--book-only | --configs-only]
Exit status 1 when some game differs, 2 when the baseline cannot be extracted.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

OPTION_SETS: dict[str, dict[str, object]] = {
    "book": {},
    "variants": {
        "variant_cards_double": True,
        "variant_oros_all": True,
        "variant_sevens_all": True,
        "play_direction": "left",
    },
    "together-lowest": {
        "variant_cards_double": True,
        "variant_cards_double_rule": "opponents_together",
        "setenta_missing_suit": "lowest",
    },
    "capture-free": {"capture_forced": False},
    "capture-free-dealer": {
        "capture_forced": False,
        "rest_without_capturer": "dealer",
        "rest_is_escoba": True,
    },
    "short-game": {"target_score": 6},
}
"""Rule fields set on the book's or a configuration's rules (`dataclasses.replace`), by name:
its optional rules and other readings, and two changes no reading makes (capture not forced, a
short game) that reach the engine's other branches."""

WORKER = r"""
import dataclasses, hashlib, json, random, sys
try:
    from arbitro.native import status
    engine = status().describe()
except ImportError:  # a tree from before the compiled build
    engine = "pure-Python engine (before the compiled build)"
from arbitro.model.escoba import ESCOBA
from arbitro.model.escoba.state import EscobaState
from arbitro.model.schema import rules_for
from arbitro.proofs.explore_config import load_config

OPTION_SETS = json.loads(sys.argv[1])
job = json.loads(sys.stdin.read())
hands_per_game = job["hands_per_game"]
detail = job.get("detail")  # [game index, step]: print that record instead of digests

def caught(call):
    try:
        return repr(call())
    except Exception as e:  # the engine's answer is the exception: its type, clause and text
        return f"{type(e).__name__} {getattr(e, 'clause', None)!r} {e}"

def refused(rules, s, probe):
    def ask():
        return [(type(e).__name__, e.clause, str(e)) for e in ESCOBA.refusals(rules, s, probe)]
    return caught(ask)

def probes(s, deck):
    seat = s.to_move
    hand = s.hands[seat]
    out = []
    other = (seat + 1) % s.players
    held = [c for c in deck if hand >> c & 1]
    if s.hands[other]:
        c = next(c for c in deck if s.hands[other] >> c & 1)
        out.append((other, c, 0))
    absent = [c for c in deck if not hand >> c & 1]
    if absent:
        out.append((seat, absent[0], 0))
    if held and s.table:
        low = s.table & -s.table
        out.append((seat, held[-1], low))
        out.append((seat, held[0], s.table))
    for c in held:
        out.append((seat, c, 0))  # a lay: refused when the card can capture and must
    out.append((seat, 99, 0))
    return out

def game(source, optset, players, sides, layout, seed):
    if source.startswith("config:"):
        config = load_config(source.split(":", 1)[1])
        base, seating = config.rules, config.seating
    else:
        base = rules_for(source)
        seating = next(
            x for x in ESCOBA.seatings(base)
            if (x.players, x.sides, x.layout) == (players, sides, layout)
        )
    rules = dataclasses.replace(base, **OPTION_SETS[optset])
    deck = list(ESCOBA.deck(rules, seating))
    rng = random.Random(f"{source}/{optset}/{players}/{sides}/{layout}/{seed}")
    s = ESCOBA.new_game(rules, seating, dealer=seed % seating.players)
    hands = 0
    while True:
        rec = {"state": repr(tuple(s)), "violations": caught(lambda: ESCOBA.violations(rules, s))}
        phase = ESCOBA.phase(s)
        rec["phase"] = phase
        if phase == "over" or hands >= hands_per_game:
            rec["end"] = repr((ESCOBA.last_hand(s), ESCOBA.game_scores(s), ESCOBA.winner(s)))
            yield rec
            return
        if phase == "deal":
            order = deck[:]
            rng.shuffle(order)
            rec["deal clauses"] = caught(lambda: sorted(ESCOBA.clauses_used(rules, s, order)))
            rec["refused before the deal"] = refused(rules, s, (0, deck[0], 0))
            s = ESCOBA.deal(rules, s, order)
            yield rec
            continue
        acts = ESCOBA.legal_actions(rules, s)
        rec["listing"] = repr(tuple(tuple(a) for a in acts))
        a = acts[rng.randrange(len(acts))]
        rec["play"] = repr(tuple(a))
        copy = EscobaState(*s)
        rec["clauses"] = caught(lambda: sorted(ESCOBA.clauses_used(rules, copy, tuple(a))))
        wrong = probes(s, deck)
        rec["refusals"] = repr([(p, refused(rules, copy, p)) for p in wrong])
        rec["refused by apply"] = repr([caught(lambda: ESCOBA.apply(rules, copy, p)) for p in wrong])
        after = ESCOBA.apply(rules, s, a)
        # the same play as a plain tuple on an equal state not listed last; then its listing twice
        # (the listing is remembered from the second time a hand and table are met)
        rec["tuple play"] = caught(lambda: tuple(ESCOBA.apply(rules, copy, tuple(a))) == tuple(after))
        rec["relisted"] = repr([tuple(ESCOBA.legal_actions(rules, EscobaState(*s))) == tuple(acts) for _ in range(2)])
        rec["after"] = repr(tuple(after))
        if ESCOBA.phase(after) != "play":
            hands += 1
            rec["hand"] = repr((ESCOBA.last_hand(after), ESCOBA.game_scores(after), ESCOBA.winner(after)))
            rec["json"] = caught(lambda: json.dumps(ESCOBA.state_to_json(after), sort_keys=True))
        s = after
        yield rec

def digest(rec):
    return hashlib.sha1(repr(sorted(rec.items())).encode()).hexdigest()[:16]

print(json.dumps({"engine": engine}), flush=True)
for i, g in enumerate(job["games"]):
    if detail is not None:
        if i != detail[0]:
            continue
        for k, rec in enumerate(game(*g)):
            if k == detail[1]:
                print(json.dumps(rec), flush=True)
                break
        break
    print(json.dumps([digest(rec) for rec in game(*g)]), flush=True)
"""


def extract(rev: str, into: Path) -> Path:
    """The commit's model, arbitro, proofs and spec folders, from `git archive`, under `into`."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "model", "arbitro", "proofs", "spec"],
        capture_output=True,
    )  # fmt: skip
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        print(
            f"escoba_same_games: cannot extract {rev!r}: {err[-1] if err else '?'}", file=sys.stderr
        )
        raise SystemExit(2)
    with tarfile.open(fileobj=BytesIO(done.stdout)) as tar:
        tar.extractall(into, filter="tar")
    return into


def games(
    games_each: int, first: int, book: bool = True, configs: Sequence[str] | None = None
) -> list[list[Any]]:
    """The games played: (source, option set, players, sides, layout, seed) each."""
    out: list[list[Any]] = []
    seatings = [(2, 2, ""), (3, 3, ""), (4, 4, ""), (4, 2, "teams")]
    sources: list[tuple[str, list[tuple[int, int, str]]]] = []
    if book:
        sources.append(("escoba-es", seatings))
    for name in configs if configs is not None else config_names():
        sources.append((f"config:{name}", [(0, 0, "")]))
    for source, seats in sources:
        for optset in OPTION_SETS:
            for players, sides, layout in seats:
                for seed in range(first, first + games_each):
                    out.append([source, optset, players, sides, layout, seed])
    return out


def config_names() -> list[str]:
    """The Escoba configurations of this checkout's `spec/configs`."""
    return sorted(p.stem for p in (ROOT / "spec" / "configs").glob("escoba-*.toml"))


TIMEOUT = 3600.0
"""Seconds a worker may take (its process is then ended): a changed engine may never end a game."""


def play(
    tree: Path, jobs: list[list[Any]], hands_per_game: int, detail: tuple[int, int] | None = None
) -> tuple[str, list[Any]]:
    """Which engine ran in ``tree`` and, per game, its step digests (with ``detail``, the one
    record asked for instead)."""
    env = dict(os.environ, PYTHONPATH=str(tree), ARBITRO_SPEC_DIR=str(tree / "spec"))
    env["PYTHONHASHSEED"] = "0"
    job = {"games": jobs, "hands_per_game": hands_per_game, "detail": detail}
    try:
        done = subprocess.run(
            [sys.executable, "-c", WORKER, json.dumps(OPTION_SETS)],
            input=json.dumps(job),
            env=env,
            cwd=tree,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise SystemExit(
            f"escoba_same_games: the engine in {tree} ran past {TIMEOUT:.0f} s"
        ) from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise SystemExit(f"escoba_same_games: the engine in {tree} failed:\n{tail}")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return str(lines[0]["engine"]), lines[1:]


def _cut(text: str, most: int = 400) -> str:
    return text if len(text) <= most else text[:most] + "…"


def described(
    base: Path, this: Path, jobs: list[list[Any]], i: int, step: int, hands_per_game: int
) -> list[str]:
    """The fields of game ``i``'s record at ``step`` that differ between the two engines."""
    _, theirs = play(base, jobs, hands_per_game, (i, step))
    _, ours = play(this, jobs, hands_per_game, (i, step))
    b: dict[str, str] = theirs[0] if theirs else {}
    t: dict[str, str] = ours[0] if ours else {}
    lines = [f"  state {_cut(b.get('state') or t.get('state') or '(none)')}"]
    for field in sorted(set(b) | set(t)):
        x, y = b.get(field), t.get(field)
        if x == y:
            continue
        if field == "listing" and x is not None and y is not None:
            xs, ys = set(ast.literal_eval(x)), set(ast.literal_eval(y))
            lines.append(f"  listing, only baseline: {sorted(xs - ys)}")
            lines.append(f"  listing, only this:     {sorted(ys - xs)}")
            if xs == ys:
                lines.append("  listing: the same plays in another order")
            continue
        lines.append(f"  {field}, baseline: {_cut(str(x))}")
        lines.append(f"  {field}, this:     {_cut(str(y))}")
    return lines


def compare(
    base: Path, this: Path, jobs: list[list[Any]], hands_per_game: int, shown: int = 3
) -> tuple[list[str], int, dict[str, str]]:
    """The games the two engines play differently (the first ``shown`` described where they part),
    the steps compared, and which engine ran in each tree."""
    base_engine, theirs = play(base, jobs, hands_per_game)
    this_engine, ours = play(this, jobs, hands_per_game)
    out: list[str] = []
    steps = 0
    for i, (job, bs, ts) in enumerate(zip(jobs, theirs, ours, strict=True)):
        steps += len(ts)
        if bs == ts:
            continue
        k = next(
            (j for j, (x, y) in enumerate(zip(bs, ts, strict=False)) if x != y),
            min(len(bs), len(ts)),
        )
        source, optset, players, sides, layout, seed = job
        seating = f"{players} players in {sides} sides" if players else "its seating"
        seating += " (teams)" if layout else ""
        head = f"{source}, {optset}, {seating}, seed {seed}: parts at step {k}"
        if len(out) < shown:
            head += "\n" + "\n".join(described(base, this, jobs, i, k, hands_per_game))
        out.append(head)
    return out, steps, {"baseline": base_engine, "this": this_engine}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--baseline", default="main", help="the commit to compare with (main)")
    ap.add_argument("--games", type=int, default=6, help="games per source, option set, seating")
    ap.add_argument("--first", type=int, default=0, help="the first seed")
    ap.add_argument("--hands-per-game", type=int, default=4, help="a game stops after this many")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--book-only", action="store_true", help="escoba-es alone")
    which.add_argument("--configs-only", action="store_true", help="the configurations alone")
    args = ap.parse_args(argv)
    jobs = games(
        args.games, args.first, book=not args.configs_only, configs=[] if args.book_only else None
    )
    with tempfile.TemporaryDirectory() as tmp:
        base = extract(args.baseline, Path(tmp))
        found, steps, engines = compare(base, ROOT, jobs, args.hands_per_game)
    print(f"baseline {args.baseline}: {engines['baseline']}\nthis checkout: {engines['this']}")
    for line in found:
        print(line)
    print(
        f"{len(jobs) - len(found)}/{len(jobs)} games the same ({steps} steps compared;"
        f" {len(OPTION_SETS)} option sets)"
    )
    print(json.dumps({"games": len(jobs), "differ": len(found), "steps": steps}))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
