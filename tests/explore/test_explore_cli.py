"""`arbitro explore` and `arbitro perft` as a user runs them: output, files, and one-line errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arbitro.cli.main import main


def test_explore_prints_the_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "escoba-es", "--config", "escoba-tiny"]) == 0
    out = capsys.readouterr().out
    assert "not the book's" in out
    assert "(exhausted)" in out
    assert "deadlocks: 0" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_explore_json_and_graph_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [tmp_path / "g.graphml", tmp_path / "g.dot", tmp_path / "g.svg"]
    argv = ["explore", "escoba-es", "--config", "escoba-12", "--json"]
    argv += ["--graphml", str(files[0]), "--dot", str(files[1]), "--picture", str(files[2])]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exhausted"] and data["states"] > 0
    assert data["states"] == sum(data["states_per_depth"])
    text = files[0].read_text(encoding="utf-8")
    assert text.count("<node ") == data["states"]
    assert text.count("<edge ") == data["edges"]
    assert files[1].read_text(encoding="utf-8").startswith("digraph")
    assert "<svg" in files[2].read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explore", "escoba-es", "--config", "nonesuch"], "no such configuration"),
        (["explore", "samba-es", "--config", "escoba-12"], "derives from escoba-es"),
        (["explore", "escoba-xx", "--config", "escoba-12"], "unknown rulebook"),
        (["explore", "escoba-es", "--config", "escoba-12", "--deals", "0"], "--deals"),
        (["explore", "escoba-es", "--config", "escoba-12", "--picture", "x.gif"], ".svg or .png"),
        (["perft", "escoba-es", "--seed", "1", "--depth", "-1"], "--depth"),
    ],
)
def test_bad_arguments_get_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_configuration_file_with_a_bad_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "c.toml"
    f.write_text('name = "c"\nrulebook = "escoba-es"\nhand_size = 30\n', encoding="utf-8")
    assert main(["explore", "escoba-es", "--config", str(f)]) == 2
    assert "hand_size:" in capsys.readouterr().err


def test_explore_never_writes_through_a_link_or_over_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("keep me\n", encoding="utf-8")
    link = tmp_path / "link.dot"
    os.symlink(keep, link)
    assert main(["explore", "escoba-es", "--config", "escoba-tiny", "--dot", str(link)]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert main(["explore", "escoba-es", "--config", "escoba-tiny", "--dot", str(keep)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert keep.read_text(encoding="utf-8") == "keep me\n"


def test_perft_divide_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "escoba-es", "--seed", "3", "--depth", "3", "--divide", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sequences"] == sum(row["sequences"] for row in data["divide"])
    assert main(["perft", "escoba-es", "--seed", "3", "--depth", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sequences"] == data["sequences"]
