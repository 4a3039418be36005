"""Fuzzing every input surface: whatever bytes, JSON or arguments come in, the answer is a verdict,
an error answer or one line with exit 2, never an internal error or a traceback.

Fast by default (40 examples a surface, in CI too); a long run: `FUZZ_EXAMPLES=5000 uv run pytest
tests/fuzz`."""

from __future__ import annotations

import io
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbitro.model.errors import ArbitroError
from arbitro.oracle.check import _verdicts_of
from arbitro.oracle.server import serve_bytes

FAST = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
OPS = st.sampled_from(
    [
        "hello",
        "legal",
        "apply",
        "explain",
        "score",
        "view",
        "new_game",
        "deal",
        "check",
        "quit",
        "x",
    ]
)
REQUEST = st.fixed_dictionaries(
    {"op": OPS},
    optional={
        "id": JSON,
        "rulebook": st.sampled_from(["escoba-es", "samba-en", "canasta-es", "nope", ""]),
        "state": JSON,
        "action": JSON,
        "seat": st.integers(-2, 12),
        "view": JSON,
        "options": JSON,
    },
)


@FAST
@given(st.lists(REQUEST | JSON, max_size=6), st.binary(max_size=60))
def test_serve_answers_every_line_with_one_json_line(requests: list[object], junk: bytes) -> None:
    lines = [json.dumps(r).encode() for r in requests] + [junk.replace(b"\n", b" ")]
    lines = [x for x in lines if x.strip()]
    out = io.BytesIO()
    assert serve_bytes(io.BytesIO(b"\n".join(lines) + b"\n"), out) == 0
    answers = out.getvalue().splitlines()
    assert len(answers) <= len(lines)
    for a in answers:
        got = json.loads(a)
        assert isinstance(got, dict)
        assert "internal" not in json.dumps(got).lower()


@FAST
@given(st.binary(max_size=400), st.booleans())
def test_check_gives_verdicts_for_any_bytes(blob: bytes, batch: bool) -> None:
    verdicts = list(_verdicts_of(io.BytesIO(blob), "fuzzed", batch))
    if not batch:
        assert len(verdicts) == 1
    for v in verdicts:
        assert v["status"] in (
            "valid",
            "malformed",
            "illegal-action",
            "score-mismatch",
            "legal-mismatch",
            "incomplete",
        )


@FAST
@given(st.dictionaries(st.sampled_from(["rulebook", "clause", "claim", "x"]), JSON, max_size=4))
def test_a_spec_of_any_shape_is_refused_by_name(raw: dict[str, object]) -> None:
    from arbitro.model.spec import parse_spec

    with pytest.raises(ArbitroError):
        parse_spec(raw, "fuzzed.toml")


ARGS = st.lists(
    st.sampled_from(
        [
            "check",
            "explore",
            "perft",
            "rules",
            "show",
            "simulate",
            "--games",
            "--seed",
            "--depth",
            "--config",
            "--deals",
            "--max-states",
            "--spec",
            "--json",
            "-1",
            "0",
            "nan",
            "1e400",
            "99999999999999999999999",
            "",
            "\x00",
            "a" * 300,
            "escoba-es",
            "samba-fr",
            "--layout",
        ]
    ),
    max_size=6,
)


@FAST
@given(ARGS)
def test_any_command_line_is_a_result_or_one_line(argv: list[str]) -> None:
    from arbitro.cli.main import main

    if any(a in ("simulate", "explore", "perft") for a in argv) and not any(
        a in ("-1", "0", "nan", "1e400", "", "\x00") or len(a) > 100 for a in argv
    ):
        return  # a well-formed long run is the other tests' business
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stderr", err)
        mp.setattr("sys.stdout", io.StringIO())
        code = main(argv)
    assert code in (0, 1, 2), (argv, err.getvalue())
    # exit 2: one line on stderr, or (check of several files) a verdict each on stdout
    assert err.getvalue().count("\n") <= 1 and "Traceback" not in err.getvalue()
