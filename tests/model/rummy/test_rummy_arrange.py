"""The arrangement search (opening reach, going-out feasibility) agrees with brute force.

`arrange.reaches` and `arrange.places_all` reason about final arrangements; here an independent
depth-first search applies atomic moves one by one (lay a meld at its minimum size, add one card,
merge two sets, clean a set and place the freed wild at once), checked only by the meld clauses,
and the two answers must agree on random hands and tables of every book. This is what makes
`legal_actions` exact during an opening and after the partner's "yes".
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from types import ModuleType

import pytest

from arbitro.model.rummy import RUMMY
from arbitro.model.rummy.arrange import (
    Need,
    _freeable,
    _homes_possible,
    _rank_ends,
    _suit_moves,
    _wild_meld_amounts,
    final_ok,
    greedy_reaches,
    placed_bound,
    places_all,
    reaches,
    search_reaches,
    set_rules,
    split,
    table_of,
)
from arbitro.model.rummy.cards import JOKER, distinct, is_red_three, remove
from arbitro.model.rummy.engine import random_step
from arbitro.model.rummy.going_out import need as going_out_need
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
)
from arbitro.model.rummy.state import State
from arbitro.model.rummy.table import going_out_counts
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules
from tests.support.rummy_helpers import BOOKS, R
from tests.support.sizes import sized

Node = tuple[tuple[int, ...], tuple[Meld, ...], int, int]


def _lay_ok(t: Tables, m: Meld, rest: int, allow_black: bool, melds: tuple[Meld, ...]) -> bool:
    r = t.rules
    if m.kind == SET:
        if len(m.cards) != t.set_lay:
            return False
        return r.several_sets_same_rank or not any(x.kind == SET and x.key == m.key for x in melds)
    if m.kind == SEQ:
        return len(m.cards) == r.sequence_min
    if m.kind == WILDS:
        return len(m.cards) == r.wild_meld_min_start
    return allow_black and rest == 0


def moves(t: Tables, node: Node, allow_black: bool) -> list[Node]:
    hand, melds, freed, from_meld = node
    pool = tuple(sorted((*hand, freed))) if freed >= 0 else hand
    out: list[Node] = []
    for cards in lay_candidates(t, pool, melds, freed):
        m = classify(t, cards)
        if isinstance(m, str):
            continue
        rest = remove(pool, cards)
        if _lay_ok(t, m, len(rest), allow_black, melds):
            out.append((rest, tuple(sorted((*melds, m))), -1, -1))
    for i, m in enumerate(melds):
        for c in distinct(pool):
            if freed >= 0 and (c != freed or i == from_meld):
                continue
            if add_problem(t, m, c) is None:
                grown = m._replace(cards=tuple(sorted((*m.cards, c))))
                new = tuple(sorted((*melds[:i], grown, *melds[i + 1 :])))
                out.append((remove(pool, (c,)), new, -1, -1))
    if freed >= 0:
        return out
    for i, m in enumerate(melds):
        for j in range(i + 1, len(melds)):
            if merge_problem(t, m, melds[j]) is None:
                joined = Meld(SET, m.key, tuple(sorted((*m.cards, *melds[j].cards))))
                rest_m = [x for k, x in enumerate(melds) if k not in (i, j)]
                out.append((hand, tuple(sorted((*rest_m, joined))), -1, -1))
    if t.rules.clean_by_replacing_wilds:
        for i, m in enumerate(melds):
            if m.kind != SET:
                continue
            for w in distinct(c for c in m.cards if c < 4 or c == 52):
                for n in distinct(c for c in hand if c >> 2 == m.key and 8 <= c < 52):
                    cleaned = m._replace(cards=tuple(sorted((*remove(m.cards, (w,)), n))))
                    new = tuple(sorted((*melds[:i], cleaned, *melds[i + 1 :])))
                    out.append((remove(hand, (n,)), new, w, new.index(cleaned)))
    return out


def explore(
    t: Tables, hand: tuple[int, ...], melds: tuple[Meld, ...], allow_black: bool
) -> set[Node]:
    seen: set[Node] = set()
    todo: list[Node] = [(hand, melds, -1, -1)]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(moves(t, n, allow_black))
        assert len(seen) < 200_000, "brute force too large"
    return {n for n in seen if n[2] < 0}


def random_case(rules: RummyRules, rng: random.Random) -> tuple[tuple[int, ...], tuple[Meld, ...]]:
    """A table grown by random atomic moves from 14 cards, and a hand of 4 to 7 other cards."""
    t = tables(rules)
    deck = [c for c in t.deck(rules.layouts[0]) if not is_red_three(c)]
    rng.shuffle(deck)
    node: Node = (tuple(sorted(deck[:14])), (), -1, -1)
    for _ in range(rng.randrange(0, 10)):
        nxt = [n for n in moves(t, node, False) if n[2] < 0]
        if not nxt:
            break
        node = rng.choice(nxt)
    size = rng.randrange(4, 8)
    return tuple(sorted(deck[14 : 14 + size])), node[1]


def placeable_case(
    rules: RummyRules, rng: random.Random
) -> tuple[tuple[int, ...], tuple[Meld, ...]]:
    """A table grown from 24 cards and a hand that random moves could meld, sometimes plus one."""
    t = tables(rules)
    deck = [c for c in t.deck(rules.layouts[0]) if not is_red_three(c)]
    rng.shuffle(deck)
    node: Node = (tuple(sorted(deck[:24])), (), -1, -1)
    for _ in range(rng.randrange(3, 25)):
        nxt = [n for n in moves(t, node, False) if n[2] < 0]
        if not nxt:
            break
        node = rng.choice(nxt)
    table = node[1]
    pool = tuple(sorted(deck[24:36]))
    step: Node = (pool, table, -1, -1)
    for _ in range(rng.randrange(1, 8)):
        nxt = [n for n in moves(t, step, True) if n[2] < 0]
        if not nxt:
            break
        step = rng.choice(nxt)
    hand = list(remove(pool, step[0]))
    if rng.random() < 0.3:
        hand.append(deck[40])
    return tuple(sorted(hand[:8])), table


def _points(t: Tables, melds: tuple[Meld, ...]) -> int:
    return sum(t.points[c] for m in melds for c in m.cards)


@pytest.mark.parametrize("book", BOOKS)
def test_reaches_matches_brute_force(book: str) -> None:
    """*:opening-minimums, meld clauses: the most points placeable while keeping 0, 1 or 2 cards."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"reach:{book}")
    for _ in range(40):
        hand, melds = random_case(rules, rng)
        base = _points(t, melds)
        states = explore(t, hand, melds, allow_black=False)
        for keep in (0, 1, 2):
            best = max((_points(t, n[1]) - base for n in states if len(n[0]) >= keep), default=-1)
            assert reaches(t, hand, melds, best, keep), (book, hand, melds, keep, best)
            assert not reaches(t, hand, melds, best + 1, keep), (book, hand, melds, keep, best)


@pytest.mark.parametrize("book", BOOKS)
def test_the_placed_bound_never_cuts_what_can_be_placed(book: str) -> None:
    """`placed_bound` only settles searches that would fail: it is never below the most points
    the brute force places keeping 0, 1 or 2 cards, and it is below what every card but the
    threes is worth in some of these hands (or it would settle nothing)."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"bound:{book}")
    tighter = 0
    for _ in range(40):
        hand, melds = random_case(rules, rng)
        base = _points(t, melds)
        states = explore(t, hand, melds, allow_black=False)
        loose = sum(t.points[c] for c in hand if c >> 2 != 1)  # every card but the threes
        for keep in (0, 1, 2):
            best = max((_points(t, n[1]) - base for n in states if len(n[0]) >= keep), default=-1)
            bound = placed_bound(t, hand, melds, keep)
            assert bound >= best, (book, hand, melds, keep, best, bound)
            tighter += bound < loose
    assert tighter > 10


@pytest.mark.parametrize(
    ("book", "options"),
    [
        *[(b, {}) for b in BOOKS],
        ("samba-en", {"wilds_at_most_naturals": "at-most-naturals"}),
        ("canasta-es", {"several_sets_same_rank": "several"}),
    ],
)
def test_the_quick_reaches_test_never_says_yes_wrongly(book: str, options: dict[str, str]) -> None:
    """`greedy_reaches` is only a shortcut: whenever it says the points can be placed, the exact
    search agrees (and it does say so often, or it would save nothing)."""
    rules = R(book, **options)
    t = tables(rules)
    rng = random.Random(f"greedy:{book}:{sorted(options.items())}")
    said = 0
    for i in range(300):
        hand, melds = (random_case if i % 2 else placeable_case)(rules, rng)
        hand = tuple(sorted((*hand, *rng.sample(t.deck(rules.layouts[0]), rng.randrange(0, 6)))))
        hand = tuple(c for c in hand if not is_red_three(c))
        for target in (10, 30, 50, 90, 120, 150):
            for keep in (0, 1, 2):
                if greedy_reaches(t, hand, melds, target, keep):
                    said += 1
                    assert search_reaches(t, hand, melds, target, keep), (hand, melds, target, keep)
    assert said > 100


@pytest.mark.parametrize(
    ("book", "changes"),
    [
        ("samba-es", {}),
        ("samba-en", {}),
        ("samba-fr", {}),
        ("samba-en", {"wild_cap": 1}),
        ("samba-fr", {"sequence_max": 4}),
    ],
)
def test_the_quick_reaches_test_on_long_runs_and_short_sets(
    book: str, changes: dict[str, int]
) -> None:
    """`greedy_reaches` where its escalera part and its sets started with wilds decide: hands
    holding a run of one suit up to every escalera position (longer than *:sequence-max
    allows), beside an escalera of that suit on the table, and pairs or single naturals with
    wilds (*:set-start-min-naturals, *:wild-cap, *:wilds-at-most-naturals) beside a set of
    their rank nearly completed (*:completed-set-growth). Whenever it says yes the exact search
    agrees, and it does say yes."""
    rules = dataclasses.replace(R(book), **changes)
    t = tables(rules)
    rng = random.Random(f"runs:{book}:{sorted(changes.items())}")
    smin, smax = rules.sequence_min, rules.sequence_max
    positions = len(t.seq_rank)
    said = 0
    for _ in range(120):
        suit = rng.randrange(4)
        length = rng.randrange(smin, positions + 1)
        lo = rng.randrange(0, positions - length + 1)
        run = [t.seq_rank[p] * 4 + suit for p in range(lo, lo + length)]
        melds: tuple[Meld, ...] = ()
        if rng.random() < 0.5:
            # an escalera of the suit on the table, touching or overlapping the run
            size = rng.randrange(smin, smax + 1)
            start = max(0, min(positions - size, lo + rng.randrange(-size, length + 1)))
            cards = tuple(t.seq_rank[p] * 4 + suit for p in range(start, start + size))
            melds = (Meld(SEQ, suit, cards),)
        # pairs and single naturals of other ranks, with wilds
        extra = [r * 4 + rng.randrange(4) for r in rng.sample(range(2, 13), 3)]
        extra += [c ^ 1 for c in extra if rng.random() < 0.5]
        extra += rng.sample([0, 1, 2, 3, 52, 52], rng.randrange(0, 4))
        if rng.random() < 0.5:
            # a set of one of those ranks on the table, a few cards short of completed
            rank = extra[0] >> 2
            size = rng.randrange(3, rules.completed_size)
            laid = [rank * 4 + rng.randrange(4) for _ in range(size)]
            if rng.random() < 0.5:
                laid[0] = rng.choice([0, 1, 2, 3, 52])
            melds = (*melds, Meld(SET, rank, tuple(sorted(laid))))
        hand = tuple(sorted((*run, *extra)))
        total = sum(t.points[c] for c in hand)
        for target in range(10, total + 11, 10):
            for keep in (0, 1, 2):
                if greedy_reaches(t, hand, melds, target, keep):
                    said += 1
                    assert search_reaches(t, hand, melds, target, keep), (
                        hand,
                        melds,
                        target,
                        keep,
                    )
    assert said > 100


def test_the_quick_reaches_test_fills_a_set_no_further_than_completed() -> None:
    """samba-en:completed-set-growth ("none"): six kings on the table take the king from hand or
    the joker, not both (the seventh card closes the samba), and the 4 and 9 cannot start a set
    with the joker alone (set_lay 3 cards, at most 2 wilds): so at most the joker's 50 points
    are placed, never the king's 10 as well. The quick test must not count the joker on the
    set the king completed."""
    rules = R("samba-en")
    t = tables(rules)
    from tests.support.rummy_helpers import C, meld

    melds = (meld(rules, "KH KS KD KC KH KS"),)
    hand = C("KD JK 4H 9S")
    assert reaches(t, hand, melds, 50, 0)
    assert not greedy_reaches(t, hand, melds, 60, 0)
    assert not reaches(t, hand, melds, 60, 0)


@pytest.mark.parametrize("book", BOOKS)
def test_places_all_matches_brute_force(book: str) -> None:
    """*:go-out-min-completed, *:go-out-min-clean, *:go-out-min-dirty: can everything be melded?"""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"out:{book}")
    checked = 0
    for _ in range(sized(25, 60)):
        hand, melds = placeable_case(rules, rng)
        states = explore(t, hand, melds, allow_black=True)
        outs = {going_out_counts(t, n[1]) for n in states if not n[0]}
        for c in range(3):
            for cl in range(2):
                for d in range(2):
                    want = any(o[0] >= c and o[1] >= cl and o[2] >= d for o in outs)
                    got = places_all(t, hand, melds, Need(c, cl, d, False, 0))
                    assert got == want, (book, hand, melds, (c, cl, d), outs)
                    checked += want
    assert checked > 0


@pytest.mark.parametrize("book", BOOKS)
def test_places_all_with_a_card_kept_over(book: str) -> None:
    """*:go-out-discard: every card but one (the discard) melded, with the kept card's points
    bounded (the opening minimum of a side that opens by going out)."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"spare:{book}")
    for _ in range(sized(10, 25)):
        hand, melds = placeable_case(rules, rng)
        states = explore(t, hand, melds, allow_black=True)
        for spare, sizes in (("one", (1,)), ("upto1", (0, 1))):
            for slack in (None, 5, 20):
                for c in range(3):
                    want = any(
                        len(n[0]) in sizes
                        and going_out_counts(t, n[1])[0] >= c
                        and (slack is None or all(t.points[x] <= slack for x in n[0]))
                        for n in states
                    )
                    got = places_all(t, hand, melds, Need(c, 0, 0, False, 0), None, spare, slack)
                    assert got == want, (book, hand, melds, spare, slack, c)


def test_places_all_wait_rule_counts_old_clean_canastas_only() -> None:
    """canasta-es:go-out-wait-after-clean: a clean canasta finished this turn does not count yet."""
    rules = R("canasta-es")
    t = tables(rules)
    from tests.support.rummy_helpers import C, meld

    melds = (meld(rules, "KH KS KD KC KH KS 2C"), meld(rules, "QH QS QD QC QH QS"))
    hand = C("QD 5H 5S 5C")
    # laying the queen completes a clean canasta; with the dirty king canasta that is enough...
    assert places_all(t, hand, melds, Need(2, 1, 1, False, 0))
    # ...unless the clean one must already have been there when the turn began
    assert not places_all(t, hand, melds, Need(2, 1, 1, True, 0))
    _ = BLACK3


def plain_places_all(
    t: Tables,
    cards: tuple[int, ...],
    melds: tuple[Meld, ...],
    need: Need,
    spare: str = "none",
    slack: int | None = None,
    reached: list[int] | None = None,
) -> bool:
    """`places_all` written plainly, as the search was before its bound and its packed states:
    every product of the suits' escalera options, then the ranks' set outcomes combined one by
    one as tuples (the counts capped at the needs), with no test that cuts a combination short.
    `reached` counts the combinations that get to the combining of the ranks."""
    sp = split(t, cards)
    if sp.rest:
        return False
    tb = table_of(t, melds)
    sr = set_rules(t)
    W = sp.jokers + sp.twos
    freeable = _freeable(tb, sr)
    pts = t.points
    may_spare = spare != "none"

    def fits(points: int) -> bool:
        return may_spare and (slack is None or points <= slack)

    blacks: list[tuple[int, list[int]]] = []
    cap_z = t.wild_cap if t.black_three_meld_wilds else 0
    for b, kept in ((sp.black, 0), (sp.black - 1, 1)):
        if b < 0 or (kept and not fits(pts[4])):
            continue
        if b == 0:
            blacks.append((kept, [0]))
        elif t.black_threes_meld != "never":
            zs = [z for z in range(0, cap_z + 1) if final_ok(sr, 0, 0, True, b, z)]
            if zs:
                blacks.append((kept, zs))
    if not blacks:
        return False
    if not may_spare and not _homes_possible(t, sp, tb, W + freeable):
        return False
    cheapest_wild = pts[0] if sp.twos else pts[JOKER]
    wild_kept = [0, 1] if W and fits(cheapest_wild) else [0]
    caps = (need.completed, need.clean, need.dirty, need.clean)
    hi_x = W + freeable

    def sets_ok(avail: tuple[int, ...], seq_done: int) -> bool:
        per_rank = []
        for rank in range(13):
            a = avail[rank]
            bases = tb.sets[rank]
            if not a and not bases:
                continue
            opts = _rank_ends(sr, bases, a, a >= 1 and fits(pts[rank * 4]))
            if not opts:
                return False
            per_rank.append(opts)
        if reached is not None:
            reached[0] += 1
        states = {(0, min(caps[0], seq_done), min(caps[1], seq_done), 0, 0, 0)}
        for opts in per_rank:
            states = {
                (
                    x + o[0],
                    min(caps[0], c + o[1]),
                    min(caps[1], cl + o[2]),
                    min(caps[2], d + o[3]),
                    min(caps[3], old + o[4]),
                    kept + o[5],
                )
                for x, c, cl, d, old, kept in states
                for o in opts
                if x + o[0] <= hi_x and kept + o[5] <= 1
            }
        for x, c, cl, d, old, kept in states:
            clean = min(old, need.clean_start) if need.wait else cl
            if c < need.completed or clean < need.clean or d < need.dirty or x > W:
                continue
            rest = W - x
            ys = _wild_meld_amounts(t, tb.wild_room, rest)
            for b_kept, zs in blacks:
                for w_kept in wild_kept:
                    total = kept + b_kept + w_kept
                    if total > 1 or (spare == "one" and total != 1):
                        continue
                    if any((rest - w_kept - z) in ys for z in zs if z <= rest - w_kept):
                        return True
        return False

    if not t.sequences:
        return sets_ok(sp.other, 0)
    rank_pts = tuple(pts[k * 4] for k in range(13))
    moves = [
        _suit_moves(
            sp.seq[s], tb.seqs[s], t.sequence_min, t.sequence_max, t.completed, t.seq_rank, rank_pts
        )
        for s in range(4)
    ]

    def dfs(s: int, avail: list[int], done: int) -> bool:
        if s == 4:
            return sets_ok(tuple(avail), done)
        for _add, comp, left in moves[s]:
            for rank, k in left:
                avail[rank] += k
            hit = dfs(s + 1, avail, done + comp)
            for rank, k in left:
                avail[rank] -= k
            if hit:
                return True
        return False

    return dfs(0, list(sp.other), 0)


def _random_play(rules: RummyRules, seed: int, steps: int) -> list[State]:
    """States met along random play (several hands)."""
    rng = random.Random(seed)
    seating = RUMMY.seatings(rules)[0]
    s = RUMMY.new_game(rules, seating)
    deck = list(RUMMY.deck(rules, seating))
    out: list[State] = []
    while len(out) < steps and RUMMY.phase(s) != "over":
        if RUMMY.phase(s) == "deal":
            order = deck[:]
            rng.shuffle(order)
            s = RUMMY.deal(rules, s, order)
            continue
        out.append(s)
        step = random_step(rules, s, rng)
        assert step is not None
        s = step[1]
    return out


@pytest.mark.parametrize("book", BOOKS)
def test_places_all_agrees_with_the_plain_search_over_random_play(book: str) -> None:
    """`places_all`'s bound on the ranks' best outcomes, its packed states and its rows of
    outcomes kept per call change no answer: on the tables of random play, each seat's hand and
    random parts of it against its side's melds, under the going-out need of the position and
    others, with no card, one card or up to one card kept over (some of bounded points), it
    answers as the plain search (`plain_places_all`); so it does on hands random moves could meld
    onto grown tables, under needs of up to three canastas (some of them clean, some dirty, with
    or without the wait rule). Enough of these questions get to the combining of the ranks
    (where the bound cuts) for the comparison to mean something."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"plain:{book}")
    reached = [0]
    answers = [0, 0]
    for s in _random_play(rules, 11, sized(150, 400))[::3]:
        base = going_out_need(t, s)
        needs = (
            base,
            Need(0, 0, 0, False, 0),
            Need(1, 1, 0, False, 0),
            Need(2, 1, 1, False, 0),
            Need(2, 1, 0, True, 1),
        )
        for seat, hand in enumerate(s.hands):
            melds = s.table[seat % s.sides].melds
            for _ in range(3):
                part = tuple(sorted(rng.sample(hand, rng.randrange(0, len(hand) + 1))))
                for nd in needs:
                    for spare, slack in (("none", None), ("one", None), ("upto1", 15)):
                        want = plain_places_all(t, part, melds, nd, spare, slack, reached)
                        got = places_all(t, part, melds, nd, None, spare, slack)
                        assert got == want, (book, part, melds, nd, spare, slack)
                        answers[want] += 1
    # and hands random moves could meld onto grown tables, under stiffer needs (escaleras
    # completed from the hand count towards them)
    for _ in range(sized(20, 100)):
        hand, melds = placeable_case(rules, rng)
        for c in range(4):
            for cl in range(3):
                for d in range(2):
                    for wait in (False, True):
                        nd = Need(c, cl, d, wait, rng.randrange(0, 2))
                        for spare, slack in (("none", None), ("one", 10), ("upto1", None)):
                            want = plain_places_all(t, hand, melds, nd, spare, slack, reached)
                            got = places_all(t, hand, melds, nd, None, spare, slack)
                            assert got == want, (book, hand, melds, nd, spare, slack)
                            answers[want] += 1
    assert reached[0] >= 1000 and answers[True] >= 100, (reached, answers)


def _run_rich_hand(t: Tables, deck: list[int], rng: random.Random) -> tuple[int, ...]:
    """A hand with runs of naturals in one or two suits (so several escalera choices and many
    leaves of the search), a few other cards and sometimes wilds, drawn from `deck`."""
    pool = list(deck)
    rng.shuffle(pool)
    hand: list[int] = []
    for suit in rng.sample(range(4), rng.randrange(1, 3)):
        lo = rng.randrange(3, 10)
        for rank in range(lo, min(13, lo + rng.randrange(3, 8))):
            for _ in range(rng.randrange(1, 3)):
                c = next((c for c in pool if c >> 2 == rank and c & 3 == suit), None)
                if c is not None:
                    pool.remove(c)
                    hand.append(c)
    hand += pool[: rng.randrange(0, 3)]
    return tuple(sorted(hand))


@pytest.mark.parametrize("book", BOOKS)
def test_places_all_works_out_the_fixed_ranks_once_a_call(book: str) -> None:
    """`places_all` works out once a call the ranks no choice of escaleras changes (their part of
    the bound, and the states their outcomes combine to, with no completed escalera counted: each
    leaf adds its own at the end) and combines only the other ranks leaf by leaf. On hands rich
    in runs of one or two suits (several escalera choices, so many leaves), against the tables of
    random play, under needs of up to three canastas (some clean, some dirty, with or without the
    wait rule), with no card, one card or up to one card kept over, it answers as the plain
    search, which combines every rank of every leaf from the start; many of these questions have
    several leaves (`reached` counts the plain search's) and both answers come up."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"fixed:{book}")
    deck = [c for c in t.deck(rules.layouts[0]) if not is_red_three(c)]
    tables_seen = [
        s.table[side].melds
        for s in _random_play(rules, 5, sized(60, 200))[::6]
        for side in range(s.sides)
    ]
    answers = [0, 0]
    several = 0
    for _ in range(sized(40, 120)):
        melds = rng.choice(tables_seen)
        hand = _run_rich_hand(t, deck, rng)
        for nd in (
            Need(0, 0, 0, False, 0),
            Need(1, 0, 0, False, 0),
            Need(2, 0, 0, False, 0),
            Need(1, 1, 0, False, 0),
            Need(3, 1, 1, False, 0),
            Need(2, 1, 0, True, rng.randrange(0, 2)),
        ):
            for spare, slack in (("none", None), ("one", None), ("upto1", 15)):
                reached = [0]
                want = plain_places_all(t, hand, melds, nd, spare, slack, reached)
                got = places_all(t, hand, melds, nd, None, spare, slack)
                assert got == want, (book, hand, melds, nd, spare, slack)
                answers[want] += 1
                several += reached[0] > 1
    assert answers[True] >= 10 and answers[False] >= 10, answers
    if t.sequences:
        assert several >= 100, several


def _combined_paths_runs(m: ModuleType, book: str, count: int) -> tuple[int, int, int]:
    """Over `count` hands rich in runs of one or two suits (`_run_rich_hand`: several escalera
    choices, so many leaves, and the counts of the ranks the escaleras take differ from leaf to
    leaf) against the tables of random play, under needs of up to three canastas, with no card,
    one card or up to one card kept over: at how many questions the plain search
    (`plain_places_all`) combines the ranks of more than one leaf, how many it answers yes, and
    at how many `m.places_all` answers otherwise."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(f"paths:{book}")
    deck = [c for c in t.deck(rules.layouts[0]) if not is_red_three(c)]
    tables_seen = [
        s.table[side].melds
        for s in _random_play(rules, 7, sized(60, 200))[::6]
        for side in range(s.sides)
    ]
    several = yes = differ = 0
    for _ in range(count):
        melds = rng.choice(tables_seen)
        hand = _run_rich_hand(t, deck, rng)
        for nd in (
            Need(1, 0, 0, False, 0),
            Need(2, 0, 0, False, 0),
            Need(2, 1, 0, False, 0),
            Need(3, 1, 1, False, 0),
            Need(2, 1, 0, True, rng.randrange(0, 2)),
        ):
            for spare, slack in (("none", None), ("one", None), ("upto1", 15)):
                reached = [0]
                want = plain_places_all(t, hand, melds, nd, spare, slack, reached)
                several += reached[0] > 1
                yes += want
                differ += m.places_all(t, hand, melds, nd, None, spare, slack) != want
    return several, yes, differ


@pytest.mark.parametrize("book", BOOKS)
def test_places_all_combines_each_path_of_ranks_once(book: str) -> None:
    """`places_all` combines the ranks that vary from leaf to leaf along a tree of the ranks and
    counts combined so far, each node's states worked out once a call and reused by every leaf
    that reaches it (`arrange._edge`): on hands with many leaves it answers as the plain search,
    which combines every rank of every leaf from the start; many of these questions have
    several leaves and both answers come up."""
    from arbitro.model.rummy import arrange

    several, yes, differ = _combined_paths_runs(arrange, book, sized(40, 120))
    assert differ == 0
    if tables(R(book)).sequences:
        assert several >= 100 and yes >= 10, (several, yes)


def test_places_all_combined_paths_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a tree whose edges forget the count of the rank combined
    (here `_edge` of the rank alone, in a copy of `arrange` run from source) hands a leaf the
    states of another leaf whose ranks' counts differ, and the answers part."""
    copy = source_module("arbitro.model.rummy.arrange")
    assert _combined_paths_runs(copy, "samba-en", 40)[2] == 0
    real = copy._edge
    monkeypatch.setattr(copy, "_edge", lambda node, key: real(node, key - key % copy._COUNTS))
    assert _combined_paths_runs(copy, "samba-en", 40)[2] > 0
