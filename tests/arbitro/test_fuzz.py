"""Fuzzing the oracle as an attacker or a buggy client would: requests drawn from the request schema
and mutated, states mutated from real play, transcripts mutated line by line and byte by byte.

Whatever arrives: every answer is one line of strict UTF-8 JSON (no NaN, no lone surrogate) that
the published response schema accepts, no error is `internal-error`, and every error names what is
wrong in a bounded message. A state the oracle answers about must pass the published state schema
(checked here by the `jsonschema` package, independently of arbitro's own validator) and the
whole-state checks; a state the schema refuses must be refused.
"""

from __future__ import annotations

import io
import json
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbitro.oracle.check import _verdicts_of
from arbitro.oracle.jsonio import dumps_line
from arbitro.oracle.server import OPS, Server, answer_bytes, respond
from arbitro.oracle.transcript import canonical_line
from tests.support.buggy_escoba import Bugs, play_game
from tests.support.fuzz import BOOKS, json_values, mutate_state, names, played
from tests.support.serve import validator

RESPONSE = validator("response.schema.json")
VERDICT = validator("verdict.schema.json")
STATE_SCHEMA = {g: validator(f"{g}-state.schema.json") for g in ("rummy", "escoba")}
ERROR_TYPES = set(RESPONSE.schema["properties"]["error"]["properties"]["type"]["enum"])
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def started(book: int) -> Server:
    server = Server(max_positions=50)
    rulebook, kw = BOOKS[book]
    answer, _ = respond(server, json.dumps({"op": "start", "rulebook": rulebook, **kw}))
    assert answer["ok"], answer
    return server


def check_answer(line: bytes | None) -> dict[str, Any]:
    assert line is not None
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    text = line.decode("utf-8")  # strict: a lone surrogate or a raw invalid byte fails here

    def no_constant(c: str) -> Any:
        raise AssertionError(f"{c} in an answer")

    got: dict[str, Any] = json.loads(text, parse_constant=no_constant)
    RESPONSE.validate(got)
    if not got["ok"]:
        err = got["error"]
        assert err["type"] != "internal-error", err
        assert err["type"] in ERROR_TYPES
        assert 0 < len(err["message"]) <= 1100
    return got


# ---------------------------------------------------------------- requests from the schema

FIELDS: dict[str, Any] = {
    "id": st.one_of(st.integers(), st.text(max_size=20), st.none(), json_values),
    "oracle": st.sampled_from(["o1", "o2", "x", "", "a" * 70]),
    "rulebook": st.sampled_from(["escoba-es", "canasta-es", "samba-fr", "nope", "../spec/x"]),
    "options": st.dictionaries(st.sampled_from(["target_rule", "x"]), json_values, max_size=2),
    "overrides": st.dictionaries(
        st.sampled_from(["escoba-es:target-score", "target_score", "samba-en:x"]),
        json_values,
        max_size=2,
    ),
    "players": st.integers(-2, 70),
    "teams": st.one_of(st.booleans(), json_values),
    "layout": st.sampled_from(["teams", "two-pairs", "", "x"]),
    "dealer": st.integers(-3, 12),
    "scores": st.lists(st.integers(-(10**4), 10**5), max_size=4),
    "hand": st.integers(-2, 10),
    "order": st.lists(names, max_size=8),
    "seat": st.integers(-2, 12),
    "save": st.sampled_from(["p", "q", "", "?"]),
    "position": st.one_of(st.sampled_from(["p", "q", "zz"]), json_values),
    "action": json_values,
    "actions": st.lists(json_values, max_size=3),
    "dealt": json_values,
    "view": json_values,
    "state": json_values,
}


@st.composite
def requests(draw: st.DrawFn, book: int) -> dict[str, Any]:
    states, actions = played(book)
    op = draw(st.sampled_from([*OPS, "fly", ""]))
    req: dict[str, Any] = {"op": op}
    keys = draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=4, unique=True))
    for key in keys:
        req[key] = draw(FIELDS[key])
    if draw(st.booleans()):
        req["state"] = json.loads(draw(st.sampled_from(states)))
    if draw(st.booleans()):
        req["action"] = json.loads(draw(st.sampled_from(actions)))
    return req


def mutate_text(text: str, data: st.DataObject) -> bytes:
    """The request's text, changed the way a broken client or an attacker would change it."""
    how = data.draw(
        st.sampled_from(["none", "cut", "byte", "nan", "big", "deep", "surrogate", "char"])
    )
    # a line mutated before may hold a byte that is not UTF-8, carried as a lone surrogate by
    # the "surrogateescape" decoding of the caller: it goes back to that byte
    raw = text.encode("utf-8", "surrogateescape")
    at = data.draw(st.integers(0, max(0, len(raw) - 1)))
    if how == "cut":
        raw = raw[:at]
    elif how == "byte":
        raw = raw[:at] + bytes([data.draw(st.integers(0x80, 0xFF))]) + raw[at:]
    elif how == "nan":
        raw = raw.replace(b"0", b"NaN", 1).replace(b"1", b"1e400", 1)
    elif how == "big":
        raw = raw.replace(b"0", b"9" * 5000, 1)
    elif how == "deep":
        raw = b'{"op":"legal","state":' + b"[" * 2000 + b"]" * 2000 + b"}"
    elif how == "surrogate":
        raw = raw.replace(b'"', b'"\\udc80', 1)
    elif how == "char":
        raw = raw[:at] + data.draw(st.sampled_from([b"}", b"{", b",", b'"', b"\\"])) + raw[at:]
    return raw.replace(b"\n", b" ") + b"\n"


@FUZZ
@given(book=st.sampled_from(range(len(BOOKS))), data=st.data())
def test_requests_drawn_from_the_schema_and_mutated(book: int, data: st.DataObject) -> None:
    server = started(book)
    for _ in range(3):
        req = data.draw(requests(book))
        raw = mutate_text(json.dumps(req, ensure_ascii=data.draw(st.booleans())), data)
        line, _ = answer_bytes(server, raw)
        if raw.strip():
            check_answer(line)


# ---------------------------------------------------------------- states mutated from real play


@FUZZ
@given(book=st.sampled_from(range(len(BOOKS))), data=st.data())
def test_states_mutated_from_real_play(book: int, data: st.DataObject) -> None:
    states, actions = played(book)
    original = json.loads(data.draw(st.sampled_from(states)))
    state = mutate_state(original, data)
    server = started(book)
    game = "escoba" if BOOKS[book][0] == "escoba-es" else "rummy"
    schema_ok = STATE_SCHEMA[game].is_valid(state)
    op = data.draw(st.sampled_from(["legal", "apply", "explain", "score", "check", "view"]))
    req: dict[str, Any] = {"id": 1, "op": op, "state": state}
    if op in ("apply", "explain"):
        req["action"] = json.loads(data.draw(st.sampled_from(actions)))
    if op == "view":
        req["seat"] = 0
    line, _ = answer_bytes(server, json.dumps(req).encode() + b"\n")
    got = check_answer(line)
    if not schema_ok:
        assert not got["ok"], ("a state the schema refuses was answered", got)
    elif got["ok"] and op not in ("check",):
        oracle = server.oracles[server.current or ""]
        assert oracle.model.violations(oracle.rules, oracle.read_state(state, checked=False)) == []


# ---------------------------------------------------------------- transcripts mutated


@cache
def transcript() -> tuple[str, ...]:
    return tuple(canonical_line(o) for o in play_game(seed=8, bugs=Bugs(), legal_lists=False))


@FUZZ
@given(data=st.data())
def test_transcripts_mutated_get_a_verdict_never_a_crash(data: st.DataObject) -> None:
    lines = list(transcript())
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["drop", "repeat", "swap", "json", "text", "header"]))
        if how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "swap":
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == "json":
            try:
                obj = json.loads(lines[i])
            except ValueError:
                continue  # already mangled into something that is not JSON
            lines[i] = json.dumps(mutate_state(obj, data))
        elif how == "text":
            lines[i] = mutate_text(lines[i], data).decode("utf-8", "surrogateescape").strip()
        elif how == "header":
            lines.insert(i, lines[0])
        if not lines:
            break
    blob = "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"
    batch = data.draw(st.booleans())
    for verdict in _verdicts_of(io.BytesIO(blob), "fuzzed", batch):
        VERDICT.validate(json.loads(dumps_line(verdict).decode("utf-8")))
        assert verdict["status"] in (
            "valid",
            "illegal-action",
            "score-mismatch",
            "legal-mismatch",
            "incomplete",
            "malformed",
        )
        if verdict["status"] == "malformed":
            assert verdict["line"] >= 1 and verdict["field"] and verdict["expected"]
