"""Every command's help ends with examples, and each example is a command line arbitro reads (a
stale one, naming a flag or a rulebook that no longer exists, fails here)."""

from __future__ import annotations

import shlex

import pytest

from arbitro.cli.examples import EXAMPLES, subparsers
from arbitro.cli.main import UsageError, build_parser
from arbitro.model.spec import rulebook_ids


def _words(line: str) -> list[str]:
    """The arguments after `arbitro`, without the shell's redirections."""
    words = shlex.split(line)
    assert words[0] == "arbitro", line
    cut = next((i for i, w in enumerate(words) if w in ("<", ">", "|")), len(words))
    return words[1:cut]


def check_example(line: str) -> None:
    """The example parses, and the rulebook it names exists."""
    args = build_parser().parse_args(_words(line))
    book = getattr(args, "rulebook", None)
    assert book is None or book in rulebook_ids(), line


def test_every_leaf_command_has_examples() -> None:
    commands = subparsers(build_parser())
    leaves = [name for name, p in commands.items() if not subparsers(p)]
    assert sorted(n for n in leaves if n not in EXAMPLES) == []
    assert sorted(n for n in EXAMPLES if n not in commands) == []


@pytest.mark.parametrize("line", [line for lines in EXAMPLES.values() for line in lines])
def test_each_example_is_a_command_line_arbitro_reads(line: str) -> None:
    check_example(line)


def test_the_help_shows_the_examples_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["simulate", "--help"])
    out = capsys.readouterr().out
    tail = out.split("examples:\n", 1)[1].splitlines()
    assert [t.strip() for t in tail] == list(EXAMPLES["simulate"])


@pytest.mark.parametrize(
    "stale",
    [
        "arbitro simulate samba-en --gmes 200",  # a flag that does not exist
        "arbitro simulate samba-de --games 200",  # a rulebook that does not exist
        "arbitro rules shw samba-en",  # a subcommand that does not exist
    ],
)
def test_a_stale_example_is_caught(stale: str) -> None:
    with pytest.raises((UsageError, AssertionError)):
        check_example(stale)


def test_the_quick_examples_run(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few examples run as printed, in a scratch folder (they write files there)."""
    from arbitro.cli.main import main

    monkeypatch.chdir(tmp_path)
    for line in (
        "arbitro rules list",
        "arbitro rules show samba-en frozen-by draw-count",
        "arbitro play samba-en --seed 7 --transcript game.jsonl",
        "arbitro check game.jsonl",
        "arbitro explore escoba-es --config escoba-tiny",
        "arbitro schema --list",
    ):
        assert line in [x for lines in EXAMPLES.values() for x in lines], line
        assert main(_words(line)) == 0, line
