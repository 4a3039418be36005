"""A mistyped command, rulebook, option, reading, clause or configuration is one line, exit 2,
naming the one meant when it is close (and nothing when no name is close)."""

from __future__ import annotations

import pytest

from arbitro.cli.main import main
from arbitro.model.errors import did_you_mean


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["simulat", "samba-en"], "did you mean simulate?"),
        (["rules", "shw", "samba-en"], "did you mean show?"),
        (["simulate", "samba-eng", "--games", "1"], "did you mean samba-en?"),
        (["simulate", "samba-en", "--gmes", "1"], "did you mean --games?"),
        (["simulate", "samba-en", "--games", "1", "--polcy=fast"], "did you mean --policy?"),
        (["simulate", "samba-en", "--option", "target-rul=exceed"], "did you mean target_rule?"),
        (["simulate", "samba-en", "--option", "target-rule=exced"], "did you mean exceed?"),
        (["rules", "show", "samba-en", "frozn-by"], "did you mean frozen-by?"),
        (["rules", "trace", "samba-en:frozn-by"], "did you mean frozen-by?"),
        (["explore", "escoba-es", "--config", "escoba-tny"], "did you mean escoba-tiny?"),
    ],
)
def test_a_near_miss_names_what_was_meant(
    argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert meant in err, err
    assert err.count("did you mean") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["zzzzzz"],
        ["simulate", "qqqqqq", "--games", "1"],
        ["simulate", "samba-en", "--xyzzy"],
        ["rules", "show", "samba-en", "qqqqqqqq"],
    ],
)
def test_nothing_close_suggests_nothing(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean" not in err, err


def test_only_the_closest_names_are_offered() -> None:
    known = ["samba-en", "samba-es", "samba-fr", "canasta-es", "escoba-es"]
    assert did_you_mean("samba-eng", known) == "; did you mean samba-en?"
    # equally close: both; - and _ and case alike
    assert did_you_mean("SAMBA_E", known) == "; did you mean samba-en, samba-es?"
    assert did_you_mean("poker", known) == ""
