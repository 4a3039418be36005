"""Fuzzing conform's adapter channel at the pipe: a real adapter process (tests/support/
spoiling_adapter.py, arbitro's reference engine) spoils the bytes of the answers a drawn plan
names. What the protocol allows (an answer written in pieces, CR LF, whitespace padding, a flood
on stderr) conforms, exit 0; what it does not (an answer twice, an empty line, half an answer
left over, output closed mid-answer, the adapter gone) ends the run with one line, exit 3; the
adapter's processes are ended either way. Slow: each example starts an adapter process."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arbitro.cli.main import main
from tests.support.clock import children

pytestmark = pytest.mark.slow

ADAPTER = Path(__file__).resolve().parents[1] / "support" / "spoiling_adapter.py"
ALLOWED = ("split", "crlf", "pad", "burst")
BROKEN = ("double", "blank", "tail", "noeol", "exit")


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.dictionaries(
        # one game of escoba-es seed 3 asks 75 requests: hello, start, then legal and apply
        st.integers(1, 70),
        st.sampled_from(ALLOWED + BROKEN),
        min_size=1,
        max_size=3,
    )
)
@example({5: "double"})
@example({3: "blank", 9: "pad"})
@example({2: "burst", 4: "split", 6: "crlf"})
def test_what_the_pipe_carries_is_judged_or_ends_the_run_in_one_line(plan: dict[int, str]) -> None:
    before = children()
    argv = [
        "conform", "escoba-es", "--players", "2", "--games", "1", "--seed", "3",
        "--timeout", "10", "--deadline", "120", "--shrink-budget", "2",
        "--", sys.executable, str(ADAPTER), json.dumps(plan),
    ]  # fmt: skip
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", out)
        mp.setattr("sys.stderr", err)
        code = main(argv)
    shown = out.getvalue()
    assert "Traceback" not in shown + err.getvalue()
    if all(how in ALLOWED for how in plan.values()):
        assert code == 0, (plan, shown)
    else:
        assert code == 3, (plan, shown)
        assert shown.count("\n") == 1 and len(shown) < 400, shown
    assert children() <= before  # the adapter was ended and reaped
