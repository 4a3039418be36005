"""States and plays as canonical JSON, and malformed input refused by name."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from arbitro.model.errors import MalformedInput
from arbitro.model.escoba import ESCOBA, EscobaState, Play
from tests.support.escoba_helpers import DECK, TEAMS, TWO, play_out, rules

R = rules()


def _states() -> list[EscobaState]:
    rng = random.Random(3)
    out = []
    for seating in (TWO, TEAMS):
        s = ESCOBA.new_game(R, seating, dealer=1)
        out.append(s)
        order = list(DECK)
        rng.shuffle(order)
        dealt = ESCOBA.deal(R, s, order)
        out.append(dealt)
        out.append(ESCOBA.apply(R, dealt, ESCOBA.legal_actions(R, dealt)[0]))
        while s.phase != "over":
            rng.shuffle(order)
            s = play_out(R, s, order, rng.randrange)
            out.append(s)
    return out


STATES = _states()


def test_round_trip_is_lossless_and_canonical() -> None:
    """escoba-es:suits — every state survives JSON, and equal states give equal text."""
    for s in STATES:
        data = ESCOBA.state_to_json(s)
        text = json.dumps(data, sort_keys=True)
        back = ESCOBA.state_from_json(R, json.loads(text))
        assert back == s
        assert hash(back) == hash(s)
        assert json.dumps(ESCOBA.state_to_json(back), sort_keys=True) == text
    assert STATES[-1].phase == "over"


def test_play_round_trip() -> None:
    """escoba-es:capture-choice — a play names its seat, card and the cards it takes."""
    a = Play(1, 3, (1 << 0) | (1 << 22))
    data = ESCOBA.action_to_json(a)
    # card 3 is the 4 of oros; cards 0 and 22 are the 1 of oros and the 3 of bastos (suit * 10 + rank)
    assert data == {"seat": 1, "card": "4o", "capture": ["1o", "3b"]}
    assert ESCOBA.action_from_json(data) == a


def _broken(change: str) -> dict[str, Any]:
    data = copy.deepcopy(ESCOBA.state_to_json(STATES[1]))
    if change == "missing":
        del data["table"]
    elif change == "extra":
        data["colour"] = "red"
    elif change == "card-40":
        data["table"] = [*data["table"], "8o"]
    elif change == "duplicate":
        data["hands"][0] = [data["hands"][0][0]] * 2
    elif change == "unsorted":
        data["hands"][0] = sorted(data["hands"][0], reverse=True)
    elif change == "hands-count":
        data["hands"] = data["hands"][:1]
    elif change == "phase":
        data["phase"] = "bidding"
    elif change == "seating":
        data["players"] = 5
        data["sides"] = 5
    elif change == "dealer":
        data["dealer"] = 2
    elif change == "game":
        data["game"] = "samba"
    elif change == "not-int":
        data["deal_number"] = "1"
    return data


@pytest.mark.parametrize(
    "change",
    [
        "missing",
        "extra",
        "card-40",
        "duplicate",
        "unsorted",
        "hands-count",
        "phase",
        "seating",
        "dealer",
        "game",
        "not-int",
    ],
)
def test_malformed_states(change: str) -> None:
    """escoba-es:suits, escoba-es:player-counts — bad JSON is refused, naming what is wrong."""
    with pytest.raises(MalformedInput):
        ESCOBA.state_from_json(R, _broken(change))


def test_malformed_hand_result() -> None:
    """escoba-es:cards-points — a recorded hand result must add up."""
    over = next(s for s in STATES if s.result is not None)
    data = copy.deepcopy(ESCOBA.state_to_json(over))
    data["last_hand"]["scores"][0] += 1
    with pytest.raises(MalformedInput):
        ESCOBA.state_from_json(R, data)


@pytest.mark.parametrize(
    "data",
    [
        {"seat": 0, "card": 3},
        {"seat": 0, "card": 3, "capture": [5, 2]},
        {"seat": -1, "card": 3, "capture": []},
        {"seat": 0, "card": "3", "capture": []},
        {"seat": 0, "card": 3, "capture": [], "extra": 1},
        [0, 3, 0],
    ],
)
def test_malformed_plays(data: Any) -> None:
    """escoba-es:capture-choice — a play is an object with seat, card and a sorted capture list."""
    with pytest.raises(MalformedInput):
        ESCOBA.action_from_json(data)


def test_violations_flag_a_broken_state() -> None:
    """escoba-es:suits, escoba-es:hand-size — a card in two places, a hand of the wrong size."""
    s = STATES[1]
    assert ESCOBA.violations(R, s) == []
    doubled = s._replace(table=s.table | s.hands[0])
    assert "escoba-es:suits" in ESCOBA.violations(R, doubled)
    moved = s._replace(hands=(0, *s.hands[1:]), table=s.table | s.hands[0])
    broken = ESCOBA.violations(R, moved)
    assert "escoba-es:hand-size" in broken
    assert "escoba-es:suits" not in broken


def test_card_names() -> None:
    """escoba-es:suits — every card has a two-letter name that reads back; bad names are malformed."""
    names = [ESCOBA.card_name(c) for c in DECK]
    assert len(set(names)) == 40
    assert [ESCOBA.parse_card(n) for n in names] == list(DECK)
    assert names[:10] == ["1o", "2o", "3o", "4o", "5o", "6o", "7o", "So", "Co", "Ro"]
    assert {n[1] for n in names} == set("ocbe")  # oros, copas, bastos, espadas
    for bad in ("8o", "7x", "", "10o"):
        with pytest.raises(MalformedInput):
            ESCOBA.parse_card(bad)
    with pytest.raises(MalformedInput):
        ESCOBA.card_name(40)
