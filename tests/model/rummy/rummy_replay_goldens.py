"""Replay goldens of the Samba/Canasta engine: seeded random games, a digest at every step.

Each recorded game starts from `RUMMY.new_game` (optionally with given side scores, set through
the state's canonical JSON so that every opening-minimum band and the end of the game are
reached), deals from deck orders shuffled by a seeded `random.Random`, and at every step lists
`RUMMY.legal_actions`, then plays the one that same generator picks. The digest of a step covers
the state's canonical JSON and the canonical JSON of the whole legal-action list; digests are
chained (each covers the one before), so the first step where an engine differs is where the
trail first differs, and every step after it differs too.

The numbers are the engine's own at the commit named in the file: a regression oracle for
rewriting the engine (the same games must give the same states and the same legal actions,
byte for byte), not a statement about any rulebook.

Regenerate (from a clean checkout; `--engine REV` plays the engine, model/ and arbitro/, of
commit REV under the spec files and spec loader of HEAD, so that a spec reading changed since REV
is recorded as the engine before its rewrite plays it):
    uv run python tests/model/rummy/rummy_replay_goldens.py [--engine REV]
A fix that changes some games on purpose re-records only those (`--amend WHY`): the file keeps
its source, and its `amended` list names each game, the step it departs at, the commit and why.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbitro.model.errors import ArbitroError
from arbitro.model.rummy import RUMMY
from arbitro.model.schema import RummyRules, rules_for
from arbitro.model.spec import load_rulebook

BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")
GOLDEN = Path(__file__).parent / "data" / "replay-goldens.json"
HANDS = 2
"""Hands played per game with the book's defaults (a game that ends sooner stops there); one hand
under any other reading."""
SEEDS = (0, 1)
"""Seed 0 starts the game at zero; seed 1 at scores drawn by the seed (see `start_scores`)."""
COMBINED = 3
"""Games per book under random combinations of readings."""
TRAIL_HEX = 4
"""Hex digits of each step's chained digest kept in the trail."""


@dataclass(frozen=True)
class Config:
    rulebook: str
    layout: str
    options: tuple[tuple[str, Any], ...]
    seed: int


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def configs() -> list[Config]:
    """Every layout of every book with its defaults; every other reading of every clause (a clause
    that follows another, through its leader) and every optional rule, one at a time, in the first layout the reading leaves; a few random
    combinations of readings per book, each in a layout drawn at random."""
    out: list[Config] = []
    for book in BOOKS:
        rules = _rules(book, ())
        for s in RUMMY.seatings(rules):
            out += [Config(book, s.layout, (), seed) for seed in SEEDS]
        choices: list[tuple[str, list[Any]]] = []
        for c in load_rulebook(book).clauses:
            if c.follows is not None:
                continue  # its reading is its leader's: varied with the leader
            labels: list[Any] = list(c.labels()[1:]) if len(c.readings) > 1 else []
            if c.optional:
                labels = [True]
            if not labels:
                continue
            choices.append((c.key, [c.labels()[0], *labels] if c.readings else [False, True]))
            for label in labels:
                opts = ((c.key, label),)
                for s in RUMMY.seatings(_rules(book, opts))[:1]:
                    out += [Config(book, s.layout, opts, seed) for seed in SEEDS]
        rng = random.Random(zlib.crc32(book.encode()))
        for k in range(COMBINED):
            picked = tuple(sorted((key, rng.choice(vals)) for key, vals in choices))
            seats = RUMMY.seatings(_rules(book, picked))
            out.append(Config(book, rng.choice(seats).layout, picked, 100 + k))
    return out


def _rules(book: str, options: tuple[tuple[str, Any], ...]) -> RummyRules:
    r = rules_for(book, dict(options) or None)
    assert isinstance(r, RummyRules)
    return r


def start_scores(rules: RummyRules, sides: int, seed: int) -> list[int]:
    """Zero for seed 0; otherwise, per side, a multiple of 5 from -500 to 200 short of the target,
    drawn by the seed, so that later opening-minimum bands and the game's end come into play."""
    if seed == 0:
        return [0] * sides
    rng = random.Random(seed * 7919 + sides)
    return [5 * rng.randrange(-100, (rules.target_score - 200) // 5) for _ in range(sides)]


def steps(cfg: Config) -> Iterator[str]:
    """The canonical text of each step of one game: the state and its legal actions, or the
    error that stopped the game (a rule gap at a deal)."""
    rules = _rules(cfg.rulebook, cfg.options)
    seating = next(s for s in RUMMY.seatings(rules) if s.layout == cfg.layout)
    rng = random.Random(cfg.seed)
    s = RUMMY.new_game(rules, seating, dealer=cfg.seed % seating.players)
    data = RUMMY.state_to_json(s)
    data["scores"] = start_scores(rules, seating.sides, cfg.seed)
    s = RUMMY.state_from_json(rules, data)
    deck = list(RUMMY.deck(rules, seating))
    for _ in range(1 if cfg.options else HANDS):
        if RUMMY.phase(s) != "deal":
            break
        order = deck[:]
        rng.shuffle(order)
        try:
            s = RUMMY.deal(rules, s, order)
        except ArbitroError as e:
            yield _canon({"error": type(e).__name__, "message": str(e)})
            return
        while RUMMY.phase(s) == "play":
            acts = RUMMY.legal_actions(rules, s)
            yield _state(s) + "\n" + _canon([RUMMY.action_to_json(a) for a in acts])
            s = RUMMY.apply(rules, s, acts[rng.randrange(len(acts))])
        yield _state(s)


def _state(s: Any) -> str:
    return _canon(RUMMY.state_to_json(s))


def record(cfg: Config) -> dict[str, Any]:
    """One game's entry: its configuration, step count, chained digests."""
    chain = b""
    trail: list[str] = []
    for text in steps(cfg):
        chain = hashlib.sha256(chain + text.encode()).digest()
        trail.append(chain.hex()[:TRAIL_HEX])
    return {
        "rulebook": cfg.rulebook,
        "layout": cfg.layout,
        "options": dict(cfg.options),
        "seed": cfg.seed,
        "steps": len(trail),
        "final": chain.hex(),
        "trail": "".join(trail),
    }


def key(entry: dict[str, Any]) -> Config:
    return Config(
        entry["rulebook"], entry["layout"], tuple(sorted(entry["options"].items())), entry["seed"]
    )


def first_difference(want: dict[str, Any], got: dict[str, Any]) -> int | None:
    """The first step where two entries differ, or None when they are the same."""
    if want["final"] == got["final"] and want["steps"] == got["steps"]:
        return None
    a, b = want["trail"], got["trail"]
    for i in range(0, min(len(a), len(b)), TRAIL_HEX):
        if a[i : i + TRAIL_HEX] != b[i : i + TRAIL_HEX]:
            return i // TRAIL_HEX
    return min(len(a), len(b)) // TRAIL_HEX


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], capture_output=True, check=True).stdout


def _record_engine(rev: str) -> list[dict[str, Any]]:
    """The games as played by the engine of commit `rev` under HEAD's spec, in a subprocess."""
    with tempfile.TemporaryDirectory() as tmp:
        for ref, paths in ((rev, ["model", "arbitro"]), ("HEAD", ["spec"])):
            with tarfile.open(fileobj=io.BytesIO(_git("archive", ref, *paths))) as tar:
                tar.extractall(tmp, filter="tar")
        for name in ("schema.py", "spec.py"):  # the loader that reads HEAD's spec files
            Path(tmp, "model", name).write_bytes(_git("show", f"HEAD:model/{name}"))
        env = dict(os.environ, PYTHONPATH=tmp, ARBITRO_SPEC_DIR=str(Path(tmp, "spec")))
        out = subprocess.run(
            [sys.executable, __file__, "--games-json"], env=env, capture_output=True, check=True
        ).stdout
    games: list[dict[str, Any]] = json.loads(out)
    return games


def amend(head: str, why: str) -> None:
    """Replace the recorded games that the engine of `head` plays differently, each noted in
    the file's `amended` list with the step it departs at, the commit and the reason."""
    doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    amended = doc.setdefault("amended", [])
    changed = 0
    for i, game in enumerate(doc["games"]):
        got = record(key(game))
        step = first_difference(game, got)
        if step is None:
            continue
        doc["games"][i] = got
        ident = {k: game[k] for k in ("rulebook", "layout", "options", "seed")}
        amended.append({"game": ident, "step": step, "commit": head, "why": why})
        changed += 1
    GOLDEN.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"re-recorded {changed} of {len(doc['games'])} games in {GOLDEN}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", metavar="REV", help="record the engine of this commit")
    ap.add_argument(
        "--amend",
        metavar="WHY",
        help="re-record only the games HEAD's engine plays differently, keeping the rest and the "
        "source of the file, and note them with this reason (a bug fix that changes a game)",
    )
    ap.add_argument("--games-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.games_json:
        json.dump([record(c) for c in configs()], sys.stdout)
        return
    head = _git("rev-parse", "HEAD").decode().strip()
    dirty = _git("status", "--porcelain", "model", "spec").decode().strip()
    if dirty:
        sys.exit("model/ or spec/ has uncommitted changes: record the goldens from a commit")
    if args.amend:
        amend(head, args.amend)
        return
    if args.engine:
        engine = _git("rev-parse", args.engine).decode().strip()
        games = _record_engine(engine)
        where = f"at commit {engine}, playing the spec files and spec loader of commit {head}"
    else:
        engine, games = head, [record(c) for c in configs()]
        where = f"at commit {head}"
    doc = {
        "source": (
            f"the Samba/Canasta reference engine (arbitro.model.rummy, legal_actions + apply) "
            f"{where}, recorded as a regression oracle before its rewrite; these digests are "
            "the engine's own output, not numbers from any rulebook"
        ),
        "commit": engine,
        "spec_commit": head,
        "regenerate": "uv run python tests/model/rummy/rummy_replay_goldens.py"
        + (f" --engine {engine}" if args.engine else ""),
        "digest": (
            "per step, sha256 over the previous step's digest and the canonical JSON of the state, "
            "a newline and the canonical JSON list of its legal actions; `trail` keeps the first "
            f"{TRAIL_HEX} hex digits of every step's digest, `final` the whole last one"
        ),
        "games": games,
    }
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(games)} games, {sum(g['steps'] for g in games)} steps to {GOLDEN}")


if __name__ == "__main__":
    main()
