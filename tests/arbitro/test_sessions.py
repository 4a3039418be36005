"""Sessions: the server keeps oracles and positions by name, so a client sends moves, not states.

Several rulebooks live side by side in one server; a position kept under an id moves on with each
`apply`; what a kept position answers is what the same state sent whole answers.
"""

from __future__ import annotations

import json
import random
from typing import Any

from arbitro.oracle.jsonio import dumps_line
from arbitro.oracle.server import Server, respond
from tests.support.serve import validator

RESPONSE = validator("response.schema.json")
REQUEST = validator("request.schema.json")


class Client:
    """Talks to an in-process server line by line, as a client over a pipe would."""

    def __init__(self, server: Server | None = None) -> None:
        self.server = server or Server()
        self.n = 0

    def ask(self, **req: Any) -> dict[str, Any]:
        self.n += 1
        req = {"id": self.n, **req}
        REQUEST.validate(req)
        answer, _ = respond(self.server, json.dumps(req))
        got: dict[str, Any] = json.loads(dumps_line(answer))
        RESPONSE.validate(got)
        assert got["id"] == self.n
        return got

    def ok(self, **req: Any) -> Any:
        got = self.ask(**req)
        assert got["ok"], got
        return got["result"]


def test_two_rulebooks_side_by_side_with_kept_positions() -> None:
    c = Client()
    esc = c.ok(op="start", rulebook="escoba-es", players=2, oracle="esc")
    can = c.ok(op="start", rulebook="canasta-es", players=4, oracle="can")
    assert (esc["oracle"], can["oracle"]) == ("esc", "can")
    c.ok(op="new_game", oracle="esc", save="e")
    c.ok(op="new_game", oracle="can", dealer=3, save="c")
    rng = random.Random(2)
    e_state = c.ok(op="deal", position="e", order=rng.sample(esc["deck"], 40))
    c_state = c.ok(op="deal", position="c", order=rng.sample(can["deck"], 108))
    assert c_state["seat"] == 0  # the player after the dealer, seat 3
    # moves go to the kept positions; the answers are those of the states sent whole
    for _ in range(30):
        for pid, oracle, state in (("e", "esc", e_state), ("c", "can", c_state)):
            legal = c.ok(op="legal", position=pid)
            assert legal == c.ok(op="legal", oracle=oracle, state=state)
            action = legal[rng.randrange(len(legal))]
            after = c.ok(op="apply", position=pid, action=action)
            assert after == c.ok(op="apply", oracle=oracle, state=state, action=action)
            assert c.ok(op="position", position=pid) == after
            if pid == "e":
                e_state = after
            else:
                c_state = after
    # a position's own oracle answers for it, whichever was started last
    assert c.ok(op="score", position="e")["phase"] == e_state["phase"]
    wrong = c.ask(op="legal", oracle="can", position="e")
    assert wrong["error"]["type"] == "malformed-request"


def test_apply_with_several_actions_is_all_or_nothing() -> None:
    c = Client()
    start = c.ok(op="start", rulebook="escoba-es", players=2)
    c.ok(op="new_game", save="g")
    before = c.ok(op="deal", position="g", order=start["deck"])
    first = c.ok(op="legal", position="g")[0]
    second_state = c.ok(op="apply", state=before, action=first)
    second = c.ok(op="legal", state=second_state)[0]
    illegal = {**second, "capture": [], "card": first["card"]}  # a card already played
    refused = c.ask(op="apply", position="g", actions=[first, second, illegal])
    assert refused["error"]["type"] in ("illegal-action", "malformed-input")
    assert refused["error"]["index"] == 2
    assert c.ok(op="position", position="g") == before  # nothing was applied
    done = c.ok(op="apply", position="g", actions=[first, second])
    assert done == c.ok(op="apply", state=second_state, action=second)


def test_positions_are_built_kept_forgotten_and_bounded() -> None:
    c = Client(Server(max_positions=2))
    c.ok(op="start", rulebook="samba-en")
    built = c.ok(op="position", position={"phase": "deal", "scores": [2000, 0]}, save="p1")
    assert built["scores"] == [2000, 0] and built["phase"] == "deal"
    c.ok(op="position", position="p1", save="p2")  # a copy under another id
    assert c.ok(op="position", position="p2") == built
    full = c.ask(op="new_game", save="p3")
    assert full["error"]["type"] == "limit-reached"
    assert c.ok(op="forget", position="p2") == {"forgotten": "p2"}
    c.ok(op="new_game", save="p3")
    assert c.ask(op="legal", position="p2")["error"]["type"] == "unknown-position"
    assert c.ask(op="forget", position="p2")["error"]["type"] == "unknown-position"
    # restarting a name begins afresh: the old oracle's positions go with it
    c.ok(op="start", rulebook="samba-en")  # the default oracle again
    assert c.ask(op="position", position="p1")["error"]["type"] == "unknown-position"


def test_an_illegal_move_on_a_kept_position_lists_every_refusing_clause() -> None:
    c = Client()
    start = c.ok(op="start", rulebook="escoba-es", players=2)
    c.ok(op="new_game", save="g")
    order = ["4c", "Rc", "Re", "Sb", "Cb", "Rb", "1o", "2o", "3o", "6o"]
    state = c.ok(
        op="deal", position="g", order=order + [x for x in start["deck"] if x not in order]
    )
    mover = state["to_move"]
    card = "4c" if "4c" in state["hands"][mover] else "Sb"
    refused = c.ask(op="apply", position="g", action={"seat": mover, "card": card, "capture": []})
    err = refused["error"]
    assert err["type"] == "illegal-action" and err["clause"] == "escoba-es:capture-forced"
    assert err["refusals"][0]["clause"] == err["clause"]
    explained = c.ok(
        op="explain", position="g", action={"seat": mover, "card": card, "capture": []}
    )
    assert explained["refusals"] == err["refusals"] and explained["legal"] is False
    assert c.ok(op="position", position="g") == state  # a refused move leaves it where it was
