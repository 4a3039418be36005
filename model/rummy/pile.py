"""The discard pile: when it may be taken, how its top card is used, where the rest goes.

The pile is always taken whole and its top card is used at once (`TakePile.use`):

- "set": a new set of the top card with `pile_new_set_naturals` naturals of its rank from the
  hand; or with one natural fewer and a wild when the pile is not frozen and
  *:pile-wild-pair-after allows it (the side has opened, or the pile was already taken this hand).
  When a side keeps one set per rank (*:several-sets-same-rank false) and already has a set of
  that rank, the top card and the cards shown join that set instead (reading: the pair still
  takes a frozen pile).
- "escalera": a new escalera with two cards of the hand (*:pile-new-sequence).
- "add": onto a set of the side (*:pile-to-own-set, a completed one only with
  *:pile-to-completed-set, and only where the set may still grow), or onto one of its escaleras
  (*:pile-to-own-sequence). Never while the pile is frozen, nor, where *:pile-add-after says so,
  before somebody has taken the pile this hand.

The pile cannot be taken when empty, when its top card is of a *:blocked-by-top class, by a player
holding one card while the stock lasts (*:pile-one-card-rule), or with an exhausted stock beyond
what *:stock-out allows. It is frozen while it holds a card of a *:frozen-by class. A side that has
not opened takes it only to open: the new meld is the start of a pending opening, which must be
able to reach the minimum (*:pile-top-counts-for-opening, *:pile-rest-after-opening). Red threes
in the pile go to the taker's side, without replacement.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import combinations

from arbitro.model.rummy.actions import TakePile
from arbitro.model.rummy.cards import JOKER, distinct, is_natural, is_wild, remove
from arbitro.model.rummy.melds import SEQ, SET, Meld, add_problem, classify, is_completed, takes
from arbitro.model.rummy.red_threes import lay_out
from arbitro.model.rummy.refusal import Refusal
from arbitro.model.rummy.state import PLAY, Side, State, replaced
from arbitro.model.rummy.stock import exhausted
from arbitro.model.rummy.tables import Tables


def frozen(t: Tables, pile: tuple[int, ...]) -> bool:
    """*:frozen-by: the pile holds a card of a freezing class."""
    return any(map(t.frozen_by.__getitem__, pile))


def wild_pair_allowed(t: Tables, state: State, opened: bool) -> bool:
    """*:pile-wild-pair-after: whether one natural and a wild may take an unfrozen pile."""
    when = t.rules.pile_wild_pair_after
    if when == "side_opened":
        return opened
    if when == "first_pile_take":
        return state.pile_taken
    return False


def add_allowed(t: Tables, state: State) -> bool:
    """*:pile-add-after: whether the top card alone, put on a meld of the side, may take the pile."""
    return t.rules.pile_add_after != "first_pile_take" or state.pile_taken


def candidates(t: Tables, state: State) -> list[TakePile]:
    """Every TakePile whose cards the player holds, less those `take` refuses whatever else holds:
    any take of an empty, blocked (*:blocked-by-top) or non-natural top, or under
    *:pile-one-card-rule; a wild pair or an escalera or an addition on a frozen pile
    (*:frozen-by); a wild pair before *:pile-wild-pair-after allows it; an addition to a meld the
    top card cannot join (`add_problem`). The rest are checked by `take`."""
    seat = state.seat
    return [TakePile(seat, *f) for f in candidate_fields(t, state)]


def candidate_fields(t: Tables, state: State) -> list[tuple[str, int, tuple[int, ...]]]:
    """The (use, meld, cards) of `candidates`."""
    pile = state.pile
    if not pile:
        return []
    top = pile[-1]
    if not 8 <= top < 52 or t.blocked_by[top]:
        return []
    r = t.rules
    seat = state.seat
    hand = state.hands[seat]
    if r.pile_one_card_rule and len(hand) == 1 and state.stock:
        return []
    out: list[tuple[str, int, tuple[int, ...]]] = []
    rank = top >> 2
    k = r.pile_new_set_naturals
    same = hand[bisect_left(hand, rank * 4) : bisect_left(hand, rank * 4 + 4)]
    out += [("set", -1, combo) for combo in _combos(same, k)]
    is_frozen = frozen(t, pile)
    sd = state.table[seat % state.sides]
    if k >= 1 and not is_frozen and wild_pair_allowed(t, state, sd.opened):
        wilds = distinct((*hand[: bisect_left(hand, 4)], *hand[bisect_left(hand, JOKER) :]))
        if wilds:
            for combo in _combos(same, k - 1):
                for w in wilds:
                    out.append(("set", -1, tuple(sorted((*combo, w)))))
    if r.pile_new_sequence and r.sequences and not is_frozen:
        suit = top & 3
        near = distinct(c for c in hand if is_natural(c) and c & 3 == suit)
        for a, b in combinations(near, 2):
            out.append(("escalera", -1, (a, b)))
    if not is_frozen and add_allowed(t, state):
        for i, m in enumerate(sd.melds):
            # the top card joins by `add_problem` (a natural: by rank for a set, as an end of an
            # escalera); wild and black-three melds never take it
            nat_rank, _, ends = takes(t, m)
            if nat_rank == rank or top in ends:
                out.append(("add", i, ()))
    return out


@lru_cache(maxsize=4096)
def _combos(cards: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """The distinct sub-multisets of `k` cards of the sorted `cards`, in order."""
    return tuple(sorted(set(combinations(cards, k))))


def take(t: Tables, state: State, a: TakePile) -> State:
    """The state after taking the pile; Refusal names the clause that forbids it."""
    r = t.rules
    seat = state.seat
    side_i = seat % state.sides
    sd = state.table[side_i]
    hand = state.hands[seat]
    if not state.pile:
        raise Refusal("pile_new_set_naturals", "the discard pile is empty")
    top = state.pile[-1]
    if t.blocked_by[top]:
        raise Refusal("blocked_by_top", "the top card of the pile stops it being taken")
    if r.pile_one_card_rule and len(hand) == 1 and state.stock:
        raise Refusal(
            "pile_one_card_rule",
            "a player holding one card may not take the pile while the stock lasts",
        )
    ex = exhausted(r, state)
    unable = "take_upcard_unable_to_use"
    if not is_natural(top):
        raise Refusal(
            "pile_new_set_naturals", "the top card has no natural rank to meld with", unable
        )
    is_frozen = frozen(t, state.pile)
    melds = list(sd.melds)
    joined = False
    if a.use == "set":
        if not _holds(hand, a.cards):
            raise Refusal("pile_new_set_naturals", "the player does not hold those cards")
        nat = [c for c in a.cards if not is_wild(c)]
        wild = len(a.cards) - len(nat)
        k = r.pile_new_set_naturals
        if any(c >> 2 != top >> 2 or not is_natural(c) for c in nat):
            raise Refusal(
                "pile_new_set_naturals", "the cards must match the top card's rank", unable
            )
        if wild == 0:
            if len(nat) != k:
                raise Refusal(
                    "pile_new_set_naturals",
                    f"a new set from the pile takes {k} naturals from the hand",
                    unable,
                )
        else:
            if wild != 1 or len(nat) != k - 1:
                raise Refusal(
                    "pile_new_set_naturals", "the pile is never taken with two wilds", unable
                )
            if is_frozen:
                raise Refusal(
                    "frozen_by", "a frozen pile needs a natural pair matching its top card", unable
                )
            if not wild_pair_allowed(t, state, sd.opened):
                raise Refusal(
                    "pile_wild_pair_after", "a natural and a wild do not take the pile yet", unable
                )
        own = [i for i, m in enumerate(melds) if m.kind == SET and m.key == top >> 2]
        if own and not r.several_sets_same_rank:
            # one set per rank: the top card and the cards shown join the side's set
            i = own[0]
            m = melds[i]
            for c in (top, *sorted(a.cards, key=is_wild)):
                p = add_problem(t, m, c)
                if p:
                    raise Refusal(
                        p, "the top card and those cards cannot join the side's set", unable
                    )
                m = Meld(SET, m.key, tuple(sorted((*m.cards, c))))
            melds[i] = m
        else:
            got = classify(t, tuple(sorted((*a.cards, top))))
            if isinstance(got, str):
                raise Refusal(got, "those cards and the top card do not form a set", unable)
            melds.append(got)
        joined = bool(own) and not r.several_sets_same_rank
        used = a.cards
    elif a.use == "escalera":
        if not (r.sequences and r.pile_new_sequence):
            raise Refusal("pile_new_sequence", "the pile is not taken to start an escalera", unable)
        if is_frozen:
            raise Refusal(
                "frozen_by", "a frozen pile needs a natural pair matching its top card", unable
            )
        if len(a.cards) != 2 or not _holds(hand, a.cards):
            raise Refusal(
                "pile_new_sequence", "an escalera from the pile takes two cards from the hand"
            )
        got = classify(t, tuple(sorted((*a.cards, top))))
        if isinstance(got, str) or got.kind != SEQ:
            raise Refusal(
                "sequences", "those cards and the top card do not form an escalera", unable
            )
        melds.append(got)
        used = a.cards
    elif a.use == "add":
        if not 0 <= a.meld < len(melds):
            raise Refusal("pile_to_own_set", f"the side has no meld {a.meld}", unable)
        if is_frozen:
            raise Refusal(
                "frozen_by",
                "a frozen pile is taken only with a natural pair matching its top card",
                unable,
            )
        if not add_allowed(t, state):
            raise Refusal(
                "pile_add_after",
                "nobody has taken the pile yet this hand: the first take needs a natural pair",
                unable,
            )
        m = melds[a.meld]
        if m.kind == SET:
            if not r.pile_to_own_set:
                raise Refusal(
                    "pile_to_own_set", "the top card alone does not take the pile", unable
                )
            if is_completed(t, m) and not r.pile_to_completed_set:
                raise Refusal(
                    "pile_to_completed_set", "a finished canasta does not take the pile", unable
                )
        elif m.kind == SEQ:
            if not r.pile_to_own_sequence:
                raise Refusal(
                    "pile_to_own_sequence", "extending an escalera does not take the pile", unable
                )
        else:
            raise Refusal("pile_to_own_set", "the top card cannot go onto that meld", unable)
        p = add_problem(t, m, top)
        if p:
            raise Refusal(p, "the top card cannot go onto that meld", unable)
        melds[a.meld] = Meld(m.kind, m.key, tuple(sorted((*m.cards, top))))
        used = ()
    else:
        raise Refusal("pile_new_set_naturals", f"unknown use of the top card {a.use!r}")
    if ex and r.stock_out == "forced_take_if_matches_meld" and not (a.use == "add" or joined):
        raise Refusal(
            "stock_out", "with the stock exhausted only a top card that fits a meld takes it"
        )
    rest = state.pile[:-1]
    reds: list[int] = []
    if 5 in rest or 6 in rest:
        reds = [c for c in rest if c in (5, 6)]
        rest = tuple(c for c in rest if c not in (5, 6))
    new_hand = remove(hand, used)
    held: tuple[int, ...] = ()
    opening = not sd.opened
    if opening and r.pile_rest_after_opening:
        held = tuple(sorted(rest))
    else:
        new_hand = tuple(sorted((*new_hand, *rest)))
    table = (
        *state.table[:side_i],
        Side(tuple(sorted(melds)), sd.red_threes, sd.opened),
        *state.table[side_i + 1 :],
    )
    hands = (*state.hands[:seat], new_hand, *state.hands[seat + 1 :])
    s = replaced(
        state,
        table=table,
        hands=hands,
        pile=(),
        pile_taken=True,
        took_pile=True,
        held=held,
        top_points=t.points[top] if opening else 0,
        step=PLAY,
    )
    return lay_out(s, side_i, reds)


def _holds(hand: tuple[int, ...], cards: tuple[int, ...]) -> bool:
    try:
        remove(hand, cards)
    except ValueError:
        return False
    return True
