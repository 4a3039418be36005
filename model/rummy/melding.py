"""The melding actions of a turn: lay a meld, add a card, merge two sets, clean a set, finish the
opening; and what every one of them must leave possible.

A new meld is laid at its minimum size (`LayMeld`) and grown one card at a time (`AddToMeld`):
the meld clauses are in `melds`, the ways a hand's cards can become new melds in `laying`. After
every melding action (`settle`) the player must still be able to end the turn: with the hand
emptied the player goes out (and must be allowed to, see `going_out`); after the partner's "no"
two cards stay in hand (*:ask-partner); one card left must be able to go out
(*:go-out-discard); a pending opening must still be able to reach its minimum
(*:opening-minimums); after the partner's "yes" going out must stay possible.

Implements *:several-sets-same-rank, *:black-threes-meld (laid only by a player going out),
*:merge-sets, *:clean-by-replacing-wilds (the freed wild is placed at once, never back in the
meld it left), *:pile-rest-after-opening (the held rest of the pile joins the hand when the
opening is finished) and, through `melds`, every meld-shape clause.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy.actions import AddToMeld, FinishOpening, LayMeld, Merge, ReplaceWild
from arbitro.model.rummy.cards import JOKER, LOWEST_NATURAL, inserted, is_wild, remove, without
from arbitro.model.rummy.going_out import (
    can_go_out,
    go_out_problem,
    go_out_problems,
    last_card_out,
    one_card_ok,
)
from arbitro.model.rummy.laying import lay_candidates
from arbitro.model.rummy.melds import (
    BLACK3,
    SEQ,
    SET,
    WILDS,
    Meld,
    add_problem,
    classify,
    merge_problem,
    set_shape_problems,
    wild_count,
    wild_set,
)
from arbitro.model.rummy.opening import minimum_of, reach_ok, reached
from arbitro.model.rummy.refusal import LISTED, STRICT, Halt, Judge, Refusal
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import (
    FREED,
    Side,
    State,
    after_clean,
    after_meld,
    after_opening,
    replaced,
)
from arbitro.model.rummy.table import (
    mover_side,
    opened,
    opening_points,
    pending,
    put,
    with_hand,
    with_meld_added,
    with_meld_grown,
    with_melds,
)
from arbitro.model.rummy.tables import Tables

THREE_WILDS: Final = "three_wilds_in_canasta"
"""The priced act of putting a wild too many into a set."""

_new: Final[Any] = tuple.__new__
"""`Meld(...)` (and an action's constructor) without the Python call of a NamedTuple's (an
interpreted class's) constructor."""

_MELD: Final = Meld
"""`Meld` read from a final: the compiled code looks a class named in it up in the module's
dictionary at each use."""


def held_without(hand: tuple[int, ...], cards: tuple[int, ...], j: Judge) -> tuple[int, ...]:
    """`hand` without `cards`; a card the player does not hold would be in two places (*:packs)."""
    if len(cards) == 1:
        return held_one(hand, cards[0], j)
    try:
        return remove(hand, cards)
    except ValueError:
        pass
    j.halt("packs", "the player does not hold that card: playing it would put a card in two places")


def held_one(hand: tuple[int, ...], card: int, j: Judge) -> tuple[int, ...]:
    """`held_without(hand, (card,), j)` (a discard, an addition) without the tuple of the one
    card: the hand cut around it, found by a loop over the hand (`hand.index` is a method call
    through the interpreter's calling convention)."""
    for i in range(len(hand)):
        if hand[i] == card:
            return hand[:i] + hand[i + 1 :]
    j.halt("packs", "the player does not hold that card: playing it would put a card in two places")


def _wild_limits(t: Tables, key: str, n: int, w: int, j: Judge) -> None:
    """A collecting judge also hears the other wild limit a set breaks (*:wild-cap,
    *:wilds-at-most-naturals), after the one `key` names."""
    if j.found is not None and key in ("wild_cap", "wilds_at_most_naturals"):
        for other in set_shape_problems(t, n, w):
            j.refuse(other, "that set holds too many wild cards")


def lay_meld(t: Tables, s: State, cards: tuple[int, ...], rest: tuple[int, ...], j: Judge) -> Meld:
    """The meld `cards` form as a new lay; refused (or MalformedInput) when they may not be laid.

    `rest` is what the player keeps (for a black-three meld, laid only to go out).
    """
    m = classify(t, cards)
    if isinstance(m, str):
        j.refuse(m, "those cards do not form a meld")
        w = sum(1 for c in cards if is_wild(c))
        _wild_limits(t, m, len(cards) - w, w, j)
        raise Halt  # a collecting judge: a strict one has raised the refusal
    if m.kind == SET:
        if len(cards) != t.set_lay:
            raise MalformedInput(
                f"a set is laid with exactly {t.set_lay} cards; add more with AddToMeld"
            )
        if not t.several_sets_same_rank and any(
            x.kind == SET and x.key == m.key for x in mover_side(s).melds
        ):
            j.refuse("several_sets_same_rank", "the side already has a set of that rank")
    elif m.kind == SEQ:
        if len(cards) != t.sequence_min:
            raise MalformedInput(
                f"an escalera is laid with exactly {t.sequence_min} cards; add more with AddToMeld"
            )
    elif m.kind == WILDS:
        if len(cards) != t.wild_meld_min_start:
            raise MalformedInput(
                f"a wild meld is laid with exactly {t.wild_meld_min_start} cards; add more with AddToMeld"
            )
    elif m.kind == BLACK3 and len(rest) > 1:
        j.refuse("black_threes_meld", "black threes are melded only by a player going out")
    return m


def lays_plainly(t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], freed: int) -> bool:
    """Whether `lay` accepts `cards`, holding the `freed` wild, as a new meld of a side that has
    opened (its melds `melds`) and keeps two cards after it with no "yes" to honour (`settle`
    refuses nothing then): the meld clauses of `lay_meld` and nothing else. A meld of a size
    the lay does not take is refused here (`lay` would call it malformed), and a black-three
    meld, laid only by a player going out, is never plain."""
    if freed not in cards:
        return False
    got = classify(t, cards)
    if isinstance(got, str):
        return False
    n = len(cards)
    kind = got.kind
    if kind == SET:
        if n != t.set_lay:
            return False
        if not t.several_sets_same_rank:
            for m in melds:
                if m.kind == SET and m.key == got.key:
                    return False
        return True
    if kind == SEQ:
        return n == t.sequence_min
    if kind == WILDS:
        return n == t.wild_meld_min_start
    return False


def pool_of(s: State) -> tuple[int, ...]:
    """The cards the mover may lay from: the hand, and a freed wild waiting to be placed."""
    hand = s.hands[s.seat]
    if s.step == FREED:
        return tuple(sorted((*hand, s.freed)))
    return hand


def lay(t: Tables, s: State, a: LayMeld, j: Judge = STRICT) -> State:
    """The LayMeld action."""
    pool = pool_of(s)
    av: tuple[Any, ...] = a  # read as a tuple: `a.cards` is a property of an interpreted class
    cards: tuple[int, ...] = av[2]
    if j is LISTED:
        # listed as legal: the cards are sorted and held, and they form the meld the listing
        # accepted; only that meld is to be built
        rest = without(pool, cards)
        m = listed_meld(t, cards)
    else:
        if s.step == FREED and s.freed not in cards:
            j.refuse("clean_by_replacing_wilds", "the freed wild must be placed first")
        rest = held_without(pool, cards, j)
        m = lay_meld(t, s, cards, rest, j)
    s2 = after_meld(s, with_hand(s, rest), with_meld_added(s, m))
    return settle(t, s2, j)


def listed_meld(t: Tables, cards: tuple[int, ...]) -> Meld:
    """The meld `lay_meld` makes of sorted cards that it accepts (a lay listed as legal), built
    without `classify`'s memo lookup, which hashes the cards: naturals of one rank are a set of
    that rank, naturals of several an escalera of their suit (the only melds of naturals alone
    that `classify` makes), a set with wilds is decided on its counts (`wild_set`); the rest (wild
    melds, black threes) by `classify`."""
    lo = cards[0]
    hi = cards[-1]
    got: Meld
    if lo >= LOWEST_NATURAL and hi < JOKER:
        if lo >> 2 == hi >> 2:
            got = _new(_MELD, (SET, lo >> 2, cards))
        else:
            got = _new(_MELD, (SEQ, lo & 3, cards))
        return got
    r = wild_set(t, cards)
    if r >= 0:
        got = _new(_MELD, (SET, r, cards))
        return got
    m = classify(t, cards)
    if isinstance(m, str):
        raise MalformedInput(f"not a meld: {cards!r}")  # never for a listed lay
    return m


def add(t: Tables, s: State, a: AddToMeld, j: Judge = STRICT) -> State:
    """The AddToMeld action."""
    # the fields read by index, from the action seen as a tuple: its named fields are properties
    # of an interpreted class, and `a[k]` a generic item lookup
    av: tuple[Any, ...] = a
    card: int = av[3]
    if j is LISTED:
        return _listed_add(t, s, av[2], card)
    i = av[2]  # not checked to be an int (`well_formed` checks the card)
    melds = mover_side(s).melds
    if not 0 <= i < len(melds):
        raise MalformedInput(f"the side has no meld {i}")
    if s.step == FREED:
        if card != s.freed:
            j.refuse("clean_by_replacing_wilds", "the freed wild must be placed first")
        if i == s.freed_meld:
            j.refuse("clean_by_replacing_wilds", "a freed wild cannot go back where it came from")
        hand = s.hands[s.seat]
    else:
        hand = held_one(s.hands[s.seat], card, j)
    m = melds[i]
    if j is not LISTED:
        p = add_problem(t, m, card)
        if p:
            j.refuse(p, "that card cannot join that meld", THREE_WILDS if p == "wild_cap" else None)
            w = wild_count(m.cards) + is_wild(card)
            _wild_limits(t, p, len(m.cards) + 1 - w, w, j)
        j.stop()
    # the meld's fields by index, from the meld seen as a tuple (`m[k]` is a generic lookup)
    mv: tuple[Any, ...] = m
    cards: tuple[int, ...] = mv[2]
    grown: Meld = _new(_MELD, (mv[0], mv[1], inserted(cards, (card,))))
    s2 = after_meld(s, with_hand(s, hand), with_meld_grown(s, i, grown))
    return settle(t, s2, j)


def _listed_add(t: Tables, s: State, i: int, card: int) -> State:
    """`add` of an addition listed as legal (judged by `LISTED`): meld `i` is one of the side's
    (an int), the card is held or is the freed wild, and the meld takes it; only the state it
    reaches is built (the meld and the card compared as ints, no generic comparison)."""
    hand = s.hands[s.seat] if s.step == FREED else held_one(s.hands[s.seat], card, LISTED)
    mv: tuple[Any, ...] = mover_side(s).melds[i]
    cards: tuple[int, ...] = mv[2]
    grown: Meld = _new(_MELD, (mv[0], mv[1], inserted(cards, (card,))))
    return settle(t, after_meld(s, with_hand(s, hand), with_meld_grown(s, i, grown)), LISTED)


def merge(t: Tables, s: State, a: Merge, j: Judge = STRICT) -> State:
    """The Merge action: two sets of one rank become one. *:merge-sets."""
    melds = mover_side(s).melds
    # the fields by index: an action's named fields are properties of an interpreted class
    a_meld: int = a[2]
    a_other: int = a[3]
    if not (0 <= a_meld < len(melds) and 0 <= a_other < len(melds)) or a_meld == a_other:
        raise MalformedInput("merge names two different melds of the side")
    x, y = melds[a_meld], melds[a_other]
    p = merge_problem(t, x, y)
    if p:
        j.halt(p, "those two melds cannot be joined")
    new = [m for i, m in enumerate(melds) if i != a_meld and i != a_other]
    new.append(_new(Meld, (SET, x.key, tuple(sorted((*x.cards, *y.cards))))))
    s2 = replaced(s, table=with_melds(s, new), melded=True)
    return settle(t, s2, j)


def freed_options(t: Tables, s: State) -> Iterator[AddToMeld | LayMeld]:
    """Where the freed wild of the `freed` step may be tried: onto another meld, then (worked out
    only when asked for) into a new meld."""
    seat = s.seat
    melds = mover_side(s).melds
    for i in range(len(melds)):
        if i != s.freed_meld:
            yield _new(AddToMeld, (3, seat, i, s.freed))
    pool = tuple(sorted((*s.hands[seat], s.freed)))
    for c in lay_candidates(t, pool, melds, s.freed):
        yield _new(LayMeld, (2, seat, c))


def cleaned(t: Tables, s: State, a: ReplaceWild, j: Judge = STRICT) -> State:
    """The state after swapping a set's wild for a natural from hand, the freed wild still to be
    placed (step `freed`); MalformedInput when the meld holds no such wild."""
    if not t.clean_by_replacing_wilds:
        j.halt("clean_by_replacing_wilds", "wilds in a meld stay there")
    melds = mover_side(s).melds
    # the fields by index, of the action and the meld seen as tuples: their named fields are
    # properties of interpreted classes
    av: tuple[Any, ...] = a
    a_meld: int = av[2]
    natural: int = av[3]
    wild: int = av[4]
    if not 0 <= a_meld < len(melds):
        raise MalformedInput(f"the side has no meld {a_meld}")
    mv: tuple[Any, ...] = melds[a_meld]
    cards: tuple[int, ...] = mv[2]
    if mv[0] != SET or not is_wild(wild) or wild not in cards:
        raise MalformedInput("that meld holds no such wild")
    hand = held_one(s.hands[s.seat], natural, j)
    key: int = mv[1]
    if natural >> 2 != key or is_wild(natural):
        j.halt("clean_by_replacing_wilds", "a wild is replaced by a natural of the set's rank")
    done: Meld = _new(_MELD, (SET, key, _swapped(cards, wild, natural)))
    # the melds sorted again (`with_meld_grown`: the set keeps its place unless it no longer
    # sorts between its neighbours); the freed wild's meld is the first equal to it
    table = with_meld_grown(s, a_meld, done)
    ordered: tuple[Meld, ...] = table[s.seat % s.sides][0]
    at = a_meld
    if ordered[at] is done:
        while at > 0 and ordered[at - 1] == done:
            at -= 1
    else:
        at = ordered.index(done)
    return after_clean(s, with_hand(s, hand), table, wild, at)


def _swapped(cards: tuple[int, ...], wild: int, natural: int) -> tuple[int, ...]:
    """`tuple(sorted((*remove(cards, (wild,)), natural)))` for sorted `cards` holding `wild`:
    one walk of the cards."""
    out: list[int] = []
    gone = False
    placed = False
    for c in cards:
        if c == wild and not gone:
            gone = True
            continue
        if c > natural and not placed:
            out.append(natural)
            placed = True
        out.append(c)
    if not placed:
        out.append(natural)
    return tuple(out)


def replace_wild(t: Tables, s: State, a: ReplaceWild, j: Judge = STRICT) -> State:
    """The ReplaceWild action: legal when the freed wild has somewhere to go. *:clean-by-replacing-wilds."""
    s2 = cleaned(t, s, a, j)
    # a listed cleaning has been found to leave the wild a place: it is not looked for again
    if j is LISTED or placeable(t, s2):
        return s2
    j.halt("clean_by_replacing_wilds", "the freed wild would have nowhere to go")


def placeable(t: Tables, s: State) -> bool:
    """Whether the freed wild of the `freed` step has a legal place: the places `freed_options`
    offers, in its order, each judged as its rule would judge it, no action built where the
    verdict is reached without playing it."""
    sd = mover_side(s)
    melds = sd.melds
    hand = s.hands[s.seat]
    freed = s.freed
    kept = len(hand) + len(s.held)
    # an addition that keeps two cards in the hand of an opened side with no "yes" to honour
    # settles without a search (`settle`): the meld clauses alone decide it; so does a new meld
    # that keeps two cards (`lays_plainly`)
    plain = sd.opened and s.answer != "yes" and kept >= 2
    # an addition that leaves the one card of an opened side, no pile held and no answer to
    # honour: `settle` refuses it unless that card can go out (`one_card_ok`), which
    # `last_card_out` decides on the melds the addition leaves, no state built, no refusal raised
    last = sd.opened and s.answer == "" and kept == 1 and not s.held
    # and says no to every one when the side cannot go out this turn whatever its melds
    never = _never_out(t, s)
    skip = s.freed_meld
    # the side's melds with one grown by the wild (`last`): one list, each grown meld put in
    # its place and taken out again
    grows: list[Meld] = []
    for i in range(len(melds)):
        if i == skip:
            continue
        m = melds[i]
        if add_problem(t, m, freed) is not None:
            continue  # `add` refuses it by this very test
        if plain:
            return True
        if last:
            if never:
                continue
            if not grows:
                grows = list(melds)
            mv: tuple[Any, ...] = m
            cards: tuple[int, ...] = mv[2]
            grows[i] = _new(_MELD, (mv[0], mv[1], inserted(cards, (freed,))))
            out = last_card_out(t, s, tuple(grows), hand[0])
            grows[i] = m
            if out:
                return True
            continue
        # the addition played (the hand is as it was: the wild was not in it), and what
        # `settle` would say of it
        grown = _new(_MELD, (m.kind, m.key, inserted(m.cards, (freed,))))
        if settled(t, after_meld(s, s.hands, with_meld_grown(s, i, grown))):
            return True
    # a new meld is of the hand and the wild
    if _too_few(t, len(hand) + 1):
        return False
    # a set of naturals of one rank and the wild that keeps two cards is laid plainly
    # (`lays_plainly`): looked for first among the hand's ranks, the candidates asked for only
    # when there is none
    if plain and kept + 1 - t.set_lay >= 2 and _plain_set(t, hand, melds, freed):
        return True
    pool = inserted(hand, (freed,))
    for laid in lay_candidates(t, pool, melds, freed):
        left = kept + 1 - len(laid)
        if plain and left >= 2:
            if lays_plainly(t, laid, melds, freed):
                return True
            continue
        try:
            lay(t, s, _new(LayMeld, (2, s.seat, laid)))
        except Refusal:
            continue
        return True
    return False


def _plain_set(t: Tables, hand: tuple[int, ...], melds: tuple[Meld, ...], freed: int) -> bool:
    """Whether set_lay - 1 naturals of one rank of the sorted `hand` and the `freed` wild are a
    new meld `lays_plainly` accepts (one of those `lay_candidates` offers: the naturals of a
    rank are alike to the meld clauses, so the first of the hand's stand for any)."""
    need = t.set_lay - 1
    if need < 1:
        return False
    n = len(hand)
    i = 0
    while i < n:
        c = hand[i]
        k = i + 1
        while k < n and hand[k] >> 2 == c >> 2:
            k += 1
        if (
            k - i >= need
            and LOWEST_NATURAL <= c < JOKER
            and lays_plainly(t, inserted(hand[i : i + need], (freed,)), melds, freed)
        ):
            return True
        i = k
    return False


def _never_out(t: Tables, s: State) -> bool:
    """Whether the side cannot go out this turn whatever its melds: its clean canastas at the
    turn's start are too few (*:go-out-wait-after-clean, read as `going_out._counts_ok` reads
    it: the fewer of the clean canastas now and at the turn's start must reach the minimum)."""
    return t.go_out_wait_after_clean and s.clean_start < t.go_out_min_clean


def _too_few(t: Tables, n: int) -> bool:
    """Whether `n` cards are fewer than any new meld holding a wild that `lay_candidates`
    offers (sets and black threes of set_min cards or more, wild melds of
    wild_meld_min_start; its escaleras are of naturals): then it offers the freed wild none,
    and is not asked."""
    least = t.wild_meld_min_start
    return n < t.set_min and (least <= 0 or n < least)


def finish_opening(t: Tables, s: State, a: FinishOpening, j: Judge = STRICT) -> State:
    """The FinishOpening action: the pending melds reach the minimum, the side has opened, and
    the rest of a pile taken to open comes into the hand. *:opening-minimums,
    *:pile-rest-after-opening."""
    if not pending(s):
        j.halt("opening_minimums", "there is no opening being laid")
    if not reached(t, s):
        got = opening_points(t, s)
        need = minimum_of(t, s)
        j.halt("opening_minimums", f"the opening makes {got} points; the minimum is {need}")
    if s.held:
        t.consult("pile_rest_after_opening")
    hand = tuple(sorted((*s.hands[s.seat], *s.held)))
    i = s.seat % s.sides
    sd = s.table[i]
    table: tuple[Side, ...] = put(s.table, i, _new(Side, (sd.melds, sd.red_threes, True)))
    return settle(t, after_opening(s, with_hand(s, hand), table), j)


def settled(t: Tables, s: State) -> bool:
    """Whether `settle` lets stand the state `s` a melding action leaves (going out when the
    hand is empty), no refusal raised: `placeable` asks it of the additions it cannot decide by
    the meld clauses alone."""
    h = len(s.hands[s.seat]) + len(s.held)
    if h == 0:
        return not go_out_problems(t, s, by_discard=False, every=False)
    if s.answer == "no" and h < 2:
        return False
    if h == 1 and not s.held and not one_card_ok(t, s):
        return False
    if pending(s) and not reach_ok(t, s):
        return False
    return s.answer != "yes" or can_go_out(t, s)


def settle(t: Tables, s: State, j: Judge = STRICT) -> State:
    """After a melding action: go out if the hand is empty, else make sure the turn can end
    (checks that an action listed as legal, judged by `LISTED`, passes without asking)."""
    h = len(s.hands[s.seat]) + len(s.held)
    if h == 0:
        if j is not LISTED:
            for problem in go_out_problems(t, s, by_discard=False, every=j.found is not None):
                j.refuse(*problem)
            j.stop()
        return end_hand(t, opened(s), "went-out", s.seat)
    if j is LISTED:
        return s
    if s.answer == "no" and h < 2:
        j.refuse(
            "ask_partner",
            "the partner said no: keep two cards so that the discard does not go out",
            "go_out_after_refusal",
        )
    if h == 1 and not s.held and not one_card_ok(t, s):
        p = go_out_problem(t, s, by_discard=True)
        j.refuse(
            p[0] if p else "go_out_min_completed",
            "the last card could not go out: keep a card to discard",
        )
    if pending(s) and not reach_ok(t, s):
        j.refuse("opening_minimums", "after this the opening minimum can no longer be reached")
    if s.answer == "yes" and not can_go_out(t, s):
        j.refuse("ask_partner", "the partner said yes: the player must be able to go out this turn")
    j.stop()
    return s
