"""Soak `arbitro conform` against a flooding adapter and report the memory of arbitro's process
over the run. A script, not a test: it reports, it does not assert.

    uv run python benchmarks/soak_conform.py [--games 100] [--flood-kb 256] [--pad-kb 64]

The adapter is arbitro's own reference engine (so every game agrees and the run goes to its end)
that floods: before each answer it writes `--flood-kb` KB to its stderr, without a newline every
other time, and pads each answer line with `--pad-kb` KB of spaces (valid JSON, long lines). A
reader that kept what the adapter writes would grow with the run; arbitro keeps the last 4 KB of
stderr and one answer line at a time. Memory is the conform process's resident set (VmRSS),
sampled every half second.

Target (issue: reliability, "conform against a flooding adapter"): memory flat after warm-up
(the last sample within 10% of the first one after warm-up) while the adapter writes gigabytes.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def adapter(flood_kb: int, pad_kb: int) -> int:
    """The flooding adapter: the reference engine, its answers padded, its stderr flooded."""
    from arbitro.conformance.conform_adapter import Reference, serve_reference

    engine = Reference()
    junk = b"x" * (flood_kb * 1024)
    pad = b" " * (pad_kb * 1024)
    err, out = sys.stderr.buffer, sys.stdout.buffer
    for n, line in enumerate(sys.stdin.buffer):
        err.write(junk if n % 2 else junk + b"\n")
        err.flush()
        answer = io.BytesIO()
        serve_reference(io.BytesIO(line), answer, engine)
        text = answer.getvalue()
        if not text:
            continue
        out.write(text.rstrip(b"\n") + pad + b"\n")
        out.flush()
        if b'"result":"bye"' in text:
            break
    return 0


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def soak(
    games: int, flood_kb: int, pad_kb: int, seed: int, every: float = 0.5
) -> dict[str, object]:
    """Run conform against the flooding adapter; the RSS samples (seconds, KB) and the verdict."""
    adapter_cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--adapter",
        "--flood-kb",
        str(flood_kb),
        "--pad-kb",
        str(pad_kb),
    ]
    cmd = [
        sys.executable,
        "-m",
        "arbitro.cli",
        "conform",
        "escoba-es",
        "--players",
        "2",
        "--games",
        str(games),
        "--seed",
        str(seed),
        "--json",
        "--",
        *adapter_cmd,
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    samples: list[tuple[float, int]] = []
    start = time.perf_counter()
    try:
        while proc.poll() is None:
            kb = rss_kb(proc.pid)
            if kb:
                samples.append((time.perf_counter() - start, kb))
            time.sleep(every)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    run = json.loads(out) if out.strip() else {}
    return {
        "seconds": time.perf_counter() - start,
        "exit": proc.returncode,
        "stderr": err.decode("utf-8", "replace"),
        "run": run,
        "samples": samples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--flood-kb", type=int, default=256, help="stderr KB before each answer")
    parser.add_argument("--pad-kb", type=int, default=64, help="spaces padding each answer line")
    parser.add_argument("--warm-up", type=float, default=0.2, help="fraction of the run")
    parser.add_argument("--adapter", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.adapter:
        sys.exit(adapter(args.flood_kb, args.pad_kb))

    got = soak(args.games, args.flood_kb, args.pad_kb, args.seed)
    run = got["run"]
    assert isinstance(run, dict)
    samples = got["samples"]
    assert isinstance(samples, list)
    requests = int(run.get("requests", 0))
    flooded = requests * args.flood_kb / 1024
    padded = requests * args.pad_kb / 1024
    print(
        f"conform escoba-es, {args.games} games: {run.get('status')} "
        f"(exit {got['exit']}) in {got['seconds']:.0f} s"
    )
    print(
        f"requests           {requests:,}; the adapter wrote {flooded:,.0f} MB on stderr and "
        f"{padded:,.0f} MB of padding on stdout"
    )
    if samples:
        warm = [kb for t, kb in samples if t >= args.warm_up * samples[-1][0]] or [samples[-1][1]]
        growth = (warm[-1] - warm[0]) / warm[0] * 100
        print(
            f"RSS after warm-up  {warm[0] / 1024:.1f} MB, {warm[-1] / 1024:.1f} MB at the end, "
            f"at most {max(kb for _, kb in samples) / 1024:.1f} MB: {growth:+.1f}% "
            f"({'flat, within 10%' if abs(growth) <= 10 else 'NOT within 10%'})"
        )
        step = max(1, len(samples) // 10)
        print(
            "RSS along the run  "
            + ", ".join(f"{t:.0f}s {kb / 1024:.1f}" for t, kb in samples[step - 1 :: step])
        )
    stderr = str(got["stderr"]).strip()
    if stderr:
        print("stderr:", stderr[-2000:])


if __name__ == "__main__":
    main()
