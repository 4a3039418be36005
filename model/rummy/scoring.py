"""Scoring a hand and ending the game.

Per side, by category:

- "melds": card points of every melded card (*:card-points), for the side that went out and,
  with *:score-losing-melds, for the others; when nobody went out every side scores its melds.
- "hand": minus the card points of the cards its players hold (red threes excepted).
- "canastas": *:bonus-clean-canasta, *:bonus-dirty-canasta, *:bonus-samba for each finished
  canasta or samba, *:wild-canasta-bonus for a finished wild-only meld.
- "canaston": *:canasta-de-canastas-bonus with *:canasta-de-canastas-count finished melds,
  else *:canaston-bonus with *:canaston-count (reading: the larger award replaces the smaller).
- "red-threes": see `red_threes.red_three_score`.
- "black-threes": minus *:black-three-hand-penalty per black three held, minus
  *:black-threes-all-in-hand-penalty when one player holds every black three of the deck, plus
  *:black-threes-all-melded-bonus when the side melded every black three going out.
- "going-out": *:bonus-going-out for the side that went out (*:going-out-bonus-on-stock-out).
- "penalties": minus *:red-three-undeclared-penalty per red three left in a hand.

The next hand is dealt by the next player (*:dealer-rotation). The game ends when a side's total reaches (or exceeds, *:target-rule) *:target-score: the highest
total wins; a tie at the top plays on or is shared (*:target-tie).
"""

from __future__ import annotations

from typing import Any, Final

from arbitro.model.game import HandResult
from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import is_black_three, is_red_three
from arbitro.model.rummy.layouts import layout_of
from arbitro.model.rummy.melds import BLACK3, SEQ, SET, WILDS, is_clean
from arbitro.model.rummy.red_threes import red_three_score
from arbitro.model.rummy.state import Result, State
from arbitro.model.rummy.table import completed_count
from arbitro.model.rummy.tables import Tables

CATEGORIES = (
    "melds",
    "hand",
    "canastas",
    "canaston",
    "red-threes",
    "black-threes",
    "going-out",
    "penalties",
)

_ZEROS: Final[dict[str, int]] = dict.fromkeys(CATEGORIES, 0)
"""Every category at 0, copied per side (`dict.fromkeys` is a method call through the
interpreter's calling convention)."""

_new: Final[Any] = tuple.__new__
_STATE: Final[Any] = State


def score_hand(
    t: Tables, state: State, reason: str, out_seat: int, finding: tuple[str, ...] = ()
) -> Result:
    """The result of the hand in `state`; `out_seat` went out (-1: nobody)."""
    r = t.rules
    pts = t.points
    went = out_seat % state.sides if out_seat >= 0 else -1
    lay = layout_of(r, state.players, state.sides, state.layout)
    reds_total = t.red_threes_total(lay)
    blacks_total = t.black_threes_total(lay)
    totals: list[int] = []
    cats: list[tuple[tuple[str, int], ...]] = []
    for i, sd in enumerate(state.table):
        c = _ZEROS.copy()
        if went < 0 or i == went or r.score_losing_melds:
            c["melds"] = sum(pts[x] for m in sd.melds for x in m.cards)
        held: list[int] = []
        seats = range(i, state.players, state.sides)
        for seat in seats:
            held.extend(state.hands[seat])
            if seat == state.seat:
                held.extend(state.held)
                if state.freed >= 0:
                    held.append(state.freed)
        c["hand"] = -sum(pts[x] for x in held if not is_red_three(x))
        for m in sd.melds:
            if len(m.cards) < t.completed or m.kind == BLACK3:
                continue
            if m.kind == SET:
                c["canastas"] += r.bonus_clean_canasta if is_clean(m) else r.bonus_dirty_canasta
            elif m.kind == SEQ:
                c["canastas"] += r.bonus_samba
            elif m.kind == WILDS:
                c["canastas"] += r.wild_canasta_bonus
        done = completed_count(t, sd.melds)
        if r.canasta_de_canastas_count and done >= r.canasta_de_canastas_count:
            c["canaston"] = r.canasta_de_canastas_bonus
        elif r.canaston_count and done >= r.canaston_count:
            c["canaston"] = r.canaston_bonus
        c["red-threes"] = red_three_score(r, len(sd.red_threes), done, reds_total)
        blacks_held = sum(1 for x in held if is_black_three(x))
        c["black-threes"] = -blacks_held * r.black_three_hand_penalty
        for seat in seats:
            if sum(1 for x in state.hands[seat] if is_black_three(x)) == blacks_total:
                c["black-threes"] -= r.black_threes_all_in_hand_penalty
        melded_blacks = sum(
            1 for m in sd.melds if m.kind == BLACK3 for x in m.cards if is_black_three(x)
        )
        if i == went and melded_blacks == blacks_total:
            c["black-threes"] += r.black_threes_all_melded_bonus
        if i == went:
            c["going-out"] = r.bonus_going_out
        elif (
            went < 0
            and reason == "stock-out"
            and r.going_out_bonus_on_stock_out
            and i == state.seat % state.sides
        ):
            # reading: when the book pays it on a stock-out, it goes to the side that ended play
            c["going-out"] = r.bonus_going_out
        c["penalties"] = -sum(1 for x in held if is_red_three(x)) * r.red_three_undeclared_penalty
        totals.append(sum(c.values()))
        cats.append(tuple(c.items()))
    return Result(state.hand_no, reason, tuple(totals), tuple(cats), finding)


def end_hand(
    t: Tables, state: State, reason: str, out_seat: int, finding: tuple[str, ...] = ()
) -> State:
    """Score the hand and move to the next deal, or end the game; the final position is kept."""
    res = score_hand(t, state, reason, out_seat, finding)
    scores = tuple(a + b for a, b in zip(state.scores, res.scores, strict=True))
    over = game_over(t, scores)
    dealer = state.dealer
    if not over and t.rules.dealer_rotation == "next_player":  # *:dealer-rotation
        dealer = (dealer + 1) % state.players
    # the finished hand stays on the table, to be inspected, until the next deal
    return after_hand(state, "over" if over else "deal", dealer, scores, res)


def after_hand(
    state: State, phase: str, dealer: int, scores: tuple[int, ...], res: Result
) -> State:
    """`state._replace(phase=..., hand_no=state.hand_no + 1, dealer=..., scores=...,
    result=..., step="")`, field by field (as the builders of `state`): `_replace` is a
    NamedTuple's interpreted method, about 17,000 instructions a call."""
    s: tuple[Any, ...] = state
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], phase, state.hand_no + 1, dealer, scores, res, s[8], s[9], s[10],
        s[11], s[12], s[13], s[14], s[15], "", s[17], s[18], s[19], s[20], s[21], s[22], s[23],
        s[24], s[25], s[26],
    ))
    # fmt: on
    return got


def _reached(t: Tables, score: int) -> bool:
    r = t.rules
    return score >= r.target_score if r.target_rule == "reach" else score > r.target_score


def game_over(t: Tables, scores: tuple[int, ...]) -> bool:
    """*:target-score, *:target-rule, *:target-tie."""
    if not any(_reached(t, s) for s in scores):
        return False
    best = max(scores)
    if scores.count(best) == 1:
        return True
    return t.rules.target_tie == "shared"


def winner(scores: tuple[int, ...]) -> int | None:
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


_RESULTS: dict[Result, HandResult] = {}
_last: tuple[Result | None, HandResult | None] = (None, None)
"""The result last asked for and its HandResult: a state keeps its result object until the next
hand ends, and hashing a result is slower than comparing identities."""


def hand_result(res: Result) -> HandResult:
    """The shared HandResult of a stored result (the same object for the same result)."""
    global _last
    last = _last
    if last[0] is res and last[1] is not None:
        return last[1]
    got = _RESULTS.get(res)
    if got is None:
        if len(_RESULTS) >= caches.RESULTS:
            _RESULTS.clear()
        reason = res.reason
        got = HandResult(reason, res.scores, tuple(dict(c) for c in res.categories))
        _RESULTS[res] = got
    _last = (res, got)
    return got
