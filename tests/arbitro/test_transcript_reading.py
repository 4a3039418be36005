"""`read` takes a shortcut for action lines in canonical form; every line it reads must come out as
`parse_body` reads it, or fail with the same error."""

from __future__ import annotations

import pytest

from arbitro.oracle.transcript import ActionLine, TranscriptError, canonical_line, parse_body, read

HEADER = canonical_line(
    {
        "type": "header",
        "protocol": "arbitro/1",
        "rulebook": "samba-es",
        "options": {},
        "players": 4,
        "sides": 2,
        "layout": "partnerships",
        "dealer": 0,
        "deals": [],
    }
)

PLAIN = (
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}'
)

LINES = [
    PLAIN,
    PLAIN + "\n",
    PLAIN + " \t\r\n",
    " " + PLAIN,
    '{"action":{"cards":["9D","9H","9S"],"seat":2,"type":"lay"},"hand":3,"seat":2,"step":17,"type":"action"}',
    '{"action":{"count":1,"seat":0,"type":"draw"},"hand":12,"seat":0,"step":1234,"type":"action"}',
    # not in canonical form, or not well formed: the general reading decides
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":0,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":02,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":-1,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1.0,"step":2,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":true,"step":2,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action",'
    '"x":1}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}x',
    '{"action":{"card":"4H","seat":1,"type":"discard"}, "hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":12345678901234567890,'
    '"type":"action"}',
    '{"action":{"card":"}","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"x\\"}","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"{","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"n":{"a":1},"seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"n":{},"seat":1},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"seat":1,"seat":2},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"4H",},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"\\u0034H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"action"}',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":0,"seat":1,"step":2,"type":"hand"}',
    '{"action":{"card":"4H"',
    '{"action":{"card":"4H","seat":1,"type":"discard"},"hand":٣,"seat":1,"step":2,"type":"action"}',
]


def _general(raw: str) -> object:
    try:
        return parse_body(raw, 2)
    except TranscriptError as e:
        return (e.line, e.field, e.expected)


def _read(raw: str) -> object:
    try:
        _, body = read([HEADER, raw])
        return next(body)
    except TranscriptError as e:
        return (e.line, e.field, e.expected)


@pytest.mark.parametrize("raw", LINES)
def test_read_gives_what_parse_body_gives(raw: str) -> None:
    got, want = _read(raw), _general(raw)
    assert got == want
    if isinstance(want, ActionLine):
        assert isinstance(got, ActionLine)
        assert (got.line, got.step, got.hand, got.seat) == (
            want.line,
            want.step,
            want.hand,
            want.seat,
        )
        assert dict(got.action) == dict(want.action)


def test_equal_action_objects_are_read_once_and_named_by_their_text() -> None:
    second = PLAIN.replace('"step":2', '"step":3')
    _, body = read([HEADER, PLAIN, second])
    a, b = list(body)
    assert isinstance(a, ActionLine) and isinstance(b, ActionLine)
    assert a.text == b.text == '{"card":"4H","seat":1,"type":"discard"}'
    assert (a.line, a.step, b.line, b.step) == (2, 2, 3, 3)
    assert a.action == b.action == {"card": "4H", "seat": 1, "type": "discard"}
