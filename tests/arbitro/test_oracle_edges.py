"""The oracle at the edges of the rules: a view answers only for its own seat, Escoba taken up at
any hand, positions no game reaches refused by the clause they break, and two scoring readings.

Every expected number comes from the book's clause named in the test, never from the model
(Escoba card values: escoba-es:capture-values, *Jugadores y cartas*: 1-7 at face value, sota 8,
caballo 9, rey 10)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arbitro import Oracle
from arbitro.model.rummy.red_threes import red_three_score
from arbitro.model.schema import rules_for
from arbitro.oracle.check import check_lines
from arbitro.oracle.server import Server, respond
from arbitro.oracle.states import InconsistentState
from arbitro.oracle.transcript import PROTOCOL, canonical_line

# ---------------------------------------------------------------- a view answers for its seat


def _ask(server: Server, req: dict[str, Any]) -> dict[str, Any]:
    answer, _ = respond(server, json.dumps(req))
    return answer


@pytest.mark.parametrize("rulebook", ["escoba-es", "samba-en"])
@pytest.mark.parametrize("op", ["legal", "explain"])
def test_legal_and_explain_refuse_another_seats_view(rulebook: str, op: str) -> None:
    """The seat not to move cannot see the mover's hand, so nothing it sees says what the mover
    may do: its view is refused, naming the seat to move; the mover's own view answers."""
    server = Server()
    assert _ask(server, {"id": 1, "op": "start", "rulebook": rulebook})["ok"]
    oracle = server.oracles["default"]
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), random.Random(3).sample(deck, len(deck)))
    mover = state["to_move"] if "to_move" in state else state["seat"]
    other = (mover + 1) % oracle.seating.players
    legal = oracle.legal_actions(state)
    extra: dict[str, Any] = {"action": legal[0]} if op == "explain" else {}
    theirs = _ask(server, {"id": 2, "op": op, "view": oracle.view(state, other), **extra})
    assert not theirs["ok"]
    assert theirs["error"]["type"] == "malformed-input"
    assert f"seat {mover} is to move" in theirs["error"]["message"]
    mine = _ask(server, {"id": 3, "op": op, "view": oracle.view(state, mover), **extra})
    assert mine["ok"]
    assert mine["result"] == (legal if op == "legal" else {"legal": True})


# ---------------------------------------------------------------- Escoba taken up part-way


def test_escoba_is_taken_up_at_any_hand_with_totals_and_dealer() -> None:
    """escoba-es:target-score: a game is hands played until a side reaches 21, so any hand may be
    the next one with totals below it; the hand is dealt by the dealer given (hands from 0)."""
    oracle = Oracle("escoba-es")
    before = oracle.new_game(dealer=1, scores=[12, 17], hand=3)
    assert (before["phase"], before["dealer"], before["scores"]) == ("deal", 1, [12, 17])
    deck = oracle.describe()["deck"]
    order = random.Random(8).sample(deck, len(deck))
    state = oracle.deal(before, order)
    assert state["phase"] == "play"
    assert state["to_move"] == 0  # escoba-es:play-direction: the dealer's right, seat 1 - 1
    lines = [
        canonical_line(
            {
                "type": "header",
                "protocol": PROTOCOL,
                "rulebook": "escoba-es",
                "options": {},
                "players": 2,
                "sides": 2,
                "layout": "",
                "dealer": 1,
                "hand": 3,
                "scores": [12, 17],
                "deals": [order],
            }
        )
    ]
    step = 0
    while state["phase"] == "play":
        action = oracle.legal_actions(state)[0]
        step += 1
        lines.append(
            canonical_line(
                {
                    "type": "action",
                    "step": step,
                    "hand": 3,
                    "seat": action["seat"],
                    "action": action,
                }
            )
        )
        state = oracle.apply(state, action)
    verdict = check_lines(lines)
    assert verdict.status in ("valid", "incomplete")  # every action replayed in hand 3
    # escoba-es: the 40-card deck less the four dealt face up to the table, one card a play
    assert verdict.actions == step == 40 - 4


def test_escoba_totals_past_the_target_are_named_not_the_cards() -> None:
    """escoba-es:target-score: a side on 25 of 21 has won, so no hand follows; the refusal says
    so and lists no missing cards (no hand has been dealt)."""
    oracle = Oracle("escoba-es")
    with pytest.raises(InconsistentState) as e:
        oracle.new_game(scores=[25, 3])
    assert "missing" not in str(e.value)
    assert "[25, 3]" in str(e.value) and "21" in str(e.value)


# ---------------------------------------------------------------- positions no game reaches

TWO_HANDS = [["1c", "2c", "3c"], ["1b", "2b", "3b"]]


def _refused(oracle: Oracle, position: dict[str, Any]) -> list[str]:
    with pytest.raises(InconsistentState) as e:
        oracle.position(position)
    return e.value.clauses


def test_an_opening_table_worth_15_is_swept_at_once() -> None:
    """escoba-es:opening-sweeps: four table cards adding to 15 go to the dealer's side as one
    escoba before anyone plays, 30 as two; a table worth 14 stays."""
    oracle = Oracle("escoba-es")
    base = {"hands": TWO_HANDS, "to_move": 1, "dealer": 0}
    fifteen = ["1o", "2o", "5o", "7o"]  # 1 + 2 + 5 + 7
    thirty = ["2o", "So", "Ro", "Rc"]  # 2 + 8 + 10 + 10
    assert _refused(oracle, {**base, "table": fifteen}) == ["escoba-es:opening-sweeps"]
    assert oracle.position({**base, "table": ["1o", "2o", "5o", "6o"]})["table"]  # 14
    swept = {**base, "table": [], "piles": [fifteen, []], "last_capturer": 0}
    assert oracle.position({**swept, "escobas": [1, 0]})["escobas"] == [1, 0]
    assert _refused(oracle, {**swept, "escobas": [0, 0]}) == ["escoba-es:opening-sweeps"]
    assert _refused(oracle, {**swept, "escobas": [2, 0]}) == ["escoba-es:opening-sweeps"]
    two = {**base, "table": [], "piles": [thirty, []], "last_capturer": 0}
    assert oracle.position({**two, "escobas": [2, 0]})["escobas"] == [2, 0]
    # the sweep is the dealer's side's, not the other's
    wrong = {**swept, "piles": [[], fifteen], "escobas": [0, 1], "last_capturer": 1}
    assert _refused(oracle, wrong) == ["escoba-es:opening-sweeps"]


def test_escobas_need_plays_and_the_last_capturer_a_pile() -> None:
    """escoba-es:escoba-points: an escoba is made by a play, so seat 1's one play (1b taking
    1o 2o 4o 7o, 1 + 1 + 2 + 4 + 7 = 15, the table left empty) makes at most one;
    escoba-es:last-capturer-takes-rest: the last side to capture holds what it took."""
    oracle = Oracle("escoba-es")
    after = {
        "hands": [["1c", "2c", "3c"], ["2b", "3b"]],
        "table": [],
        "piles": [[], ["1b", "1o", "2o", "4o", "7o"]],
        "last_capturer": 1,
        "to_move": 0,
        "dealer": 0,
    }
    assert oracle.position({**after, "escobas": [0, 1]})["escobas"] == [0, 1]
    assert _refused(oracle, {**after, "escobas": [0, 2]}) == ["escoba-es:escoba-points"]
    assert _refused(oracle, {**after, "escobas": [0, 1], "last_capturer": 0}) == [
        "escoba-es:last-capturer-takes-rest"
    ]


# ---------------------------------------------------------------- scoring readings


@pytest.mark.parametrize("held", [1, 4, 5, 6])
def test_canasta_red_threes_read_each_cost_100_each(held: int) -> None:
    """canasta-es *VALOR DE LAS CARTAS*: without a canasta each red three counts 100 against the
    side; the reading `each` keeps that for all of them. Three packs hold six red threes (3D and
    3H of each pack), so six cost 600 and five 500."""
    rules = rules_for("canasta-es", {"red_three_negative_all": "each"})
    assert red_three_score(rules, held, 0, 3 * 2) == -100 * held


def test_samba_en_tied_past_the_target_deals_the_next_hand() -> None:
    """samba-en:target-tie (play on, unspecified): sides level at 10,000 play another hand; the
    book gives no minimum past 9,999, and samba-en:opening-minimum-past-table (unspecified,
    flagged) continues the table's top row, 160 (*The initial meld*)."""
    oracle = Oracle("samba-en")
    before = oracle.new_game(scores=[10000, 10000], hand=5)
    assert before["phase"] == "deal"
    deck = oracle.describe()["deck"]
    state = oracle.deal(before, random.Random(1).sample(deck, len(deck)))
    assert state["minimums"] == [160, 160]
    no_min = Oracle("samba-en", options={"opening_minimum_past_table": "no-minimum"})
    state = no_min.deal(no_min.new_game(scores=[10000, 10000], hand=5), deck)
    assert state["minimums"] == [0, 0]


# ---------------------------------------------------------------- the server speaks notation


def test_the_server_takes_position_lines_and_moves_and_checks_transcripts() -> None:
    """A state may be sent as its position line and an action as its move; a refusal names the
    move and the position; check_transcript gives a transcript's verdict (check, a state's)."""
    from arbitro.oracle.notation import position_line

    server = Server()
    assert _ask(server, {"id": 1, "op": "start", "rulebook": "escoba-es"})["ok"]
    hello = _ask(server, {"id": 0, "op": "hello"})["result"]
    assert "check_transcript" in hello["ops"]
    oracle = server.oracles["default"]
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), random.Random(2).sample(deck, len(deck)))
    line = position_line(state)
    legal = _ask(server, {"id": 2, "op": "legal", "state": line})
    assert legal["ok"] and legal["result"] == oracle.legal_actions(state)
    took = next(a for a in legal["result"] if a["capture"])
    laid = f"{took['seat']}@{took['card']}"  # laying a card that can capture
    refused = _ask(server, {"id": 3, "op": "apply", "state": line, "action": laid})
    assert refused["error"]["clause"] == "escoba-es:capture-forced"
    assert (refused["error"]["move"], refused["error"]["position_line"]) == (laid, line)
    verdict = _ask(server, {"id": 4, "op": "check_transcript", "lines": ["{}"]})["result"]
    assert verdict["status"] == "malformed"
