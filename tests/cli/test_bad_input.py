"""Bad input gets one line and exit 2, never an internal error (exit 70) or a traceback; check
reads its input bounded and gives each transcript of a batch its own verdict, as it ends."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbitro.cli.main import main

LONG = "a" * 300  # one name longer than the 255 bytes Linux allows


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("t") / "game.jsonl"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "stderr", io.StringIO())
        assert main(["play", "escoba-es", "--seed", "1", "--transcript", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def _one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", LONG],
        ["rules", "show", "--spec", f"{LONG}.toml"],
        ["simulate", "escoba-es", "--spec", f"{LONG}.toml"],
        ["explore", "escoba-es", "--config", f"{LONG}.toml"],
        ["explore", "escoba-es", "--config", LONG],
    ],
)
def test_a_file_name_over_255_bytes_is_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_exit_2(argv, capsys)
    assert "too long" in err or "no such configuration" in err
    assert LONG not in err  # the name is shown cut, not 300 characters of it


@pytest.mark.parametrize(
    "argv",
    [
        ["explore", "escoba-es", "--config", "escoba-tiny", "--dot", f"{LONG}.dot"],
        ["simulate", "escoba-es", "--games", "1", "--dead-ends", LONG],
    ],
)
def test_an_output_name_over_255_bytes_is_one_line(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    _one_line_exit_2(argv, capsys, "too long")


def test_a_fifo_is_named_as_a_fifo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    _one_line_exit_2(["rules", "show", "--spec", str(fifo)], capsys, "is a FIFO")
    _one_line_exit_2(["explore", "escoba-es", "--config", str(fifo)], capsys, "is a FIFO")
    _one_line_exit_2(["check", str(fifo)], capsys, "is a FIFO")


def test_an_empty_name_is_named_as_empty(capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line_exit_2(["check", ""], capsys, "an empty file name")
    assert "directory" not in err and "<file>" not in err
    err = _one_line_exit_2(["rules", "show", "--spec", ""], capsys, "an empty file name")
    assert "directory" not in err


def test_a_missing_file_message_names_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_exit_2(["check", str(tmp_path / "gone.jsonl")], capsys, "does not exist")
    assert "<file>" not in err and "gone.jsonl" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_prove_timeout_must_be_a_finite_positive_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_line_exit_2(["prove", "escoba-es", "--timeout", value], capsys, "--timeout")


def test_totals_past_2_53_are_named_as_such(
    tmp_path: Path, transcript: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = transcript.splitlines()
    header = json.loads(lines[0])
    header.update(scores=[2**53 + 1, 0], hand=3)
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(header) + "\n", encoding="utf-8")
    err = _one_line_exit_2(["check", str(path)], capsys, "2^53")
    assert "one per side" not in err


def test_a_lone_surrogate_in_check_json_is_escaped_not_an_internal_error(
    tmp_path: Path, transcript: str
) -> None:
    lines = transcript.splitlines()
    # an escaped lone surrogate inside an action line (JSON allows it, UTF-8 cannot carry it)
    # (a field name the message echoes back)
    assert ',"seat":' in lines[2]
    head, tail = lines[2].rsplit(',"seat":', 1)  # the line's own seat, after the action's
    lines[2] = f'{head},"\\ud800seat":{tail}'
    path = tmp_path / "sur.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for flag in ("--json", "--batch"):
        r = subprocess.run(
            [sys.executable, "-m", "arbitro.cli", "check", flag, str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 2, r.stderr
        assert "internal error" not in r.stderr and "Traceback" not in r.stderr
        if flag == "--json":
            assert json.loads(r.stdout)["status"] == "malformed"


def test_one_non_utf8_line_spoils_only_its_own_transcript_of_a_batch(
    tmp_path: Path, transcript: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = transcript.encode("utf-8").splitlines(keepends=True)
    spoiled = [*lines[:3], b'{"type":"action","x":"\xff"}\n', *lines[3:]]
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"".join(lines + spoiled + lines))
    assert main(["check", "--batch", "--json", str(path)]) == 2
    verdicts = [json.loads(v) for v in capsys.readouterr().out.splitlines()]
    assert [v["status"] for v in verdicts] == ["valid", "malformed", "valid"]
    assert verdicts[1]["line"] == len(lines) + 4 and verdicts[1]["field"] == "<utf-8>"


class _Endless(io.RawIOBase):
    """/dev/zero: NUL bytes for ever, never a newline."""

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        b[:] = bytes(len(b))
        return len(b)


@pytest.mark.parametrize("batch", [False, True])
def test_an_endless_line_on_stdin_ends_the_reading(
    batch: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arbitro.oracle import check

    monkeypatch.setattr(check, "MAX_LINE", 4096)
    verdicts = list(check._verdicts_of(io.BufferedReader(_Endless()), "-", batch))
    assert len(verdicts) == 1
    assert verdicts[0]["status"] == "malformed" and verdicts[0]["field"] == "<line>"


class _Producer(io.RawIOBase):
    """A producer that has written whole transcripts and then waits: reading past what it wrote
    would block for ever, so a verdict must come from what was written."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        if not self.data:
            raise AssertionError("read past what the producer wrote before giving a verdict")
        n = min(len(b), len(self.data))
        b[:n], self.data = self.data[:n], self.data[n:]
        return n


def test_a_batch_verdict_comes_as_its_transcript_ends(transcript: str) -> None:
    from arbitro.oracle import check

    header = transcript.splitlines(keepends=True)[0]
    stream = io.BufferedReader(_Producer((transcript + header).encode("utf-8")), buffer_size=64)
    verdicts: Iterator[dict[str, object]] = check._verdicts_of(stream, "-", True)
    assert next(verdicts)["status"] == "valid"


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["explore", "escoba-es", "--config", "escoba-tiny", "--deals", "100000000"], "--deals"),
        (["explore", "escoba-es", "--config", "escoba-tiny", "--max-states", "0"], "--max-states"),
        (["perft", "escoba-es", "--seed", "1", "--depth", "100000000000000000000000"], "--depth"),
        (["perft", "escoba-es", "--seed", "1", "--depth", "65"], "--depth"),
    ],
)
def test_explore_and_perft_refuse_what_would_never_end(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_line_exit_2(argv, capsys, flag)


def test_explore_has_a_default_bound_on_states() -> None:
    from arbitro.cli.explore_cmd import MAX_STATES
    from arbitro.cli.main import build_parser

    args = build_parser().parse_args(["explore", "escoba-es", "--config", "escoba-12"])
    assert args.max_states == MAX_STATES
    raised = build_parser().parse_args(
        ["explore", "escoba-es", "--config", "escoba-12", "--max-states", "20000000"]
    )
    assert raised.max_states == 20_000_000


def test_a_bounded_exploration_says_how_to_raise_the_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explore", "escoba-es", "--config", "escoba-12", "--max-states", "10"]) == 0
    assert "raise --max-states" in capsys.readouterr().out
