"""The shortcuts agree with the slow, obvious definitions: the plain-moment legality test with
the full transition, `random_step` with `legal_actions`, and the cheap pre-tests of going out
with the exhaustive search."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from rummy_helpers import BOOKS, R, make_state

from model.rummy import RUMMY, engine
from model.rummy.arrange import places_all
from model.rummy.cards import distinct, remove
from model.rummy.going_out import can_go_out, need
from model.rummy.playout import random_step
from model.rummy.refusal import Refusal
from model.rummy.state import State
from model.rummy.table import mover_side, opening_points
from model.rummy.tables import tables
from model.schema import RummyRules


def walk(rules: RummyRules, seed: int, steps: int) -> list[State]:
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
        s = random_step(rules, s, rng)[1]
    return out


@pytest.mark.parametrize("book", BOOKS)
def test_quick_legality_agrees_with_the_transition(book: str) -> None:
    """Whenever the cheap test decides, playing the action decides the same."""
    rules = R(book)
    t = tables(rules)
    for s in walk(rules, 3, 400):
        simple = engine._simple(s)
        for spec in engine._specs(t, s):
            q = engine._quick(t, s, spec, simple)
            if q is None:
                continue
            a = spec[0](*spec[1:])
            try:
                engine._transition(t, s, a)
                full = True
            except Refusal:
                full = False
            assert q == full, (a, s)


@pytest.mark.parametrize("book", BOOKS)
def test_random_step_draws_legal_actions(book: str) -> None:
    """random_step returns a legal action and the state apply gives for it."""
    rules = R(book)
    rng = random.Random(5)
    for s in walk(rules, 4, 150):
        a, nxt = random_step(rules, s, rng)
        assert a in RUMMY.legal_actions(rules, s)
        assert nxt == RUMMY.apply(rules, s, a)


def test_random_step_is_uniform() -> None:
    """Every legal action comes out, about equally often (here 6 legal actions, 6,000 draws)."""
    rules = R("samba-en")
    s = make_state(rules, hands={0: "KH KS KD 4C 9D"}, melds={0: ("QC QD QH",)})
    legal = RUMMY.legal_actions(rules, s)
    rng = random.Random(1)
    n = 1000 * len(legal)
    counts = Counter(random_step(rules, s, rng)[0] for _ in range(n))
    assert set(counts) == set(legal)
    assert all(800 < c < 1200 for c in counts.values()), counts


def _exhaustive_can_go_out(rules: RummyRules, s: State) -> bool:
    t = tables(rules)
    sd = mover_side(s)
    hand = s.hands[s.seat]
    mode = "forbidden" if s.no_discard else rules.go_out_discard
    ds: list[int | None] = []
    if mode != "required":
        ds.append(None)
    if mode != "forbidden":
        ds.extend(distinct(hand))
    cur = opening_points(t, s) if not sd.opened else 0
    minimum = s.minimums[s.seat % s.sides]
    for d in ds:
        cards = hand if d is None else remove(hand, (d,))
        short = cur + sum(t.points[c] for c in cards) < minimum
        if not sd.opened and not rules.opening_concealed_exempt and short:
            continue
        if places_all(t, cards, sd.melds, need(t, s)):
            return True
    return False


@pytest.mark.parametrize("book", BOOKS)
def test_going_out_pre_tests_lose_nothing(book: str) -> None:
    """can_go_out (with its cheap necessary conditions) equals trying every discard."""
    rules = R(book)
    t = tables(rules)
    seen = 0
    for s in walk(rules, 9, 500):
        if s.step != "play" or s.held or s.answer == "no":
            continue
        got = can_go_out(t, s)
        assert got == _exhaustive_can_go_out(rules, s), s
        seen += got
    assert seen >= 0
