"""Whole-state checks: the clauses a state breaks, as a list (empty on every reachable state).

- every card of the deck is in exactly one place (*:packs, *:jokers-per-pack);
- every meld is well formed: sizes, wild limits, escalera order (the meld clauses);
- red threes are never in a hand, only laid out (*:red-three-initial-replacement);
- only the side whose player is laying its opening has melds without having opened
  (*:opening-minimums), and each side's opening minimum is the one its total calls for;
- the game is over exactly when the totals end it, and a hand that has ended has its result
  (*:target-score).
"""

from __future__ import annotations

from collections import Counter

from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import is_red_three
from arbitro.model.rummy.dealing import RuleGap, opening_minimum
from arbitro.model.rummy.layouts import layout_of
from arbitro.model.rummy.melds import Meld, meld_problem
from arbitro.model.rummy.scoring import game_over
from arbitro.model.rummy.state import State
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules


class _Memo:
    """What the checks remember for one Tables object (kept alive by the entry, so ids stay unique)."""

    def __init__(self, t: Tables) -> None:
        self.tables = t
        self.problems: dict[Meld, str | None] = {}
        self.decks: dict[str, Counter[int]] = {}


_MEMO: dict[int, _Memo] = {}


def _memo(t: Tables) -> _Memo:
    memo = _MEMO.get(id(t))
    if memo is None or memo.tables is not t:
        if len(_MEMO) >= caches.RULES:
            _MEMO.clear()
        memo = _MEMO[id(t)] = _Memo(t)
    return memo


def _meld_problem(memo: _Memo, m: Meld) -> str | None:
    """meld_problem, remembered per meld: melds are values and most persist for many steps."""
    if m in memo.problems:
        return memo.problems[m]
    if len(memo.problems) >= caches.CHECKS:
        memo.problems.clear()
    p = memo.problems[m] = meld_problem(memo.tables, m) or None
    return p


def violations(rules: RummyRules, state: State) -> list[str]:
    if not state.hands:
        return []  # before the first deal nothing is on the table yet
    t = tables(rules)
    out: set[str] = set()
    # a finished hand keeps its final position until the next deal, so it is checked as well;
    # the phase must agree with the totals (*:target-score)
    if (state.phase == "over") != game_over(t, state.scores) or (
        state.phase != "play" and state.result is None
    ):
        out.add(rules.cid("target_score"))
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
    memo = _memo(t)
    deck = memo.decks.get(lay.name)
    if deck is None:
        deck = memo.decks[lay.name] = Counter(t.deck(lay))
    if have != deck:
        out.add(rules.cid("packs"))
    for i, sd in enumerate(state.table):
        for m in sd.melds:
            p = _meld_problem(memo, m)
            if p:
                out.add(rules.cid(p))
        if any(not is_red_three(c) for c in sd.red_threes):
            out.add(rules.cid("red_three_each"))
        if sd.melds and not sd.opened and i != state.seat % state.sides:
            out.add(rules.cid("opening_minimums"))
    if state.phase == "play":
        # the minimums are fixed at the deal from the totals, which do not change within a hand
        try:
            due = tuple(opening_minimum(rules, score) for score in state.scores)
        except RuleGap:
            due = ()
        if state.minimums != due:
            out.add(rules.cid("opening_minimums"))
    if any(is_red_three(c) for h in state.hands for c in h):
        out.add(rules.cid("red_three_initial_replacement"))
    return sorted(out)
