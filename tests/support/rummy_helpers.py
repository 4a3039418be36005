"""Shared helpers for the rummy tests: rules by book, cards by name, hand-made states.

A state is built from readable card lists; the cards not named anywhere go to the bottom of the
stock so that the deck is conserved (pass fill=False for a deliberately short stock). Rules always
come from a real spec through rules_for: no test builds RummyRules by hand.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arbitro.model.game import Seating
from arbitro.model.rummy import RUMMY, Meld, Side, State, parse_cards
from arbitro.model.rummy.melds import classify
from arbitro.model.rummy.state import new_state
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import RummyRules, rules_for

BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")
SAMBAS = ("samba-es", "samba-en", "samba-fr")


def R(book: str, **options: Any) -> RummyRules:
    r = rules_for(book, options or None)
    assert isinstance(r, RummyRules)
    return r


def C(names: str) -> tuple[int, ...]:
    """Cards by name, sorted: ``C("KH KS JK")``."""
    return parse_cards(names) if names.strip() else ()


def seating(rules: RummyRules, layout: str | None = None) -> Seating:
    seats = RUMMY.seatings(rules)
    if layout is None:
        for s in seats:
            if s.players == 4 and s.sides == 2:
                return s
        return seats[0]
    return next(s for s in seats if s.layout == layout)


def meld(rules: RummyRules, names: str) -> Meld:
    m = classify(tables(rules), C(names))
    assert isinstance(m, Meld), (names, m)
    return m


def make_state(
    rules: RummyRules,
    *,
    layout: str | None = None,
    hands: Mapping[int, str] | None = None,
    melds: Mapping[int, Sequence[str]] | None = None,
    opened: Mapping[int, bool] | None = None,
    reds: Mapping[int, str] | None = None,
    pile: str = "",
    stock: str = "",
    fill: bool = True,
    seat: int = 0,
    step: str = "play",
    scores: Sequence[int] | None = None,
    minimums: Sequence[int] | None = None,
    pile_taken: bool = False,
    dealer: int | None = None,
    held: str = "",
    **turn: Any,
) -> State:
    """A state in phase play; `pile` is listed bottom first, `stock` top first."""
    st = seating(rules, layout)
    base = new_state(
        st.players, st.sides, st.layout, (seat - 1) % st.players if dealer is None else dealer
    )
    hands_t = [C((hands or {}).get(i, "")) for i in range(st.players)]
    table = []
    for s in range(st.sides):
        ms = tuple(sorted(meld(rules, m) for m in (melds or {}).get(s, ())))
        op = (opened or {}).get(s, bool(ms))
        table.append(Side(ms, C((reds or {}).get(s, "")), op))
    pile_t = tuple(parse_cards_ordered(pile))
    stock_t = list(parse_cards_ordered(stock))
    if fill:
        used: Counter[int] = Counter()
        for h in hands_t:
            used.update(h)
        for sd in table:
            used.update(sd.red_threes)
            for m in sd.melds:
                used.update(m.cards)
        used.update(pile_t)
        used.update(stock_t)
        used.update(C(held))
        left = Counter(RUMMY.deck(rules, st)) - used
        assert not (used - Counter(RUMMY.deck(rules, st))), "more copies than the deck holds"
        rest = sorted(left.elements())
        random.Random(0).shuffle(rest)
        stock_t += rest
    return base._replace(
        phase="play",
        scores=tuple(scores) if scores is not None else (0,) * st.sides,
        hands=tuple(hands_t),
        stock=tuple(stock_t),
        pile=pile_t,
        table=tuple(table),
        minimums=tuple(minimums) if minimums is not None else (50,) * st.sides,
        owed=(0,) * st.players,
        pile_taken=pile_taken,
        seat=seat,
        step=step,
        held=C(held),
        **turn,
    )


def parse_cards_ordered(names: str) -> list[int]:
    from arbitro.model.rummy.cards import parse_card

    return [parse_card(n) for n in names.split()]


def legal(rules: RummyRules, state: State) -> tuple[Any, ...]:
    return RUMMY.legal_actions(rules, state)


def order_with(rules: RummyRules, st: Seating, top: Sequence[str], seed: int = 0) -> list[int]:
    """A deck order that starts with the named cards (top of the stock first), the rest shuffled."""
    first = parse_cards_ordered(" ".join(top))
    left = Counter(RUMMY.deck(rules, st)) - Counter(first)
    rest = sorted(left.elements())
    random.Random(seed).shuffle(rest)
    return first + rest


def deal_order(players: int, hands: Mapping[int, str], hand_size: int, first: int) -> list[str]:
    """The top of a deck order that deals these hands, one card at a time from seat `first`."""
    lists = {s: hands[s].split() for s in hands}
    out: list[str] = []
    for i in range(players * hand_size):
        seat = (first + i) % players
        out.append(lists[seat][i // players])
    return out


def dealt(rules: RummyRules, seating: Seating, seed: int) -> State:
    """A hand dealt from a deck order shuffled by `seed`, the dealer moving with the seed."""
    rng = random.Random(seed)
    order = list(RUMMY.deck(rules, seating))
    rng.shuffle(order)
    s = RUMMY.new_game(rules, seating, dealer=seed % seating.players)
    return RUMMY.deal(rules, s, order)
