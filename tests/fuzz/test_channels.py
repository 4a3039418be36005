"""Fuzzing the two channels arbitro reads from that another program or an earlier run wrote: the
answers of an engine under test (`arbitro conform`'s adapter protocol) and the findings cache.

An adapter's answer, however hostile, ends the run with one line naming what is wrong (exit 3) or
is judged as an answer; it never escapes as an exception. A cache file, however broken, is read as
it was written or derived again; it is never a traceback, and nothing behind a link is replaced.

Fast by default (a few dozen examples each, in CI too); a long run: `FUZZ_EXAMPLES=2000 uv run
pytest tests/fuzz`."""

from __future__ import annotations

import copy
import io
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arbitro.conformance import conform as conform_mod
from arbitro.conformance.conform import EXIT, conform, text
from arbitro.conformance.conform_adapter import Adapter, Reference, serve_reference
from arbitro.findings import cache as findings_cache
from arbitro.findings import core as findings_core

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# a JSON value of any shape, with the values a hostile writer reaches for
HOSTILE_SCALAR: st.SearchStrategy[Any] = st.sampled_from(
    [None, True, False, 0, -1, 2**63, 1.5, "", "x", "\ud800", "JK", "7o", "PROVED", [], {}]
)
JSON = st.recursive(
    HOSTILE_SCALAR | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
RAW_JUNK = st.sampled_from(
    [
        b"",
        b"{",
        b"null",
        b"[1,2]",
        b'{"id":1}',
        b"NaN",
        b'{"ok":true,"result":1e400}',
        b'{"ok":true,"result":' + b"9" * 5000 + b"}",
        b"[" * 5000 + b"]" * 5000,
        b'"\\ud800"',
        b"\xff\xfe",
        b"\xc3",
    ]
)


def _places(value: Any) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    todo = [value]
    while todo:
        v = todo.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            out.append((v, k))
            todo.append(x)
    return out


Spoil = Callable[[bytes, Any], bytes]


def _spoilers() -> st.SearchStrategy[Spoil]:
    """Ways to spoil one line of JSON: at a place in its value, or in its bytes."""

    def at_a_place(pick: int, new: Any, drop: bool) -> Spoil:
        def spoil(raw: bytes, _: Any) -> bytes:
            value = json.loads(raw)
            places = _places(value)
            if not places:
                return json.dumps(new).encode()
            parent, key = places[pick % len(places)]
            if drop and isinstance(parent, dict):
                del parent[key]
            else:
                parent[key] = new
            return json.dumps(value).encode()

        return spoil

    def cut(at: int) -> Spoil:
        return lambda raw, _: raw[: at % max(1, len(raw))]

    def flip(at: int, bit: int) -> Spoil:
        def spoil(raw: bytes, _: Any) -> bytes:
            if not raw:
                return raw
            i = at % len(raw)
            return raw[:i] + bytes([raw[i] ^ (1 << bit)]) + raw[i + 1 :]

        return spoil

    def splice(at: int, junk: bytes) -> Spoil:
        def spoil(raw: bytes, _: Any) -> bytes:
            i = at % (len(raw) + 1)
            return raw[:i] + junk + raw[i:]

        return spoil

    def replace(junk: bytes) -> Spoil:
        return lambda raw, _: junk

    return st.one_of(
        st.builds(at_a_place, st.integers(0, 10_000), JSON, st.booleans()),
        st.builds(cut, st.integers(0, 10_000)),
        st.builds(flip, st.integers(0, 10_000), st.integers(0, 7)),
        st.builds(splice, st.integers(0, 10_000), RAW_JUNK | st.binary(max_size=8)),
        st.builds(replace, RAW_JUNK | st.binary(max_size=30)),
    )


# ---------------------------------------------------------------- the adapter channel


class ScriptedAdapter(Adapter):
    """arbitro's own reference engine, in this process, behind the real `Adapter.ask` and its
    reading of answers: each request is answered by `serve_reference`, and the answers the plan
    names (by request number) are spoiled before arbitro reads them."""

    plan: dict[int, Spoil] = {}  # noqa: RUF012 - set by each example before the run

    def __init__(
        self, command: Sequence[str], timeout: float = 10.0, deadline: float | None = None
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.deadline = deadline
        self.next_id = 0
        self.requests = 0
        self.closed = False
        self.hung = False
        self.engine = Reference()
        self.answer = b""

    def _send(self, op: str, data: bytes) -> None:
        out = io.BytesIO()
        serve_reference(io.BytesIO(data), out, self.engine)
        raw = out.getvalue().rstrip(b"\n")
        spoil = self.plan.get(self.requests)
        if spoil is not None:
            raw = spoil(raw, None)
        # one line, as the pipe reader cuts it
        self.answer = raw.replace(b"\n", b" ") + b"\n"

    def _line(self, op: str) -> bytes:
        return self.answer

    def close(self) -> None:
        self.closed = True


FAILURES = ("crashed", "timeout", "garbage", "refused-op")


def _play(plan: dict[int, Spoil], rulebook: str = "escoba-es") -> conform_mod.Run:
    ScriptedAdapter.plan = plan
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(conform_mod, "Adapter", ScriptedAdapter)
        return conform(rulebook, ["scripted"], games=1, seed=3, players=2, budget=2, readings=False)


def test_the_scripted_adapter_unspoiled_conforms() -> None:
    # the harness itself: without a spoiled answer, arbitro's own engine agrees with arbitro
    run = _play({})
    assert run.failure is None and run.status == "conforms", text(run)
    assert run.requests > 20


@FAST
@given(st.dictionaries(st.integers(1, 40), _spoilers(), min_size=1, max_size=3))
@example({1: lambda raw, _: b'{"id":1,"ok":true,"result":{"protocol":"arbitro-adapter/2",'
          b'"engine":"x\\ud800y"}}'})  # fmt: skip
@example({2: lambda raw, _: b'{"id":2,"ok":true,"result":' + b"[" * 40 + b"]" * 40 + b"}"})
@example({3: lambda raw, _: raw.replace(b'"ok":true', b'"ok":false')})
def test_any_answer_of_an_adapter_is_judged_or_named_in_one_line(plan: dict[int, Spoil]) -> None:
    run = _play(plan)  # raises nothing: an escaping exception is a traceback for the user
    exit_code = EXIT.get(run.status, 3)
    shown = text(run)
    assert "Traceback" not in shown
    if run.failure is not None:
        assert run.failure["kind"] in FAILURES
        assert exit_code == 3
        message = run.failure["message"]
        assert "\n" not in message and len(message) < 500, message
        assert shown.count("\n") == 1
        shown.encode("utf-8")  # a lone surrogate it sent is not echoed into the terminal
    else:
        assert exit_code in (0, 1)
    json.dumps(run.to_json(), ensure_ascii=False).encode("utf-8")


def test_a_check_that_is_missing_lets_a_hostile_answer_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the demonstration that the fuzz test above can fail: with the check of `hello` removed,
    # a hello that lacks its protocol is no longer refused in one line
    def accept(value: Any, name: str, path: str) -> None:
        return None

    monkeypatch.setattr(conform_mod, "validate", accept)
    run = _play({1: lambda raw, _: b'{"id":1,"ok":true,"result":{"engine":[1]}}'})
    assert run.failure is None  # taken for a conforming engine: the check is what refuses it
    monkeypatch.undo()
    run = _play({1: lambda raw, _: b'{"id":1,"ok":true,"result":{"engine":[1]}}'})
    assert run.failure is not None and run.failure["kind"] == "garbage"


# ---------------------------------------------------------------- the findings cache

KEY = "0123456789abcdef01234567"
DERIVED: dict[str, Any] = {
    "claims": [
        {
            "claim": "samba-en:claim:pack-of-54",
            "statement": "card_count",
            "options": {},
            "method": "computation",
            "verdict": "PROVED",
        }
    ],
    "clashes": [],
    "dead_rules": [],
    "escalera_wild": {"samba-en": ["samba-en:sequences"]},
    "witnesses": {
        "draw_count|samba-es|canasta-es": {
            "key": "draw_count",
            "books": ["samba-es", "canasta-es"],
            "how": "none",
            "found": False,
            "text": "no case found",
        }
    },
    "dead_ends": [],
    "properties": [],
    "moot": {},
    "arises": {},
}
"""The shape `derive` writes, small (an independent copy of it: the shape check must accept it)."""


def _load_or_derive(path: Path) -> tuple[dict[str, Any], str, int]:
    """`load_or_derive` on the cache file `path`, with a `derive` that counts its calls."""
    calls: list[int] = []

    def derive(*_: Any, **__: Any) -> dict[str, Any]:
        calls.append(1)
        return copy.deepcopy(DERIVED)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(findings_core, "cache_path", lambda books: (path, KEY))
        mp.setattr(findings_core, "derive", derive)
        got, source = findings_core.load_or_derive([])
    return got, source, len(calls)


def _good_cache(path: Path) -> bytes:
    assert findings_cache.write(path, KEY, copy.deepcopy(DERIVED))
    return path.read_bytes()


def _rehash(raw: bytes) -> bytes:
    """The file with its content hash made to agree with its (spoiled) content, so that only
    the shape check stands between a spoiled cache and the findings."""
    try:
        data = json.loads(raw)
        data["content"] = findings_cache.content_hash(data["derived"])
        return json.dumps(data).encode("utf-8", "surrogatepass")
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return raw


@FAST
@given(_spoilers(), st.booleans())
@example(lambda raw, _: raw.replace(b'"no case found"', b'"\\ud800"'), True)
@example(lambda raw, _: raw.replace(b'"PROVED"', b'"REFUTED"'), False)
@example(lambda raw, _: raw.replace(b'"PROVED"', b"NaN"), True)
def test_a_spoiled_cache_is_read_as_written_or_derived_again(spoil: Spoil, rehash: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "findings.json"
        good = _good_cache(path)
        bad = spoil(good, None)
        if rehash:
            bad = _rehash(bad)
        path.write_bytes(bad)
        try:
            read = findings_cache.read(path, KEY)
        except findings_cache.CacheMismatch:
            read = None
        if read is not None and not rehash:
            # the hash catches every change to the content: what is read is what was written
            assert read == DERIVED
        if read is not None:
            findings_cache.check_shape(read)
        got, source, derived = _load_or_derive(path)
        if read is None:
            assert source.startswith("derived now") and derived == 1 and got == DERIVED
            # derived again and written back: the cache is good again
            assert findings_cache.read(path, KEY) == DERIVED
        else:
            assert source.startswith("cache ") and derived == 0 and got == read


@pytest.mark.parametrize("kind", ["symlink", "dangling", "directory", "fifo", "empty"])
def test_a_cache_path_that_is_no_regular_file_is_derived_again_and_left_alone(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "findings.json"
    victim = tmp_path / "victim.json"
    good = _good_cache(tmp_path / "elsewhere.json")
    victim.write_bytes(good)  # a good cache behind the link: still not followed
    if kind == "symlink":
        path.symlink_to(victim)
    elif kind == "dangling":
        path.symlink_to(tmp_path / "nowhere.json")
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(b"")
    got, source, derived = _load_or_derive(path)
    assert got == DERIVED and derived == 1
    assert victim.read_bytes() == good  # nothing behind the link was touched
    if kind in ("symlink", "dangling"):
        assert path.is_symlink() and source == "derived now (not cached)"
        assert not (tmp_path / "nowhere.json").exists()
    elif kind in ("directory", "fifo"):
        assert source == "derived now (not cached)"
    else:
        assert source == "derived now" and findings_cache.read(path, KEY) == DERIVED
