"""`arbitro check` as a user runs it: hostile files get a malformed verdict and exit 2, never a
traceback; `--json` always prints JSON; several files and `--batch` print one verdict each.

The hostile files are the smallest reproducers of what once printed a traceback: a line nested
1,000 deep, a number of 4,301 digits, bytes that are not UTF-8 (with `--json`, no JSON was printed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arbitro.oracle.transcript import canonical_line
from tests.support.buggy_escoba import Bugs, play_game
from tests.support.serve import validator

VERDICT = validator("verdict.schema.json")


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "arbitro.cli", "check", *args],
        input=stdin,
        capture_output=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def game() -> list[str]:
    return [canonical_line(o) for o in play_game(seed=3, bugs=Bugs(), legal_lists=False)]


@pytest.mark.parametrize(
    ("second_line", "field"),
    [
        (b"[" * 1000 + b"]" * 1000, "<json>"),
        (b'{"type":"action","step":' + b"9" * 4301 + b"}", "<json>"),
        (b'{"type":"action","step":1,"hand":0,"seat":1,"action":{"n":' + b"[" * 40 + b"]" * 40
         + b"}}", "<json>"),
        (b'{"type":"hand","hand":0,"scores":[NaN,1]}', "<json>"),
        (b"\xff\xfe not utf-8", "<utf-8>"),
    ],
)  # fmt: skip
def test_hostile_lines_are_malformed_with_exit_2(
    tmp_path: Path, game: list[str], second_line: bytes, field: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(game[0].encode() + b"\n" + second_line + b"\n")
    text = run(str(path))
    assert text.returncode == 2 and b"Traceback" not in text.stderr
    assert text.stderr.decode().startswith(f"arbitro: malformed transcript: line 2: {field}: ")
    assert text.stderr.count(b"\n") == 1
    as_json = run(str(path), "--json")
    assert as_json.returncode == 2 and as_json.stderr == b""
    verdict = json.loads(as_json.stdout)
    VERDICT.validate(verdict)
    assert (verdict["status"], verdict["line"], verdict["field"]) == ("malformed", 2, field)


def test_several_files_and_a_batch_stream(tmp_path: Path, game: list[str]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(game) + "\n", encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(game[:-1]) + "\n", encoding="utf-8")
    out = run(str(good), str(cut), str(tmp_path / "missing.jsonl"), "--json")
    verdicts = [json.loads(line) for line in out.stdout.splitlines()]
    for v in verdicts:
        VERDICT.validate(v)
    assert [(v["file"], v["status"]) for v in verdicts] == [
        (str(good), "valid"),
        (str(cut), "incomplete"),
        (str(tmp_path / "missing.jsonl"), "malformed"),
    ]
    assert out.returncode == 2
    stream = ("\n".join(game) + "\n" + "\n".join(game[:-1]) + "\n").encode()
    batch = run("--batch", "-", stdin=stream)
    lines = batch.stdout.decode().splitlines()
    kinds = [json.loads(x)["type"] for x in game]
    actions, hands = kinds.count("action"), kinds.count("hand")
    assert lines[0] == f"- #0: valid: {actions} actions in {hands} hands, every score as claimed"
    assert lines[1].startswith("- #1: incomplete: ")
    assert batch.returncode == 1
