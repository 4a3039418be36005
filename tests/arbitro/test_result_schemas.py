"""Every op of the protocol has a result schema (result-OP.schema.json, printed by `arbitro schema`
and linked from docs/protocol.md): real answers of every op, for Escoba and for Samba, satisfy it,
read by arbitro's validator and by `jsonschema`; a result broken in one place is refused by both."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arbitro.oracle.notation import position_line
from arbitro.oracle.protocol import Invalid, schema_names, validate
from arbitro.oracle.server import OPS, Server, respond
from arbitro.oracle.transcript import PROTOCOL, canonical_line
from tests.support.serve import SCHEMAS, validator

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _ask(server: Server, req: dict[str, Any]) -> Any:
    answer, _ = respond(server, json.dumps(req))
    assert answer["ok"], (req["op"], answer)
    return answer["result"]


def _session(rulebook: str, seed: int) -> list[tuple[str, Any]]:
    """(op, result) of one client's session that sends every op at least once."""
    server = Server()
    got: list[tuple[str, Any]] = []

    def ask(op: str, **fields: Any) -> Any:
        result = _ask(server, {"id": len(got), "op": op, **fields})
        got.append((op, result))
        return result

    ask("hello")
    start = ask("start", rulebook=rulebook)
    deck = start["deck"]
    ask("new_game", save="g")
    order = random.Random(seed).sample(deck, len(deck))
    state = ask("deal", position="g", order=order)
    # a position line stands for the position, in `position` as in `state`
    assert ask("position", position=position_line(state), save="h") == state
    assert ask("legal", position=position_line(state)) == ask("legal", state=state)
    ask("position", position="h")
    for _ in range(12):
        legal = ask("legal", position="g")
        if not legal:
            break
        ask("explain", position="g", action=legal[-1])
        ask("apply", position="g", action=legal[-1])
    state = ask("position", position="g")
    mover = state["to_move"] if state["game"] == "escoba" else state["seat"]
    ask("view", position="g", seat=mover)
    ask("view", position="g", seat=(mover + 1) % state["players"])
    # a refusal: an action of a seat that is not to move
    legal = ask("legal", position="g")
    wrong = {**legal[0], "seat": (legal[0]["seat"] + 1) % state["players"]}
    assert ask("explain", position="g", action=wrong)["legal"] is False
    ask("score", position="g")
    ask("check", position="g")
    # totals by which a side has won, while the game goes on: a whole-state check fails
    broken = ask("check", state={**state, "scores": [100000] + [0] * (state["sides"] - 1)})
    assert broken["violations"]
    header = {
        "type": "header",
        "protocol": PROTOCOL,
        "rulebook": rulebook,
        "options": {},
        "players": start["players"],
        "sides": start["sides"],
        "layout": start["layout"],
        "dealer": 0,
        "deals": [order],
    }
    first = _ask(
        server, {"op": "legal", "state": _ask(server, {"op": "position", "position": "h"})}
    )
    act = {"type": "action", "step": 1, "hand": 0, "seat": first[0]["seat"], "action": first[0]}
    bad = {**act, "action": {**first[0], "seat": (first[0]["seat"] + 1) % start["players"]}}
    ask("check_transcript", lines=[canonical_line(header), canonical_line(act)])
    ask("check_transcript", lines=[canonical_line(header), canonical_line(bad)])
    ask("check_transcript", lines=[canonical_line(header), "{"])
    ask("forget", position="h")
    ask("quit")
    return got


@pytest.fixture(scope="module")
def results() -> list[tuple[str, Any]]:
    return _session("escoba-es", 3) + _session("samba-en", 4)


def _reference(op: str) -> Any:
    from jsonschema import Draft202012Validator, validators

    base = validator(f"result-{op}.schema.json")
    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", lambda _, x: type(x) is int)
    strict = validators.extend(Draft202012Validator, type_checker=checker)
    return strict(base.schema, registry=base._registry)


def test_every_op_has_a_result_schema_and_the_doc_links_it() -> None:
    names = set(schema_names())
    assert {f"result-{op}" for op in OPS} <= names
    assert {n for n in names if n.startswith("result-")} == {f"result-{op}" for op in OPS}
    doc = DOC.read_text(encoding="utf-8")
    table = {
        m.group(1): m.group(2)
        for m in re.finditer(
            r"^\| `([a-z_]+)` \|.*\[result\]\(\.\./arbitro/schemas/(\S+?)\)", doc, re.M
        )
    }
    assert table == {op: f"result-{op}.schema.json" for op in OPS}


def test_real_results_of_every_op_satisfy_their_schema(results: list[tuple[str, Any]]) -> None:
    seen = set()
    for op, result in results:
        validate(result, f"result-{op}", "result")
        assert _reference(op).is_valid(result), (op, result)
        seen.add(op)
    assert seen == set(OPS)


def _drop_first_field(r: Any) -> Any:
    out = dict(r)
    out.pop(next(iter(out)))
    return out


BREAK: dict[str, Callable[[Any], Any]] = {
    "hello": lambda r: {**r, "protocol": "arbitro/2"},
    "start": lambda r: {**r, "deck": [*r["deck"], "1x"]},
    "new_game": _drop_first_field,
    "position": lambda r: {**r, "phase": "playing"},
    "deal": lambda r: {**r, "hands": [*r["hands"][:1], ["??"]]},
    "legal": lambda r: [*r, {"seat": 0}],
    "apply": lambda r: {**r, "extra": 1},
    "explain": lambda r: {**r, "legal": not r["legal"]},
    "score": lambda r: {**r, "winner": "nobody"},
    "check": lambda r: {"violations": [1]},
    "check_transcript": lambda r: {**r, "status": "ok"},
    "view": lambda r: {**r, "hands": [["XX"]]},
    "forget": lambda r: {"forgot": r["forgotten"]},
    "quit": lambda r: "bye!",
}


def test_a_broken_result_of_every_op_is_refused(results: list[tuple[str, Any]]) -> None:
    assert set(BREAK) == set(OPS)
    for op, result in results:
        broken = BREAK[op](copy.deepcopy(result))
        assert not _reference(op).is_valid(broken), (op, broken)
        with pytest.raises(Invalid):
            validate(broken, f"result-{op}", "result")


@pytest.mark.parametrize("family", ["escoba", "rummy"])
def test_a_view_schema_is_its_state_schema_with_hidden_cards(family: str) -> None:
    state = json.loads((SCHEMAS / f"{family}-state.schema.json").read_text(encoding="utf-8"))
    view = json.loads((SCHEMAS / f"{family}-view.schema.json").read_text(encoding="utf-8"))

    def widen(x: Any) -> Any:
        if isinstance(x, dict):
            return {
                k: (f"^(?:{v[1:-1]}|\\?\\?)$" if k == "pattern" else widen(v))
                for k, v in x.items()
                # the hidden cards repeat: "??" three times
                if k != "uniqueItems"
            }
        if isinstance(x, list):
            return [widen(v) for v in x]
        return x

    def body(x: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in x.items() if k not in ("$id", "title", "description")}

    assert state["properties"]["hands"] != view["properties"]["hands"]
    assert body(widen(state)) == body(view)
