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
from arbitro.model.rummy.cards import BLACK_THREES, RED_THREES
from arbitro.model.rummy.layouts import layout_of
from arbitro.model.rummy.melds import BLACK3, SEQ, SET, WILDS, is_clean
from arbitro.model.rummy.red_threes import red_three_score
from arbitro.model.rummy.state import Result, State
from arbitro.model.rummy.tables import Tables
from arbitro.model.schema import RummyRules

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

_new: Final[Any] = tuple.__new__
_STATE: Final[Any] = State
_RESULT: Final[Any] = Result


def score_hand(
    t: Tables, state: State, reason: str, out_seat: int, finding: tuple[str, ...] = ()
) -> Result:
    """The result of the hand in `state`; `out_seat` went out (-1: nobody).

    Each category is an int of the compiled code and the categories a tuple of pairs written
    in `CATEGORIES`' order (no dict per side, no generator per sum, no range object per side);
    the rules' fields are read where the scoring of the side needs them, as `trace` notes."""
    r = t.rules
    pts = t.points
    players = state.players
    sides = state.sides
    went = out_seat % sides if out_seat >= 0 else -1
    lay = layout_of(r, players, sides, state.layout)
    reds_total = t.red_threes_total(lay)
    blacks_total = t.black_threes_total(lay)
    red0, red1 = RED_THREES
    black0, black1 = BLACK_THREES
    hands = state.hands
    mover = state.seat
    totals: list[int] = []
    cats: list[tuple[tuple[str, int], ...]] = []
    for i, sd in enumerate(state.table):
        melds = sd.melds
        meld_points = 0
        if went < 0 or i == went or r.score_losing_melds:
            for m in melds:
                for x in m.cards:
                    meld_points += pts[x]
        # the cards the side's players hold (with the mover's held rest of a pile and freed
        # wild): their points, red threes excepted, and the red and black threes among them
        hand_points = 0
        reds_held = 0
        blacks_held = 0
        all_blacks = False
        seat = i
        while seat < players:
            blacks = 0
            for x in hands[seat]:
                if x in (red0, red1):
                    reds_held += 1
                    continue
                hand_points += pts[x]
                if x in (black0, black1):
                    blacks += 1
            blacks_held += blacks
            # *:black-threes-all-in-hand-penalty, one player's hand alone
            all_blacks = all_blacks or blacks == blacks_total
            if seat == mover:
                for x in state.held:
                    if x in (red0, red1):
                        reds_held += 1
                        continue
                    hand_points += pts[x]
                    if x in (black0, black1):
                        blacks_held += 1
                x = state.freed
                if x >= 0:
                    if x in (red0, red1):
                        reds_held += 1
                    else:
                        hand_points += pts[x]
                        if x in (black0, black1):
                            blacks_held += 1
            seat += sides
        canastas = 0
        done = 0
        melded_blacks = 0
        if melds:
            completed = t.completed
            for m in melds:
                kind = m.kind
                if kind == BLACK3:
                    for x in m.cards:
                        if x in (black0, black1):
                            melded_blacks += 1
                    continue
                if len(m.cards) < completed:
                    continue
                done += 1
                if kind == SET:
                    canastas += r.bonus_clean_canasta if is_clean(m) else r.bonus_dirty_canasta
                elif kind == SEQ:
                    canastas += r.bonus_samba
                elif kind == WILDS:
                    canastas += r.wild_canasta_bonus
        canaston = 0
        if r.canasta_de_canastas_count and done >= r.canasta_de_canastas_count:
            canaston = r.canasta_de_canastas_bonus
        elif r.canaston_count and done >= r.canaston_count:
            canaston = r.canaston_bonus
        reds = red_three_score(r, len(sd.red_threes), done, reds_total)
        black_threes = -blacks_held * r.black_three_hand_penalty
        if all_blacks:
            black_threes -= _all_in_hand(r, state, i, blacks_total)
        if i == went and melded_blacks == blacks_total:
            black_threes += r.black_threes_all_melded_bonus
        going_out = 0
        if i == went:
            going_out = r.bonus_going_out
        elif (
            went < 0
            and reason == "stock-out"
            and r.going_out_bonus_on_stock_out
            and i == mover % sides
        ):
            # reading: when the book pays it on a stock-out, it goes to the side that ended play
            going_out = r.bonus_going_out
        penalties = -reds_held * r.red_three_undeclared_penalty
        totals.append(
            meld_points
            - hand_points
            + canastas
            + canaston
            + reds
            + black_threes
            + going_out
            + penalties
        )
        cats.append(
            (
                ("melds", meld_points),
                ("hand", -hand_points),
                ("canastas", canastas),
                ("canaston", canaston),
                ("red-threes", reds),
                ("black-threes", black_threes),
                ("going-out", going_out),
                ("penalties", penalties),
            )
        )
    got: Result = _new(_RESULT, (state.hand_no, reason, tuple(totals), tuple(cats), finding))
    return got


def _all_in_hand(r: RummyRules, state: State, side: int, blacks_total: int) -> int:
    """*:black-threes-all-in-hand-penalty for side `side`: once for each of its players who
    holds every black three of the deck (in the hand alone, not the held rest of a pile)."""
    black0, black1 = BLACK_THREES
    penalty = 0
    hands = state.hands
    for seat in range(side, state.players, state.sides):
        blacks = 0
        for x in hands[seat]:
            if x in (black0, black1):
                blacks += 1
        if blacks == blacks_total:
            penalty += r.black_threes_all_in_hand_penalty
    return penalty


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
