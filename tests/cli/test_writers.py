"""Every file arbitro writes goes through arbitro.safe_write: a planted link or folder at the
temporary name is never written through, and no other writer exists in the code users run."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from arbitro.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("arbitro", "model", "proofs")

# calls that write a file, by the name they are called by
WRITING_METHODS = {"write_text", "write_bytes", "rename", "symlink_to", "hardlink_to", "touch"}
WRITING_FUNCTIONS = {
    ("os", "replace"),
    ("os", "rename"),
    ("os", "link"),
    ("os", "symlink"),
    ("os", "open"),
    ("os", "fdopen"),
    ("tempfile", "mkstemp"),
    ("tempfile", "NamedTemporaryFile"),
    ("shutil", "copy"),
    ("shutil", "copy2"),
    ("shutil", "copyfile"),
    ("shutil", "move"),
}

# the writers that are not arbitro.safe_write, each with why it may stay
ALLOWED = {
    ("arbitro/safe_write.py", "*"): "the one writer",
    ("arbitro/cli/main.py", "os.open"): "opens /dev/null to quiet a broken stdout",
    ("proofs/escoba/hand_scores.py", ".write_text"): (
        "a maintainer's regeneration script that rewrites the project's own witness hands; "
        "proofs/ may not import the arbitro layer"
    ),
    ("proofs/escoba/search.py", ".write_text"): (
        "a maintainer's regeneration script that rewrites the project's own data file; "
        "proofs/ may not import the arbitro layer"
    ),
    ("proofs/rummy/score_hands.py", ".write_text"): (
        "a maintainer's regeneration script that rewrites the project's own deck orders; "
        "proofs/ may not import the arbitro layer"
    ),
}


def _mode(call: ast.Call) -> str:
    for kw in call.keywords:
        if kw.arg == "mode" and isinstance(kw.value, ast.Constant):
            return str(kw.value.value)
    pos = call.args[1:2] if isinstance(call.func, ast.Name) else call.args[:1]
    if pos and isinstance(pos[0], ast.Constant):
        return str(pos[0].value)
    return "r"


def _writers(path: Path) -> list[tuple[str, int]]:
    """(what, line) for every call in the file that writes a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else None
            if (owner, f.attr) in WRITING_FUNCTIONS:
                found.append((f"{owner}.{f.attr}", node.lineno))
            elif owner in ("safe_write", "self", "cls"):
                continue  # the one writer, or a method of the class itself
            elif f.attr == "rename" and len(node.args) != 1:
                continue  # Path.rename takes one argument; a renaming of data takes more
            elif f.attr in WRITING_METHODS:
                found.append((f".{f.attr}", node.lineno))
            elif f.attr == "open" and any(c in _mode(node) for c in "wax+"):
                found.append((".open", node.lineno))
            elif f.attr == "savefig" and node.args and getattr(node.args[0], "id", "") != "buf":
                found.append((".savefig", node.lineno))
        elif isinstance(f, ast.Name) and f.id == "open" and any(c in _mode(node) for c in "wax+"):
            found.append(("open", node.lineno))
    return found


def _all_writers() -> list[str]:
    out = []
    for top in SHIPPED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if (rel, "*") in ALLOWED:
                continue
            for what, line in _writers(path):
                if (rel, what) not in ALLOWED:
                    out.append(f"{rel}:{line}: {what}")
    return out


def test_no_file_is_written_except_through_safe_write() -> None:
    assert _all_writers() == []


def test_the_scanner_sees_each_kind_of_writer(tmp_path: Path) -> None:
    """The scan is shown to catch what it looks for (else an empty list proves nothing)."""
    src = tmp_path / "w.py"
    src.write_text(
        "import os, shutil, tempfile\n"
        "from pathlib import Path\n"
        "Path('a').write_text('x')\n"
        "p.with_name('t').write_bytes(b'')\n"
        "open('f', 'w')\n"
        "open('f', mode='ab')\n"
        "Path('f').open('w')\n"
        "os.replace('a', 'b')\n"
        "shutil.copy('a', 'b')\n"
        "tempfile.mkstemp()\n"
        "fig.savefig('out.png')\n"
        "open('f')\n"  # reading: not a writer
        "fig.savefig(buf, format='png')\n"  # into memory: not a writer
        "safe_write.write_text('f', 'x')\n",  # the one writer
        encoding="utf-8",
    )
    kinds = [w for w, _ in _writers(src)]
    assert kinds == [
        ".write_text",
        ".write_bytes",
        "open",
        "open",
        ".open",
        "os.replace",
        "shutil.copy",
        "tempfile.mkstemp",
        ".savefig",
    ]


@pytest.mark.parametrize("flag", ["--dot", "--graphml", "--picture"])
def test_explore_never_writes_through_a_link_at_the_temporary_name(
    tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    out = tmp_path / ("out.svg" if flag == "--picture" else "out.dot")
    Path(f"{out}.tmp").symlink_to(victim)
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--deal", "0", flag, str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    assert victim.read_text(encoding="utf-8") == "keep\n"
    assert out.is_file() and not out.is_symlink() and out.stat().st_size > 0


def test_explore_with_a_folder_at_the_temporary_name_writes_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.dot"
    Path(f"{out}.tmp").mkdir()
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--deal", "0", "--dot", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    assert out.read_text(encoding="utf-8").startswith("digraph")


def test_explore_refuses_a_link_as_its_output_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    out = tmp_path / "out.dot"
    out.symlink_to(victim)
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--dot", str(out), "--force"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and err.count("\n") == 1
    assert victim.read_text(encoding="utf-8") == "keep\n"


def test_the_results_updater_never_writes_through_a_link_at_the_temporary_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arbitro.cli import prove

    doc = tmp_path / "doc.md"
    doc.write_text(f"intro\n{prove.MARKERS[0]}\nold\n{prove.MARKERS[1]}\nend\n", encoding="utf-8")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    Path(f"{doc}.tmp").symlink_to(victim)

    class Report:
        results = ()
        seconds = 0.0

    monkeypatch.setattr("arbitro.proofs.runner.prove", lambda *a, **k: Report())
    monkeypatch.setattr(prove, "render", lambda report, version: "fresh\n")
    prove.update_doc(str(doc))
    assert victim.read_text(encoding="utf-8") == "keep\n"
    assert "fresh" in doc.read_text(encoding="utf-8")


def _dead_ends(out: Path, *extra: str) -> list[str]:
    # the whole-state checks are left out (--check none): what is checked here is the writing
    games = ["simulate", "samba-en", "--games", "1", "--seed", "0", "--check", "none"]
    return [*games, "--dead-ends", str(out), *extra]


def test_dead_end_transcripts_are_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # samba-en leaves a player stuck with one card in the first game of seed 0 (see
    # test_simulate_records): the run writes that game's transcript, where a file is already
    out = tmp_path / "dead"
    out.mkdir()
    mine = out / "samba-en-seed0-game0.jsonl"
    mine.write_text("mine\n", encoding="utf-8")
    assert main(_dead_ends(out)) == 2
    err = capsys.readouterr().err
    assert "exists; pass --force" in err and err.count("\n") == 1
    assert mine.read_text(encoding="utf-8") == "mine\n"
    assert main([*_dead_ends(out), "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dead_end_transcripts"] == [str(mine)]
    assert mine.read_text(encoding="utf-8") != "mine\n"


def test_a_link_among_the_dead_end_transcripts_is_refused_before_simulating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "dead"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    (out / "samba-en-seed0-game0.jsonl").symlink_to(victim)

    def no_simulation(*a: object, **k: object) -> None:
        raise AssertionError("simulated before refusing the link")

    monkeypatch.setattr("arbitro.simulation.simulate.simulate", no_simulation)
    assert main([*_dead_ends(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and err.count("\n") == 1
    assert victim.read_text(encoding="utf-8") == "keep\n"
