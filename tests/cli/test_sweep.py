"""Every command, run as a user runs it, with bad paths, numbers, options and flag mixes: one line
on stderr naming what is wrong, exit status 2, no traceback, nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def arbitro(
    *argv: str, stdin: str = "", cwd: Path = ROOT, stdout: int | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arbitro.cli", *argv],
        input=stdin,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "100"},
        timeout=120,
    )


def _cases(tmp: Path) -> list[tuple[list[str], str]]:
    """(argv, a word the one-line error must contain)."""
    existing = tmp / "exists.jsonl"
    a_dir = tmp / "adir"
    link = tmp / "link.jsonl"
    fifo = tmp / "fifo"
    big = "100000000000000000000"
    return [
        # argparse: unknown commands, options and values
        ([], "COMMAND"),
        (["nonsense"], "invalid choice"),
        (["rules"], "SUBCOMMAND"),
        (["rules", "list", "--bogus"], "unrecognized arguments"),
        (["rules", "list", "--format", "pdf"], "invalid choice"),
        (["rules", "show"], "name a rulebook"),
        (["rules", "show", "../pyproject"], "unknown rulebook '../pyproject'"),
        (["rules", "show", "spec/escoba-es"], "unknown rulebook"),
        (["rules", "show", "samba-en", "no-such-clause"], "has no clause"),
        (["rules", "show", "--spec", str(tmp / "nope.toml")], "does not exist"),
        (["rules", "show", "--spec", str(existing)], "ends in .toml"),
        (["rules", "diff", "samba-es"], "at least two"),
        (["rules", "diff", "samba-es", "x/y"], "unknown rulebook"),
        (["rules", "comparison", "--output", str(a_dir)], "is a directory"),
        (["rules", "comparison", "--output", str(tmp / "no" / "dir" / "x.md")], "no directory"),
        (["rules", "comparison", "--output", str(existing)], "exists; pass --force"),
        (["rules", "comparison", "--output", str(link), "--force"], "symbolic link"),
        (["rules", "comparison", "--output", str(fifo), "--force"], "FIFO"),
        (["rules", "comparison", "--output", "/dev/full", "--force"], "device"),
        (["findings", "--game", "poker"], "invalid choice"),
        (["findings", "--kind", "typo"], "invalid choice"),
        # simulate: numbers, seatings, options, flag mixes, paths
        (["simulate", "escoba-es", "--games", big], "--games must be from 1"),
        (["simulate", "escoba-es", "--games", "0"], "--games must be from 1"),
        (["simulate", "escoba-es", "--games", "ten"], "whole number"),
        (["simulate", "escoba-es", "--seed", "-1"], "--seed must be from 0"),
        (["simulate", "escoba-es", "--max-hands", "0"], "--max-hands"),
        (["simulate", "escoba-es", "--players", "5"], "not played by 5 players"),
        (["simulate", "escoba-es", "--players", big], "--players must be from"),
        (["simulate", "escoba-es", "--layout", "2"], "no layout '2'"),
        (["simulate", "canasta-es", "--layout", "two-pairs", "--players", "2"], "--players says 2"),
        (["simulate", "escoba-es", "--option", "nope=1"], "has no option 'nope'"),
        (["simulate", "escoba-es", "--option", "justakey"], "is not KEY=VALUE"),
        (
            [
                "simulate",
                "samba-fr",
                "--option",
                "packs=six-packs",
                "--option",
                "jokers_per_pack=three-packs",
            ],
            "gives that mix",
        ),
        (["simulate", "escoba-es", "--policy", "clever"], "invalid choice"),
        (["simulate", "escoba-es", "--records", str(tmp / "no" / "r.jsonl")], "no directory"),
        (["simulate", "escoba-es", "--records", str(existing)], "exists; pass --force"),
        (["simulate", "escoba-es", "--records", "-", "--json"], "both want stdout"),
        (["simulate", "escoba-es", "--dead-ends", str(existing)], "not a directory"),
        (["simulate", "escoba-es", "--spec", str(tmp / "x.toml")], "does not exist"),
        (
            [
                "simulate",
                "escoba-es",
                "--games",
                "1",
                "--spec",
                str(tmp / "own" / "my-escoba.toml"),
            ],
            "defines 'my-escoba'",
        ),
        # report
        (["report", "escoba-es"], "--output"),
        (["report", "escoba-es", "--output", str(a_dir)], "is a directory"),
        (
            ["report", "escoba-es", "--output", str(tmp / "r.html"), "--compare", "nope"],
            "no clause",
        ),
        (
            ["report", "escoba-es", "--output", str(tmp / "r.html"), "--compare", "hand-size"],
            "nothing to compare",
        ),
        (
            [
                "report",
                "samba-en",
                "--output",
                str(tmp / "r.html"),
                "--compare",
                "opening-rule=meet,meet",
            ],
            "the same",
        ),
        # play, check, serve
        (
            ["play", "escoba-es", "--seed", "1", "--transcript", str(tmp / "no" / "x.jsonl")],
            "no directory",
        ),
        (["play", "escoba-es", "--seed", "1", "--transcript", str(a_dir)], "is a directory"),
        (
            ["play", "escoba-es", "--seed", "1", "--transcript", str(existing)],
            "exists; pass --force",
        ),
        (
            ["play", "escoba-es", "--seed", "1", "--transcript", str(link), "--force"],
            "symbolic link",
        ),
        (["play", "escoba-es", "--seed", "1", "--transcript", str(fifo), "--force"], "FIFO"),
        (["play", "escoba-es", "--seed", "1", "--transcript", "/dev/full", "--force"], "device"),
        (["play", "escoba-es", "--seed", "1", "--transcript", "-", "--json"], "both want stdout"),
        (["play", "escoba-es", "--seed", "1", "--dealer", "7", "--transcript", "-"], "--dealer"),
        (["play", "some/dir/escoba-es", "--seed", "1", "--transcript", "-"], "unknown rulebook"),
        (["play", "escoba-es", "--transcript", "-"], "--seed"),
        (["check", str(tmp / "missing.jsonl")], "does not exist"),
        (["check", str(a_dir)], "is a directory"),
        (["check", str(existing)], "malformed transcript"),
        (["serve", "--spec", str(tmp / "nope.toml")], "does not exist"),
    ]


@pytest.mark.slow
def test_every_bad_command_line_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "exists.jsonl").write_text("not a transcript\n", encoding="utf-8")
    (tmp_path / "adir").mkdir()
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "exists.jsonl")
    os.mkfifo(tmp_path / "fifo")
    own = tmp_path / "own"
    own.mkdir()
    escoba = (ROOT / "spec" / "escoba-es.toml").read_text(encoding="utf-8")
    (own / "my-escoba.toml").write_text(
        escoba.replace('id = "escoba-es"', 'id = "my-escoba"', 1), encoding="utf-8"
    )
    cases = _cases(tmp_path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: arbitro(*c[0]), cases))
    failures = []
    for (argv, word), proc in zip(cases, results, strict=True):
        lines = proc.stderr.splitlines()
        ok = (
            proc.returncode == 2
            and len(lines) == 1
            and lines[0].startswith("arbitro")
            and word in lines[0]
            and "Traceback" not in proc.stderr
        )
        if not ok:
            failures.append(f"{argv}: exit {proc.returncode}, stderr {proc.stderr!r}")
    assert not failures, "\n".join(failures)
    # nothing was written or replaced on the way
    assert (tmp_path / "exists.jsonl").read_text(encoding="utf-8") == "not a transcript\n"
    assert (tmp_path / "link.jsonl").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "adir",
        "exists.jsonl",
        "fifo",
        "link.jsonl",
        "own",
    ]


def test_a_full_device_on_stdout_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        proc = arbitro("rules", "list", "--json", stdout=full.fileno())
    assert proc.returncode == 2
    assert (
        proc.stderr == "arbitro: error: cannot write to standard output: no space left on device\n"
    )


@pytest.mark.slow
def test_help_and_version_work() -> None:
    assert arbitro("--version").stdout.startswith("arbitro ")
    assert "simulate" in arbitro("--help").stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["rules", "list"],
        ["rules", "show", "samba-fr", "packs"],
        ["rules", "diff", "samba-es", "samba-en", "--only-differences"],
        ["findings", "--game", "samba", "--declared-only"],
        ["simulate", "escoba-es", "--games", "3"],
    ],
)
def test_piped_output_is_plain_and_fits_100_columns(argv: list[str]) -> None:
    proc = arbitro(*argv)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout  # no colour or style codes through a pipe
    widest = max(len(line) for line in proc.stdout.splitlines())
    assert widest <= 100, f"a line of {widest} columns"
