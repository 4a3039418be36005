"""arbitro show: a position line or a transcript's position as a board in 100 columns."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arbitro import Oracle
from arbitro.cli.main import main
from arbitro.oracle.notation import move_text, position_line


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


def _bug_report_position() -> str:
    """Seat 1 to move holding the caballo of oros (worth 9, *Jugadores y cartas*) with the 6 of
    oros on the table: 9 + 6 make 15, so the caballo can capture (*Captura*)."""
    oracle = Oracle("escoba-es")
    hands = [["Rb", "1e", "4e"], ["Co", "Ro", "1b"]]
    table = ["6o", "4c", "4b", "2e"]  # 16: no opening sweep
    stock = [c for c in oracle.describe()["deck"] if c not in {*hands[0], *hands[1], *table}]
    dealt = {"hands": hands, "table": table, "stock": stock}
    return position_line(oracle.deal(oracle.new_game(), dealt=dealt))


def test_show_judges_the_move_of_a_bug_report(capsys: pytest.CaptureFixture[str]) -> None:
    """A bug report is a position line and a move: `show --move` draws the position and says
    whether the rules allow the move there, naming the clause that refuses it (exit 1)."""
    line = _bug_report_position()
    assert main(["show", line, "--move", "1@Co"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("1@Co refused:") and out[-1].endswith("(escoba-es:capture-forced)")
    assert any("◀ to move" in x for x in out)
    assert main(["show", line, "--move", "Cox6o"]) == 0  # the seat to move when none is given
    assert capsys.readouterr().out.splitlines()[-1] == "1@Cox6o is legal here (escoba-es)"
    assert main(["show", line, "--move", "0@Rb"]) == 1
    assert "(escoba-es:play-direction)" in capsys.readouterr().out


def test_show_names_a_bad_move_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", _bug_report_position(), "--move", "1@Zz"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "1@Zz" in err


def test_the_bug_report_of_the_protocol_doc_shows_what_it_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")
    after = doc[doc.index("To file one for a peer's illegal move") :]
    rulebook, line, move = after.split("```")[1].strip().splitlines()
    assert line == _bug_report_position()
    assert main(["show", line, "--move", move, "--rulebook", rulebook]) == 1
    said = capsys.readouterr().out.splitlines()[-1]
    assert f"`{said}`" in " ".join(after.split())


def test_a_refusal_shown_fits_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """A refusal that names many captures is wrapped: the 2 of copas (2) laid where 1o 2o Co Ro
    1c Rc 7b Rb Ce lie can take many groups making 13 (*Captura*)."""
    line = (
        "escoba 2 2 _ play 0 1 0 5 4b5b7e/2cSb5e 1o2oCoRo1cRc7bRbCe 1b4o3o4eSe5c "
        "6o3c4c6c7cSc2b3b6bCb6e/5o7oSoCc1e2e3eRe 1,0 0 0,0 -"
    )
    assert main(["show", line, "--move", "1@2c"]) == 1
    out = capsys.readouterr().out.splitlines()
    said = out[out.index(next(x for x in out if x.startswith("1@2c refused"))) :]
    assert len(said) > 1 and "(escoba-es:capture-forced)" in said[-1]
    assert max(len(x) for x in out) <= 100


def test_a_witness_game_shows_its_last_position_and_move(tmp_path: Path) -> None:
    """A findings witness that is a game shows, in the HTML report, the position before its last
    move and that move, drawn as `show` draws them; a game that does not replay shows none."""
    from arbitro.findings.core import Finding
    from arbitro.oracle.show import transcript_report
    from arbitro.reports.findings_report import html

    path = tmp_path / "game.jsonl"
    assert main(["play", "escoba-es", "--seed", "2", "--transcript", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    got = transcript_report(text)
    assert got is not None
    line, move, board = got
    oracle = Oracle("escoba-es")
    actions = [json.loads(x) for x in text.splitlines() if '"type":"action"' in x]
    # the last action, replayed from the line, is legal there and ends the game's last hand
    assert move == move_text(actions[-1]["action"])
    after = oracle.apply(line, move)
    assert after["phase"] in ("deal", "over") and after["last_hand"] is not None
    assert "◀ to move" in board
    finding = Finding(
        "dead-end", "escoba", ("escoba-es",), "t", (), "s", witness={"transcript": text}
    )
    page = html([finding], [], "test")
    assert f"<code>{move}</code>" in page and "class='board'" in page
    cut = Finding("dead-end", "escoba", ("escoba-es",), "t", (), "s", witness={"transcript": "{"})
    assert transcript_report("{") is None and "class='board'" not in html([cut], [], "test")
