"""An Escoba state as one integer, and back: the compact form the partitioned explorer keeps in
its visited sets and sends between workers. Implements no clause.

The integer is the little-endian number of these bytes, in order: each hand, the table and each
side's captured pile as a 5-byte card mask; each side's escobas a byte; the last capturer and
the seat to move, each plus one, as the low and high half of a byte; the deal number a byte;
then the stock: the byte 128 + n when it is the last n cards of the deal's stock, else n
followed by its n cards and the byte 255. The fields a hand leaves alone (seating, phase,
dealer, hand number, scores, last hand's points), when they are not the deal's, add 64 to the
stock's first byte and follow as text, its 2-byte length and the byte 2. The last byte is never
0, so no byte is lost to the integer. The fields are put in place by shifts, in compiled code:
this runs once per successor of every state a partitioned walk expands.
"""

from __future__ import annotations

import ast
from typing import Any

from arbitro.model.escoba.state import EscobaState

_new: Any = tuple.__new__
"""A state built by `tuple.__new__`, as its constructor does, without a Python call."""
_B40 = 1 << 40
_M40 = _B40 - 1


def pack(
    s: EscobaState,
    suffix: dict[tuple[int, ...], int],
    misc: tuple[Any, ...],
    texts: dict[tuple[Any, ...], bytes],
) -> int:
    """`s` packed; `suffix` maps each tail of the deal's stock to its byte (128 + its length),
    `misc` is the deal's hand-level fields (`misc_of`), `texts` remembers the text of others.
    ValueError when a field is out of its range."""
    v = 0
    at = 0
    for h in s.hands:
        if not 0 <= h < _B40:
            raise ValueError("a hand out of range")
        v |= h << at
        at += 40
    t = s.table
    if not 0 <= t < _B40:
        raise ValueError("the table out of range")
    v |= t << at
    at += 40
    for h in s.piles:
        if not 0 <= h < _B40:
            raise ValueError("a pile out of range")
        v |= h << at
        at += 40
    for e in s.escobas:
        if not 0 <= e < 256:
            raise ValueError("escobas out of range")
        v |= e << at
        at += 8
    last = s.last_capturer
    to_move = s.to_move
    deal_number = s.deal_number
    if not (-1 <= last < 15 and -1 <= to_move < 15 and 0 <= deal_number < 256):
        raise ValueError("a seat or the deal number out of range")
    v |= (last + 1 | (to_move + 1) << 4 | deal_number << 8) << at
    own = misc_of(s)
    same = own == misc
    stock = s.stock
    head = suffix.get(stock)
    if head is not None:
        v |= (head if same else head + 64) << (at + 16)
        at += 24
    else:
        n = len(stock)
        if n >= 64:
            raise ValueError("a stock of 64 cards or more")
        v |= (n if same else n + 64) << (at + 16)
        at += 24
        for c in stock:
            if not 0 <= c < 256:
                raise ValueError("a card out of range")
            v |= c << at
            at += 8
        v |= 255 << at
        at += 8
    if not same:
        text = texts.get(own)
        if text is None:
            raw = repr(own).encode()
            text = texts[own] = raw + len(raw).to_bytes(2, "little") + b"\x02"
        v |= int.from_bytes(text, "little") << at
    return v


def misc_of(s: EscobaState) -> tuple[Any, ...]:
    """The fields a hand leaves alone: seating, phase, dealer, hand number, scores and the last
    hand's points."""
    return (
        s.players, s.sides, s.layout, s.phase, s.dealer, s.hand_number, s.scores, s.last_points,
    )  # fmt: skip


def unpack(
    v: int,
    players: int,
    sides: int,
    by_length: dict[int, tuple[int, ...]],
    misc: tuple[Any, ...],
    parsed: dict[bytes, tuple[Any, ...]],
) -> EscobaState:
    """The state `pack` packed into `v`; `by_length` gives the deal's stock's tail of each
    length, `misc` the deal's hand-level fields, `parsed` remembers those read from text."""
    if players == 2:
        hands: tuple[int, ...] = (v & _M40, v >> 40 & _M40)
    else:
        hands = tuple([v >> at & _M40 for at in range(0, 40 * players, 40)])
    at = 40 * players
    table = v >> at & _M40
    at += 40
    if sides == 2:
        piles: tuple[int, ...] = (v >> at & _M40, v >> (at + 40) & _M40)
        escobas: tuple[int, ...] = (v >> (at + 80) & 255, v >> (at + 88) & 255)
    else:
        piles = tuple([v >> i & _M40 for i in range(at, at + 40 * sides, 40)])
        escobas = tuple([v >> i & 255 for i in range(at + 40 * sides, at + 48 * sides, 8)])
    at += 48 * sides
    fields = v >> at
    seats = fields & 255
    deal_number = fields >> 8 & 255
    x = fields >> 16 & 255
    own = misc
    if x & 64:
        b = v.to_bytes((v.bit_length() + 7) // 8, "little")
        size = int.from_bytes(b[-3:-1], "little")
        text = b[-3 - size : -3]
        got = parsed.get(text)
        if got is None:
            got = parsed[text] = tuple(ast.literal_eval(text.decode()))
        own = got
        x -= 64
    if x & 128:
        stock = by_length[x - 128]
    else:
        rest = fields >> 24
        stock = tuple([rest >> i & 255 for i in range(0, 8 * x, 8)])
    got_state: EscobaState = _new(
        EscobaState,
        (
            own[0], own[1], own[2], own[3], own[4], (seats >> 4) - 1, own[5], deal_number,
            hands, table, stock, piles, escobas, (seats & 15) - 1, own[6], own[7],
        ),
    )  # fmt: skip
    return got_state


__all__ = ["misc_of", "pack", "unpack"]
