"""The turn as the protocol sees it: every legal action, exactly and in canonical order, what each
does, and every clause that refuses one.

A turn runs through steps: `draw` (Draw or TakePile), `play` (lay, add, merge, clean, finish the
opening, ask the partner, discard or stop), `answer` (the partner says yes or no) and `freed` (a
wild freed by cleaning is placed at once). What each action does, and which clauses refuse it,
is written once in the rule modules (`stock`, `pile`, `melding`, `going_out`, `turn`), each
judging an action from its most specific clause to its most general; this module dispatches an
action to its rule and lists the legal ones.

Listing is where the speed is. The candidates of a moment are read off the hand and the side's
melds once (`_Moment`): candidate melds from the hand's shape (`laying`), what each meld of the
side can take (`_slots`, remembered per table position), each candidate at most once and in
canonical order. Most candidates are decided without playing them: a meld or an addition by the
side that has opened, leaving two cards in hand with no "yes" from the partner to honour, settles
without any search (see `melding.settle`); a discard that keeps a card is refused only by a
pending opening, a "yes" or a stop; a pending opening's `FinishOpening` is decided by its
points, its lays and additions refused when two cards of the hand would have no home, and a
freed wild's new meld by the meld clauses. The rest are played through their rule (the state
reached is kept for `apply`). An action out of turn is refused with the book's penalty for that act
(draw_out_of_turn, take_pile_out_of_turn, meld_out_of_turn or meld_in_partner_turn).

After every laying action the rule modules check that the player can still end the turn (see
`melding.settle`). The only ways into a state with no legal action are ones the books allow
themselves: taking the pile so that the hand is left empty or with a single card that cannot go
out (no *:pile-one-card-rule), or drawing the stock's last card, a red three, with one card in
hand (no *:last-red-three-ends-hand). Such a hand ends at once with reason "dead-end", is scored
as a hand nobody went out of, and its result names the clauses involved (`Result.finding`).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any, Final

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.rummy import caches
from arbitro.model.rummy.actions import (
    Action,
    AddToMeld,
    Answer,
    AskPartner,
    Discard,
    Draw,
    FinishOpening,
    LayMeld,
    Merge,
    ReplaceWild,
    Stop,
    TakePile,
)
from arbitro.model.rummy.arrange import reaches
from arbitro.model.rummy.cards import (
    JOKER,
    KINDS,
    LOWEST_NATURAL,
    LOWEST_THREE,
    inserted,
    without,
)
from arbitro.model.rummy.going_out import (
    answer,
    ask,
    can_go_out_listed,
    last_card_out,
    two_homeless,
)
from arbitro.model.rummy.laying import NATURALS, code_cards, lay_candidates, lay_codes, shape
from arbitro.model.rummy.melding import (
    add,
    cleaned,
    finish_opening,
    freed_options,
    lay,
    lays_plainly,
    merge,
    placeable,
    replace_wild,
)
from arbitro.model.rummy.melds import (
    BLACK3,
    SEQ,
    SET,
    Meld,
    add_problem,
    classify,
    merge_problem,
    takes_now,
    wild_set,
)
from arbitro.model.rummy.opening import minimum_of
from arbitro.model.rummy.opening import reached as opening_reached
from arbitro.model.rummy.pile import (
    candidate_fields,
    join_ok,
    opens_by_reach,
    take_pile,
    takes_onto,
)
from arbitro.model.rummy.refusal import LISTED, STRICT, Halt, Judge, Refusal
from arbitro.model.rummy.state import ANSWER, DRAW, FREED, PLAY, State, partner
from arbitro.model.rummy.stock import draw, exhausted
from arbitro.model.rummy.table import (
    Carried,
    SideView,
    carried,
    clean_done,
    put,
    side_view,
)
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.rummy.turn import discard, stop
from arbitro.model.schema import RummyRules

_ACTION_TYPES = (
    Draw,
    TakePile,
    LayMeld,
    AddToMeld,
    Merge,
    ReplaceWild,
    FinishOpening,
    Discard,
    AskPartner,
    Answer,
    Stop,
)

Rule = Callable[[Tables, State, Any, Judge], State]

_IN_PLAY: Final[dict[type[Any], Rule]] = {
    Draw: draw,
    TakePile: take_pile,
    LayMeld: lay,
    AddToMeld: add,
    Merge: merge,
    ReplaceWild: replace_wild,
    FinishOpening: finish_opening,
    Discard: discard,
    AskPartner: lambda t, s, a, j: ask(t, s, j),
    Stop: lambda t, s, a, j: stop(t, s, j),
}
"""The rule of each action type in the `play` step (an Answer there is refused by `answer`)."""


_DISCARD: Final = Discard
_ADD_TO_MELD: Final = AddToMeld
_LAY_MELD: Final = LayMeld
_DRAW: Final = Draw
_TAKE_PILE: Final = TakePile
_MERGE: Final = Merge
_REPLACE_WILD: Final = ReplaceWild
_MELD: Final = Meld
"""The action types the hot paths name, read from these finals: the compiled code looks a class
named in it up in the module's dictionary at each use."""


def transition(t: Tables, s: State, a: Action, j: Judge = STRICT) -> State:
    """The state after a well-formed action of the player to move; the judge hears the refusals."""
    step = s.step
    if step == PLAY:
        # the rule of each action type, called directly (a call through `_IN_PLAY`'s functions
        # goes through the interpreter's calling convention)
        if type(a) is _DISCARD:
            return discard(t, s, a, j)
        if type(a) is _ADD_TO_MELD:
            return add(t, s, a, j)
        if type(a) is _LAY_MELD:
            return lay(t, s, a, j)
        rule = _IN_PLAY.get(type(a))
        if rule is not None:
            return rule(t, s, a, j)
    # the exact type first (an action is of its class; `isinstance` is a generic call)
    if type(a) is _DRAW or isinstance(a, _DRAW):
        return draw(t, s, a, j)
    if type(a) is _TAKE_PILE or isinstance(a, _TAKE_PILE):
        return take_pile(t, s, a, j)
    if isinstance(a, Answer):
        return answer(t, s, a, j)
    if step == DRAW:
        j.halt("draw_count", "a turn begins by drawing or taking the pile")
    if step == ANSWER:
        j.halt("ask_partner", "the partner must answer first")
    if isinstance(a, LayMeld):
        return lay(t, s, a, j)
    if isinstance(a, AddToMeld):
        return add(t, s, a, j)
    if step == FREED:
        j.halt("clean_by_replacing_wilds", "the freed wild must be placed first")
    if isinstance(a, Merge):
        return merge(t, s, a, j)
    if isinstance(a, ReplaceWild):
        return replace_wild(t, s, a, j)
    if isinstance(a, FinishOpening):
        return finish_opening(t, s, a, j)
    if isinstance(a, Discard):
        return discard(t, s, a, j)
    if isinstance(a, AskPartner):
        return ask(t, s, j)
    return stop(t, s, j)


# ---------------------------------------------------------------- apply and refusals


class _Listed:
    """The legal actions of the state listed last, and the states listing had to play some of
    them into: `apply` takes an action found here without judging it again."""

    __slots__ = ("legal", "next", "rules", "state", "t", "t_rules")

    def __init__(self) -> None:
        self.rules: RummyRules | None = None
        self.state: State | None = None
        self.legal: tuple[Action, ...] = ()
        self.next: dict[Action, State] = {}
        self.t_rules: RummyRules | None = None
        self.t: Tables | None = None
        """The tables of `t_rules`, asked for last: `tables` is interpreted code (see
        `_tables`)."""


_LISTED: Final = _Listed()
_TYPES: Final = frozenset(_ACTION_TYPES)


def _tables(rules: RummyRules) -> Tables:
    """`tables(rules)`, remembered for the rules asked for last without a call into the
    interpreted `tables` module (a listing and the move played after it ask for the same)."""
    listed = _LISTED
    t = listed.t
    if t is None or listed.t_rules is not rules:
        t = listed.t = tables(rules)
        listed.t_rules = rules
    return t


def _listed_as(legal: tuple[Action, ...], a: object) -> bool:
    """Whether `a` is one of the actions `legal` listed: the action played is most often the
    very object listed (found by identity), else an equal one of an action type (a plain
    tuple equal to an action is not one)."""
    for x in legal:
        if x is a:
            return True
    return type(a) in _TYPES and a in legal


def apply(rules: RummyRules, state: State, action: object) -> State:
    """The state after `action`, or IllegalAction naming the clause it breaks."""
    listed = _LISTED
    if listed.state is state and listed.rules is rules and _listed_as(listed.legal, action):
        # listed as legal: well formed, the mover's, refused by no clause (so played by the
        # judge that skips the checks that could only refuse it)
        a: Action = action  # type: ignore[assignment]
        reached = listed.next
        got = reached.get(a) if reached else None  # most listings play no candidate
        return got if got is not None else transition(_tables(rules), state, a, LISTED)
    a = well_formed(state, action)
    mover = state.to_move()
    if a.seat != mover:
        raise _out_of_turn(rules, state, a, mover)
    try:
        return transition(_tables(rules), state, a)
    except Refusal as e:
        raise _illegal(rules, a, e) from None


def refusals(rules: RummyRules, state: State, action: object) -> tuple[IllegalAction, ...]:
    """Every clause that refuses a well-formed action, the most specific first (empty when it
    is legal); `apply` raises the first. An action out of turn is refused by the turn order
    alone (*:play-direction), with the book's price for that act."""
    a = well_formed(state, action)
    mover = state.to_move()
    if a.seat != mover:
        return (_out_of_turn(rules, state, a, mover),)
    j = Judge(collect=True)
    with contextlib.suppress(Halt):
        transition(tables(rules), state, a, j)
    return tuple(_illegal(rules, a, e) for e in j.found or ())


def _illegal(rules: RummyRules, a: Action, e: Refusal) -> IllegalAction:
    penalty = rules.penalty(e.act) if e.act else None
    return IllegalAction(a, rules.cid(e.key), e.reason, penalty)


def well_formed(state: State, action: object) -> Action:
    """The action, checked to be a rummy action with fields of the right kinds for this state;
    MalformedInput names what is wrong."""
    if type(action) not in _TYPES:
        raise MalformedInput(f"not a rummy action: {action!r}")
    if state.phase != "play":
        raise MalformedInput(f"no action is played in phase {state.phase!r}")
    a: Action = action  # type: ignore[assignment]
    _check_shape(state, a)
    return a


_OUT_OF_TURN = {
    Draw: "draw_out_of_turn",
    TakePile: "take_pile_out_of_turn",
}
_MELDING = (LayMeld, AddToMeld, Merge, ReplaceWild, FinishOpening)


def _out_of_turn(rules: RummyRules, state: State, a: Action, mover: int) -> IllegalAction:
    act = _OUT_OF_TURN.get(type(a))
    if act is None and isinstance(a, _MELDING):
        same = a.seat % state.sides == mover % state.sides
        act = (
            "meld_in_partner_turn"
            if same and rules.penalty("meld_in_partner_turn") is not None
            else "meld_out_of_turn"
        )
    if isinstance(a, Draw) and rules.penalty("draw_out_of_turn") is None:
        act = "draw_out_of_turn_into_hand"
    penalty = rules.penalty(act) if act else None
    return IllegalAction(
        a, rules.cid("play_direction"), f"it is seat {mover}'s turn, not seat {a.seat}'s", penalty
    )


_NO_CARDS = frozenset((Draw, Merge, FinishOpening, AskPartner, Answer, Stop))
"""The action types whose fields name no card."""


def _check_shape(state: State, a: Action) -> None:
    seat = a.seat
    if type(seat) is not int or not 0 <= seat < state.players:
        raise MalformedInput(f"seat must be 0 to {state.players - 1}, got {seat!r}")
    kind = type(a)
    if kind in _NO_CARDS:
        return
    cards: tuple[object, ...]
    if kind is Discard or kind is AddToMeld:
        c = a[-1]
        if type(c) is int and 0 <= c < KINDS:
            return
        cards = (c,)
    elif kind is ReplaceWild:
        cards = (a[3], a[4])
    else:
        cards = a[-1]
        if not isinstance(cards, tuple):
            raise MalformedInput("the cards of an action are a sorted tuple (a multiset)")
    for c in cards:
        if type(c) is not int or not 0 <= c < KINDS:
            raise MalformedInput(f"not a card: {c!r}")
    if (kind is TakePile or kind is LayMeld) and list(cards) != sorted(cards):  # type: ignore[type-var]
        raise MalformedInput("the cards of an action are a sorted tuple (a multiset)")


# ---------------------------------------------------------------- legal actions


def legal_actions(rules: RummyRules, state: State) -> tuple[Action, ...]:
    """Every legal action of the player to move, in canonical order."""
    if state.phase != "play":
        return ()
    listed = _LISTED
    listed.rules = None  # until the listing is complete
    listed.state = state
    reached: dict[Action, State] = {}
    listed.next = reached
    out = tuple(_Moment(_tables(rules), state, reached).legal())
    listed.legal = out
    listed.rules = rules
    return out


def random_step(rules: RummyRules, state: State, rng: random.Random) -> tuple[Action, State] | None:
    """A legal action drawn uniformly (`rng.randrange` over `legal_actions`) and the state after
    it, or None when there is none."""
    acts = legal_actions(rules, state)
    if not acts:
        return None
    a = acts[rng.randrange(len(acts))]
    return a, apply(rules, state, a)


_new: Final[Any] = tuple.__new__
"""Actions are built by `tuple.__new__(type, (tag, fields...))` in the listing loops: what their
constructors do, without a Python call per action."""


_DISCARDS: Final[dict[int, tuple[Discard, ...]]] = {}


def _discards(seat: int) -> tuple[Discard, ...]:
    """Every card's Discard by `seat`, built once: a listing shares them (actions are values)."""
    got = _DISCARDS.get(seat)
    if got is None:
        got = _DISCARDS[seat] = tuple([_new(Discard, (7, seat, c)) for c in range(KINDS)])
    return got


_ONES: Final[list[tuple[FinishOpening, AskPartner, Stop]]] = []
"""Per seat, its FinishOpening, AskPartner and Stop, built once as `_discards`."""


def _ones(seat: int) -> tuple[FinishOpening, AskPartner, Stop]:
    """The actions of `seat` that name no card, shared by the listings that offer them."""
    rows = _ONES
    while len(rows) <= seat:
        n = len(rows)
        rows.append((_new(FinishOpening, (6, n)), _new(AskPartner, (8, n)), _new(Stop, (10, n))))
    return rows[seat]


_ANSWERS: Final[list[list[Action]]] = []
"""Per seat, its Answer yes and no, built once."""

_DRAWS: Final[list[list[Action | None]]] = []
"""Per seat, its Draw of each count (up to 15 cards), built when first listed."""


def _draw_of(seat: int, count: int) -> Action:
    """The Draw of `count` cards by `seat`, shared by the listings that offer it."""
    if count < 0 or count > 15:
        got: Action = _new(Draw, (0, seat, count))
        return got
    rows = _DRAWS
    while len(rows) <= seat:
        rows.append([None] * 16)
    row = rows[seat]
    a = row[count]
    if a is None:
        a = row[count] = _new(Draw, (0, seat, count))
    return a


def _answers(seat: int) -> list[Action]:
    """[Answer yes, Answer no] by `seat`, as a new list (the listing's)."""
    rows = _ANSWERS
    while len(rows) <= seat:
        n = len(rows)
        rows.append([_new(Answer, (9, n, True)), _new(Answer, (9, n, False))])
    return rows[seat][:]


_ADDS: Final[list[list[list[AddToMeld | None]]]] = []
"""Per seat, per meld index: the row of `_adds` (lists indexed by small ints: a dictionary
keyed by an int above 256 boxes the key on every lookup)."""


def _adds(seat: int) -> list[list[AddToMeld | None]]:
    """Per meld index, the AddToMeld by `seat` onto that meld of each card, as `_discards`, but
    built when a listing first offers it (`_add`): a row holds the few cards a meld takes, and
    building all of them up front made thousands of actions, kept for good, that no listing
    offered. The rows of meld indices not offered yet are added by the listing."""
    rows = _ADDS
    while len(rows) <= seat:
        rows.append([])
    return rows[seat]


def _add(row: list[AddToMeld | None], seat: int, meld: int, c: int) -> AddToMeld:
    """The AddToMeld of card `c` in `row` (`_adds(seat)[meld]`), built on its first offer."""
    got = row[c]
    if got is None:
        got = row[c] = _new(_ADD_TO_MELD, (3, seat, meld, c))
    return got


_MERGES: Final[list[list[list[Merge | None]]]] = []
"""Per seat, per meld index: the Merge by `seat` of that meld with each later one (up to 64
melds), built on its first offer as `_adds`."""


def _merge_of(seat: int, i: int, k: int) -> Merge:
    """The Merge by `seat` of melds `i` and `k`, shared by the listings that offer it."""
    if i >= 64 or k >= 64:
        got_new: Merge = _new(_MERGE, (4, seat, i, k))
        return got_new
    rows = _MERGES
    while len(rows) <= seat:
        rows.append([])
    row = rows[seat]
    while len(row) <= i:
        row.append([None] * 64)
    merges = row[i]
    got = merges[k]
    if got is None:
        got = merges[k] = _new(_MERGE, (4, seat, i, k))
    return got


_CLEANS: Final[list[list[list[ReplaceWild | None]]]] = []
"""Per seat, per meld index: the ReplaceWild by `seat` of each natural and wild of that meld
(`_clean_at`), built on its first offer as `_adds`."""


def _cleans(seat: int) -> list[list[ReplaceWild | None]]:
    """The rows of `_CLEANS` of `seat`; those of meld indices not offered yet are added by the
    listing."""
    rows = _CLEANS
    while len(rows) <= seat:
        rows.append([])
    return rows[seat]


_CLEAN_ROW: Final = KINDS * 5
"""The entries of a row of `_CLEANS`: five per natural, one per two (cards 0 to 3: below the
threes) and the joker's last."""


_LAYS: Final[list[dict[tuple[int, ...], LayMeld]]] = []
"""Per seat, the LayMeld of each card tuple (`_lay`)."""


def _lay(seat: int, cards: tuple[int, ...]) -> LayMeld:
    """The LayMeld of `cards` by `seat`, shared by the listings that offer it (at most
    `caches.LAYS` kept per seat)."""
    per_seat = _LAYS
    while len(per_seat) <= seat:
        per_seat.append({})
    lays = per_seat[seat]
    got = lays.get(cards)
    if got is None:
        if len(lays) >= caches.LAYS:
            lays.clear()
        got = lays[cards] = _new(_LAY_MELD, (2, seat, cards))
    return got


_MARKED: Final = 62
"""The candidates whose marks `_lays_coded` returns: their bits fit an int of one machine word
(a longer int is shifted through calls, each making a new int)."""

_LAY_CODES: Final[list[dict[Any, LayMeld]]] = []
"""Per seat, the LayMeld of each candidate's marked code (`laying.lay_codes`; `_lays_coded`)."""


def _lays_coded(seat: int, codes: list[Any]) -> int:
    """`codes` (marked codes: `laying.lay_codes`) with each code replaced by the LayMeld by
    `seat` of it, in place: no second list is built and filled. Returns the marks, bit i the
    mark of code i for the first `_MARKED` codes (the others' bits left 0: their cards are
    read). The actions are shared by the listings that offer them (at most `caches.LAYS` kept
    per seat); a code is looked up as the int of the list it is (not unboxed and boxed
    again)."""
    per_seat = _LAY_CODES
    while len(per_seat) <= seat:
        per_seat.append({})
    lays = per_seat[seat]
    marks = 0
    for i in range(len(codes)):
        code = codes[i]
        # the code read as an int too: a shift or a test of an object goes through the
        # interpreter's number protocol
        marked: int = code
        if marked & 1 and i < _MARKED:
            marks |= 1 << i
        got = lays.get(code)
        if got is None:
            if len(lays) >= caches.LAYS:
                lays.clear()
            got = lays[code] = _new(_LAY_MELD, (2, seat, code_cards(marked >> 1)))
        codes[i] = got
    return marks


_UNSET: Final = -(1 << 40)
"""`_Moment.short` not worked out yet (no minimum or card points come near it)."""


class _Moment:
    """One state's legal actions, worked out in canonical order (see the module's docstring)."""

    __slots__ = ("quick", "reached", "s", "short", "t")

    def __init__(
        self, t: Tables, s: State, reached: dict[Action, State], quick: bool = True
    ) -> None:
        self.t = t
        self.s = s
        self.reached = reached
        self.quick = quick
        """False: every candidate is played through its rule (the tests compare the two)."""
        self.short = _UNSET
        """What the side's melds lack of the opening minimum (`_reaches`), worked out at its
        first call."""

    def judge(self, a: Action) -> bool:
        """Play a candidate through its rule: legal or not, the state kept when legal."""
        try:
            self.reached[a] = transition(self.t, self.s, a)
        except Refusal:
            return False
        return True

    def legal(self) -> list[Action]:
        s = self.s
        step = s.step
        if step == PLAY:
            return self._play()
        if step == DRAW:
            return self._draw()
        if step == ANSWER:
            p = partner(s, s.seat)
            return _answers(p)
        return self._freed()

    def _draw(self) -> list[Action]:
        t, s = self.t, self.s
        seat = s.seat
        out: list[Action] = []
        # the rules' fields read through `t` (a compiled property, where `r.x` is a lookup on
        # an interpreted class), and whether the stock is exhausted asked once
        ex = exhausted(t, s)
        stock_out = t.stock_out
        if not ex or stock_out == "hand_ends":
            # `stock.draw_count`
            n = t.draw_count
            out.append(_draw_of(seat, n if ex else min(n, len(s.stock))))
        side = s.table[seat % s.sides]
        fields = candidate_fields(t, s)
        if not fields:
            return out
        top = s.pile[-1]
        quick = self.quick
        forced = ex and stock_out == "forced_take_if_matches_meld"
        # the side's one set of the top card's rank (*:several-sets-same-rank false), which the
        # cards shown join (`pile.take`)
        own: Meld | None = None
        if not t.several_sets_same_rank:
            for m in side.melds:
                if m.kind == SET and m.key == top >> 2:
                    own = m
                    break
        # a new set, or cards shown joining the side's set, by a side that has opened, keeping
        # two cards whatever the pile's rest: `pile.take` refuses it only when the stock is out
        # and only a take onto a meld is allowed (a joining take is one), or when the cards
        # and the top card do not form a set (`classify`) or do not join (`pile.join_set`);
        # nothing after the take can refuse it then (no pending opening, no dead end). A side
        # with no melds yet takes to open: refused where `classify` refuses the set, else
        # accepted where the opening is reachable by `arrange.reaches` (`pile.opens_by_reach`),
        # played through the rule where it is not (going out may still allow it)
        plain = quick and side.opened
        opening = quick and not side.opened and not side.melds and not forced
        hand_size = len(s.hands[seat])
        for use, i, cards in fields:
            a = _new(_TAKE_PILE, (1, seat, use, i, cards))
            if use == "set" and plain and hand_size - len(cards) >= 2:
                if own is not None:
                    # (`pile.join_ok`: `join_set`'s verdict without the melds it builds)
                    if join_ok(t, own, top, cards):
                        out.append(a)
                elif not forced and wild_set(t, inserted(cards, (top,))) >= 0:
                    # naturals of the top card's rank and at most a wild: a set or refused,
                    # decided on its counts (`wild_set`, `classify`'s verdict)
                    out.append(a)
            elif use == "set" and opening:
                got = classify(t, inserted(cards, (top,)))
                if isinstance(got, Meld) and (opens_by_reach(t, s, got, cards) or self.judge(a)):
                    out.append(a)
            elif use == "add" and plain:
                # the top card fits the meld (`candidate_fields`): what is left to judge is
                # whether this kind of meld takes the pile (`pile.takes_onto`); an opened side
                # has no pending opening to reach, and a take never ends in a refusal after that
                if takes_onto(t, side.melds[i]):
                    out.append(a)
            elif self.judge(a):
                out.append(a)
        return out

    def _freed(self) -> list[Action]:
        t, s = self.t, self.s
        got = list(freed_options(t, s))
        # by their cards: the LayMelds of one seat order as their tuples (tag, seat, cards) do,
        # compared without a key function's call per action
        laid = sorted([a for a in got if type(a) is _LAY_MELD])
        judge = self.judge
        sd = s.table[s.seat % s.sides]
        melds = sd.melds
        # as in `melding.placeable`: an addition keeping two cards in the hand of an opened side
        # with no "yes" to honour is decided by the meld clauses alone (`add_problem`)
        kept = len(s.hands[s.seat]) + len(s.held)
        plain = self.quick and sd.opened and s.answer != "yes" and kept >= 2
        out: list[Action] = []
        for b in laid:
            # a new meld holding the freed wild, by the same side keeping two cards (the pool is
            # the hand and the wild): `melding.lay_meld` alone decides it
            cards: tuple[int, ...] = b[2]
            if plain and kept + 1 - len(cards) >= 2:
                if lays_plainly(t, cards, melds, s.freed):
                    out.append(b)
            elif judge(b):
                out.append(b)
        for a in got:
            if type(a) is _ADD_TO_MELD:
                if not plain:
                    if judge(a):
                        out.append(a)
                else:
                    # the fields by index (`a.meld` is a property of an interpreted class)
                    i: int = a[2]
                    c: int = a[3]
                    if add_problem(t, melds[i], c) is None:
                        out.append(a)
        return out

    def _play(self) -> list[Action]:
        t, s = self.t, self.s
        seat = s.seat
        hand = s.hands[seat]
        side = s.table[seat % s.sides]
        melds = side.melds
        left = len(hand) + len(s.held)
        pend = not side.opened and bool(melds)
        # a melding action of an opened side, leaving two cards and no "yes" to honour, settles
        # without a search (`melding.settle`); `plain` is that moment
        quick = self.quick
        plain = quick and side.opened and s.answer != "yes"
        sh = shape(t, hand)
        adds, merges, cleans, set_ranks = _slots(t, melds, seat % s.sides)
        out: list[Action] = []
        a: Action
        # the side has not opened: a meld or an addition leaving two cards starts or grows the
        # pending opening, legal when the minimum can still be reached (`opening.reach_ok`)
        opening = quick and not side.opened and not s.answer
        # the candidates as marked codes that sort as their cards do (`laying.lay_codes`):
        # sorted as ints, and each LayMeld found by its code, without a tuple hashed per
        # candidate; a code's mark (its lowest bit) says `classify` makes a set or an escalera
        # of it, and the candidate needs no more reading where that decides
        codes = lay_codes(t, hand, sh, set_ranks)
        lay_acts: list[LayMeld]
        marks = 0  # bit i: the mark of candidate i (none without codes: every candidate read)
        if codes is None:
            lays = lay_candidates(t, hand, melds, -1, sh, set_ranks)
            lays.sort()
            lay_acts = [_lay(seat, c) for c in lays]
        elif codes:
            codes.sort()
            marks = _lays_coded(seat, codes)
            # the codes' list now holds their actions
            acts: Any = codes
            lay_acts = acts
        else:
            lay_acts = []
        if lay_acts:
            several = t.several_sets_same_rank
            for x in range(len(lay_acts)):
                a = lay_acts[x]
                # the cards by index of the action as a tuple (a LayMeld is one): no generic
                # item lookup on an object of an interpreted class
                as_tuple: tuple[Any, ...] = a
                laid: tuple[int, ...] = as_tuple[2]
                if left - len(laid) >= 2 and (plain or opening):
                    if plain and x < _MARKED and marks >> x & 1:
                        # a set or an escalera (`classify`) of an opened side keeping two
                        # cards, none of the side's one set of a rank (`lay_codes` leaves those
                        # out): `melding.lay_meld` and `settle` accept it
                        out.append(a)
                        continue
                    m: Meld
                    if laid[0] >= LOWEST_NATURAL and laid[-1] < JOKER:
                        # naturals only: `laying` gives a set of set_lay cards of one rank (none
                        # the side keeps its one set of) or a run of sequence_min cards of one
                        # suit, which `classify` accepts
                        if plain or self._reached(laid):
                            out.append(a)
                            continue
                        m = (
                            _new(_MELD, (SET, laid[0] >> 2, laid))
                            if laid[0] >> 2 == laid[-1] >> 2
                            else _new(_MELD, (SEQ, laid[0] & 3, laid))
                        )
                    else:
                        # a set with wilds is decided on its counts (`wild_set`: its rank, or
                        # -1 refused); the rest (wild melds, black-three melds) by `classify`;
                        # a marked one is a set (`lay_codes`): the rank of its naturals
                        r = -1
                        if x < _MARKED and marks >> x & 1:
                            for c in laid:
                                if LOWEST_NATURAL <= c < JOKER:
                                    r = c >> 2
                                    break
                        else:
                            r = wild_set(t, laid)
                        if r >= 0:
                            if not several and r in set_ranks:
                                continue
                            if plain or self._reached(laid):
                                out.append(a)
                                continue
                            m = _new(_MELD, (SET, r, laid))
                        elif r == -1:
                            continue
                        else:
                            got = classify(t, laid)
                            if (
                                isinstance(got, str)
                                or got.kind == BLACK3
                                or (got.kind == SET and not several and got.key in set_ranks)
                            ):
                                continue
                            m = got
                    if plain or self._reached(laid):
                        out.append(a)
                        continue
                    rest = without(hand, laid)
                    grown_melds = (*melds, m)
                    if self._reaches(rest, grown_melds, laid):
                        out.append(a)
                        continue
                    if self._stuck(rest, grown_melds):
                        continue
                if self.judge(a):
                    out.append(a)
        if adds:
            fast = plain and left >= 3
            pts = t.points
            held = sh.counts
            nats = sh.nats
            wilds = sh.wild_cards()
            rows = _adds(seat)
            for i in range(len(adds)):
                e: tuple[int, bool, tuple[int, ...]] = adds[i]
                rank, wild_ok, ends = e
                if rank < 0 and not wild_ok and not ends:
                    continue  # a meld that takes no card
                # a tuple, whichever cards: the loops below iterate it without an iterator
                cards: tuple[int, ...]
                if rank >= 0:
                    # `sh.naturals(rank)` read off the naturals' bits (a set's rank is a
                    # natural one: below the joker's)
                    nat = NATURALS[rank << 4 | nats >> (rank << 2) & 15]
                    if not (wild_ok and wilds):
                        cards = nat
                    elif nat:
                        # twos sort below the naturals, the joker above them
                        cards = sh.with_wilds(nat)
                    else:
                        cards = wilds
                elif wild_ok and wilds:
                    cards = wilds
                else:
                    cards = tuple([c for c in ends if held[c]])
                if not cards:
                    continue
                row: list[AddToMeld | None] | None = None
                if i < 1024:
                    while len(rows) <= i:
                        rows.append([None] * KINDS)
                    row = rows[i]
                if fast and row is not None:
                    for c in cards:
                        got_a = row[c]  # the action built at its first offer, else now
                        out.append(got_a if got_a is not None else _add(row, seat, i, c))
                    continue
                for c in cards:
                    a = (
                        _add(row, seat, i, c)
                        if row is not None
                        else _new(AddToMeld, (3, seat, i, c))
                    )
                    if fast:
                        out.append(a)
                        continue
                    if opening and left >= 3:
                        if self._lack() <= pts[c]:
                            # `_reached` for one card
                            out.append(a)
                            continue
                        m = melds[i]
                        grown = _new(_MELD, (m.kind, m.key, tuple(sorted((*m.cards, c)))))
                        rest = without(hand, (c,))
                        after = (*melds[:i], grown, *melds[i + 1 :])
                        if self._reaches(rest, after, (c,)) or (
                            not self._stuck(rest, after) and self.judge(a)
                        ):
                            out.append(a)
                    elif plain and left == 2 and not s.held:
                        # one card left: `melding.settle` refuses the addition after a "no",
                        # else unless that card can go out (`going_out.one_card_ok`), which
                        # `last_card_out` decides on the melds the addition leaves: no state
                        # built, no refusal raised
                        if s.answer != "no":
                            m = melds[i]
                            grown = _new(_MELD, (m.kind, m.key, inserted(m.cards, (c,))))
                            other = hand[1] if hand[0] == c else hand[0]
                            if last_card_out(t, s, put(melds, i, grown), other):
                                out.append(a)
                    elif self.judge(a):
                        out.append(a)
        if merges:
            fast = plain and left >= 2
            for i, k in merges:
                a = _merge_of(seat, i, k)
                if fast or self.judge(a):
                    out.append(a)
        if cleans:
            # a cleaning is plainly legal when the freed wild fits another meld of an opened side
            # that keeps two cards (`melding.replace_wild` then places it with no search)
            # (worked out at the first set the hand holds a natural of)
            fits_wild: list[bool] | None = None
            room = 0
            rows_c = _cleans(seat)
            for i, rank, freeable in cleans:
                if sh.rank_code >> (rank << 2) & 15:  # a natural of the rank held
                    if fits_wild is None:
                        fits_wild = _wild_fits(adds, len(melds)) if plain and len(hand) >= 3 else []
                        room = fits_wild.count(True)
                    fast = bool(fits_wild) and room - fits_wild[i] > 0
                    # each ReplaceWild built at its first offer (`_CLEANS`)
                    row_c: list[ReplaceWild | None] | None = None
                    if i < 1024:
                        while len(rows_c) <= i:
                            rows_c.append([None] * _CLEAN_ROW)
                        row_c = rows_c[i]
                    for n in NATURALS[rank << 4 | sh.nats >> (rank << 2) & 15]:
                        for w in freeable:
                            rw: ReplaceWild | None = None
                            x = n * 5 + (w if w < LOWEST_THREE else 4)
                            if row_c is not None:
                                rw = row_c[x]
                            if rw is None:
                                rw = _new(_REPLACE_WILD, (5, seat, i, n, w))
                                if row_c is not None:
                                    row_c[x] = rw
                            if fast or self._cleaning(rw):
                                out.append(rw)
        if pend:
            a = _ones(seat)[0]
            if not quick:
                if self.judge(a):
                    out.append(a)
            # `melding.finish_opening` refuses an opening short of its minimum (no state built,
            # no refusal raised); once the side has opened, `settle` refuses only a hand of
            # fewer than two cards (the held rest of the pile joins it) or a "yes"
            elif opening_reached(t, s) and ((left >= 2 and s.answer != "yes") or self.judge(a)):
                out.append(a)
        if len(hand) >= 2 and quick:
            if not (s.no_discard or pend or s.answer == "yes"):
                row_d = _discards(seat)
                # each card once: the hand is sorted
                d = -1
                for c in hand:
                    if c != d:
                        out.append(row_d[c])
                        d = c
        else:
            for c in sh.distinct:
                a = _new(Discard, (7, seat, c))
                if self.judge(a):
                    out.append(a)
        if (
            t.ask_partner
            and s.players > s.sides
            and not s.asked
            and not s.melded
            and len(hand) >= 2
        ):
            a = _ones(seat)[1]
            if quick:
                # `going_out.ask` refuses a player holding the rest of a pile taken to open, or
                # one who cannot go out; the rest is the test above (no refusal raised, no state
                # built: `apply` plays the ask)
                if not s.held and can_go_out_listed(t, s):
                    out.append(a)
            elif self.judge(a):
                out.append(a)
        if s.no_discard:
            a = _ones(seat)[2]
            if self.judge(a):
                out.append(a)
        return out

    def _cleaning(self, a: ReplaceWild) -> bool:
        """`judge` for a cleaning: the two steps of `melding.replace_wild` (`cleaned`, then
        `placeable`) played directly, so that a wild with nowhere to go is refused without a
        refusal raised; the state kept when legal."""
        if not self.quick:
            return self.judge(a)
        try:
            s2 = cleaned(self.t, self.s, a)
        except Refusal:
            return False
        if placeable(self.t, s2):
            self.reached[a] = s2
            return True
        return False

    def _stuck(self, rest: tuple[int, ...], melds: tuple[Meld, ...]) -> bool:
        """Whether, with `melds` on the table and `rest` in hand, two cards of `rest` have no
        home (`going_out.two_homeless`): then the mover cannot go out this turn, and a pending
        opening that `_reaches` says cannot reach its minimum has no other way out
        (`opening.reach_ok`): the lay or addition is refused without playing it."""
        return two_homeless(self.t, rest, SideView(melds))

    def _lack(self) -> int:
        """What the side's melds lack of the opening minimum (`_reaches`), worked out at the
        first call of the moment."""
        short = self.short
        if short == _UNSET:
            t, s = self.t, self.s
            pts = t.points
            got = 0
            for m in s.table[s.seat % s.sides][0]:
                # loops, not a generator (an object of the compiled code per call)
                for c in m.cards:
                    got += pts[c]
            if not t.pile_top_counts_for_opening:
                got -= s.top_points
            short = self.short = minimum_of(t, s) - got
        return short

    def _reached(self, placed: tuple[int, ...]) -> bool:
        """`_reaches`'s answer where `arrange.reaches` needs no search (its first test), read
        before the rest of the hand and the melds after the lay or addition are built: the
        points of the cards `placed` make up what the side's melds lack of the minimum. (The
        other half of that test, the cards kept, holds wherever it is asked: a candidate that
        leaves two cards, the held rest of the pile counted, leaves `reaches` the cards of the
        hand it needs to keep.)"""
        short = self._lack()
        pts = self.t.points
        for c in placed:
            short -= pts[c]
        return short <= 0

    def _reaches(
        self, rest: tuple[int, ...], melds: tuple[Meld, ...], placed: tuple[int, ...]
    ) -> bool:
        """Whether, with `melds` on the table and `rest` in hand, the pending opening can still
        reach its minimum keeping two cards (`opening.reach_ok`'s first test: True here means
        legal; False leaves the judging to the rule). `melds` are the side's melds with the
        cards `placed` laid in a new meld or added to one: the points the side's melds lack of
        the minimum are worked out once per moment (`_lack`), less those of `placed` here."""
        t, s = self.t, self.s
        pts = t.points
        short = self._lack()
        for c in placed:
            short -= pts[c]
        return reaches(t, rest, melds, short, max(0, 2 - len(s.held)))


def _wild_fits(takes: tuple[Any, ...], n: int) -> list[bool]:
    """Per meld of a side's `n` melds, whether a wild may join it (`takes`), read off the
    addition entries of its `Slots` (one per meld, in order): `takes` looked each meld up by
    its value, hashing its cards."""
    out = [False] * n
    for i in range(len(takes)):
        e: tuple[int, bool, tuple[int, ...]] = takes[i]
        if e[1]:
            out[i] = True
    return out


Slots = tuple[
    tuple[Any, ...],
    tuple[tuple[int, int], ...],
    tuple[tuple[int, int, tuple[int, ...]], ...],
    frozenset[int],
]
"""What a side's melds can take: per meld, in the melds' order, what joins it (`takes`: the
rank of the naturals it takes or -1, whether it takes a wild, the escalera cards that extend
it), each entry the object `Tables.per_meld` keeps for that meld (typed `Any` so that it is
carried as it is, not read into its fields and built again); the pairs of sets that merge; per
set with wilds (index, rank, its distinct wilds) for cleaning; the ranks of its sets."""


def _slots(t: Tables, melds: tuple[Meld, ...], side: int = -1) -> Slots:
    """The `Slots` of a side's melds by the meld clauses (`add_problem`, `merge_problem`).

    A natural of a set's rank joins it or not whichever natural it is, and likewise any wild,
    so one card of each class decides for all. When `side` (its index) is given and its melds
    differ from the ones it had at its last listing in one meld only, of the same kind and key
    (a card added), the slots are those of the last listing with that meld's entries worked
    out again (`_slots_after`): the others depend on their own meld alone, or on a pair without
    it. When they are those melds with one more (a meld laid), the slots are the last ones with
    the new meld's entries put in and the merges and cleanings after it renumbered
    (`_slots_inserted`). Where several melds changed that way at once (a cleaning, then the
    freed wild placed), `_slots_carried` takes those steps one after the other. Else the answer
    is remembered per table position (`table.side_view`).
    What is carried (`table.Carried`) holds the count of clean canastas too, worked out the
    same way, for `turn.begin_turn`.
    """
    last: Carried | None = None
    if side >= 0:
        last = carried(side)
        if last.t is t:
            was = last.melds
            if was is melds:
                same: Slots = last.slots  # the side's melds as at its last listing
                return same
            got: Any = None  # boxed once: the object kept is the one returned
            n = len(melds)
            n_was = len(was)
            if n_was == n:
                i = -1
                for k in range(n):
                    if was[k] is not melds[k]:
                        if i >= 0:
                            i = -2
                            break
                        i = k
                if i >= 0 and was[i][0] == melds[i][0] and was[i][1] == melds[i][1]:
                    got = _slots_after(t, melds, i, last.slots)
                    last.clean += clean_done(t, melds[i]) - clean_done(t, was[i])
                    # the meld replaced is off the table: its entry is let go (with it the
                    # meld), not kept alive for the cyclic collector to walk until the
                    # dictionary fills
                    t.per_meld.pop(id(was[i]), None)
            elif n_was + 1 == n:
                # a meld laid: the others are the same objects, those after it one place on
                i = 0
                while i < n_was and was[i] is melds[i]:
                    i += 1
                k = i
                while k < n_was and was[k] is melds[k + 1]:
                    k += 1
                if k == n_was:
                    got = _slots_inserted(t, melds, i, last.slots)
                    last.clean += clean_done(t, melds[i])
            if got is None and (n_was == n or n_was + 1 == n):
                # several melds changed (a cleaning, then the freed wild placed): the steps
                # above one after the other (`_slots_carried`), before working them out whole
                got = _slots_carried(t, was, melds, last)
            if got is not None:
                last.melds = melds
                last.slots = got
                carried_over: Slots = got
                return carried_over
    view = side_view(t, melds)
    kept: Any = view.slots
    if kept is None:
        kept = view.slots = _slots_whole(t, melds)
    if last is not None:
        last.t = t
        last.melds = melds
        last.slots = kept
        last.clean = view.clean(t)
    whole: Slots = kept
    return whole


def _slots_carried(t: Tables, was: tuple[Meld, ...], melds: tuple[Meld, ...], last: Carried) -> Any:
    """`_slots` of a side's `melds` from those of the melds it had at its last listing (`was`),
    or None: when they are those melds, at most one laid among them, any others replaced by one
    of the same kind and key (a card added, a wild replaced by a natural, both after a cleaning
    that places the freed wild). The laid meld's entries are put in (`_slots_inserted`), then
    each replaced meld's worked out again (`_slots_after`); `last.clean` follows. Each step
    works with `melds` as they are now, so a pair the two changed melds make is worked out by
    the last step that touches it."""
    n = len(melds)
    n_was = len(was)
    laid = -1
    k = 0  # the meld of `was` that `melds[j]` is, replaces or follows
    for j in range(n):
        m = melds[j]
        if k < n_was and was[k] is m:
            k += 1
        elif laid < 0 and n_was < n and (k == n_was or (j + 1 < n and melds[j + 1] is was[k])):
            laid = j
        elif k < n_was and was[k][0] == m[0] and was[k][1] == m[1]:
            k += 1
        elif laid < 0 and n_was < n:
            laid = j
        else:
            return None
    if k < n_was or (laid < 0 and n_was < n):
        return None
    got: Any = last.slots
    clean = last.clean
    if laid >= 0:
        got = _slots_inserted(t, melds, laid, got)
        clean += clean_done(t, melds[laid])
    k = 0
    for j in range(n):
        if j == laid:
            continue
        w = was[k]
        k += 1
        m = melds[j]
        if w is not m:
            got = _slots_after(t, melds, j, got)
            clean += clean_done(t, m) - clean_done(t, w)
            # the meld replaced is off the table: its entry is let go (with it the meld), not
            # kept alive for the cyclic collector to walk until the dictionary fills
            t.per_meld.pop(id(w), None)
    last.clean = clean
    return got


def _entry(t: Tables, m: Meld, per_meld: dict[int, Any]) -> Any:
    """The `Slots` entry of meld `m`: what it takes (`takes`), remembered per meld object
    (`Tables.per_meld`)."""
    hit: tuple[Meld, Any] | None = per_meld.get(id(m))
    if hit is None or hit[0] is not m:
        return _new_entry(t, m, per_meld)
    return hit[1]


def _new_entry(t: Tables, m: Meld, per_meld: dict[int, Any]) -> Any:
    """`_entry` for a meld just made (no entry of it to find): worked out by `takes_now` and
    remembered in `Tables.per_meld`."""
    entry: Any = takes_now(t, m)  # as an object: the entry kept is the one carried
    if len(per_meld) >= caches.MELDS:
        per_meld.clear()
    per_meld[id(m)] = (m, entry)
    return entry


def _clean_entry(m: Meld) -> tuple[int, int, tuple[int, ...]]:
    """A set's cleaning entry: its index left to the caller, its rank, its distinct wilds (the
    twos sort first, the joker last: a loop over the ends of its sorted cards)."""
    cards: tuple[int, ...] = m[2]
    wilds: list[int] = []
    for c in cards:
        if c >= LOWEST_THREE:
            break
        if not wilds or wilds[-1] != c:
            wilds.append(c)
    if cards[-1] == JOKER:
        wilds.append(JOKER)
    return (-1, m.key, tuple(wilds))


def _slots_whole(t: Tables, melds: tuple[Meld, ...]) -> Slots:
    """`_slots` worked out meld by meld."""
    merging = t.merge_sets
    cleaning = t.clean_by_replacing_wilds
    adds: list[Any] = []
    merges: list[tuple[int, int]] = []
    cleans: list[tuple[int, int, tuple[int, ...]]] = []
    ranks: dict[int, list[int]] = {}  # rank -> the indices of its sets
    per_meld = t.per_meld
    for i, m in enumerate(melds):
        adds.append(_entry(t, m, per_meld))
        if m.kind == SET:
            same = ranks.get(m.key)
            if same is None:
                ranks[m.key] = [i]
            else:
                if merging:
                    merges += [(k, i) for k in same if merge_problem(t, melds[k], m) is None]
                same.append(i)
            if cleaning and (m.cards[0] < LOWEST_THREE or m.cards[-1] == JOKER):
                c = _clean_entry(m)
                cleans.append((i, c[1], c[2]))
    if len(merges) > 1:
        merges.sort()
    return (tuple(adds), tuple(merges), tuple(cleans), frozenset(ranks))


def _slots_after(t: Tables, melds: tuple[Meld, ...], i: int, last: Slots) -> Slots:
    """`_slots_whole(t, melds)` from `last`, the slots of melds that differ from `melds` at
    index `i` only, by a meld of the same kind and key: meld `i`'s addition and cleaning
    entries and the merges that pair it are worked out again, the rest kept (the ranks of the
    sets are the same)."""
    m = melds[i]
    entry = _new_entry(t, m, t.per_meld)
    adds: tuple[Any, ...] = put(last[0], i, entry)
    merges = last[1]
    cleans = last[2]
    if m.kind == SET:
        if t.merge_sets:
            got_merges = [p for p in merges if p[0] != i and p[1] != i]
            _merges_of(t, melds, i, got_merges)
            if len(got_merges) > 1:
                got_merges.sort()
            merges = tuple(got_merges)
        if t.clean_by_replacing_wilds:
            got_cleans: list[tuple[int, int, tuple[int, ...]]] = []
            new: tuple[int, int, tuple[int, ...]] | None = None
            if m.cards[0] < LOWEST_THREE or m.cards[-1] == JOKER:
                c = _clean_entry(m)
                new = (i, c[1], c[2])
            for e2 in cleans:
                k = e2[0]
                if k == i:
                    continue
                if k > i and new is not None:
                    got_cleans.append(new)
                    new = None
                got_cleans.append(e2)
            if new is not None:
                got_cleans.append(new)
            cleans = tuple(got_cleans)
    return (adds, merges, cleans, last[3])


def _merges_of(t: Tables, melds: tuple[Meld, ...], i: int, out: list[tuple[int, int]]) -> None:
    """Add to `out` the pairs (lower index first) that set `i` of `melds` makes with the other
    sets of its rank that it may merge with (`merge_problem`)."""
    m = melds[i]
    key = m.key
    for k in range(len(melds)):
        o = melds[k]
        if k != i and o.kind == SET and o.key == key:
            if k < i:
                if merge_problem(t, o, m) is None:
                    out.append((k, i))
            elif merge_problem(t, m, o) is None:
                out.append((i, k))


def _slots_inserted(t: Tables, melds: tuple[Meld, ...], i: int, last: Slots) -> Slots:
    """`_slots_whole(t, melds)` from `last`, the slots of `melds` without meld `i` (the others
    the same objects): meld `i`'s entry put in its place, the merges and cleanings with the
    indices from `i` on moved one place, and meld `i`'s own added."""
    m = melds[i]
    entry = _new_entry(t, m, t.per_meld)
    kept: tuple[Any, ...] = last[0]
    adds: list[Any] = list(kept)
    adds.insert(i, entry)
    merges = last[1]
    cleans = last[2]
    ranks = last[3]
    is_set = m.kind == SET
    if merges or (is_set and t.merge_sets):
        got_merges = [(a + (a >= i), b + (b >= i)) if b >= i else (a, b) for a, b in merges]
        if is_set and t.merge_sets:
            _merges_of(t, melds, i, got_merges)
        if len(got_merges) > 1:
            got_merges.sort()
        merges = tuple(got_merges)
    new: tuple[int, int, tuple[int, ...]] | None = None
    if (
        is_set
        and t.clean_by_replacing_wilds
        and (m.cards[0] < LOWEST_THREE or m.cards[-1] == JOKER)
    ):
        c = _clean_entry(m)
        new = (i, c[1], c[2])
    if cleans or new is not None:
        got_cleans: list[tuple[int, int, tuple[int, ...]]] = []
        for e2 in cleans:
            k = e2[0]
            if k >= i:
                if new is not None:
                    got_cleans.append(new)
                    new = None
                got_cleans.append((k + 1, e2[1], e2[2]))
            else:
                got_cleans.append(e2)
        if new is not None:
            got_cleans.append(new)
        cleans = tuple(got_cleans)
    if is_set and m.key not in ranks:
        ranks = ranks | {m.key}
    return (tuple(adds), merges, cleans, ranks)


__all__ = ["apply", "legal_actions", "random_step", "refusals", "transition", "well_formed"]
