"""The turn: every legal action, exactly, and what each does.

A turn runs through steps: `draw` (Draw or TakePile), `play` (lay, add, merge, clean, finish the
opening, ask the partner, discard or stop), `answer` (the partner says yes or no) and `freed` (a
wild freed by cleaning is placed at once). `legal_actions` lists every action that `apply`
accepts, in canonical order; both run the same transition, so they cannot disagree (a cheap test
decides plain moments without playing the action; the tests check it against the transition). An action
out of turn is refused with the book's penalty for that act (draw_out_of_turn,
take_pile_out_of_turn, meld_out_of_turn or meld_in_partner_turn).

After every laying action the engine checks that the player can still end the turn: with one
card left it must be able to go out with it (*:go-out-discard), a pending opening must still be
able to reach its minimum (see `opening`), after the partner's "yes" going out must stay possible
and after "no" two cards are kept. The only ways into a state with no legal action are ones
the books allow themselves: taking the pile so that the hand is left empty or with a single card
that cannot go out (no *:pile-one-card-rule), or drawing the stock's last card, a red three, with
one card in hand (no *:last-red-three-ends-hand). Such a hand ends at once with reason
"dead-end", is scored as a hand nobody went out of, and its result names the clauses involved
(`Result.finding`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.rummy import pile as pile_rules
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
from arbitro.model.rummy.cards import KINDS, distinct, is_wild, remove
from arbitro.model.rummy.going_out import can_go_out, go_out_problem, one_card_ok
from arbitro.model.rummy.laying import lay_candidates, shape
from arbitro.model.rummy.melds import (
    BLACK3,
    SEQ,
    SET,
    WILDS,
    Meld,
    add_problem,
    classify,
    merge_problem,
    takes,
)
from arbitro.model.rummy.opening import reach_ok, reached
from arbitro.model.rummy.refusal import Refusal
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import ANSWER, DRAW, FREED, PLAY, Side, State, partner, replaced
from arbitro.model.rummy.stock import draw_cards, exhausted
from arbitro.model.rummy.table import going_out_counts, mover_side, opening_points, pending
from arbitro.model.rummy.tables import BY_ID_CAP, Tables, tables
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


# ---------------------------------------------------------------- turns


def begin_turn(rules: RummyRules, state: State, seat: int) -> State:
    """Hand the turn to `seat`: owed red-three replacements, then a stock-out check."""
    return _turn_to(tables(rules), state, seat, state.hands, state.pile)


def _turn_to(
    t: Tables,
    state: State,
    seat: int,
    hands: tuple[tuple[int, ...], ...],
    pile: tuple[int, ...],
) -> State:
    """`begin_turn` from `state` with its hands and pile replaced (one new state, not three)."""
    rules = t.rules
    st = state
    s = State(
        st.players,
        st.sides,
        st.layout,
        st.phase,
        st.hand_no,
        st.dealer,
        st.scores,
        st.result,
        hands,
        st.stock,
        pile,
        st.table,
        st.minimums,
        st.owed,
        st.pile_taken,
        seat,
        DRAW,
        False,  # took_pile
        (),  # held
        0,  # top_points
        False,  # asked
        "",  # answer
        False,  # melded
        _clean_count(t, st.table[seat % st.sides].melds),
        False,  # no_discard
        -1,  # freed
        -1,  # freed_meld
    )
    owed = s.owed[seat]
    if owed:
        s = s._replace(owed=(*s.owed[:seat], 0, *s.owed[seat + 1 :]))
        s, stop = draw_cards(rules, s, seat, owed)
        if stop:
            return s._replace(step=PLAY, no_discard=True)
    if exhausted(rules, s) and rules.stock_out != "hand_ends" and not _can_take(t, s):
        return end_hand(t, s, "stock-out", -1)
    return s


def _clean_count(t: Tables, melds: tuple[Meld, ...]) -> int:
    """Clean canastas among a side's melds (`going_out_counts`), read from its `_slots` when
    they are remembered; counting is cheaper than working out the rest of the slots."""
    if not melds:
        return 0
    hit = t.by_id.get(id(melds))
    if hit is not None and hit[0] is melds:
        got: int = hit[1][4]
        return got
    return going_out_counts(t, melds)[1]


def _can_take(t: Tables, s: State) -> bool:
    """Whether the player to move may take the pile (some candidate is not refused)."""
    for a in pile_rules.candidates(t, s):
        try:
            _take(t, s, a)
        except Refusal:
            continue
        return True
    return False


# ---------------------------------------------------------------- legal actions


def legal_actions(rules: RummyRules, state: State) -> tuple[Action, ...]:
    """Every legal action of the player to move, in canonical order."""
    if state.phase != "play":
        return ()
    t = tables(rules)
    out: list[Action] = []
    simple = _simple(state)
    specs = _specs(t, state)
    specs.sort(key=_spec_key)
    for spec in specs:
        q = _quick(t, state, spec, simple)
        if q is False:
            continue
        a = spec[0](*spec[1:])
        if q is None:
            try:
                _transition(t, state, a)
            except Refusal:
                continue
        out.append(a)
    return tuple(out)


_ORDER = {cls: i for i, cls in enumerate(_ACTION_TYPES)}
_USES = {"set": 0, "escalera": 1, "add": 2}


def _spec_key(spec: Spec) -> tuple[Any, ...]:
    """The canonical order (`actions.action_key`) of the action a spec builds."""
    cls = spec[0]
    if cls is TakePile:
        return (1, _USES[spec[2]], spec[3], spec[4])
    if cls is Answer:
        return (9, not spec[2])
    return (_ORDER[cls], *spec[2:])


def _simple(s: State) -> int:
    """How plain this moment of play is: 2 when the side has opened and nothing binds the turn
    (no answer, no freed wild, no stop), 1 when only discards are plain (the side has not begun an
    opening), 0 otherwise."""
    if s.step != PLAY or s.answer or s.freed >= 0 or s.no_discard:
        return 0
    sd = s.table[s.seat % s.sides]
    if sd.opened:
        return 2
    return 0 if sd.melds else 1


def _quick(t: Tables, s: State, spec: Spec, simple: int) -> bool | None:
    """Whether a candidate is legal, when that is plain without playing it; None otherwise.

    Candidates already satisfy their meld clauses (see `_specs`); in a plain moment what is left
    is only whether the hand keeps two cards, and then no guard can refuse.
    """
    cls = spec[0]
    if cls is Draw:
        return s.step == DRAW
    if not simple:
        return None
    left = len(s.hands[s.seat])
    if cls is Discard:
        return True if left >= 2 else None
    if simple < 2:
        return None
    if cls is AddToMeld:
        return True if left >= 3 else None
    if cls is Merge:
        return True if left >= 2 else None
    if cls is LayMeld:
        cards = spec[2]
        if left - len(cards) < 2:
            return None
        try:
            _lay_meld(t, s, cards, s.hands[s.seat])
        except Refusal:
            return False
        return True
    return None


Spec = tuple[Any, ...]
"""A candidate action not yet built: its class, then its fields."""


def _candidates(t: Tables, s: State) -> list[Action]:
    """Every action worth checking: a superset of the legal ones, each at most once."""
    return [spec[0](*spec[1:]) for spec in _specs(t, s)]


def _specs(t: Tables, s: State) -> list[Spec]:
    """The candidates as (class, fields...) tuples, cheap to list and built only when needed.

    Additions and merges are listed only when the meld clauses allow them (`add_problem`,
    `merge_problem`); everything else is checked by the transition.
    """
    r = t.rules
    seat = s.seat
    if s.step == ANSWER:
        p = partner(s, seat)
        return [(Answer, p, True), (Answer, p, False)]
    if s.step == DRAW:
        out: list[Spec] = []
        if not exhausted(r, s) or r.stock_out == "hand_ends":
            out.append((Draw, seat, _draw_count(r, s)))
        out += [(TakePile, seat, *f) for f in pile_rules.candidate_fields(t, s)]
        return out
    hand = s.hands[seat]
    melds = mover_side(s).melds
    if s.step == FREED:
        return list(_freed_specs(t, s))
    sh = shape(t, hand)
    adds, merges, cleans, set_ranks, _ = _slots(t, melds)
    lays = lay_candidates(t, hand, melds, -1, sh, set_ranks)
    out = [(LayMeld, seat, c) for c in lays]
    cards = sh.distinct
    held = sh.counts
    wilds = sh.wild_kinds  # (card, count)
    for i, rank, wild_ok, ends in adds:
        if rank >= 0 and rank in sh.rank_count:
            b = rank * 4
            out += [(AddToMeld, seat, i, c) for c in (b, b + 1, b + 2, b + 3) if c in held]
        if wild_ok and wilds:
            out += [(AddToMeld, seat, i, w) for w, _ in wilds]
        for c in ends:
            if c in held:
                out.append((AddToMeld, seat, i, c))
    out += [(Merge, seat, i, j) for i, j in merges]
    for i, rank, freeable in cleans:
        if rank in sh.rank_count:
            nats = sh.naturals(rank)
            out += [(ReplaceWild, seat, i, n, w) for w in freeable for n in nats]
    if pending(s):
        out.append((FinishOpening, seat))
    out += [(Discard, seat, c) for c in cards]
    if r.ask_partner and s.players > s.sides and not s.asked and not s.melded and len(hand) >= 2:
        out.append((AskPartner, seat))
    if s.no_discard:
        out.append((Stop, seat))
    return out


def _freed_specs(t: Tables, s: State) -> Iterator[Spec]:
    """The candidates of the `freed` step: the freed wild onto another meld, then (worked out
    only when asked for) into a new meld."""
    seat = s.seat
    melds = mover_side(s).melds
    for i in range(len(melds)):
        if i != s.freed_meld:
            yield (AddToMeld, seat, i, s.freed)
    pool = tuple(sorted((*s.hands[seat], s.freed)))
    for c in lay_candidates(t, pool, melds, s.freed):
        yield (LayMeld, seat, c)


Slots = tuple[
    tuple[tuple[int, int, bool, tuple[int, ...]], ...],
    tuple[tuple[int, int], ...],
    tuple[tuple[int, int, tuple[int, ...]], ...],
    frozenset[int],
    int,
]
"""What a side's melds can take: per meld (index, rank of the naturals it takes or -1, whether
it takes a wild, the escalera cards that extend it); the pairs of sets that merge; per set with
wilds (index, rank, its distinct wilds) for cleaning; the ranks of its sets; how many clean
canastas it has."""


def _slots(t: Tables, melds: tuple[Meld, ...]) -> Slots:
    """The `Slots` of a side's melds by the meld clauses (`add_problem`, `merge_problem`).

    A natural of a set's rank joins it or not whichever natural it is, and likewise any wild,
    so one card of each class decides for all; the answer is remembered per table position.
    """
    # keyed by identity (the entry keeps `melds` alive, so its id is not reused meanwhile): an
    # unchanged side is the same tuple from state to state, and hashing every card is slower
    memo = t.by_id
    hit = memo.get(id(melds))
    if hit is not None and hit[0] is melds:
        got: Slots = hit[1]
        return got
    adds: list[tuple[int, int, bool, tuple[int, ...]]] = []
    for i, m in enumerate(melds):
        got_m = takes(t, m)
        if got_m[1] or got_m[0] >= 0 or got_m[2]:
            adds.append((i, *got_m))
    r = t.rules
    merges: list[tuple[int, int]] = []
    if r.merge_sets:
        for i, m in enumerate(melds):
            for j in range(i + 1, len(melds)):
                o = melds[j]
                if m.kind == SET == o.kind and o.key == m.key and merge_problem(t, m, o) is None:
                    merges.append((i, j))
    cleans: list[tuple[int, int, tuple[int, ...]]] = []
    if r.clean_by_replacing_wilds:
        for i, m in enumerate(melds):
            if m.kind == SET:
                ws = tuple(distinct(c for c in m.cards if c < 4 or c == 52))
                if ws:
                    cleans.append((i, m.key, ws))
    ranks = frozenset(m.key for m in melds if m.kind == SET)
    got = (tuple(adds), tuple(merges), tuple(cleans), ranks, going_out_counts(t, melds)[1])
    if len(memo) > BY_ID_CAP:
        memo.clear()
    memo[id(melds)] = (melds, got)
    return got


def _draw_count(r: RummyRules, s: State) -> int:
    if exhausted(r, s):
        return r.draw_count
    return min(r.draw_count, len(s.stock))


# ---------------------------------------------------------------- apply


_OUT_OF_TURN = {
    Draw: "draw_out_of_turn",
    TakePile: "take_pile_out_of_turn",
}
_MELDING = (LayMeld, AddToMeld, Merge, ReplaceWild, FinishOpening)


def apply(rules: RummyRules, state: State, action: object) -> State:
    """The state after `action`, or IllegalAction naming the clause it breaks."""
    if not isinstance(action, _ACTION_TYPES):
        raise MalformedInput(f"not a rummy action: {action!r}")
    if state.phase != "play":
        raise MalformedInput(f"no action is played in phase {state.phase!r}")
    _check_shape(state, action)
    mover = state.to_move()
    if action.seat != mover:
        raise _out_of_turn(rules, state, action, mover)
    t = tables(rules)
    try:
        return _transition(t, state, action)
    except Refusal as e:
        penalty = rules.penalty(e.act) if e.act else None
        raise IllegalAction(action, rules.cid(e.key), e.reason, penalty) from None


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
"""The action types whose fields name no card (exact types: a subclass takes the general path)."""


def _check_shape(state: State, a: Action) -> None:
    if isinstance(a.seat, bool) or not isinstance(a.seat, int) or not 0 <= a.seat < state.players:
        raise MalformedInput(f"seat must be 0 to {state.players - 1}, got {a.seat!r}")
    if type(a) in _NO_CARDS:
        return
    if isinstance(a, (Discard, AddToMeld)) and type(a.card) is int and 0 <= a.card < KINDS:
        return
    cards: tuple[object, ...] = ()
    if isinstance(a, (TakePile, LayMeld)):
        cards = a.cards
    elif isinstance(a, (AddToMeld, Discard)):
        cards = (a.card,)
    elif isinstance(a, ReplaceWild):
        cards = (a.natural, a.wild)
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < KINDS:
            raise MalformedInput(f"not a card: {c!r}")
    if isinstance(a, (TakePile, LayMeld)) and (
        not isinstance(a.cards, tuple) or list(a.cards) != sorted(a.cards)
    ):
        raise MalformedInput("the cards of an action are a sorted tuple (a multiset)")


def _transition(t: Tables, s: State, a: Action) -> State:
    if s.step == PLAY:
        # the plain step: what the chain below comes to for an action of exactly these types
        go = _IN_PLAY.get(type(a))
        if go is not None:
            return go(t, s, a)
    if isinstance(a, Draw):
        return _draw(t, s, a)
    if isinstance(a, TakePile):
        return _take_pile(t, s, a)
    if isinstance(a, Answer):
        if s.step != ANSWER:
            raise Refusal("ask_partner", "nobody has asked to go out")
        return s._replace(step=PLAY, answer="yes" if a.yes else "no")
    if s.step == DRAW:
        raise Refusal("draw_count", "a turn begins by drawing or taking the pile")
    if s.step == ANSWER:
        raise Refusal("ask_partner", "the partner must answer first")
    if isinstance(a, LayMeld):
        return _lay(t, s, a)
    if isinstance(a, AddToMeld):
        return _add(t, s, a)
    if s.step == FREED:
        raise Refusal("clean_by_replacing_wilds", "the freed wild must be placed first")
    if isinstance(a, Merge):
        return _merge(t, s, a)
    if isinstance(a, ReplaceWild):
        return _replace_wild(t, s, a)
    if isinstance(a, FinishOpening):
        return _finish_opening(t, s)
    if isinstance(a, Discard):
        return _discard(t, s, a)
    if isinstance(a, AskPartner):
        return _ask(t, s)
    return _stop(t, s)


# ---------------------------------------------------------------- drawing and the pile


def _draw(t: Tables, s: State, a: Draw) -> State:
    r = t.rules
    if s.step != DRAW:
        raise Refusal(
            "draw_count", "the player has already drawn this turn", "draw_two_instead_of_one"
        )
    if exhausted(r, s):
        if r.stock_out != "hand_ends":
            raise Refusal("stock_out", "the stock is exhausted: the pile must be taken")
        if a.count != r.draw_count:
            raise Refusal("draw_count", f"a draw is of {r.draw_count} card(s)")
        return end_hand(t, s, "stock-out", -1)
    want = min(r.draw_count, len(s.stock))
    if a.count != want:
        act = "draw_two_instead_of_one" if a.count > want else None
        raise Refusal("draw_count", f"the draw is of {want} card(s), not {a.count}", act)
    stock = s.stock
    drawn = stock[:want]
    if 5 in drawn or 6 in drawn:
        s2, stop = draw_cards(r, s, s.seat, want)
        s2 = s2._replace(step=PLAY, no_discard=stop)
    else:
        # no red three among them: the cards go straight to the hand
        hand = tuple(sorted((*s.hands[s.seat], *drawn)))
        s2 = replaced(s, hands=_hand_with(s, hand), stock=stock[want:], step=PLAY, no_discard=False)
    return _check_stuck(t, s2, False)


def _take(t: Tables, s: State, a: TakePile) -> State:
    s2 = pile_rules.take(t, s, a)
    if pending(s2) and not reach_ok(t, s2):
        raise Refusal(
            "opening_minimums",
            "the opening minimum cannot be reached with this pile take",
            "take_upcard_unable_to_open",
        )
    return s2


def _take_pile(t: Tables, s: State, a: TakePile) -> State:
    if s.step != DRAW:
        raise Refusal(
            "pile_new_set_naturals", "the pile is taken instead of drawing, at the start of a turn"
        )
    s2 = _take(t, s, a)
    if pending(s2):
        return s2
    return _check_stuck(t, s2, True)


def _check_stuck(t: Tables, s: State, took: bool) -> State:
    """After a draw or a pile take: a hand that cannot be played on is a dead end of the book."""
    hand = s.hands[s.seat]
    h = len(hand) + len(s.held)
    if h >= 2 or s.no_discard or pending(s):
        return s
    if h == 1 and one_card_ok(t, s):
        return s
    if h == 0:
        p = go_out_problem(t, s, by_discard=False)
        if p is None:
            return end_hand(t, _opened(s), "went-out", s.seat)
    p = go_out_problem(t, s, by_discard=h == 1)
    clauses = []
    if took:
        clauses.append(t.rules.cid("pile_one_card_rule"))
    elif not s.stock:
        # the last card of the stock was a red three, laid out with nothing to replace it
        clauses.append(t.rules.cid("last_red_three_ends_hand"))
    clauses.append(t.rules.cid(p[0] if p else "go_out_min_completed"))
    return end_hand(t, s, "dead-end", -1, tuple(clauses))


# ---------------------------------------------------------------- melding


def _side_with(
    s: State, melds: list[Meld] | tuple[Meld, ...], opened: bool | None = None
) -> tuple[Side, ...]:
    i = s.seat % s.sides
    sd = s.table[i]
    new = Side(tuple(sorted(melds)), sd.red_threes, sd.opened if opened is None else opened)
    return (*s.table[:i], new, *s.table[i + 1 :])


def _hand_with(s: State, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return (*s.hands[: s.seat], hand, *s.hands[s.seat + 1 :])


def _opened(s: State) -> State:
    i = s.seat % s.sides
    sd = s.table[i]
    if sd.opened:
        return s
    return s._replace(table=(*s.table[:i], sd._replace(opened=True), *s.table[i + 1 :]))


def _pool(s: State) -> tuple[int, ...]:
    hand = s.hands[s.seat]
    if s.step == FREED:
        return tuple(sorted((*hand, s.freed)))
    return hand


def _lay_meld(t: Tables, s: State, cards: tuple[int, ...], rest: tuple[int, ...]) -> Meld:
    """The meld `cards` form as a new lay; Refusal or MalformedInput when they may not be laid.

    `rest` is what the player keeps (for a black-three meld, laid only to go out).
    """
    r = t.rules
    m = classify(t, cards)
    if isinstance(m, str):
        raise Refusal(m, "those cards do not form a meld")
    if m.kind == SET:
        if len(cards) != t.set_lay:
            raise MalformedInput(
                f"a set is laid with exactly {t.set_lay} cards; add more with AddToMeld"
            )
        if not r.several_sets_same_rank and any(
            x.kind == SET and x.key == m.key for x in mover_side(s).melds
        ):
            raise Refusal("several_sets_same_rank", "the side already has a set of that rank")
    elif m.kind == SEQ:
        if len(cards) != r.sequence_min:
            raise MalformedInput(
                f"an escalera is laid with exactly {r.sequence_min} cards; add more with AddToMeld"
            )
    elif m.kind == WILDS:
        if len(cards) != r.wild_meld_min_start:
            raise MalformedInput(
                f"a wild meld is laid with exactly {r.wild_meld_min_start} cards; add more with AddToMeld"
            )
    elif m.kind == BLACK3 and len(rest) > 1:
        raise Refusal("black_threes_meld", "black threes are melded only by a player going out")
    return m


def _held(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    """`hand` without `cards`; a card the player does not hold would be in two places (*:packs)."""
    try:
        return remove(hand, cards)
    except ValueError:
        raise Refusal(
            "packs", "the player does not hold that card: playing it would put a card in two places"
        ) from None


def _lay(t: Tables, s: State, a: LayMeld) -> State:
    pool = _pool(s)
    if s.step == FREED and s.freed not in a.cards:
        raise Refusal("clean_by_replacing_wilds", "the freed wild must be placed first")
    rest = _held(pool, a.cards)
    m = _lay_meld(t, s, a.cards, rest)
    s2 = replaced(
        s,
        table=_side_with(s, (*mover_side(s).melds, m)),
        hands=_hand_with(s, rest),
        step=PLAY,
        freed=-1,
        freed_meld=-1,
        melded=True,
    )
    return _settle(t, s2)


def _add(t: Tables, s: State, a: AddToMeld) -> State:
    melds = mover_side(s).melds
    if not 0 <= a.meld < len(melds):
        raise MalformedInput(f"the side has no meld {a.meld}")
    if s.step == FREED:
        if a.card != s.freed:
            raise Refusal("clean_by_replacing_wilds", "the freed wild must be placed first")
        if a.meld == s.freed_meld:
            raise Refusal(
                "clean_by_replacing_wilds", "a freed wild cannot go back where it came from"
            )
        hand = s.hands[s.seat]
    else:
        hand = _held(s.hands[s.seat], (a.card,))
    m = melds[a.meld]
    p = add_problem(t, m, a.card)
    if p:
        act = "three_wilds_in_canasta" if p == "wild_cap" else None
        raise Refusal(p, "that card cannot join that meld", act)
    grown = Meld(m.kind, m.key, tuple(sorted((*m.cards, a.card))))
    new = list(melds)
    new[a.meld] = grown
    s2 = replaced(
        s,
        table=_side_with(s, new),
        hands=_hand_with(s, hand),
        step=PLAY,
        freed=-1,
        freed_meld=-1,
        melded=True,
    )
    return _settle(t, s2)


def _merge(t: Tables, s: State, a: Merge) -> State:
    melds = mover_side(s).melds
    if not (0 <= a.meld < len(melds) and 0 <= a.other < len(melds)) or a.meld == a.other:
        raise MalformedInput("merge names two different melds of the side")
    x, y = melds[a.meld], melds[a.other]
    p = merge_problem(t, x, y)
    if p:
        raise Refusal(p, "those two melds cannot be joined")
    new = [m for i, m in enumerate(melds) if i not in (a.meld, a.other)]
    new.append(Meld(SET, x.key, tuple(sorted((*x.cards, *y.cards)))))
    s2 = replaced(s, table=_side_with(s, new), melded=True)
    return _settle(t, s2)


def _replace_wild(t: Tables, s: State, a: ReplaceWild) -> State:
    r = t.rules
    if not r.clean_by_replacing_wilds:
        raise Refusal("clean_by_replacing_wilds", "wilds in a meld stay there")
    melds = mover_side(s).melds
    if not 0 <= a.meld < len(melds):
        raise MalformedInput(f"the side has no meld {a.meld}")
    m = melds[a.meld]
    if m.kind != SET or not is_wild(a.wild) or a.wild not in m.cards:
        raise MalformedInput("that meld holds no such wild")
    hand = _held(s.hands[s.seat], (a.natural,))
    if a.natural >> 2 != m.key or is_wild(a.natural):
        raise Refusal(
            "clean_by_replacing_wilds", "a wild is replaced by a natural of the set's rank"
        )
    cleaned = Meld(SET, m.key, tuple(sorted((*remove(m.cards, (a.wild,)), a.natural))))
    new = list(melds)
    new[a.meld] = cleaned
    ordered = tuple(sorted(new))
    s2 = s._replace(
        table=_side_with(s, ordered),
        hands=_hand_with(s, hand),
        step=FREED,
        freed=a.wild,
        freed_meld=ordered.index(cleaned),
        melded=True,
    )
    for spec in _freed_specs(t, s2):
        try:
            _transition(t, s2, spec[0](*spec[1:]))
        except Refusal:
            continue
        return s2
    raise Refusal("clean_by_replacing_wilds", "the freed wild would have nowhere to go")


def _finish_opening(t: Tables, s: State) -> State:
    if not pending(s):
        raise Refusal("opening_minimums", "there is no opening being laid")
    if not reached(t, s):
        got = opening_points(t, s)
        need = s.minimums[s.seat % s.sides]
        raise Refusal("opening_minimums", f"the opening makes {got} points; the minimum is {need}")
    hand = tuple(sorted((*s.hands[s.seat], *s.held)))
    s2 = _opened(s)._replace(hands=_hand_with(s, hand), held=(), top_points=0)
    return _settle(t, s2)


def _settle(t: Tables, s: State) -> State:
    """After a laying action: go out if the hand is empty, else make sure the turn can end."""
    h = len(s.hands[s.seat]) + len(s.held)
    if h == 0:
        p = go_out_problem(t, s, by_discard=False)
        if p:
            raise Refusal(*p)
        return end_hand(t, _opened(s), "went-out", s.seat)
    if s.answer == "no" and h < 2:
        raise Refusal(
            "ask_partner",
            "the partner said no: keep two cards so that the discard does not go out",
            "go_out_after_refusal",
        )
    if h == 1 and not s.held and not one_card_ok(t, s):
        p = go_out_problem(t, s, by_discard=True)
        raise Refusal(
            p[0] if p else "go_out_min_completed",
            "the last card could not go out: keep a card to discard",
        )
    if pending(s) and not reach_ok(t, s):
        raise Refusal("opening_minimums", "after this the opening minimum can no longer be reached")
    if s.answer == "yes" and not can_go_out(t, s):
        raise Refusal(
            "ask_partner", "the partner said yes: the player must be able to go out this turn"
        )
    return s


# ---------------------------------------------------------------- ending the turn


def _discard(t: Tables, s: State, a: Discard) -> State:
    hand = _held(s.hands[s.seat], (a.card,))
    if s.no_discard:
        raise Refusal("last_red_three_ends_hand", "play stops after the last red three: no discard")
    if hand:
        if pending(s):
            raise Refusal("opening_minimums", "finish the opening before discarding")
        if s.answer == "yes":
            raise Refusal("ask_partner", "the partner said yes: the player must go out this turn")
        return _turn_to(t, s, (s.seat + 1) % s.players, _hand_with(s, hand), (*s.pile, a.card))
    p = go_out_problem(t, s, by_discard=True)
    if p:
        raise Refusal(*p)
    s2 = _opened(s)._replace(hands=_hand_with(s, ()), pile=(*s.pile, a.card))
    return end_hand(t, s2, "went-out", s.seat)


def _ask(t: Tables, s: State) -> State:
    r = t.rules
    if not r.ask_partner:
        raise Refusal("ask_partner", "the book has no asking the partner")
    if s.players == s.sides:
        raise Refusal("ask_partner", "a player without a partner has nobody to ask")
    if s.asked or s.melded or s.held:
        raise Refusal("ask_partner", "the partner is asked once, after drawing and before melding")
    if len(s.hands[s.seat]) < 2:
        raise Refusal("ask_partner", "with one card there is nothing to ask")
    if not can_go_out(t, s):
        raise Refusal(
            "ask_partner", "only a player who can go out may ask", "ask_and_cannot_go_out"
        )
    return s._replace(step=ANSWER, asked=True)


def _stop(t: Tables, s: State) -> State:
    if not s.no_discard:
        raise Refusal(
            "last_red_three_ends_hand", "play stops only after the last red three of the stock"
        )
    if pending(s):
        raise Refusal("opening_minimums", "finish the opening first")
    if s.answer == "yes":
        raise Refusal("ask_partner", "the partner said yes: the player must go out this turn")
    return end_hand(t, s, "stock-out", -1)


_IN_PLAY: dict[type[Any], Callable[[Tables, State, Any], State]] = {
    Draw: _draw,
    TakePile: _take_pile,
    LayMeld: _lay,
    AddToMeld: _add,
    Merge: _merge,
    ReplaceWild: _replace_wild,
    FinishOpening: lambda t, s, a: _finish_opening(t, s),
    Discard: _discard,
    AskPartner: lambda t, s, a: _ask(t, s),
    Stop: lambda t, s, a: _stop(t, s),
}
"""What `_transition` does with an action of each type in the `play` step (Answer is refused there
by the general path)."""


__all__ = ["apply", "begin_turn", "legal_actions"]
