"""Reading and writing the protocol's JSON strictly: what comes in is bounded, what goes out is valid.

Requests and transcript lines are read by `loads`: standard JSON only (no `NaN`, `Infinity`,
numbers that overflow a double, or integers beyond the signed 64-bit range), nested at most
`MAX_DEPTH` levels. Anything else raises `JSONError` naming the problem, so a client's mistake
never reaches the rules as an exception of Python's own. Answers are written by `dumps_line`: one
line of UTF-8 JSON, with no `NaN`, no raw invalid byte and no lone surrogate.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeVar, cast

from arbitro.model.errors import MalformedInput

MAX_DEPTH = 32
"""Nesting levels a request or transcript line may use (a Samba state needs six)."""
INT_MAX = 2**63 - 1
"""Integers in the protocol are signed 64-bit: larger ones are refused rather than rounded."""
_INT_DIGITS = len(str(INT_MAX))

T = TypeVar("T")


class JSONError(MalformedInput):
    """Text that is not the protocol's JSON: not JSON at all, or outside its bounds."""


def _no_constant(name: str) -> Any:
    raise JSONError(f"{name} is not a JSON number; use a finite number or null")


def _int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > _INT_DIGITS:
        raise JSONError(
            f"a number of {digits} digits; integers lie from {-INT_MAX - 1} to {INT_MAX}"
        )
    v = int(text)
    if not -INT_MAX - 1 <= v <= INT_MAX:
        raise JSONError(f"the integer {v} lies outside {-INT_MAX - 1} to {INT_MAX}")
    return v


def _float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise JSONError(f"the number {shorten(text, 40)} does not fit a double")
    return v


_decoder = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_no_constant)


def loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `text`; JSONError names what is wrong (with its column when known)."""
    try:
        value = _decoder.decode(text)
    except JSONError:
        raise
    except json.JSONDecodeError as e:
        raise JSONError(f"not JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise JSONError(f"nested too deeply; at most {max_depth} levels are read") from None
    except ValueError as e:  # int() of an over-long number, should one slip past _int
        raise JSONError(f"not JSON: {shorten(str(e), 120)}") from None
    # a value holds at most as many levels as it has brackets: only deep-looking text is walked
    if text.count("[") + text.count("{") > max_depth and nesting(value, max_depth) > max_depth:
        raise JSONError(f"nested more than {max_depth} levels deep; at most {max_depth} are read")
    return value


def nesting(value: Any, limit: int | None = None) -> int:
    """How many levels of arrays and objects `value` nests (0 for a scalar), without recursion;
    with `limit`, counted only up to `limit` + 1.

    Level by level, keeping only the containers of the next level: a request of a hundred
    thousand actions is measured in a tenth of the time a walk over every value takes."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if limit is not None and depth > limit:
            break
        level = [
            c
            for v in level
            for c in (v.values() if type(v) is dict else v)
            if type(c) is dict or type(c) is list
        ]
    return depth


def copy_json(value: T) -> T:
    """A copy of a JSON value that shares no array or object with it: what `copy.deepcopy` gives
    for values of this shape (the states and views the oracle reads), in a fraction of its time."""
    return cast(T, _copy(value))


def _copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    if type(value) is tuple:
        return tuple(_copy(v) for v in value)
    return value


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    keep = max(limit - 30, 10)
    return f"{text[:keep]}… ({len(text) - keep} more characters)"


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, so that it encodes as UTF-8 (a str
    holds a surrogate only when it is lone: JSON's escaped pairs decode to one character)."""
    return _SURROGATE.sub("\ufffd", text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_line(value: Any) -> bytes:
    """`value` as one line of JSON in UTF-8, ending with a newline.

    Keys keep their order. A lone surrogate (which UTF-8 cannot carry) becomes U+FFFD and a
    non-finite number becomes null; neither occurs in what arbitro itself produces.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except (UnicodeEncodeError, ValueError):
        text = json.dumps(_clean(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
