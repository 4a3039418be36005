"""arbitro show: a position line or a transcript's position as a board in 100 columns."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arbitro import Oracle
from arbitro.cli.main import main
from arbitro.oracle.notation import position_line


def test_show_a_position_line_fits_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    oracle = Oracle("samba-en")
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), random.Random(3).sample(deck, len(deck)))
    assert main(["show", position_line(state), "--rulebook", "samba-en"]) == 0
    out = capsys.readouterr().out
    assert "to move" in out and "pile" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_show_a_transcript_at_a_step(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    assert main(["play", "escoba-es", "--seed", "1", "--transcript", str(path)]) == 0
    capsys.readouterr()
    assert main(["show", str(path), "--step", "1"]) == 0
    out = capsys.readouterr().out
    assert "seat 0" in out and "table" in out and "deal 1" in out
