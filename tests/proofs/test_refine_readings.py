"""`prove --refine --option KEY=LABEL`: the walk runs under the chosen reading, so a broken engine
that only shows under a reading other than the book's default is caught there, and the transcript
names the reading for `arbitro check` to replay."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.model.rummy import scoring
from arbitro.model.rummy.model import RUMMY
from arbitro.model.schema import RummyRules, rules_for
from arbitro.oracle.check import check_lines
from arbitro.proofs import refine
from arbitro.proofs.rummy import positions
from arbitro.proofs.rummy import refine as rummy_refine
from tests.support.quick import first_of_each

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
    out, and those walked under the book's other readings: hundreds of states, the walk of
    `prove --refine` itself, not of this test)."""
    monkeypatch.delitem(refine.DIRECTED, "rummy", raising=False)
    monkeypatch.delitem(refine.READINGS, "rummy", raising=False)
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


# ---------------------------------------------------------------- the default walk, other readings


def _seating(book: str, players: int) -> Any:
    return next(s for s in RUMMY.seatings(rules_for(book)) if s.players == players)


def _under_readings(model: Any, book: str, players: int) -> list[refine.Report]:
    """The kept hands `prove --refine` walks under the book's other readings, for one seating."""
    rules = rules_for(book)
    return refine.under_readings(model, rules, _seating(book, players), rulebook=book)


def test_the_default_walk_reaches_a_bug_under_another_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-stock-out-melds` (the melds of no side scored when nobody went
    out) is the engine under every default reading; `prove --refine` without `--option` walks
    samba-es's eager hand under its winners-only reading of *:score-losing-melds too, and the
    position row catches it there, the transcript's header naming the reading."""
    monkeypatch.setattr(rummy_refine, "score_hand", _nobody_out_scores_no_melds)
    monkeypatch.delitem(refine.DIRECTED, "rummy", raising=False)
    monkeypatch.setattr(positions, "READINGS", (("score_losing_melds", False),))
    got = refine.run(["samba-es"], ["samba-small"], samples=30, budget=20)
    bad = [r for r in got if not r.ok]
    assert [r.target for r in bad] == [
        "samba-es [score_losing_melds=winners-only], 4 players in 2 sides (kept hands)"
    ], [(r.target, r.states) for r in got]
    first = bad[0].first
    assert first is not None and "'melds'" in first.detail
    assert bad[0].transcript[0]["options"] == READING


class _Broken:
    """The engine with some answers changed, every other method its own."""

    def __init__(self, **changed: Any) -> None:
        self.changed = changed

    def __getattr__(self, name: str) -> Any:
        return self.changed.get(name, getattr(RUMMY, name))


def _pair_once_taken(rules: RummyRules, state: Any) -> RummyRules:
    """The engine mutant `rummy-wild-pair-before-opening`, as rules: where a natural and a wild
    take the pile once the side has opened (*:pile-wild-pair-after = side_opened), they also
    take it, opened or not, once anybody has taken the pile this hand."""
    if rules.pile_wild_pair_after == "side_opened" and state.pile_taken:
        return dataclasses.replace(rules, pile_wild_pair_after="first_pile_take")
    return rules


def test_a_wild_pair_before_opening_is_caught_under_the_side_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`rummy-wild-pair-before-opening` cannot show under a default reading (samba-es, the one
    book whose default is side_opened, starts no set with one natural from the pile). Under
    canasta-es's side-first-take reading the eager hand of three players takes the pile with a
    natural and a wild before its side has opened; the take-pile relation's
    canasta-es:pile-wild-pair-after guard refuses that step, and `arbitro check`, replaying the
    transcript under the reading its header names, refuses the take too."""
    broken = _Broken(
        legal_actions=lambda rules, s: RUMMY.legal_actions(_pair_once_taken(rules, s), s),
        apply=lambda rules, s, a: RUMMY.apply(_pair_once_taken(rules, s), s, a),
    )
    monkeypatch.setattr(positions, "RUMMY", broken)  # the kept hands played by that engine
    got = _under_readings(broken, "canasta-es", 3)
    bad = [r for r in got if not r.ok]
    assert bad and bad[0].first is not None, [(r.target, r.states) for r in got]
    assert "[pile_wild_pair_after=side-first-take]" in bad[0].target
    assert bad[0].first.kind == "successor" and "pile-wild-pair-after" in bad[0].first.detail
    assert bad[0].transcript[0]["options"] == {"pile_wild_pair_after": "side-first-take"}
    verdict = check_lines([json.dumps(t) for t in bad[0].transcript])
    assert verdict.status != "valid" and verdict.step == len(bad[0].transcript) - 1, verdict


# a quick run walks one book's readings; CI walks both
@pytest.mark.parametrize(
    ("book", "players"), first_of_each([("canasta-es", 3), ("samba-es", 4)], row=True)
)
def test_the_engine_agrees_under_the_other_readings(book: str, players: int) -> None:
    got = _under_readings(RUMMY, book, players)
    assert got and all(r.ok for r in got), [(r.target, r.first) for r in got]
    assert all(r.states > 0 and r.transcript == [] for r in got)


def test_a_reading_asked_for_is_not_walked_again() -> None:
    """With `--option` naming the clause, the walk already plays that reading: the hands under
    the book's other readings leave that clause alone (no reading of it is walked twice)."""
    chosen = positions.readings("samba-es", READING, _seating("samba-es", 4))
    assert chosen and all(opts["score_losing_melds"] == "winners-only" for opts, _, _ in chosen)
    assert len(chosen) == len(positions.readings("samba-es", {}, _seating("samba-es", 4))) - 1
