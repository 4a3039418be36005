"""Broken Samba and Canasta transcripts are caught at the right step with the right clause.

Each case plays random legal actions until a situation arises where a chosen irregular action is
possible (a wild on a set already at its wild limit, a card the player does not hold, a frozen pile
taken to add to a meld), writes the transcript up to there plus that action, and asks `check`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arbitro import Oracle
from arbitro.oracle.check import check_lines
from arbitro.oracle.transcript import PROTOCOL, TranscriptError, canonical_line
from tests.support.quick import first_of_each

RUMMY = ["samba-es", "samba-en", "samba-fr", "canasta-es"]
WILD = {"JK", "2C", "2D", "2H", "2S"}
RED_THREES = {"3D", "3H"}
BLACK_THREES = {"3C", "3S"}
CLASSES = {
    "joker": {"JK"},
    "two": {"2C", "2D", "2H", "2S"},
    "wild": WILD,
    "red_three": RED_THREES,
    "black_three": BLACK_THREES,
}

Finder = Callable[[Oracle, dict[str, Any], list[dict[str, Any]]], dict[str, Any] | None]


def _in(card: str, classes: tuple[str, ...]) -> bool:
    return any(card in CLASSES[c] for c in classes)


def header(rulebook: str, state: dict[str, Any], deals: list[list[str]]) -> dict[str, Any]:
    """The transcript header for a game of `rulebook` seated as `state` is, first dealer 0."""
    return {
        "type": "header",
        "protocol": PROTOCOL,
        "rulebook": rulebook,
        "options": {},
        "players": state["players"],
        "sides": state["sides"],
        "layout": state["layout"],
        "dealer": 0,
        "deals": deals,
    }


def broken_transcript(
    rulebook: str, finder: Finder, seeds: range = range(30)
) -> tuple[list[str], int]:
    """Lines of a transcript ending with the first irregular action `finder` proposes, and its step."""
    oracle = Oracle(rulebook)
    deck = oracle.describe()["deck"]
    for seed in seeds:
        rng = random.Random(seed)
        state = oracle.new_game()
        deals: list[list[str]] = []
        body: list[dict[str, Any]] = []
        while state["phase"] != "over" and len(deals) <= 2:
            if state["phase"] == "deal":
                deals.append(rng.sample(deck, len(deck)))
                state = oracle.deal(state, deals[-1])
                continue
            legal = oracle.legal_actions(state)
            bad = finder(oracle, state, legal)
            step = len(body) + 1
            if bad is not None:
                body.append(
                    {
                        "type": "action",
                        "step": step,
                        "hand": len(deals) - 1,
                        "seat": bad["seat"],
                        "action": bad,
                    }
                )
                return [
                    canonical_line(header(rulebook, state, deals)),
                    *map(canonical_line, body),
                ], step
            action = legal[rng.randrange(len(legal))]
            body.append(
                {
                    "type": "action",
                    "step": step,
                    "hand": len(deals) - 1,
                    "seat": action["seat"],
                    "action": action,
                }
            )
            state = oracle.apply(state, action)
    raise AssertionError(
        f"no situation for this case arose in {len(seeds)} random games of {rulebook}"
    )


def _melding(legal: list[dict[str, Any]]) -> bool:
    return any(a["type"] in ("lay", "add", "discard") for a in legal)


def wild_over_the_limit(
    o: Oracle, s: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """A wild added to an unfinished set that already holds as many wilds as the book allows."""
    if not _melding(legal):
        return None
    seat = s["seat"]
    hand = s["hands"][seat]
    wild = next((c for c in hand if c in WILD), None)
    if wild is None:
        return None
    for i, m in enumerate(s["table"][seat % s["sides"]]["melds"]):
        wilds = sum(c in WILD for c in m["cards"])
        if (
            m["kind"] == "set"
            and wilds == o.rules.wild_cap
            and len(m["cards"]) < o.rules.completed_size
        ):
            return {"type": "add", "seat": seat, "meld": i, "card": wild}
    return None


def card_played_twice(
    o: Oracle, s: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """A discard of a card that was already discarded this hand and that the player does not hold."""
    if not any(a["type"] == "discard" for a in legal):
        return None
    seat = s["seat"]
    gone = [c for c in s["pile"] if c not in s["hands"][seat]]
    return {"type": "discard", "seat": seat, "card": gone[-1]} if gone else None


def frozen_pile_taken(
    o: Oracle, s: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """Taking a frozen pile to add its top card to one of the side's sets."""
    if not any(a["type"] == "draw" for a in legal) or not s["pile"]:
        return None
    pile = s["pile"]
    top = pile[-1]
    if not any(_in(c, o.rules.frozen_by) for c in pile) or _in(top, o.rules.blocked_by_top):
        return None
    seat = s["seat"]
    for i, m in enumerate(s["table"][seat % s["sides"]]["melds"]):
        if m["kind"] == "set" and m["rank"] == top[:-1]:
            return {"type": "take-pile", "seat": seat, "use": "add", "meld": i}
    return None


@pytest.mark.parametrize("rulebook", RUMMY)
@pytest.mark.parametrize(
    ("finder", "key"),
    [
        (wild_over_the_limit, "wild-cap"),
        (card_played_twice, "packs"),
        (frozen_pile_taken, "frozen-by"),
    ],
    ids=["wild-count", "card-twice", "frozen-pile"],
)
def test_broken_transcript_names_step_and_clause(rulebook: str, finder: Finder, key: str) -> None:
    lines, step = broken_transcript(rulebook, finder)
    verdict = check_lines(lines)
    assert verdict.status == "illegal-action", verdict.to_json()
    assert (verdict.step, verdict.clause) == (step, f"{rulebook}:{key}")
    assert verdict.state is not None and verdict.reason


@pytest.mark.parametrize("rulebook", RUMMY)
def test_a_wrong_claimed_hand_score_is_reported(rulebook: str) -> None:
    oracle = Oracle(rulebook)
    rng = random.Random(1)
    deck = oracle.describe()["deck"]
    order = rng.sample(deck, len(deck))
    state = oracle.deal(oracle.new_game(), order)
    body: list[dict[str, Any]] = []
    while state["phase"] == "play":
        legal = oracle.legal_actions(state)
        action = legal[rng.randrange(len(legal))]
        body.append(
            {
                "type": "action",
                "step": len(body) + 1,
                "hand": 0,
                "seat": action["seat"],
                "action": action,
            }
        )
        state = oracle.apply(state, action)
    scored = oracle.score(state)["hand"]
    cats = [dict(c) for c in scored["categories"]]
    cats[1]["melds"] += 5
    body.append({"type": "hand", "hand": 0, "scores": scored["scores"], "categories": cats})
    verdict = check_lines(
        [canonical_line(header(rulebook, state, [order])), *map(canonical_line, body)]
    )
    assert verdict.status == "score-mismatch"
    (m,) = verdict.mismatches
    assert (m["side"], m["category"], m["claimed"] - m["actual"]) == (1, "melds", 5)


def test_a_deck_order_with_a_card_too_many_is_malformed() -> None:
    """Three packs hold three aces of spades; a fourth in a deck order is not a deck of samba-en."""
    oracle = Oracle("samba-en")
    deck = oracle.describe()["deck"]
    order = [*deck[:-1], "AS"]
    seated = {"players": 4, "sides": 2, "layout": "partnerships"}
    with pytest.raises(TranscriptError) as info:
        check_lines([json.dumps(header("samba-en", seated, [order]))])
    assert (info.value.line, info.value.field) == (1, "deals[0]")


# a quick run checks one book's states; CI checks the four
@pytest.mark.parametrize("rulebook", first_of_each(RUMMY[::-1]))
def test_states_and_actions_match_the_published_schemas(rulebook: str) -> None:
    from tests.support.serve import validator

    states = validator("rummy-state.schema.json")
    actions = validator("rummy-action.schema.json")
    oracle = Oracle(rulebook)
    rng = random.Random(2)
    deck = oracle.describe()["deck"]
    state = oracle.new_game()
    states.validate(state)
    state = oracle.deal(state, rng.sample(deck, len(deck)))
    while state["phase"] == "play":
        states.validate(state)
        legal = oracle.legal_actions(state)
        for a in legal:
            actions.validate(a)
        state = oracle.apply(state, legal[rng.randrange(len(legal))])
    states.validate(state)
