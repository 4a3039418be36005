"""The protocol's JSON: what is read is standard and bounded, what is written is valid UTF-8 JSON.

Each case is the smallest reproducer of a hostile input that once crashed the server or made it
answer with something that is not JSON (issue: reliability under hostile input, items 1 to 3).
"""

from __future__ import annotations

import json

import pytest

from arbitro.oracle.jsonio import INT_MAX, MAX_DEPTH, JSONError, dumps_line, loads, nesting


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"id":NaN}', "NaN is not a JSON number"),
        ('{"id":Infinity}', "Infinity is not a JSON number"),
        ('{"id":-Infinity}', "-Infinity is not a JSON number"),
        ('{"id":1e400}', "1e400 does not fit a double"),
        ('{"id":' + "9" * 4301 + "}", "a number of 4301 digits"),
        ('{"id":' + str(INT_MAX + 1) + "}", "lies outside"),
        ("[" * 1000 + "]" * 1000, "nested too deeply"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"at most {MAX_DEPTH} are read"),
        ("{not json", "not JSON"),
    ],
)
def test_what_is_not_the_protocols_json_is_named(text: str, words: str) -> None:
    with pytest.raises(JSONError) as info:
        loads(text)
    assert words in str(info.value)
    assert len(str(info.value)) < 200  # named, not echoed


def test_the_bounds_themselves_are_accepted() -> None:
    assert loads(str(INT_MAX)) == INT_MAX
    assert loads(str(-INT_MAX - 1)) == -INT_MAX - 1
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting(loads(deep)) == MAX_DEPTH
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"  # an escaped pair is one character


def test_an_answer_is_one_line_of_utf8_json_whatever_it_holds() -> None:
    line = dumps_line({"id": "\ud800x", "text": "a\nb", "n": float("nan"), "ok": [1.5, "é"]})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    text = line.decode("utf-8")  # strict: no lone surrogate can be in it
    back = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in an answer"))
    assert back == {"id": "\ufffdx", "text": "a\nb", "n": None, "ok": [1.5, "é"]}
