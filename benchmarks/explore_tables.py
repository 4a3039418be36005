"""Write the tables of docs/explorer.md and docs/perft.md by running `arbitro explore` and `perft`.

Every number in those tables is printed by the command shown beside it (run here with --json);
this script only lays them out. It also reports the states per second each exploration walked.

Usage: uv run python benchmarks/explore_tables.py [--only explorer|perft] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPLORER = ROOT / "docs" / "explorer.md"
PERFT = ROOT / "docs" / "perft.md"
BEGIN, END = "<!-- generated: begin -->", "<!-- generated: end -->"

EXPLORATIONS = [
    ("escoba-es", "escoba-tiny", ["--deals", "100"]),
    ("escoba-es", "escoba-12", ["--deals", "100"]),
    ("escoba-es", "escoba-16", ["--deals", "10"]),
    ("escoba-es", "escoba-20", ["--deal", "0"]),
    ("escoba-es", "escoba-20", ["--deals", "4"]),
    ("escoba-es", "escoba-28", ["--deal", "0"]),
    ("escoba-es", "escoba-28", ["--deals", "4"]),
    ("escoba-es", "escoba-28h4", ["--deal", "0", "--max-states", "20000000"]),
    ("escoba-es", "escoba-12", ["--deal", "0", "--symmetry"]),
    ("escoba-es", "escoba-16", ["--deal", "0", "--symmetry"]),
    ("samba-es", "samba-small", ["--deal", "0", "--max-states", "20000"]),
    ("canasta-es", "canasta-small", ["--deal", "0", "--max-states", "20000"]),
]
PERFTS: list[tuple[str, str | None, int]] = [
    ("escoba-es", None, 5),
    ("samba-es", None, 4),
    ("samba-en", None, 4),
    ("samba-fr", None, 4),
    ("canasta-es", None, 4),
    ("escoba-es", "escoba-12", 8),
    ("escoba-es", "escoba-16", 8),
    ("escoba-es", "escoba-20", 7),
    ("escoba-es", "escoba-28", 8),
    ("samba-es", "samba-small", 5),
    ("canasta-es", "canasta-small", 5),
]
SEEDS = (0, 1, 2)


def arbitro(*argv: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-m", "arbitro.cli", *argv, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if out.returncode != 0:
        raise SystemExit(f"arbitro {' '.join(argv)} failed:\n{out.stderr.strip()}")
    data: dict[str, object] = json.loads(out.stdout)
    return data


def splice(path: Path, table: str) -> None:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{table}{END}{tail}", encoding="utf-8")


def explorer_table(workers: int) -> str:
    rows = [
        "| command | states | edges | terminal | depth | deadlocks | never exercised | CPU seconds"
        " | states/s of CPU, one core |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for book, config, extra in EXPLORATIONS:
        fan = ["--workers", str(workers)] if workers and "--deals" in extra else []
        argv = ["explore", book, "--config", config, *extra, *fan]
        d = arbitro(*argv)
        unused = d["unexercised_clauses"]
        never = "not named by the model" if unused is None else str(len(unused))  # type: ignore[arg-type]
        done = "" if d["exhausted"] else " (bounded)"
        states = f"{d['states']:,}{done}"
        if d["symmetry"]:
            states += f" in {d['orbits']:,} orbits"
        speed = f"{d['states_per_cpu_second']:,}"
        if d["symmetry"]:
            speed += f" ({d['orbits_per_cpu_second']:,} orbits/s)"
        rows.append(
            f"| `arbitro {' '.join(argv)}` | {states} | {d['edges']:,} | {d['terminal']:,}"
            f" | {d['depth']} | {d['deadlocks']} | {never} | {d['cpu_seconds']} | {speed} |"
        )
        print(rows[-1], flush=True)
    return "\n".join(rows) + "\n"


def perft_table() -> str:
    rows = []
    for book, config, depth in PERFTS:
        label = config or f"{book} (the book)"
        rows.append(f"\n### {label}\n")
        rows.append("| seed | " + " | ".join(f"depth {d}" for d in range(1, depth + 1)) + " |")
        rows.append("|---:|" + "---:|" * depth)
        for seed in SEEDS:
            counts = []
            for d in range(1, depth + 1):
                argv = ["perft", book, "--seed", str(seed), "--depth", str(d)]
                if config:
                    argv += ["--config", config]
                counts.append(f"{arbitro(*argv)['sequences']:,}")
            rows.append(f"| {seed} | " + " | ".join(counts) + " |")
        print("\n".join(rows[-5:]), flush=True)
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=("explorer", "perft"))
    p.add_argument("--workers", type=int, default=0, help="Dask workers for the many-deal rows")
    args = p.parse_args(argv)
    if args.only in (None, "explorer"):
        splice(EXPLORER, explorer_table(args.workers))
    if args.only in (None, "perft"):
        splice(PERFT, perft_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
