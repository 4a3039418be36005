"""`prove --refine --option KEY=LABEL`: the walk runs under the chosen reading, so a broken engine
that only shows under a reading other than the book's default is caught there, and the transcript
names the reading for `arbitro check` to replay."""

from __future__ import annotations

from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.model.rummy import scoring
from arbitro.proofs import refine
from arbitro.proofs.rummy import refine as rummy_refine

READING = {"score_losing_melds": "winners-only"}


def _nobody_out_scores_no_melds(t: Any, state: Any, reason: str, out_seat: int) -> Any:
    """The engine's scoring with a planted bug: when nobody went out, the sides that keep their
    melds under the book's reading (*:score-losing-melds) score none of them. Under the default
    reading (every side keeps its melds) it scores like the engine; under samba-es's
    winners-only reading it drops every side's melds when the stock runs out."""
    res = scoring.score_hand(t, state, reason, out_seat)
    if out_seat >= 0 or t.rules.score_losing_melds:
        return res
    cats = [dict(c) for c in res.categories]
    scores = tuple(s - c["melds"] for s, c in zip(res.scores, cats, strict=True))
    for c in cats:
        c["melds"] = 0
    return res._replace(scores=scores, categories=tuple(tuple(c.items()) for c in cats))


def _walk(options: dict[str, str] | None, monkeypatch: pytest.MonkeyPatch) -> list[refine.Report]:
    """samba-small's first states and 30 states of samba-es's full-size play (its kept hands left
    out: hundreds of states, the walk of `prove --refine` itself, not of this test)."""
    monkeypatch.delitem(refine.DIRECTED, "rummy", raising=False)
    return refine.run(["samba-es"], ["samba-small"], samples=30, budget=20, options=options)


def test_a_bug_under_a_reading_is_caught_only_when_the_reading_is_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rummy_refine, "score_hand", _nobody_out_scores_no_melds)
    assert all(r.ok for r in _walk(None, monkeypatch))  # the default reading cannot show it
    got = _walk(READING, monkeypatch)
    bad = [r for r in got if not r.ok]
    assert bad and bad[0].first is not None, [(r.target, r.states) for r in got]
    assert "[score_losing_melds=winners-only]" in bad[0].target
    assert "'melds'" in bad[0].first.detail
    assert bad[0].transcript[0]["options"] == READING


def test_the_engine_agrees_under_the_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(r.ok for r in _walk(READING, monkeypatch))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["samba-es", "--option", "score_losing_melds=nosuch"], "score_losing_melds"),
        (["samba-es", "--all-readings"], "--all-readings is for the properties"),
        (["--config", "samba-small", "--option", "score_losing_melds=winners-only"], "RULEBOOK"),
    ],
)
def test_the_cli_refuses_a_reading_it_cannot_walk(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prove", "--refine", "--samples", "1", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
