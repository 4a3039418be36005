"""`arbitro completion SHELL`: the scripts complete commands, subcommands, options, their values
and rulebook ids in the shells themselves (zsh and fish skip where they are not installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arbitro.cli.main import main

# what a person typing expects (the book ids are those `arbitro rules list` shows)
CASES = [
    ("arbitro sim", ["simulate"]),
    ("arbitro rules s", ["show"]),
    ("arbitro simulate samba-en --ga", ["--games"]),
    ("arbitro simulate samba-en --policy ", ["fast", "uniform"]),
    ("arbitro explore escoba-es --config escoba-t", ["escoba-tiny"]),
    ("arbitro rules show samba-e", ["samba-en", "samba-es"]),
]


def _script(shell: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["completion", shell]) == 0
    path = tmp_path / f"arbitro.{shell}"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


BASH_ASK = """source {script}
ask() {{ read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("");
  COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMPREPLY=(); _arbitro; echo "${{COMPREPLY[*]}}"; }}
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_what_is_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = _script("bash", tmp_path, capsys)
    program = BASH_ASK.format(script=script) + "".join(f"ask {c!r}\n" for c, _ in CASES)
    got = subprocess.run(
        ["bash", "--norc", "-c", program], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert got.returncode == 0 and not got.stderr, got.stderr
    for (typed, want), line in zip(CASES, got.stdout.splitlines(), strict=True):
        assert sorted(line.split()) == sorted(want), (typed, line)


def test_a_completion_that_offers_a_wrong_word_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check above on a script whose option list lost --games (a stale script)."""
    script = _script("bash", tmp_path, capsys)
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace(" --games ", " "), encoding="utf-8")
    program = BASH_ASK.format(script=script) + "ask 'arbitro simulate samba-en --ga'\n"
    got = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True)
    assert got.stdout.split() != ["--games"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_what_is_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = _script("fish", tmp_path, capsys)
    empty = tmp_path / "empty"
    empty.mkdir()  # no files to offer beside the names
    for typed, want in CASES:
        got = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C {typed!r}"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=empty,
        )
        offered = [line.split("\t")[0] for line in got.stdout.splitlines()]
        assert set(want) <= set(offered), (typed, offered)
        assert not got.stderr, got.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_loads_the_script_and_finds_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # outside a completion widget zsh's compgen does not filter by the word typed: what is
    # checked here is that the script loads and picks the right list for the command typed
    script = _script("zsh", tmp_path, capsys)
    program = (
        f"autoload -U compinit && compinit -u; source {script}; "
        "COMP_WORDS=(arbitro rules ''); COMP_CWORD=2; COMPREPLY=(); _arbitro; print -r -- $COMPREPLY"
    )
    got = subprocess.run(
        ["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["list", "show", "diff", "comparison", "trace"]


def test_an_unknown_shell_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'tcsh'" in err
