"""The README's examples run as printed: each `arbitro` line of its shell blocks runs and exits 0
(the Python block is run by tests/arbitro/test_board.py), and every option its table of commands
names is one the command takes."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from arbitro.cli.examples import subparsers
from arbitro.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def shell_examples(text: str) -> list[str]:
    """The command lines of the ```sh blocks, comments cut."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    lines = [line.split("#", 1)[0].strip() for b in blocks for line in b.splitlines()]
    return [line for line in lines if line]


def test_the_shell_examples_run_as_printed() -> None:
    lines = shell_examples(README)
    assert lines, "no shell example found"
    for line in lines:
        words = shlex.split(line)
        if words == ["uv", "run", "pytest"]:
            continue  # the test suite itself, which is running
        assert words[:3] == ["uv", "run", "arbitro"], f"an example this test cannot run: {line}"
        # `uv run` is this environment's interpreter: run the same command line in it
        got = subprocess.run(
            [sys.executable, "-m", "arbitro.cli", *words[3:]],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        assert got.returncode == 0 and got.stdout, (line, got.stderr)


def unknown_flags(text: str) -> list[str]:
    """`command --flag` pairs the README's inline synopses name that the command does not take."""
    commands = subparsers(build_parser())
    bad = []
    for span in re.findall(r"`(?:uv run )?arbitro ([^`]*)`", text):
        words = span.replace("\\|", "|").split()
        path = ""
        while words and f"{path} {words[0]}".strip() in commands:
            path = f"{path} {words.pop(0)}".strip()
        if not path:
            continue
        known = commands[path]._option_string_actions
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", " ".join(words)):
            if flag not in known:
                bad.append(f"{path} {flag}")
    return bad


def test_every_option_the_readme_names_exists() -> None:
    assert unknown_flags(README) == []


def test_a_readme_naming_a_missing_option_is_caught() -> None:
    assert unknown_flags("`arbitro simulate RULEBOOK [--pictures DIR]`") == ["simulate --pictures"]
    assert unknown_flags("`arbitro rules diff ID ID [--only-diff]`") == ["rules diff --only-diff"]
