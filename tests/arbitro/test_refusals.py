"""Root causes: every clause the model gives for a refusal reaches the answer, in the model's order.

The engines list every refusing clause through `GameModel.refusals` (most specific first). Here a
model wrapper returns three refusals for a refused action, so the test fails if `explain`, `apply`,
the server or `check` drops, reorders or invents any of them, whatever the engines list today.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbitro import Oracle
from arbitro.model.errors import IllegalAction
from arbitro.oracle.check import check_lines
from arbitro.oracle.core import Refused
from arbitro.oracle.server import Server, respond
from arbitro.oracle.transcript import PROTOCOL, canonical_line

CLAUSES = ["escoba-es:capture-forced", "escoba-es:capture-sum", "escoba-es:suits"]


class ThreeRefusals:
    """The Escoba model, but every refused action is refused by three clauses."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def refusals(self, rules: Any, state: Any, action: Any) -> tuple[IllegalAction, ...]:
        first = self._model.refusals(rules, state, action)
        if not first:
            return ()
        return tuple(
            IllegalAction(action, c, f"reason {i}", i if i else None)
            for i, c in enumerate([first[0].clause, *CLAUSES[1:]])
        )


def _refused_position(oracle: Oracle) -> tuple[dict[str, Any], dict[str, Any]]:
    # the four table cards 1o 2o 3o 6o: a 4 or a sota from hand must capture (Captura)
    order = ["4c", "Rc", "Re", "Sb", "Cb", "Rb", "1o", "2o", "3o", "6o"]
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), order + [c for c in deck if c not in order])
    mover = state["to_move"]
    card = "4c" if "4c" in state["hands"][mover] else "Sb"
    return state, {"seat": mover, "card": card, "capture": []}


@pytest.fixture
def oracle() -> Oracle:
    o = Oracle("escoba-es", players=2)
    o.model = ThreeRefusals(o.model)  # type: ignore[assignment]
    return o


def test_explain_and_apply_carry_every_refusal(oracle: Oracle) -> None:
    state, bad = _refused_position(oracle)
    explained = oracle.explain(state, bad)
    assert [r["clause"] for r in explained["refusals"]] == CLAUSES
    assert explained["clause"] == CLAUSES[0]
    assert explained["refusals"][1] == {"clause": CLAUSES[1], "reason": "reason 1", "penalty": 1}
    with pytest.raises(Refused) as info:
        oracle.apply(state, bad)
    assert [r.clause for r in info.value.refusals] == CLAUSES


def test_the_server_answer_carries_every_refusal(oracle: Oracle) -> None:
    server = Server()
    server.oracles["o"] = oracle
    server.current = "o"
    state, bad = _refused_position(oracle)
    answer, _ = respond(server, json.dumps({"id": 1, "op": "apply", "state": state, "action": bad}))
    assert [r["clause"] for r in answer["error"]["refusals"]] == CLAUSES


def test_check_reports_every_refusal(oracle: Oracle, monkeypatch: pytest.MonkeyPatch) -> None:
    _, bad = _refused_position(oracle)
    deck = oracle.describe()["deck"]
    order = ["4c", "Rc", "Re", "Sb", "Cb", "Rb", "1o", "2o", "3o", "6o"]
    header = {
        "type": "header", "protocol": PROTOCOL, "rulebook": "escoba-es", "options": {},
        "players": 2, "sides": 2, "layout": "", "dealer": 0,
        "deals": [order + [c for c in deck if c not in order]],
    }  # fmt: skip
    line = {"type": "action", "step": 1, "hand": 0, "seat": bad["seat"], "action": bad}
    import arbitro.oracle.check as check

    real = check.Oracle

    def wrapped(*args: Any, **kw: Any) -> Oracle:
        o = real(*args, **kw)
        o.model = ThreeRefusals(o.model)  # type: ignore[assignment]
        return o

    monkeypatch.setattr(check, "Oracle", wrapped)
    verdict = check_lines([canonical_line(header), canonical_line(line)])
    assert verdict.status == "illegal-action"
    assert [r["clause"] for r in verdict.refusals] == CLAUSES
