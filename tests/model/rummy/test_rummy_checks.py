"""Whole-state checks flag a broken Samba/Canasta state with the clause it breaks."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbitro import Oracle

WILD = {"JK", "2C", "2D", "2H", "2S"}


def _state_with_a_set(rulebook: str) -> tuple[Oracle, dict[str, Any]]:
    """A reachable state in play where some side has a set on the table."""
    oracle = Oracle(rulebook)
    deck = oracle.describe()["deck"]
    for seed in range(40):
        rng = random.Random(seed)
        s = oracle.deal(oracle.new_game(), rng.sample(deck, len(deck)))
        while s["phase"] == "play":
            if any(m["kind"] == "set" for side in s["table"] for m in side["melds"]):
                return oracle, s
            legal = oracle.legal_actions(s)
            s = oracle.apply(s, legal[rng.randrange(len(legal))])
    raise AssertionError("no set was laid in 40 random hands")


def _move_from_stock(s: dict[str, Any], pred: Any, side: int, meld: int) -> None:
    """Move the first stock card matching `pred` onto a meld: conservation still holds."""
    card = next(c for c in s["stock"] if pred(c))
    s["stock"].remove(card)
    m = s["table"][side]["melds"][meld]
    m["cards"] = sorted([*m["cards"], card], key=lambda c: (c == "JK", c))


@pytest.mark.parametrize("rulebook", ["samba-es", "samba-en", "samba-fr", "canasta-es"])
def test_a_duplicated_card_breaks_conservation(rulebook: str) -> None:
    """*:packs — a card added out of nowhere is a card too many for the deck."""
    oracle, s = _state_with_a_set(rulebook)
    assert oracle.check_state(s) == []
    seat = s["seat"]
    s["hands"][seat] = sorted([*s["hands"][seat], s["hands"][seat][0]])
    assert f"{rulebook}:packs" in oracle.check_state(s)


@pytest.mark.parametrize("rulebook", ["samba-es", "samba-en", "samba-fr", "canasta-es"])
def test_too_many_wilds_in_a_set_break_the_wild_limit(rulebook: str) -> None:
    """*:wild-cap or *:wilds-at-most-naturals — wilds piled onto a set past what the book allows."""
    oracle, s = _state_with_a_set(rulebook)
    side, meld = next(
        (i, j)
        for i, sd in enumerate(s["table"])
        for j, m in enumerate(sd["melds"])
        if m["kind"] == "set"
    )
    rules = oracle.rules
    for _ in range(rules.wild_cap + 1):
        _move_from_stock(s, lambda c: c in WILD, side, meld)
    found = oracle.check_state(s)
    assert {f"{rulebook}:wild-cap", f"{rulebook}:wilds-at-most-naturals"} & set(found), found
    assert f"{rulebook}:packs" not in found
