"""Whole-state checks: the clauses a state breaks, as a list (empty on every reachable state).

- every card of the deck is in exactly one place (*:packs, *:jokers-per-pack);
- every meld is well formed: sizes, wild limits, escalera order (the meld clauses);
- red threes are never in a hand, only laid out (*:red-three-initial-replacement);
- only the side whose player is laying its opening has melds without having opened
  (*:opening-minimums).
"""

from __future__ import annotations

from collections import Counter

from model.rummy.cards import is_red_three
from model.rummy.dealing import layout_of
from model.rummy.melds import meld_problem
from model.rummy.state import State
from model.rummy.tables import tables
from model.schema import RummyRules


def violations(rules: RummyRules, state: State) -> list[str]:
    if state.phase != "play":
        return []
    t = tables(rules)
    out: set[str] = set()
    lay = layout_of(rules, state.players, state.sides, state.layout)
    have: Counter[int] = Counter()
    for h in state.hands:
        have.update(h)
    have.update(state.stock)
    have.update(state.pile)
    have.update(state.held)
    if state.freed >= 0:
        have[state.freed] += 1
    for sd in state.table:
        have.update(sd.red_threes)
        for m in sd.melds:
            have.update(m.cards)
    if have != Counter(t.deck(lay)):
        out.add(rules.cid("packs"))
    for i, sd in enumerate(state.table):
        for m in sd.melds:
            p = meld_problem(t, m)
            if p:
                out.add(rules.cid(p))
        if any(not is_red_three(c) for c in sd.red_threes):
            out.add(rules.cid("red_three_each"))
        if sd.melds and not sd.opened and i != state.seat % state.sides:
            out.add(rules.cid("opening_minimums"))
    if any(is_red_three(c) for h in state.hands for c in h):
        out.add(rules.cid("red_three_initial_replacement"))
    return sorted(out)
