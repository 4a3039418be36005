"""A cold derivation of the findings: CPU seconds in all and per part, against the 30 s target.

Runs `arbitro.findings.core.derive` on the five books in this process (no cache read or written),
with Z3's answers remembered within the run only, and reports the CPU time of each part: the
claims, the clashes and dead rules, the refuted properties and dead ends, the witness searches and
the positions where open questions come up. It never asserts.

Usage: uv run python benchmarks/bench_findings.py
"""

from __future__ import annotations

import time
from collections import defaultdict

from arbitro.findings.core import derive
from arbitro.model.spec import load_all

TARGET = 30.0


def main() -> None:
    books = load_all()
    parts: dict[str, float] = defaultdict(float)
    last = [time.process_time(), "setting up"]

    def progress(msg: str) -> None:
        now = time.process_time()
        parts[str(last[1])] += now - float(last[0])
        # "  12.3s samba-en: claims" -> "claims"; "witness: key|a|b" -> "witness searches"
        what = msg.strip().split(" ", 1)[-1].strip()
        if what.startswith("witness"):
            what = "witness searches"
        elif ": where " in what:
            what = "where open questions come up"
        else:
            what = what.split(": ", 1)[-1]
        last[0], last[1] = now, what

    started = time.process_time()
    derived = derive(books, progress=progress)
    total = time.process_time() - started
    parts[str(last[1])] += time.process_time() - float(last[0])
    print(f"cold derivation of {len(books)} books: {total:.1f} s of CPU (target {TARGET:.0f} s)")
    for what, seconds in sorted(parts.items(), key=lambda x: -x[1]):
        print(f"  {seconds:7.1f} s  {what}")
    print(
        f"{len(derived['claims'])} claim checks, {len(derived['witnesses'])} witness searches,"
        f" {len(derived['dead_ends'])} dead-end causes, {len(derived['arises'])} positions of play"
    )


if __name__ == "__main__":
    main()
