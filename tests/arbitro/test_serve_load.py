"""The server under large requests: a request at or past its bounds costs reading it once, not
writing it out again or walking each of its values one at a time (issue: reliability, "100,000
actions hold the server 11 s before the size check"). Behaviour, not time: what is counted is
the work done, so the tests hold on a loaded machine; `benchmarks/soak_server.py` reports times."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbitro.oracle import protocol
from arbitro.oracle.jsonio import MAX_DEPTH, JSONError, loads, nesting
from arbitro.oracle.server import MAX_ACTIONS, Server, respond

# an action of the right shape; its seat is not the mover's, so the first one is refused
ACTION = {"seat": 1, "card": "5o", "capture": ["Cb", "1e"]}
LIMIT = protocol.schema("request")["properties"]["actions"]["maxItems"]


def test_the_documented_bound_on_actions_is_the_schemas() -> None:
    assert LIMIT == MAX_ACTIONS == 100_000


def depth(value: Any) -> int:
    """Nesting counted by plain recursion, the definition `nesting` must agree with."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


JSON = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(JSON, st.integers(0, 6))
def test_nesting_agrees_with_recursion_and_stops_past_its_limit(value: Any, limit: int) -> None:
    assert nesting(value) == depth(value)
    assert nesting(value, limit) == min(depth(value), limit + 1)


def test_a_deep_value_is_measured_only_to_the_limit() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert nesting(deep, MAX_DEPTH) == MAX_DEPTH + 1
    with pytest.raises(JSONError, match=f"more than {MAX_DEPTH} levels"):
        loads("[" * 500 + "]" * 500)


def _server() -> Server:
    server = Server()
    answer, _ = respond(server, json.dumps({"op": "start", "rulebook": "escoba-es", "players": 2}))
    assert answer["ok"], answer
    answer, _ = respond(server, json.dumps({"op": "new_game", "save": "g"}))
    assert answer["ok"], answer
    return server


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every JSON text the schema check writes (to name a value in a message)."""
    sizes: list[int] = []
    real = json.dumps

    def counting(value: Any, **kw: Any) -> str:
        text = real(value, **kw)
        sizes.append(len(text))
        return text

    monkeypatch.setattr(protocol.json, "dumps", counting)
    return sizes


def test_one_action_past_the_bound_is_refused_naming_it_without_writing_the_request_out(
    written: list[int],
) -> None:
    line = json.dumps({"id": 7, "op": "apply", "position": "g", "actions": [ACTION] * (LIMIT + 1)})
    server = _server()
    written.clear()  # what the test itself wrote
    answer, _ = respond(server, line)
    assert answer["id"] == 7 and not answer["ok"]
    assert answer["error"]["type"] == "malformed-request"
    assert f"at most {LIMIT} items" in answer["error"]["message"]
    assert len(answer["error"]["message"]) < 300
    # naming the value wrote a few items of it, not its four megabytes
    assert sum(written) < 2000, sum(written)


def test_a_request_at_the_bound_is_read_and_judged_from_its_first_action(
    written: list[int],
) -> None:
    line = json.dumps({"id": 8, "op": "apply", "position": "g", "actions": [ACTION] * LIMIT})
    server = _server()
    written.clear()
    answer, _ = respond(server, line)
    assert answer["id"] == 8 and not answer["ok"]
    assert answer["error"].get("index") == 0, answer
    assert sum(written) < 2000, sum(written)


def test_a_union_of_types_judges_what_json_does_not_give_as_before() -> None:
    # the fast check looks the exact type up; a subclass (never decoded from JSON, but a caller
    # in Python may pass one) is judged by the types' meaning as before, and a wrong type is not
    class Move(str):
        pass

    protocol.validate({"op": "apply", "position": "g", "action": Move("1@5o")}, "request", "r")
    with pytest.raises(protocol.Invalid, match="an object or a string"):
        protocol.validate({"op": "apply", "position": "g", "action": 5}, "request", "r")
