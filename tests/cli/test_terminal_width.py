"""Text output fits the width it is given ($COLUMNS, else the terminal's, else 100 when piped),
and colour appears only on a terminal without $NO_COLOR."""

from __future__ import annotations

import io

import pytest

from arbitro.cli.main import main
from arbitro.reports.terminal import coloured, width


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "argv",
    [
        ["findings", "--declared-only"],
        ["explore", "escoba-es", "--config", "escoba-tiny"],
        ["rules", "show", "samba-en"],
    ],
)
@pytest.mark.parametrize("columns", [60, 100])
def test_text_fits_the_columns(
    argv: list[str],
    columns: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and max(len(line) for line in lines) <= columns
    # the width is used, not just respected: some line comes near it
    assert max(len(line) for line in lines) > columns - 15


def test_piped_output_is_100_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert width(io.StringIO()) == 100


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in coloured("PROVED", "bold green", _Terminal())
    assert coloured("PROVED", "bold green", io.StringIO()) == "PROVED"
    monkeypatch.setenv("NO_COLOR", "1")
    assert coloured("PROVED", "bold green", _Terminal()) == "PROVED"
