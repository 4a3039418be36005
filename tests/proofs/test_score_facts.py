"""The proofs' score facts as the explorer uses them: proved bounds hold on every explored hand.

Every explored terminal state of a small configuration is a hand the model played to its end; its
side scores must lie within the bounds the solver proved for the same rules object. A facts object
proved for a deliberately weakened scoring (no escobas, no velo) must be caught by the same check.
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.proofs.escoba import cards as E
from arbitro.proofs.explore import check_scores
from arbitro.proofs.explore import explore_deal as explore
from arbitro.proofs.explore_config import load_config
from arbitro.proofs.score_facts import ProvedScores, from_result, score_facts
from arbitro.proofs.verdict import NotEncoded


@pytest.mark.parametrize("name", ["escoba-tiny", "escoba-12"])
def test_every_explored_hand_score_lies_within_the_proved_bounds(name: str) -> None:
    config = load_config(name)
    facts = score_facts(config.rules)
    assert facts is not None and facts.bounds() is not None
    for seed in (1, 2, 3):
        result = explore(config, seed)
        assert result.scores, "the configuration is exhausted to its terminal states"
        verdict = check_scores(result, facts)
        assert verdict["checked"] and verdict["agrees"], verdict


def test_a_pack_without_sevens_proves_no_velo() -> None:
    # escoba-es:velo is the seven of oros; escoba-tiny's pack (5s and reyes) has no seven
    config = load_config("escoba-tiny")
    assert "7" not in config.rules.ranks
    from arbitro.proofs.escoba import scoring

    result = scoring.bounds(config.rules, 20.0)
    assert result.values["bounds"]["velo"] == [0, 0]


def test_facts_proved_for_a_weakened_scoring_are_caught_by_the_explored_scores() -> None:
    config = load_config("escoba-12")
    weak = dataclasses.replace(config.rules, escoba_points=0, velo_points=0)
    from arbitro.proofs.escoba import scoring

    facts = from_result(scoring.bounds(weak, 20.0))
    assert facts.bounds() is not None
    results = [explore(config, seed) for seed in (1, 2, 3)]
    verdicts = [check_scores(r, facts) for r in results]
    assert any(v["outside_bounds"] for v in verdicts), verdicts
    assert not all(v["agrees"] for v in verdicts)


def test_unproved_results_give_no_facts() -> None:
    config = load_config("escoba-12")
    from arbitro.proofs.escoba import scoring

    result = scoring.bounds(config.rules, 20.0)
    unproved = dataclasses.replace(
        result,
        checks=tuple(dataclasses.replace(c, verdict=c.verdict.UNKNOWN) for c in result.checks),
    )
    assert from_result(unproved) == ProvedScores(result.rulebook, None, None)
    assert check_scores(explore(config, 1), from_result(unproved))["checked"] is False


def test_a_pack_missing_a_suit_is_not_encoded() -> None:
    config = load_config("escoba-12")
    two_suits = dataclasses.replace(config.rules, suits=("oros", "copas"))
    with pytest.raises(NotEncoded):
        E.copies(two_suits)
    assert score_facts(two_suits) is None


def test_the_whole_pack_encodings_refuse_a_reduced_pack() -> None:
    # conservation, table-rest and the deal arithmetic count the whole pack: on a small
    # configuration they must say UNKNOWN, never prove something about another pack
    with pytest.raises(NotEncoded):
        E.kinds(load_config("escoba-12").rules)


def test_an_engine_scoring_more_escobas_than_play_reaches_is_caught() -> None:
    """escoba-12 (the 2s, 6s and 7s): a side makes at most 2 escobas in a hand, so it scores at
    most 4 + 2 = 6, while the score encoding alone admits 10. An engine that scores each escoba
    twice plays scores the cut facts reject; the encoding's bounds alone let them pass."""
    from typing import Any

    from arbitro.model.escoba import ESCOBA
    from arbitro.model.game import HandResult
    from arbitro.proofs.escoba import scoring

    class EscobasTwice:
        def __getattr__(self, name: str) -> Any:
            return getattr(ESCOBA, name)

        def last_hand(self, state: Any) -> HandResult | None:
            real = ESCOBA.last_hand(state)
            if real is None:
                return None
            cats = tuple({**c, "escobas": 2 * c["escobas"]} for c in real.categories)
            return HandResult(real.reason, tuple(sum(c.values()) for c in cats), cats)

    config = load_config("escoba-12")
    facts = score_facts(config.rules)
    assert facts is not None and facts.bounds() == (0, 6)
    loose = from_result(scoring.bounds(config.rules, 20.0))
    assert loose.bounds() == (0, 10)
    broken = [explore(config, seed, model=EscobasTwice()) for seed in (1, 2, 3)]
    assert any(check_scores(r, facts)["outside_bounds"] for r in broken)
    assert all(check_scores(r, loose)["agrees"] for r in broken)
