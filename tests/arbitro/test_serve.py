"""arbitro serve: one response per request, errors as objects, and the server keeps serving."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.serve import Server


@pytest.fixture
def server() -> Any:
    s = Server()
    yield s
    s.close()


def test_a_hand_played_through_the_server(server: Server) -> None:
    hello = server.ask(id=0, op="hello")
    assert hello["ok"] and "escoba-es" in hello["result"]["rulebooks"]
    start = server.ask(id=1, op="start", rulebook="escoba-es", players=2)
    assert start["ok"] and start["result"]["players"] == 2
    deck = start["result"]["deck"]
    assert len(deck) == 40 and len(set(deck)) == 40
    state = server.ask(id=2, op="new_game")["result"]
    state = server.ask(id=3, op="deal", state=state, order=deck)["result"]
    steps = 0
    while state["phase"] == "play" and state["last_hand"] is None:
        legal = server.ask(id=4, op="legal", state=state)
        assert legal["ok"] and legal["result"]
        assert server.ask(id=5, op="check", state=state)["result"] == {"violations": []}
        reply = server.ask(id=6, op="apply", state=state, action=legal["result"][0])
        assert reply["ok"], reply
        state = reply["result"]
        steps += 1
    # two players, 40 cards: every card but the four table cards is played once
    assert steps == 36
    score = server.ask(id=7, op="score", state=state)["result"]
    assert score["hand"] is not None and len(score["hand"]["scores"]) == 2


def test_errors_are_objects_and_the_server_keeps_serving(server: Server) -> None:
    assert server.raw("{not json")["error"]["type"] == "malformed-request"
    assert server.raw("[1]")["error"]["type"] == "malformed-request"
    assert server.ask(id="a", op="legal", state={})["error"]["type"] == "not-started"
    r = server.raw(json.dumps({"id": "b", "op": "fly"}))
    assert r["id"] == "b" and r["error"]["type"] == "unknown-op"
    assert (
        server.ask(id="c", op="start", rulebook="escoba-it")["error"]["type"] == "unknown-rulebook"
    )
    assert (
        server.ask(id="d", op="start", rulebook="escoba-es", options={"nope": "x"})["error"]["type"]
        == "bad-option"
    )
    assert server.ask(id="e", op="start", rulebook="escoba-es", players=2)["ok"]
    assert (
        server.ask(id="f", op="legal", state={"game": "escoba"})["error"]["type"]
        == "malformed-input"
    )
    assert (
        server.raw(json.dumps({"id": "g", "op": "apply"}))["error"]["type"] == "malformed-request"
    )
    assert server.ask(id="h", op="hello")["ok"]


def test_explain_names_the_clause_of_an_illegal_action(server: Server) -> None:
    start = server.ask(id=1, op="start", rulebook="escoba-es", players=2)["result"]
    state = server.ask(id=2, op="new_game")["result"]
    # a deck order whose four table cards (dealt after 3 + 3 hand cards) are 1o 2o 3o 6o: a 4 from
    # hand would have to capture (4 + 1 + 3 + 7 ... any subset with the 4 summing to 15: 4 + 2 + 3 + 6)
    order = ["4c", "Rc", "Re", "Sb", "Cb", "Rb", "1o", "2o", "3o", "6o"]
    rest = [c for c in start["deck"] if c not in order]
    state = server.ask(id=3, op="deal", state=state, order=order + rest)["result"]
    mover = state["to_move"]
    hand = state["hands"][mover]
    assert "4c" in hand or "Sb" in hand
    card = "4c" if "4c" in hand else "Sb"
    bad = {"seat": mover, "card": card, "capture": []}
    why = server.ask(id=4, op="explain", state=state, action=bad)["result"]
    assert why == {**why, "legal": False, "clause": "escoba-es:capture-forced"}
    refused = server.ask(id=5, op="apply", state=state, action=bad)
    assert (
        refused["error"]["type"] == "illegal-action"
        and refused["error"]["clause"] == "escoba-es:capture-forced"
    )


def test_quit_ends_the_session() -> None:
    s = Server()
    assert s.ask(id=1, op="quit")["result"] == "bye"
    assert s.proc.wait(timeout=10) == 0
