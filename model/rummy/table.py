"""Views of the table that several rule modules share — a side's completed melds, the points of a
pending opening — and the small builders of a state's hands and table. Implements no clause of
its own.
"""

from __future__ import annotations

from typing import Any, Final

from arbitro.model.rummy import caches
from arbitro.model.rummy.arrange import SideFacts, side_facts
from arbitro.model.rummy.cards import POSITIONS, SPAN
from arbitro.model.rummy.melds import SEQ, SET, WILDS, Meld, is_clean, wild_count
from arbitro.model.rummy.state import Side, State, replaced
from arbitro.model.rummy.tables import Tables

_new: Final[Any] = tuple.__new__
"""`Side(...)` without the Python call of a NamedTuple's constructor."""

_SIDE: Final = Side
"""`Side` read from a final: the compiled code looks a class named in it up in the module's
dictionary at each use."""


class SideView:
    """What is worked out once per table position of a side (its melds tuple, which stays the
    same object from state to state while the side lays nothing): the going-out facts, and the
    engine's candidate slots (`engine._slots`)."""

    __slots__ = ("_clean", "_facts", "freeable", "melds", "owner", "seq_bits", "slots", "takes")

    def __init__(self, melds: tuple[Meld, ...], owner: Tables | None = None) -> None:
        self.melds = melds
        self.owner = owner
        """The tables whose `side_view` made it (None: made elsewhere)."""
        self._facts: SideFacts | None = None
        self._clean = -1
        self.slots: Any = None
        self.takes = -1
        """Bit per rank whose naturals a set of the side can take (`SideFacts.takes`),
        -1 until `homes` works it out; `seq_bits` and `freeable` as in `SideFacts`."""
        self.seq_bits = 0
        self.freeable = 0

    def clean(self, t: Tables) -> int:
        """Clean canastas and sambas among the melds (`going_out_counts`)."""
        got = self._clean
        if got < 0:
            got = self._clean = going_out_counts(t, self.melds)[1]
        return got

    def facts(self, t: Tables) -> SideFacts:
        got = self._facts
        if got is None:
            got = self._facts = side_facts(t, self.melds)
        return got

    def homes(self, t: Tables) -> None:
        """Work out `takes`, `seq_bits` and `freeable`: the three fields of `SideFacts` that
        `arrange.lost_cards` reads, by the same rules as `arrange.side_facts`, without the rest
        (its tuples per rank and suit)."""
        comp = t.completed
        growth = t.completed_set_growth
        grows = growth == "naturals" or growth == "any"
        one_more = growth == "one_natural_if_clean"
        swap = t.clean_by_replacing_wilds
        seq_bit = t.seq_bit
        takes = seq_bits = freeable = 0
        for m in self.melds:
            kind = m.kind
            if kind == SET:
                n = len(m.cards)
                w = wild_count(m.cards)
                if swap:
                    freeable += w
                # an unfinished set takes a natural; a finished one while it may still grow,
                # or in place of a wild
                if n < comp or grows or (one_more and not w and n == comp) or (swap and w):
                    takes |= 1 << m.key
            elif kind == SEQ:
                for c in m.cards:
                    seq_bits |= seq_bit[c]
        self.seq_bits = seq_bits
        self.freeable = freeable
        self.takes = takes


_RECENT: Final[list[SideView | None]] = [None, None, None, None]
"""The last four views `side_view` made or found in its dictionary, in turn: found by comparing
identities, before the dictionary, whose key is an int to build and hash."""

_NEXT: Final[list[int]] = [0]
"""The place in `_RECENT` the next view goes to."""


def side_view(t: Tables, melds: tuple[Meld, ...]) -> SideView:
    """The `SideView` of a side's melds, remembered by identity (the entry keeps the tuple
    alive, so its id is not reused meanwhile); at most `caches.SIDES` are kept."""
    recent = _RECENT
    for got in recent:
        if got is not None and got.melds is melds and got.owner is t:
            return got
    memo = t.by_id
    hit: SideView | None = memo.get(id(melds))  # typed: its fields are read natively
    if hit is None or hit.melds is not melds:
        if len(memo) >= caches.SIDES:
            memo.clear()
        hit = memo[id(melds)] = SideView(melds, t)
    at = _NEXT[0]
    recent[at] = hit
    _NEXT[0] = (at + 1) & 3
    return hit


class Carried:
    """What the engine carries from a side's last listing to its next one: its melds, their
    slots (`engine._slots`, kept as the object made, typed `Any` so that it is not built
    again) and their clean canastas (`going_out_counts`' second count), each worked out from
    the last when one meld has grown or been laid."""

    __slots__ = ("clean", "melds", "slots", "t")

    def __init__(self) -> None:
        self.t: Tables | None = None
        """The tables the rest was worked out for (None: nothing yet)."""
        self.melds: tuple[Meld, ...] = ()
        self.slots: Any = None
        self.clean = 0


CARRIED: Final[list[Carried]] = []
"""Per side (its index): what `engine._slots` worked out last."""


def carried(side: int) -> Carried:
    """The `Carried` of side `side`, made empty at its first use."""
    got = CARRIED
    while len(got) <= side:
        got.append(Carried())
    return got[side]


def clean_count(t: Tables, melds: tuple[Meld, ...], side: int) -> int:
    """`going_out_counts(t, melds)[1]` for side `side`'s melds: read off what its last listing
    carried when these are the melds it saw (the side's melds do not change between its
    partner's last listing and its own turn), else its table view's."""
    if side < len(CARRIED):
        c = CARRIED[side]
        if c.melds is melds and c.t is t:
            return c.clean
    return side_view(t, melds).clean(t) if melds else 0


def clean_done(t: Tables, m: Meld) -> int:
    """1 when meld `m` is counted clean by `going_out_counts` (a clean canasta or samba), else
    0: what one meld grown or laid changes in a side's count."""
    kind = m.kind
    if kind in (SET, SEQ) and len(m.cards) >= t.completed and is_clean(m):
        return 1
    return 0


def mover_side(state: State) -> Side:
    """The side of the player whose turn it is."""
    return state.table[state.seat % state.sides]


def going_out_counts(t: Tables, melds: tuple[Meld, ...]) -> tuple[int, int, int]:
    """Completed melds that count to go out, and how many of them are clean and dirty.

    Canastas and sambas count; a completed wild-only meld does not (canasta-es says it never lets a
    side go out on its own; reading: it counts neither as clean nor as dirty).
    """
    done = clean = dirty = 0
    size = t.completed
    for m in melds:
        if (m.kind == SET or m.kind == SEQ) and len(m.cards) >= size:
            done += 1
            if is_clean(m):
                clean += 1
            else:
                dirty += 1
    return done, clean, dirty


def completed_count(t: Tables, melds: tuple[Meld, ...]) -> int:
    """Completed melds of any kind but black threes (red threes, canastón, canasta de canastas)."""
    return sum(1 for m in melds if m.kind in (SET, SEQ, WILDS) and len(m.cards) >= t.completed)


def pending(state: State) -> bool:
    """The mover's side has melds but has not opened: they are this turn's opening."""
    sd = mover_side(state)
    return not sd.opened and bool(sd.melds)


def opening_points(t: Tables, state: State) -> int:
    """Card points of the mover's side's melds, as counted for the opening minimum.

    The top card taken from the pile counts unless *:pile-top-counts-for-opening says otherwise.
    """
    sd = mover_side(state)
    pts = t.points
    total = sum(pts[c] for m in sd.melds for c in m.cards)
    if not t.pile_top_counts_for_opening:
        total -= state.top_points
    return total


def with_melds(
    state: State, melds: list[Meld] | tuple[Meld, ...], opened: bool | None = None
) -> tuple[Side, ...]:
    """The table with the mover's side holding `melds` (sorted here), opened as given."""
    i = state.seat % state.sides
    sd = state.table[i]
    new = _new(Side, (sort_melds(melds), sd.red_threes, sd.opened if opened is None else opened))
    got: tuple[Side, ...] = put(state.table, i, new)
    return got


def with_meld_grown(state: State, i: int, grown: Meld) -> tuple[Side, ...]:
    """`with_melds(state, melds)` for the mover's side's sorted melds with meld `i` replaced by
    `grown` (the same kind and key, more cards): it keeps its place when it still sorts
    between its two neighbours, the other pairs being in order already, which is what the sort
    would leave; else they are sorted."""
    k = state.seat % state.sides
    sd = state.table[k]
    melds: tuple[Meld, ...] = sd[0]
    n = len(melds)
    ordered: tuple[Meld, ...]
    if (i > 0 and _before(grown, melds[i - 1])) or (i + 1 < n and _before(melds[i + 1], grown)):
        ms = list(melds)
        ms[i] = grown
        ordered = sort_melds(ms)
    elif n < SPAN:
        # the tuple built at its size, item by item (no list copied and turned into a tuple)
        mv: tuple[Any, ...] = melds
        go: Any = grown
        ordered = tuple(go if j == i else mv[j] for j in POSITIONS[n])
    else:
        ordered = put(melds, i, grown)
    got: tuple[Side, ...] = put(state.table, k, _new(_SIDE, (ordered, sd[1], sd[2])))
    return got


def with_meld_added(state: State, m: Meld) -> tuple[Side, ...]:
    """`with_melds(state, (*melds, m))` for the mover's side's sorted melds and a new meld
    `m`: put after every meld that does not sort after it, where the sort would leave it."""
    k = state.seat % state.sides
    sd = state.table[k]
    melds: tuple[Meld, ...] = sd[0]
    n = len(melds)
    at = n
    while at > 0 and _before(m, melds[at - 1]):
        at -= 1
    ordered: tuple[Meld, ...]
    if n < SPAN - 1:
        # the tuple built at its size, item by item (a starred display builds a list of
        # the two slices and the meld, and a tuple of it)
        mv: tuple[Any, ...] = melds
        mo: Any = m
        ordered = tuple(
            mv[j] if j < at else (mo if j == at else mv[j - 1]) for j in POSITIONS[n + 1]
        )
    else:
        ordered = (*melds[:at], m, *melds[at:])
    got: tuple[Side, ...] = put(state.table, k, _new(_SIDE, (ordered, sd[1], sd[2])))
    return got


def sort_melds(melds: list[Meld] | tuple[Meld, ...]) -> tuple[Meld, ...]:
    """`tuple(sorted(melds))`: the same order (melds compare as tuples of kind, key and cards;
    equal ones keep their order), by an insertion sort that compares the ints of kind and key
    first. The melds come nearly sorted (one meld new or changed among sorted ones), and
    `sorted` compares them as objects, each comparison a call."""
    ms = list(melds)
    for j in range(1, len(ms)):
        m = ms[j]
        k = j
        while k > 0 and _before(m, ms[k - 1]):
            ms[k] = ms[k - 1]
            k -= 1
        ms[k] = m
    return tuple(ms)


def _before(a: Meld, b: Meld) -> bool:
    """`a < b` for melds (tuples of kind, key and cards)."""
    ka: int = a[0]
    kb: int = b[0]
    if ka != kb:
        return ka < kb
    ka = a[1]
    kb = b[1]
    if ka != kb:
        return ka < kb
    ca: tuple[int, ...] = a[2]
    cb: tuple[int, ...] = b[2]
    n = min(len(ca), len(cb))
    for p in range(n):
        x = ca[p]
        y = cb[p]
        if x != y:
            return x < y
    return len(ca) < len(cb)


def with_hand(state: State, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The hands with the mover's replaced."""
    got: tuple[tuple[int, ...], ...] = put(state.hands, state.seat, hand)
    return got


def put(items: tuple[Any, ...], i: int, x: Any) -> tuple[Any, ...]:
    """`items` with item `i` replaced by `x`. Two and four items (the sides, the seats of a
    partnership game) are built as a tuple of that size at once, without a list between."""
    n = len(items)
    if n == 2:
        return (x, items[1]) if i == 0 else (items[0], x)
    if n == 4:
        if i == 0:
            return (x, items[1], items[2], items[3])
        if i == 1:
            return (items[0], x, items[2], items[3])
        if i == 2:
            return (items[0], items[1], x, items[3])
        return (items[0], items[1], items[2], x)
    out = list(items)
    out[i] = x
    return tuple(out)


def opened(state: State) -> State:
    """The state with the mover's side opened."""
    i = state.seat % state.sides
    sd = state.table[i]
    if sd.opened:
        return state
    return replaced(state, table=put(state.table, i, _new(Side, (sd[0], sd[1], True))))
