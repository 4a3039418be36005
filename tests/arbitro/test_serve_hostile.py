"""`arbitro serve` under hostile input: one line of valid JSON per request, typed errors, no crash.

Each case is the smallest reproducer of a failure seen when the server was fuzzed: a lone
surrogate in an id, an invalid byte in the same read as a valid request, NaN or 1e400 echoed, a
10 MB op echoed whole, nesting 1,000 deep, numbers of 4,301 digits, a seat out of range, a
`hands` list one short, non-integer score categories, an action type given as a list, a rulebook
id of 251 characters, `"teams": "no"`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.serve import validator

RESPONSE = validator("response.schema.json")


class RawServer:
    """`arbitro serve` fed raw bytes; every answer line is read strictly."""

    def __init__(self, *args: str) -> None:
        # what it writes on stderr goes to a file: a pipe nobody reads until the end could fill
        # and stop the server mid-answer
        self.err = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arbitro.cli", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
        )

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.endswith(b"\n") and line.count(b"\n") == 1, line[:200]
        text = line.decode("utf-8")  # strict UTF-8: no raw invalid byte, no lone surrogate
        got: dict[str, Any] = json.loads(
            text, parse_constant=lambda c: pytest.fail(f"{c} in an answer")
        )
        RESPONSE.validate(got)
        return got

    def ask(self, req: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(req).encode() + b"\n")
        return self.answer()

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.err.seek(0)
        assert self.err.read() == b""  # no traceback, ever
        self.err.close()
        return code


@pytest.fixture(scope="module")
def shared() -> Iterator[RawServer]:
    """One server for the module: each case ends by asking it something valid, so every case
    also checks the server goes on answering after all the hostile lines before it."""
    s = RawServer()
    yield s
    assert s.close() == 0


@pytest.fixture
def server(shared: RawServer) -> RawServer:
    assert shared.proc.poll() is None, "the server has ended"
    return shared


def test_a_lone_surrogate_in_an_id_is_refused_and_the_server_goes_on(server: RawServer) -> None:
    server.send(b'{"id":"\\ud800","op":"hello"}\n')
    got = server.answer()
    assert got["id"] is None and got["error"]["type"] == "malformed-request"
    assert "surrogate" in got["error"]["message"]
    assert server.ask({"id": 2, "op": "hello"})["ok"]


def test_an_invalid_byte_does_not_drop_the_valid_requests_read_with_it(server: RawServer) -> None:
    server.send(b'{"id":1,"op":"hello"}\n{"id":\xff2,"op":"hello"}\n{"id":3,"op":"hello"}\n')
    first, bad, third = server.answer(), server.answer(), server.answer()
    assert first["id"] == 1 and first["ok"]
    assert bad["error"]["type"] == "malformed-request" and "not UTF-8" in bad["error"]["message"]
    assert third["id"] == 3 and third["ok"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id":NaN,"op":"hello"}',
        b'{"id":1e400,"op":"hello"}',
        b'{"id":-Infinity,"op":"hello"}',
        b'{"id":' + b"7" * 4301 + b',"op":"hello"}',
        b"[" * 1000 + b"]" * 1000,
        b'{"op":"hello","x":' + b"[" * 900 + b"]" * 900 + b"}",
        b'{"id":{"a":1},"op":"hello"}',
        b'{"id":"' + b"i" * 300 + b'","op":"hello"}',
    ],
)
def test_requests_that_are_not_the_protocols_json_get_a_json_error(
    server: RawServer, raw: bytes
) -> None:
    got = server.answer() if server.send(raw + b"\n") is None else None
    assert got is not None and got["ok"] is False and got["id"] is None
    assert got["error"]["type"] == "malformed-request"
    assert server.ask({"id": 1, "op": "hello"})["ok"]


def test_an_unknown_op_is_named_briefly(server: RawServer) -> None:
    big = "x" * 10_000_000
    got = server.ask({"id": 1, "op": big})
    assert got["error"]["type"] == "unknown-op"
    assert len(json.dumps(got)) < 2000


def test_a_line_over_the_limit_is_skipped_and_answered() -> None:
    s = RawServer()
    try:
        s.send(b'{"id":1,"op":"hello","pad":"' + b"p" * (17 * 1024 * 1024) + b'"}\n')
        got = s.answer()
        assert (
            got["error"]["type"] == "malformed-request" and "longer than" in got["error"]["message"]
        )
        assert s.ask({"id": 2, "op": "hello"})["ok"]
    finally:
        assert s.close() == 0


def _started(server: RawServer, rulebook: str, **kw: Any) -> dict[str, Any]:
    got = server.ask({"id": 0, "op": "start", "rulebook": rulebook, **kw})
    assert got["ok"], got
    order = got["result"]["deck"]
    state = server.ask({"id": 0, "op": "new_game"})["result"]
    dealt = server.ask({"id": 0, "op": "deal", "state": state, "order": order})
    assert dealt["ok"], dealt
    result: dict[str, Any] = dealt["result"]
    return result


def _mutated(state: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    s = json.loads(json.dumps(state))
    target = s
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return s


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (["seat"], 7, "state.seat"),
        (["seat"], -1, "state.seat"),
        (["hands"], "drop-one", "state.hands"),
        (["owed"], [0, 0, 0], "state.owed"),
        (["scores"], [0, 0, 0], "state.scores"),
        (["table", 0, "opened"], "no", "state.table[0].opened"),
        (["step"], "", "state.step"),
        (["phase"], "over", "state.step"),
        (["surplus"], 1, "no field 'surplus'"),
        (["players"], 2.5, "state.players"),
        (["hands", 0, 0], ["QH"], "state.hands[0][0]"),
        (["scores", 0], 10**30, "integers lie"),
    ],
)
def test_a_rummy_state_of_the_wrong_form_is_refused_naming_the_field(
    server: RawServer, path: list[Any], value: Any, words: str
) -> None:
    state = _started(server, "samba-en")
    if value == "drop-one":
        broken = _mutated(state, path, state["hands"][:-1])
    else:
        broken = _mutated(state, path, value)
    for op in ("legal", "score", "check"):
        got = server.ask({"id": 9, "op": op, "state": broken})
        assert got["ok"] is False, (op, got)
        assert got["error"]["type"] in ("malformed-input", "malformed-request"), got
        assert words in got["error"]["message"], got


def test_actions_of_the_wrong_form_are_malformed_not_internal_errors(server: RawServer) -> None:
    state = _started(server, "samba-en")
    seat = state["seat"]
    for action in (
        {"type": ["draw"], "seat": seat, "count": 2},
        {"type": {"a": 1}, "seat": seat},
        {"type": "draw", "seat": seat, "count": "two"},
        {"type": "draw", "seat": 40, "count": 2},
        {"type": "add", "seat": seat, "meld": 99, "card": "QH"},
        {"type": "discard", "seat": seat, "card": 7},
        {"type": "add", "seat": seat, "meld": [["QH"]], "card": "QH"},
        {"type": "merge", "seat": seat, "meld": ["QH"], "other": [{"a": 1}]},
    ):
        for op in ("apply", "explain"):
            got = server.ask({"id": 1, "op": op, "state": state, "action": action})
            assert got["ok"] is False or op == "explain", got
            if not got["ok"]:
                assert got["error"]["type"] in ("malformed-input", "illegal-action"), got


def test_start_refuses_what_is_not_an_option(server: RawServer) -> None:
    for req, kind in (
        ({"rulebook": "escoba-es", "teams": "no"}, "malformed-request"),
        ({"rulebook": "e" * 251}, "malformed-request"),
        ({"rulebook": "../pyproject"}, "unknown-rulebook"),
        ({"rulebook": "escoba-es", "players": 500}, "malformed-request"),
        ({"rulebook": "escoba-es", "players": 50}, "bad-option"),
        ({"rulebook": "escoba-es", "players": 5}, "bad-option"),
        ({"rulebook": "escoba-es", "options": {"target_score": 3}}, "malformed-request"),
    ):
        got = server.ask({"id": 1, "op": "start", **req})
        assert got["error"]["type"] == kind, (req, got)


def test_score_categories_that_are_not_integers_are_refused(server: RawServer) -> None:
    state = _started(server, "escoba-es", players=2)
    state["last_hand"] = {
        "reason": "cards-played",
        "scores": [1, 0],
        "categories": [
            {"cards": 1.5, "oros": 0, "velo": 0, "setenta": 0, "escobas": 0},
            {"cards": 0, "oros": 0, "velo": 0, "setenta": 0, "escobas": 0},
        ],
    }
    got = server.ask({"id": 1, "op": "score", "state": state})
    assert got["error"]["type"] == "malformed-input"
    assert "state.last_hand.categories[0].cards" in got["error"]["message"]
