"""Soak `arbitro serve` with fuzzed requests and report crashes, non-JSON answers, internal errors
and the server's memory. A script, not a test: it reports, it does not assert.

    uv run python benchmarks/soak_server.py [--requests 300000] [--seed 0]
    uv run python benchmarks/soak_server.py --large   # the largest apply, and one action more

The requests are drawn from a seeded generator: real game flows (start, new_game, deal, legal,
apply, explain, score, check, view, position, kept positions) for every rulebook, mixed with their
mutations — states and actions changed at a random place, request text cut, bytes that are not
UTF-8, NaN, numbers of thousands of digits, nesting thousands deep, lone surrogates, unknown ops
of a megabyte. They are written down the pipe by one thread while the answers are read by
another. Memory is the server process's resident set (VmRSS), sampled every 1,000 answers.

Targets (issue: reliability under hostile input): 0 crashes, 0 non-JSON answers, 0 internal
errors over at least 300,000 requests; memory flat after warm-up (the last sample within 10% of
the one at the end of warm-up).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from arbitro import Oracle

BOOKS = [
    ("escoba-es", {"players": 2}),
    ("escoba-es", {"players": 4, "teams": True}),
    ("canasta-es", {"players": 4}),
    ("samba-en", {}),
    ("samba-es", {}),
    ("samba-fr", {"layout": "3-solo"}),
]


Play = tuple[int, list[dict[str, Any]], list[dict[str, Any]], list[str]]


def real_play(seed: int, only: str | None = None) -> list[Play]:
    """For each book: states met in a few random hands, the actions played from them, a deck."""
    out = []
    for b, (rulebook, kw) in enumerate(BOOKS):
        if only is not None and not rulebook.startswith(only):
            continue
        oracle = Oracle(rulebook, **kw)
        deck = oracle.describe()["deck"]
        rng = random.Random(seed * 100 + b)
        states: list[dict[str, Any]] = []
        actions: list[dict[str, Any]] = []
        state = oracle.new_game()
        while len(states) < 150 and state["phase"] != "over":
            if state["phase"] == "deal":
                state = oracle.deal(state, rng.sample(deck, len(deck)))
                continue
            legal = oracle.legal_actions(state)
            action = legal[rng.randrange(len(legal))]
            states.append(state)
            actions.append(action)
            state = oracle.apply(state, action)
        out.append((b, states, actions, deck))
    return out


def mutate(value: Any, rng: random.Random) -> Any:
    """`value` with one place changed: another type, a card, a big or negative number, a copy."""
    v = copy.deepcopy(value)
    places: list[tuple[Any, Any]] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k in list(x):
                places.append((x, k))
                walk(x[k])
        elif isinstance(x, list):
            for i in range(len(x)):
                places.append((x, i))
                walk(x[i])

    walk(v)
    if not places:
        return rng.choice([None, [], {}, "x", 7])
    parent, key = rng.choice(places)
    choice = rng.randrange(8)
    if choice == 0:
        parent[key] = rng.choice([None, True, "x", 1.5, [], {}, -1, 2**62])
    elif choice == 1:
        parent[key] = rng.choice(["QH", "JK", "7o", "Rc", "3D", "XX", "\ud800"])
    elif choice == 2 and isinstance(parent, dict):
        del parent[key]
    elif choice == 3 and isinstance(parent[key], list) and parent[key]:
        parent[key] = [*parent[key], parent[key][0]]
    elif choice == 4 and isinstance(parent, dict):
        parent["surplus"] = [1, 2]
    elif choice == 5 and isinstance(parent[key], int):
        parent[key] = rng.choice([-5, 0, 3, 10**6])
    elif choice == 6 and isinstance(parent[key], list):
        parent[key] = parent[key][:-1]
    else:
        parent[key] = rng.choice([{"a": [1]}, [[["x"]]], "", 0])
    return v


def mangle(text: str, rng: random.Random) -> bytes:
    """Request text broken at the byte level."""
    raw = text.encode("utf-8", "surrogatepass")
    at = rng.randrange(max(1, len(raw)))
    kind = rng.randrange(9)
    if kind == 0:
        raw = raw[:at] or b"{"
    elif kind == 1:
        raw = raw[:at] + bytes([rng.randrange(0x80, 0x100)]) + raw[at:]
    elif kind == 2:
        raw = raw.replace(b":1", b":NaN", 1).replace(b":0", b":1e400", 1)
    elif kind == 3:
        raw = raw.replace(b":0", b":" + b"7" * 4400, 1)
    elif kind == 4:
        raw = b'{"id":1,"op":"legal","state":' + b"[" * 3000 + b"]" * 3000 + b"}"
    elif kind == 5:
        raw = b'{"id":"\\ud800","op":"hello"}'
    elif kind == 6:
        raw = b'{"id":2,"op":"' + b"x" * rng.choice([10, 1_000_000]) + b'"}'
    elif kind == 7:
        raw = raw[:at] + b'"' + raw[at:]
    else:
        raw = b"[" + raw + b"]"
    return raw.replace(b"\n", b" ").replace(b"\r", b" ").strip() or b"x"


def requests(total: int, seed: int, only: str | None = None) -> Iterator[bytes]:
    rng = random.Random(seed)
    plays = real_play(seed, only)
    for n in range(total):
        b, states, actions, deck = plays[n // 50 % len(plays)]
        rulebook, kw = BOOKS[b]
        phase = n % 50
        i = rng.randrange(len(states))
        state, action = states[i], actions[i]
        req: dict[str, Any]
        if phase == 0:
            # the oracle of the next fifty requests: never mutated
            yield json.dumps({"id": n, "op": "start", "rulebook": rulebook, **kw}).encode() + b"\n"
            continue
        if phase == 1:
            req = {"op": "new_game", "save": f"g{n % 7}"}
        elif phase == 2:
            req = {
                "op": "deal",
                "position": f"g{(n - 1) % 7}",
                "order": rng.sample(deck, len(deck)),
            }
        else:
            op = rng.choice(["legal", "apply", "explain", "score", "check", "view", "position"])
            req = {"op": op, "state": state}
            if op in ("apply", "explain"):
                req["action"] = action
            elif op == "view":
                req["seat"] = rng.randrange(4)
            elif op == "position":
                req = {"op": "position", "position": {"phase": "deal", "hand": n % 5}}
            if rng.random() < 0.15:
                kept = f"g{(n - phase + 1) % 7}"
                req = {"op": rng.choice(["legal", "score", "view"]), "position": kept, "seat": 0}
                if req["op"] != "view":
                    del req["seat"]
        req["id"] = n
        roll = rng.random()
        if roll < 0.35:
            req = mutate(req, rng)
        text = json.dumps(req, ensure_ascii=False) if isinstance(req, dict) else json.dumps(req)
        if roll > 0.8:
            yield mangle(text, rng) + b"\n"
        else:
            yield text.encode("utf-8", "surrogatepass").replace(b"\n", b" ") + b"\n"


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def large_requests(rounds: int = 3) -> None:
    """Time the answers to the largest `apply` the schema takes (100,000 actions, judged from the
    first) and to one action more (refused by its size), each over the pipe, best of `rounds`."""
    from arbitro.oracle.server import MAX_ACTIONS

    oracle = Oracle("escoba-es", players=2)
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), random.Random(1).sample(deck, len(deck)))
    action = oracle.legal_actions(state)[0]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitro.cli", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        start = {"id": 0, "op": "start", "rulebook": "escoba-es", "players": 2}
        proc.stdin.write(json.dumps(start).encode() + b"\n")
        proc.stdin.flush()
        proc.stdout.readline()
        for n in (MAX_ACTIONS, MAX_ACTIONS + 1):
            line = json.dumps({"id": n, "op": "apply", "state": state, "actions": [action] * n})
            times = []
            for _ in range(rounds):
                began = time.perf_counter()
                proc.stdin.write(line.encode() + b"\n")
                proc.stdin.flush()
                answer = json.loads(proc.stdout.readline())
                times.append(time.perf_counter() - began)
            what = answer["error"]["type"] if not answer["ok"] else "ok"
            print(
                f"apply of {n:,} actions ({len(line) / 1e6:.1f} MB): answered {what} in "
                f"{min(times):.2f} s (best of {rounds}; {', '.join(f'{t:.2f}' for t in times)})"
            )
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm-up", type=int, default=10_000, help="requests before memory counts")
    parser.add_argument(
        "--only", metavar="PREFIX", help="only the rulebooks whose id starts so (e.g. escoba)"
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="only time the largest apply the server takes, and one action more",
    )
    args = parser.parse_args()
    if args.large:
        large_requests()
        return

    # made as they are sent: a list of 300,000 requests (megabyte ones among them) would hold
    # gigabytes in this process
    stream = requests(args.requests, args.seed, args.only)
    total = args.requests
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitro.cli", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            for raw in stream:
                stdin.write(raw)
            stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    start = time.perf_counter()
    writer.start()
    answered = non_json = 0
    types: Counter[str] = Counter()
    samples: list[tuple[int, int]] = []
    for raw in proc.stdout:
        answered += 1
        try:
            text = raw.decode("utf-8")

            def refuse(c: str) -> Any:
                raise ValueError(c)

            got = json.loads(text, parse_constant=refuse)
            if not isinstance(got, dict) or set(got) - {"id", "ok", "result", "error"}:
                raise ValueError("not an answer object")
            if not raw.endswith(b"\n"):
                raise ValueError("no newline")
            types["ok" if got["ok"] else got["error"]["type"]] += 1
        except ValueError:
            non_json += 1
        if answered % 1000 == 0 and proc.poll() is None:
            samples.append((answered, rss_kb(proc.pid)))
    writer.join()
    code = proc.wait(timeout=60)
    stderr = proc.stderr.read().decode("utf-8", "replace")
    seconds = time.perf_counter() - start
    crashed = code != 0 or answered != total or bool(stderr.strip())
    warm = [kb for n, kb in samples if n >= args.warm_up]
    print(f"requests sent      {total:,} in {seconds:.0f} s ({total / seconds:,.0f}/s)")
    print(f"answers            {answered:,} (one per request: {answered == total})")
    print(f"crashes            {int(crashed)} (exit status {code}; stderr {len(stderr)} bytes)")
    print(f"non-JSON answers   {non_json}")
    print(f"internal errors    {types['internal-error']}")
    print("answers by type    " + ", ".join(f"{k} {v:,}" for k, v in types.most_common()))
    if samples:
        first = samples[0][1]
        print(f"RSS                {first / 1024:.1f} MB after {samples[0][0]:,} answers")
    if warm:
        growth = (warm[-1] - warm[0]) / warm[0] * 100
        print(
            f"RSS after warm-up  {warm[0] / 1024:.1f} MB at {args.warm_up:,}, "
            f"{warm[-1] / 1024:.1f} MB at the end, at most {max(warm) / 1024:.1f} MB: "
            f"{growth:+.1f}% ({'flat, within 10%' if abs(growth) <= 10 else 'NOT within 10%'})"
        )
    if samples:
        step = max(1, len(samples) // 10)
        marks = samples[step - 1 :: step]
        print("RSS along the run " + ", ".join(f"{n // 1000}k {kb / 1024:.1f}" for n, kb in marks))
    if stderr.strip():
        print("stderr:", stderr[-2000:])


if __name__ == "__main__":
    main()
