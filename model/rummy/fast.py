"""A fast playout: whole random hands on mutable, incremental state, checked against the engine.

The reference engine (`engine`) keeps every state immutable and lists or tries every candidate
action, which is what a referee needs and about 30 µs per atomic action. A playout that only
needs *some* legal random hand can do far less: this module keeps hands as card lists with
per-kind counts, melds as mutable records, the stock as one tuple and a pointer, and chooses
its moves by a fixed random policy instead of among all legal actions. Every move it makes is an
action of the engine's vocabulary (`actions`), and the tests replay each hand through
`engine.apply`, comparing the whole state after every action (`trace`), for every rulebook,
layout and selectable reading.

The policy, per turn:

- take the discard pile when the side has opened and the top card can go onto one of its melds
  or start a set with naturals from the hand (never with a wild, never to start an escalera),
  keeping at least two cards afterwards; a side that has not opened takes it with a natural pair
  when the set it starts and the hand then reach the opening minimum; otherwise draw;
- a side that has not opened opens when its hand holds melds worth the minimum (sets of
  naturals, grown with every natural of their rank, escaleras, then wilds by points, keeping two
  cards), laying them, adding to them and finishing the opening;
- an opened side lays every set of naturals and every escalera it holds, adds every natural and
  escalera end that fits and wilds to sets close to completion, keeping two cards; it goes out
  when the side meets the book's requirements and every card but the discard (or every card,
  where going out is by melding) fits its melds;
- then it discards a random card of its hand.

It never asks the partner, cleans a canasta, merges sets, lays wild-only or black-three melds or
goes out concealed: those moves are legal in the books that allow them but outside this policy.

Where the rules leave the plain path (a turn that begins with the stock exhausted, a draw that
reaches the stock's last card as a red three, a hand that would be left with fewer than two
cards) the state is handed to the engine, which plays the rest of the hand with its uniform
random sampler (`playout`). Scoring is the engine's own (`scoring.end_hand`). Implements no
clause of its own: each move mirrors the engine's transition for that action, and the tests
check that it does.
"""

from __future__ import annotations

import random

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import engine
from arbitro.model.rummy.actions import (
    Action,
    AddToMeld,
    Discard,
    Draw,
    FinishOpening,
    LayMeld,
    TakePile,
)
from arbitro.model.rummy.melds import SEQ, SET, Meld
from arbitro.model.rummy.playout import _step
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import DRAW, PLAY, Side, State
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules

_BIG = 1 << 30


class _Meld:
    """A meld on the table, mutable: its cards unsorted, with counts kept as it grows."""

    __slots__ = ("cards", "hi", "key", "kind", "lo", "nat", "side", "wild")

    def __init__(self, side: int, kind: int, key: int, cards: list[int], t: Tables) -> None:
        self.side = side
        self.kind = kind
        self.key = key
        self.cards = cards
        w = sum(1 for c in cards if c < 4 or c == 52)
        self.wild = w
        self.nat = len(cards) - w
        if kind == SEQ:
            pos = [t.seq_pos[c >> 2] for c in cards]
            self.lo = min(pos)
            self.hi = max(pos)
        else:
            self.lo = self.hi = -1

    def frozen(self) -> Meld:
        return Meld(self.kind, self.key, tuple(sorted(self.cards)))


def _naturals(cnt: list[int], rank: int, n: int) -> list[int]:
    """`n` naturals of `rank` from a hand with these counts per card, lowest suits first."""
    b = rank * 4
    out: list[int] = []
    for c in (b, b + 1, b + 2, b + 3):
        out += [c] * min(cnt[c], n - len(out))
    return out


_Plan = list[tuple[int, int, list[int], _Meld | None]]
"""An opening to lay: (kind, key, cards, the meld they are added to or None for a new meld)."""


class _Handoff(Exception):
    """The next move leaves the plain path: the engine plays it and the rest of the hand."""

    def __init__(self, action: Action) -> None:
        self.action = action


class FastHand:
    """One hand in play, from a state at the start of a turn, played by the policy above."""

    def __init__(
        self,
        rules: RummyRules,
        state: State,
        rng: random.Random,
        record: bool = False,
        trace: list[State] | None = None,
    ) -> None:
        if state.phase != "play":
            raise MalformedInput(f"no hand is being played in phase {state.phase!r}")
        t = tables(rules)
        self.t = t
        self.r = rules
        self.rng = rng
        self.base = state
        self.record = record or trace is not None
        self.trace = trace
        self.actions: list[Action] = []
        self.players = state.players
        self.sides = state.sides
        self.hands = [list(h) for h in state.hands]
        self.cnt: list[list[int]] = []  # per seat, per card kind
        self.rc: list[list[int]] = []  # per seat, per rank (13: jokers)
        self.mask: list[int] = []  # per seat, `Tables.seq_bit` of the cards held
        seq_bit = t.seq_bit
        for h in state.hands:
            c = [0] * 53
            rc = [0] * 14
            bits = 0
            for x in h:
                c[x] += 1
                rc[x >> 2] += 1
                bits |= seq_bit[x]
            self.cnt.append(c)
            self.rc.append(rc)
            self.mask.append(bits)
        self.stock = state.stock
        self.sp = 0
        self.pile = list(state.pile)
        frozen_by = t.frozen_by
        self.frozen_n = sum(1 for c in state.pile if frozen_by[c])
        self.melds: list[list[_Meld]] = [[] for _ in state.table]
        self.done = [0] * state.sides  # completed canastas and sambas per side
        self.clean = [0] * state.sides  # ... of them clean
        for i, sd in enumerate(state.table):
            for old in sd.melds:
                self._place(_Meld(i, old.kind, old.key, list(old.cards), t))
        self.reds = [list(sd.red_threes) for sd in state.table]
        self.opened = [sd.opened for sd in state.table]
        self.owed = list(state.owed)
        self.pile_taken = state.pile_taken
        self.seat = state.seat
        self.step = state.step
        self.took_pile = state.took_pile
        self.held = list(state.held)
        self.top_points = state.top_points
        self.melded = state.melded
        self.clean_start = state.clean_start
        self.no_discard = state.no_discard
        self.plain = (
            state.step == DRAW
            and not state.asked
            and not state.answer
            and state.freed < 0
            and not state.no_discard
            and not state.held
        )
        gr = rules.completed_set_growth
        self.grow_nat = gr in ("naturals", "any")
        self.grow_wild = gr == "any"
        self.grow_one = gr == "one_natural_if_clean"

    # ------------------------------------------------------------ the reference state

    def to_state(self) -> State:
        """The engine's value of the current position."""
        b = self.base
        table = tuple(
            Side(tuple(sorted(m.frozen() for m in ms)), tuple(sorted(rs)), op)
            for ms, rs, op in zip(self.melds, self.reds, self.opened, strict=True)
        )
        return State(
            b.players,
            b.sides,
            b.layout,
            "play",
            b.hand_no,
            b.dealer,
            b.scores,
            b.result,
            tuple(tuple(sorted(h)) for h in self.hands),
            self.stock[self.sp :],
            tuple(self.pile),
            table,
            b.minimums,
            tuple(self.owed),
            self.pile_taken,
            self.seat,
            self.step,
            self.took_pile,
            tuple(sorted(self.held)),
            self.top_points,
            False,
            "",
            self.melded,
            self.clean_start,
            self.no_discard,
            -1,
            -1,
        )

    def _note(self, a: Action) -> None:
        self.actions.append(a)
        if self.trace is not None:
            self.trace.append(self.to_state())

    def _index(self, side: int, m: _Meld) -> int:
        """The meld's index in the engine's order of the side's melds."""
        frozen = m.frozen()
        return sorted(x.frozen() for x in self.melds[side]).index(frozen)

    # ------------------------------------------------------------ the hand

    def play(self) -> State:
        """Play the hand to its end; the engine's state after it."""
        if not self.plain:
            return self._engine(self.base)
        try:
            while True:
                done = self._turn()
                if done is not None:
                    return done
        except _Handoff as h:
            s = self.to_state()
            s = engine.apply(self.r, s, h.action)
            if self.record:
                self._note_state(h.action, s)
            return self._engine(s)

    def _engine(self, s: State) -> State:
        t = self.t
        while s.phase == "play":
            a, s = _step(t, s, self.rng)
            if self.record:
                self._note_state(a, s)
        return s

    def _note_state(self, a: Action, s: State) -> None:
        """Record an action whose next state is `s` (played by the engine, or the hand's end)."""
        self.actions.append(a)
        if self.trace is not None:
            self.trace.append(s)

    def _turn(self) -> State | None:
        seat = self.seat
        side = seat % self.sides
        take = self._take if self.opened[side] else self._take_to_open
        if not take(seat, side):
            self._draw(seat)
        if not self.opened[side]:
            self._open(seat, side)
        if self.opened[side]:
            self._meld(seat, side, 2)
            done = self._go_out(seat, side)
            if done is not None:
                return done
        self._discard(seat)
        return None

    # ------------------------------------------------------------ hand bookkeeping

    def _gain(self, seat: int, c: int) -> None:
        self.hands[seat].append(c)
        self.rc[seat][c >> 2] += 1
        cnt = self.cnt[seat]
        cnt[c] += 1
        if cnt[c] == 1:
            self.mask[seat] |= self.t.seq_bit[c]

    def _lose(self, seat: int, c: int) -> None:
        self.hands[seat].remove(c)
        self.rc[seat][c >> 2] -= 1
        cnt = self.cnt[seat]
        cnt[c] -= 1
        if not cnt[c]:
            self.mask[seat] &= ~self.t.seq_bit[c]

    # ------------------------------------------------------------ drawing

    def _walk(self, todo: int) -> tuple[list[int], list[int], int, bool]:
        """Drawing `todo` cards from the stock (`stock.draw_cards`), without moving them yet: the
        cards for the hand, the red threes met, where the stock then begins, and whether the
        stock's last card was a red three."""
        stock = self.stock
        end = len(stock)
        pos = self.sp
        got: list[int] = []
        reds: list[int] = []
        last_red = False
        while todo and pos < end:
            c = stock[pos]
            pos += 1
            if c == 5 or c == 6:
                reds.append(c)
                last_red = pos == end
            else:
                got.append(c)
                todo -= 1
                last_red = False
        return got, reds, pos, last_red

    def _receive(self, seat: int, got: list[int], reds: list[int], pos: int) -> None:
        for c in got:
            self._gain(seat, c)
        self.reds[seat % self.sides].extend(reds)
        self.sp = pos

    def _draw(self, seat: int) -> None:
        r = self.r
        want = min(r.draw_count, len(self.stock) - self.sp)
        got, reds, pos, last_red = self._walk(want)
        a = Draw(seat, want)
        if (last_red and r.last_red_three_ends_hand) or len(self.hands[seat]) + len(got) < 2:
            raise _Handoff(a)
        self._receive(seat, got, reds, pos)
        self.step = PLAY
        if self.record:
            self._note(a)

    def _top(self, seat: int) -> int:
        """The pile's top card when the pile may be taken at all (`pile.candidate_fields`): not
        empty, a natural on top that does not block it, no single card in hand under
        *:pile-one-card-rule (turns on the plain path begin with a stock); else -1."""
        pile = self.pile
        if not pile:
            return -1
        top = pile[-1]
        if not 8 <= top < 52 or self.t.blocked_by[top]:
            return -1
        if self.r.pile_one_card_rule and len(self.hands[seat]) == 1:
            return -1
        return top

    def _take(self, seat: int, side: int) -> bool:
        """Take the pile onto a meld or with a natural pair, when the policy can; whether it did."""
        top = self._top(seat)
        if top < 0:
            return False
        t = self.t
        r = self.r
        pile = self.pile
        hand = self.hands[seat]
        rank = top >> 2
        melds = self.melds[side]
        frozen = self.frozen_n > 0
        rest = len(pile) - 1 - sum(1 for c in pile[:-1] if c == 5 or c == 6)
        target: _Meld | None = None
        when = r.pile_add_after
        if not frozen and (when != "first_pile_take" or self.pile_taken):
            for m in melds:
                if m.kind == SET:
                    if m.key == rank and r.pile_to_own_set and self._takes_nat(m):
                        if len(m.cards) >= t.completed and not r.pile_to_completed_set:
                            continue
                        target = m
                        break
                elif (
                    m.kind == SEQ
                    and r.pile_to_own_sequence
                    and m.key == top & 3
                    and len(m.cards) < r.sequence_max
                    and self._extends(m, top)
                ):
                    target = m
                    break
        if target is not None and len(hand) + rest >= 2:
            a = TakePile(seat, "add", self._index(side, target) if self.record else -1, ())
            self._grow(target, top)
            self._take_rest(seat, side)
            if self.record:
                self._note(a)
            return True
        k = r.pile_new_set_naturals
        cnt = self.cnt[seat]
        if k < 1 or self.rc[seat][rank] < k:
            return False
        if len(hand) - k + rest < 2:
            return False
        used = _naturals(cnt, rank, k)
        own = None
        if not r.several_sets_same_rank:
            for m in melds:
                if m.kind == SET and m.key == rank:
                    own = m
                    break
        if own is not None:
            # one set per rank: the top card and the pair join the side's set
            if not self._takes_nat(own):
                return False
            room = self._nat_room(own)
            if room < k + 1:
                return False
        elif not (
            k + 1 >= r.set_min and k + 1 >= r.set_start_min_naturals and k + 1 <= t.completed
        ):
            return False
        a = TakePile(seat, "set", -1, tuple(sorted(used)))
        for c in used:
            self._lose(seat, c)
        if own is not None:
            for c in (top, *used):
                self._grow(own, c)
        else:
            self._place(_Meld(side, SET, rank, [top, *used], t))
        self._take_rest(seat, side)
        if self.record:
            self._note(a)
        return True

    def _take_rest(self, seat: int, side: int, held: bool = False, top_points: int = 0) -> None:
        """The rest of the pile taken (`pile.take`): red threes laid out for the side, the other
        cards into the hand or, with `held`, aside until the opening is laid."""
        pile = self.pile
        reds = self.reds[side]
        for c in pile[:-1]:
            if c == 5 or c == 6:
                reds.append(c)
            elif held:
                self.held.append(c)
            else:
                self._gain(seat, c)
        self.pile = []
        self.frozen_n = 0
        self.pile_taken = True
        self.took_pile = True
        self.top_points = top_points
        self.step = PLAY

    # ------------------------------------------------------------ what melds take

    def _takes_nat(self, m: _Meld) -> bool:
        """A natural of the set's rank may join it (`melds.add_problem`)."""
        size = len(m.cards)
        c = self.t.completed
        if size < c:
            return True
        if self.grow_nat:
            return True
        return self.grow_one and size == c and m.wild == 0

    def _nat_room(self, m: _Meld) -> int:
        """How many naturals of its rank the set can still take, one after another."""
        size = len(m.cards)
        c = self.t.completed
        if self.grow_nat:
            return _BIG
        room = max(0, c - size)
        if self.grow_one and m.wild == 0 and size <= c:
            room += 1
        return room

    def _takes_wild(self, m: _Meld) -> bool:
        if m.kind != SET:
            return False
        if len(m.cards) >= self.t.completed and not self.grow_wild:
            return False
        w = m.wild + 1
        return w <= self.t.wild_cap and not (self.r.wilds_at_most_naturals and w > m.nat)

    def _extends(self, m: _Meld, c: int) -> bool:
        p = self.t.seq_pos[c >> 2]
        return p >= 0 and (p == m.lo - 1 or p == m.hi + 1)

    def _place(self, m: _Meld) -> None:
        """A new meld on its side's table, counted if it is already completed."""
        self.melds[m.side].append(m)
        if m.kind <= SEQ and len(m.cards) >= self.t.completed:
            self.done[m.side] += 1
            if not m.wild:
                self.clean[m.side] += 1

    def _grow(self, m: _Meld, c: int) -> None:
        m.cards.append(c)
        wild = c < 4 or c == 52
        if wild:
            m.wild += 1
        else:
            m.nat += 1
            if m.kind == SEQ:
                p = self.t.seq_pos[c >> 2]
                if p < m.lo:
                    m.lo = p
                else:
                    m.hi = p
        if m.kind <= SEQ:
            n = len(m.cards)
            comp = self.t.completed
            if n == comp:
                self.done[m.side] += 1
                if not m.wild:
                    self.clean[m.side] += 1
            elif n > comp and wild and m.wild == 1:
                self.clean[m.side] -= 1  # a clean canasta took its first wild

    # ------------------------------------------------------------ laying

    def _lay(self, seat: int, side: int, kind: int, key: int, cards: list[int]) -> _Meld:
        a = LayMeld(seat, tuple(sorted(cards))) if self.record else None
        for c in cards:
            self._lose(seat, c)
        m = _Meld(side, kind, key, list(cards), self.t)
        self._place(m)
        self.melded = True
        if a is not None:
            self._note(a)
        return m

    def _add(self, seat: int, side: int, m: _Meld, c: int) -> None:
        a = AddToMeld(seat, self._index(side, m), c) if self.record else None
        self._lose(seat, c)
        self._grow(m, c)
        self.melded = True
        if a is not None:
            self._note(a)

    def _runs(self, mask: int) -> list[tuple[int, int, int]]:
        """Escaleras in a mask of held cards (`Tables.seq_bit`): (suit, lowest position, length),
        disjoint, each of sequence_min to sequence_max cards, from the low end of each run."""
        r = self.r
        x = mask
        for i in range(1, r.sequence_min):
            x &= mask >> i
        if not x:
            return []
        out = []
        lo_n = r.sequence_min
        for s in range(4):
            lane = (mask >> (16 * s)) & 0xFFFF
            p = 0
            while lane >> p:
                if lane >> p & 1:
                    q = p
                    while lane >> q & 1:
                        q += 1
                    n = q - p
                    while n >= lo_n:
                        k = min(n, r.sequence_max)
                        out.append((s, p, k))
                        p += k
                        n -= k
                    p = q
                else:
                    p += 1
        return out

    def _meld(self, seat: int, side: int, keep: int) -> None:
        """An opened side melds what it can, keeping `keep` cards in hand."""
        t = self.t
        r = self.r
        hand = self.hands[seat]
        cnt = self.cnt[seat]
        melds = self.melds[side]
        lay = t.set_lay
        rc = self.rc[seat]
        ready = [rank for rank in range(2, 13) if rc[rank] >= lay]
        if ready:
            have = {m.key for m in melds if m.kind == SET}
        for rank in ready:
            if rank not in have and len(hand) - lay >= keep:
                self._lay(seat, side, SET, rank, _naturals(cnt, rank, lay))
        if r.sequences:
            for s, p, k in self._runs(self.mask[seat]):
                k = min(k, r.sequence_min)
                if len(hand) - k < keep:
                    break
                cards = [t.seq_rank[p + i] * 4 + s for i in range(k)]
                self._lay(seat, side, SEQ, s, cards)
        self._adds(seat, side, keep)
        if len(hand) > keep:
            for m in melds:
                if m.kind == SET and len(m.cards) >= t.completed - 2:
                    while len(hand) > keep and self._takes_wild(m):
                        w = 52 if cnt[52] else next((c for c in range(4) if cnt[c]), -1)
                        if w < 0:
                            return
                        self._add(seat, side, m, w)

    def _adds(self, seat: int, side: int, keep: int) -> None:
        """Every natural that fits a set of the side and every escalera end held, while the hand
        keeps `keep` cards."""
        hand = self.hands[seat]
        cnt = self.cnt[seat]
        seq_rank = self.t.seq_rank
        for m in self.melds[side]:
            if len(hand) <= keep:
                return
            if m.kind == SET:
                b = m.key * 4
                for c in (b, b + 1, b + 2, b + 3):
                    while cnt[c] and len(hand) > keep and self._takes_nat(m):
                        self._add(seat, side, m, c)
            elif m.kind == SEQ:
                mx = self.r.sequence_max
                grew = True
                while grew and len(m.cards) < mx and len(hand) > keep:
                    grew = False
                    for p in (m.lo - 1, m.hi + 1):
                        if 0 <= p < len(seq_rank):
                            c = seq_rank[p] * 4 + m.key
                            if cnt[c] and len(m.cards) < mx and len(hand) > keep:
                                self._add(seat, side, m, c)
                                grew = True

    # ------------------------------------------------------------ opening

    def _plan(
        self, cnt: list[int], rc: list[int], spare: int, base: _Meld | None = None
    ) -> tuple[_Plan, int, int, list[int]]:
        """Melds worth the most this policy finds in a hand of these counts, using at most `spare`
        cards: sets of naturals grown with every natural of their rank, escaleras, then wilds by
        points; with `base`, a set already laid this turn is grown first. Each entry is (kind, key,
        cards to lay or add, the meld they go onto or None); with the points they make, the cards
        still spare and the wilds held, jokers first."""
        t = self.t
        r = self.r
        pts = t.points
        plan: _Plan = []
        total = 0
        for rank in range(2, 13):
            b = rank * 4
            n = rc[rank]
            if base is not None and rank == base.key:
                n = min(n, t.completed - len(base.cards), spare)
                if n <= 0:
                    continue
            elif n >= t.set_lay:
                n = min(n, t.completed)
                if n > spare:
                    continue
            else:
                continue
            cards = _naturals(cnt, rank, n)
            plan.append((SET, rank, cards, base if base is not None and rank == base.key else None))
            spare -= n
            total += pts[b] * n
        if r.sequences:
            # escaleras from what the sets leave
            seq_bit = t.seq_bit
            mask = 0
            for c in range(8, 52):
                if cnt[c] > sum(1 for _, _, cs, _ in plan for x in cs if x == c):
                    mask |= seq_bit[c]
            for s, p, k in self._runs(mask):
                if k > spare:
                    continue
                cards = [t.seq_rank[p + i] * 4 + s for i in range(k)]
                plan.append((SEQ, s, cards, None))
                spare -= k
                total += sum(pts[c] for c in cards)
        if base is not None and not any(m is base for _, _, _, m in plan):
            plan.insert(0, (SET, base.key, [], base))
        wilds = [52] * cnt[52] + [c for c in range(4) for _ in range(cnt[c])]
        return plan, total, spare, wilds

    def _top_up(self, plan: _Plan, total: int, need: int, spare: int, wilds: list[int]) -> int:
        """Wilds onto the planned sets, in the order given, until the plan makes `need` points."""
        t = self.t
        r = self.r
        pts = t.points
        cap = t.wild_cap
        for kind, _, cards, onto in plan:
            if kind != SET:
                continue
            nat = len(cards) + (onto.nat if onto is not None else 0)
            size = len(cards) + (len(onto.cards) if onto is not None else 0)
            w = onto.wild if onto is not None else 0
            while (
                total < need
                and wilds
                and spare > 0
                and w + 1 <= cap
                and not (r.wilds_at_most_naturals and w + 1 > nat)
                and size < t.completed
            ):
                c = wilds.pop(0)
                cards.append(c)
                w += 1
                size += 1
                spare -= 1
                total += pts[c]
        return total

    def _open(self, seat: int, side: int) -> None:
        """Open when the hand holds melds worth the minimum, keeping two cards."""
        need = self.base.minimums[side]
        plan, total, spare, wilds = self._plan(
            self.cnt[seat], self.rc[seat], len(self.hands[seat]) - 2
        )
        if total < need:
            total = self._top_up(plan, total, need, spare, wilds)
        if total >= need and plan:
            self._lay_opening(seat, side, plan)

    def _lay_opening(self, seat: int, side: int, plan: _Plan) -> None:
        t = self.t
        for kind, key, cards, onto in plan:
            if onto is None:
                first = cards[: t.set_lay if kind == SET else self.r.sequence_min]
                onto = self._lay(seat, side, kind, key, first)
                cards = cards[len(first) :]
            for c in cards:
                self._add(seat, side, onto, c)
        a = FinishOpening(seat)
        self.opened[side] = True
        self.top_points = 0
        if self.held:
            for c in self.held:
                self._gain(seat, c)
            self.held = []
        if self.record:
            self._note(a)

    def _take_to_open(self, seat: int, side: int) -> bool:
        """Take the pile with a natural pair to open, when the set it starts and the hand reach
        the minimum (the top card counting or not, *:pile-top-counts-for-opening; the rest of the
        pile held aside or not, *:pile-rest-after-opening); whether it did."""
        top = self._top(seat)
        if top < 0:
            return False
        t = self.t
        r = self.r
        pile = self.pile
        hand = self.hands[seat]
        rank = top >> 2
        k = r.pile_new_set_naturals
        rc = self.rc[seat]
        if k < 1 or rc[rank] < k:
            return False
        if not (k + 1 >= r.set_min and k + 1 >= r.set_start_min_naturals and k + 1 <= t.completed):
            return False
        cnt = self.cnt[seat]
        used = _naturals(cnt, rank, k)
        rest = [c for c in pile[:-1] if c != 5 and c != 6]
        held = r.pile_rest_after_opening
        # the hand the opening is planned from: without the pair, with the rest unless held
        cnt2 = cnt[:]
        rc2 = rc[:]
        for c in used:
            cnt2[c] -= 1
            rc2[c >> 2] -= 1
        size = len(hand) - k
        if not held:
            for c in rest:
                cnt2[c] += 1
                rc2[c >> 2] += 1
            size += len(rest)
        pts = t.points
        base = _Meld(side, SET, rank, [top, *used], t)
        start = pts[top] * (k + 1) - (0 if r.pile_top_counts_for_opening else pts[top])
        plan, total, spare, wilds = self._plan(cnt2, rc2, size - 2, base)
        need = self.base.minimums[side]
        total += start
        if total < need:
            total = self._top_up(plan, total, need, spare, wilds)
        if total < need:
            return False
        a = TakePile(seat, "set", -1, tuple(sorted(used)))
        for c in used:
            self._lose(seat, c)
        self._place(base)
        self._take_rest(seat, side, held, pts[top])
        if self.record:
            self._note(a)
        self._lay_opening(seat, side, plan)
        return True

    # ------------------------------------------------------------ ending the turn

    def _counts(self, side: int) -> tuple[int, int, int]:
        """Completed canastas and sambas of the side: all, clean, dirty (`table.going_out_counts`)."""
        done = self.done[side]
        clean = self.clean[side]
        return done, clean, done - clean

    def _go_out(self, seat: int, side: int) -> State | None:
        """Go out when the side may and every card but the discard fits its melds."""
        hand = self.hands[seat]
        if len(hand) > 2:
            # `_meld` stopped short of keeping two cards: nothing more fits (no natural, no end)
            return None
        r = self.r
        done, clean, dirty = self._counts(side)
        if (
            done < r.go_out_min_completed
            or clean < r.go_out_min_clean
            or dirty < r.go_out_min_dirty
            or (r.go_out_wait_after_clean and min(clean, self.clean_start) < r.go_out_min_clean)
        ):
            return None
        mode = r.go_out_discard
        # what the melds would still take, one card after another
        left = len(hand) - self._fits(seat, side)
        if mode == "forbidden":
            if left:
                return None
            self._adds(seat, side, 1)
            return self._last_add(seat, side)
        if left > 1:
            return None
        self._adds(seat, side, 1)
        if len(hand) != 1:
            return None  # pragma: no cover - `_fits` counts what `_adds` places
        c = hand[0]
        a = Discard(seat, c)
        self._lose(seat, c)
        self.pile.append(c)
        s = self._out(seat, side)
        if self.record:
            self._note_state(a, s)
        return s

    def _fits(self, seat: int, side: int) -> int:
        """How many cards of the hand `_adds` would place with no card kept (the same walk over
        the melds, on a copy of the counts)."""
        cnt = self.cnt[seat][:]
        seq_rank = self.t.seq_rank
        mx = self.r.sequence_max
        n = 0
        for m in self.melds[side]:
            if m.kind == SET:
                if not self._takes_nat(m):
                    continue
                room = self._nat_room(m)
                b = m.key * 4
                for c in (b, b + 1, b + 2, b + 3):
                    k = min(cnt[c], room)
                    cnt[c] -= k
                    room -= k
                    n += k
            elif m.kind == SEQ:
                lo, hi, size = m.lo, m.hi, len(m.cards)
                grew = True
                while grew and size < mx:
                    grew = False
                    for p in (lo - 1, hi + 1):
                        if 0 <= p < len(seq_rank) and size < mx:
                            c = seq_rank[p] * 4 + m.key
                            if cnt[c]:
                                cnt[c] -= 1
                                size += 1
                                n += 1
                                grew = True
                                if p < lo:
                                    lo = p
                                else:
                                    hi = p
        return n

    def _last_add(self, seat: int, side: int) -> State | None:
        """Go out by melding the last card (where going out is by melding only)."""
        hand = self.hands[seat]
        if len(hand) != 1:
            return None  # pragma: no cover - `_fits` counts what `_adds` places
        c = hand[0]
        for m in self.melds[side]:
            if (m.kind == SET and m.key == c >> 2 and self._takes_nat(m)) or (
                m.kind == SEQ
                and m.key == c & 3
                and len(m.cards) < self.r.sequence_max
                and self._extends(m, c)
            ):
                a = AddToMeld(seat, self._index(side, m) if self.record else -1, c)
                self._lose(seat, c)
                self._grow(m, c)
                self.melded = True
                s = self._out(seat, side)
                if self.record:
                    self._note_state(a, s)
                return s
        return None  # pragma: no cover - the card was counted as fitting

    def _out(self, seat: int, side: int) -> State:
        self.opened[side] = True
        return end_hand(self.t, self.to_state(), "went-out", seat)

    def _discard(self, seat: int) -> None:
        hand = self.hands[seat]
        c = hand[int(self.rng.random() * len(hand))]
        a = Discard(seat, c)
        nxt = (seat + 1) % self.players
        # the next turn's start (`engine._turn_to`): owed red threes replaced, the stock checked
        r = self.r
        got, reds, pos, last_red = self._walk(self.owed[nxt])
        left = len(self.stock) - pos
        if (
            (last_red and r.last_red_three_ends_hand)
            or left == 0
            or (r.draw_short_stock == "hand_ends" and left < r.draw_count)
        ):
            raise _Handoff(a)
        self._lose(seat, c)
        self.pile.append(c)
        if self.t.frozen_by[c]:
            self.frozen_n += 1
        self.owed[nxt] = 0
        self._receive(nxt, got, reds, pos)
        self.seat = nxt
        self.step = DRAW
        self.took_pile = False
        self.top_points = 0
        self.melded = False
        self.clean_start = self.clean[nxt % self.sides]
        if self.record:
            self._note(a)


def play_hand(
    rules: RummyRules,
    state: State,
    rng: random.Random,
    record: bool = False,
    trace: list[State] | None = None,
) -> tuple[State, list[Action]]:
    """Play the hand in `state` to its end by the fast policy: the state after it and, with
    `record` (or `trace`), the actions played; `trace` collects the state after each action."""
    h = FastHand(rules, state, rng, record, trace)
    s = h.play()
    return s, h.actions


__all__ = ["FastHand", "play_hand"]
