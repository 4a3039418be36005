"""Going out: when a player may empty the hand, whether one still can this turn, asking the partner.

A player goes out by melding the last card or by discarding it (*:go-out-discard: "optional"
either way, "required" only by a discard, "forbidden" only by melding). The side then needs
*:go-out-min-completed finished canastas or sambas, *:go-out-min-clean clean ones and
*:go-out-min-dirty dirty ones; with *:go-out-wait-after-clean a clean canasta finished this turn
does not count yet. A side that has not opened goes out only if its melds reach the opening
minimum, unless *:opening-concealed-exempt frees a player who lays the whole hand in one turn.

With *:ask-partner a player who can go out may ask "may I go out?" before melding this turn; the
partner's answer binds: after "yes" every action must keep going out possible and the turn ends
by going out; after "no" going out is refused (penalty go_out_after_refusal) and the player keeps
two cards so that the discard does not empty the hand. Asking when one cannot go out is refused
(penalty ask_and_cannot_go_out).

A hand that cannot be played on after a draw or a pile take (`dead_end`) ends at once: a finding
about the book, whose result names the clauses that left the player stuck (*:pile-one-card-rule,
*:last-red-three-ends-hand and the going-out clause that refuses the last card).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from arbitro.model.rummy import caches
from arbitro.model.rummy.actions import Answer
from arbitro.model.rummy.arrange import (
    _AT_DONE,
    _AT_X,
    _X_ZERO,
    Need,
    SetRules,
    Table,
    _rank_packed,
    _suit_moves,
    by_cards,
    by_count,
    lost_cards_by,
    overflow,
    places_all,
    run_cover,
    set_rules,
    split,
    table_of,
)
from arbitro.model.rummy.cards import (
    BLACK_THREES,
    CLUBS,
    JOKER,
    LOWEST_NATURAL,
    LOWEST_THREE,
    SPADES,
    THREE,
    is_wild,
    remove,
)
from arbitro.model.rummy.melds import (
    BLACK3,
    SEQ,
    SET,
    WILDS,
    Meld,
    add_problem,
    classify,
    is_clean,
    wild_count,
)
from arbitro.model.rummy.refusal import LISTED, Judge
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import ANSWER, PLAY, Side, State, replaced
from arbitro.model.rummy.table import (
    SideView,
    going_out_counts,
    mover_side,
    opened,
    opening_points,
    pending,
    side_view,
)
from arbitro.model.rummy.tables import Tables

_new: Final[Any] = tuple.__new__
"""`Meld(...)`, `Side(...)` without the Python call of a NamedTuple's constructor."""

Problem = tuple[str, str, str | None]
"""(clause key, reason, priced act or None)."""


def need(t: Tables, state: State) -> Need:
    """What going out requires of the mover's side (remembered per clean-canasta count, in
    `Tables.needs`: a dictionary keyed by a small int, no key tuple to build and hash)."""
    needs = t.needs
    clean_start = state.clean_start
    got: Need | None = needs.get(clean_start)
    if got is None:
        got = Need(
            t.go_out_min_completed,
            t.go_out_min_clean,
            t.go_out_min_dirty,
            t.go_out_wait_after_clean,
            clean_start,
        )
        needs[clean_start] = got
    return got


def go_out_problems(t: Tables, state: State, by_discard: bool, every: bool = True) -> list[Problem]:
    """Why the mover may not go out now (the hand emptied by a meld, or by discarding the last
    card), most specific first; with `every` false, only the first. *:go-out-discard,
    *:go-out-min-completed, *:go-out-min-clean, *:go-out-min-dirty, *:go-out-wait-after-clean,
    *:opening-concealed-exempt, *:ask-partner, *:last-red-three-ends-hand."""
    out: list[Problem] = []
    if state.answer == "no":
        out.append(
            ("ask_partner", "the partner said no: going out is refused", "go_out_after_refusal")
        )
        if not every:
            return out
    if by_discard:
        if t.go_out_discard == "forbidden":
            out.append(
                (
                    "go_out_discard",
                    "a player goes out by melding every card, not by a discard",
                    None,
                )
            )
        if state.no_discard:
            t.consult("last_red_three_ends_hand")
            out.append(
                (
                    "last_red_three_ends_hand",
                    "play stops after the last red three of the stock: no discard",
                    None,
                )
            )
    elif t.go_out_discard == "required":
        out.append(
            ("go_out_discard", "going out ends with a discard: keep one card to throw", None)
        )
    if out and not every:
        return out
    sd = mover_side(state)
    if not sd.opened and not t.opening_concealed_exempt:
        t.consult("opening_minimums", "opening_rule")
        got = opening_points(t, state)
        need_pts = state.minimums[state.seat % state.sides]
        if got < need_pts:
            out.append(
                (
                    "opening_minimums",
                    f"the side has not opened: its melds make {got} points, the minimum is {need_pts}",
                    None,
                )
            )
            if not every:
                return out
    done, clean, dirty = going_out_counts(t, sd.melds)
    if done < t.go_out_min_completed:
        out.append(
            (
                "go_out_min_completed",
                f"going out needs {t.go_out_min_completed} finished canastas or sambas; the side has {done}",
                None,
            )
        )
        if not every:
            return out
    if clean < t.go_out_min_clean:
        out.append(
            ("go_out_min_clean", f"going out needs {t.go_out_min_clean} clean canastas", None)
        )
        if not every:
            return out
    if t.go_out_wait_after_clean and min(clean, state.clean_start) < t.go_out_min_clean:
        out.append(
            (
                "go_out_wait_after_clean",
                "not in the turn the needed clean canasta was finished",
                None,
            )
        )
        if not every:
            return out
    if dirty < t.go_out_min_dirty:
        out.append(
            ("go_out_min_dirty", f"going out needs {t.go_out_min_dirty} dirty canastas", None)
        )
    return out


def go_out_problem(t: Tables, state: State, by_discard: bool) -> Problem | None:
    """The first of `go_out_problems`, or None when the mover may go out now."""
    got = go_out_problems(t, state, by_discard, every=False)
    return got[0] if got else None


def _placed(state: State, melds: tuple[Meld, ...], hand: tuple[int, ...]) -> State:
    """The state with the mover's side holding `melds` and the mover holding `hand`."""
    i = state.seat % state.sides
    sd = state.table[i]
    table = (
        *state.table[:i],
        _new(Side, (melds, sd.red_threes, sd.opened)),
        *state.table[i + 1 :],
    )
    hands = (*state.hands[: state.seat], hand, *state.hands[state.seat + 1 :])
    return replaced(state, table=table, hands=hands)


def one_card_ok(t: Tables, state: State) -> bool:
    """With one card left: can the player go out with it, by discarding or melding it?"""
    hand = state.hands[state.seat]
    if len(hand) != 1 or state.held:
        return False
    sd = mover_side(state)
    if sd.opened:
        return last_card_out(t, state, sd.melds, hand[0])
    if go_out_problem(t, state, by_discard=True) is None:
        return True
    c = hand[0]
    melds = sd.melds
    for i, m in enumerate(melds):
        if add_problem(t, m, c) is None:
            grown = tuple(
                sorted(
                    (
                        *melds[:i],
                        _new(Meld, (m.kind, m.key, tuple(sorted((*m.cards, c))))),
                        *melds[i + 1 :],
                    )
                )
            )
            if go_out_problem(t, _placed(state, grown, ()), by_discard=False) is None:
                return True
    return False


def last_card_out(t: Tables, state: State, melds: tuple[Meld, ...], c: int) -> bool:
    """`one_card_ok` for a mover of an opened side holding only `c`, the side's melds being
    `melds` (those of `state`, or those after an addition not yet played: `melding.placeable`):
    `go_out_problem` worked out from the counts of the melds (`going_out_counts`, a grown meld's
    own count put in place of its old one), no state built for each meld `c` could join and no
    reason written out. The clauses read are those `go_out_problems` reads for an opened side."""
    if state.answer == "no":
        return False
    mode = t.go_out_discard
    by_discard = mode != "forbidden"
    if state.no_discard:
        t.consult("last_red_three_ends_hand")
        by_discard = False
    done, clean, dirty = going_out_counts(t, melds)
    if by_discard and _counts_ok(t, state, done, clean, dirty):
        return True
    if mode == "required":
        return False
    comp = t.completed
    for m in melds:
        if add_problem(t, m, c) is None:
            d = done
            cl = clean
            di = dirty
            kind = m.kind
            if kind in (SET, SEQ):
                n = len(m.cards)
                if n >= comp:
                    d -= 1
                    if is_clean(m):
                        cl -= 1
                    else:
                        di -= 1
                if n + 1 >= comp:
                    d += 1
                    # the grown meld is clean when the meld was and `c` is no wild
                    if is_clean(m) and (kind == SEQ or not is_wild(c)):
                        cl += 1
                    else:
                        di += 1
            if _counts_ok(t, state, d, cl, di):
                return True
    return False


def _counts_ok(t: Tables, state: State, done: int, clean: int, dirty: int) -> bool:
    """Whether an opened side with `done` completed melds, `clean` and `dirty` of them, meets
    the requirements `go_out_problems` checks: *:go-out-min-completed, *:go-out-min-clean,
    *:go-out-wait-after-clean, *:go-out-min-dirty."""
    if done < t.go_out_min_completed or clean < t.go_out_min_clean:
        return False
    if t.go_out_wait_after_clean and min(clean, state.clean_start) < t.go_out_min_clean:
        return False
    return dirty >= t.go_out_min_dirty


def can_go_out(t: Tables, state: State) -> bool:
    """Whether some sequence of actions lets the mover go out in this turn."""
    if state.answer == "no":
        return False
    sd = mover_side(state)
    hand = state.hands[state.seat]
    mode = "forbidden" if state.no_discard else t.go_out_discard
    pts = t.points
    not_opened = not sd.opened
    if not_opened:
        t.consult("opening_minimums", "opening_rule")
    minimum = state.minimums[state.seat % state.sides]
    cur = opening_points(t, state) if not_opened else 0
    nd = need(t, state)
    if state.held:
        # only after the opening is laid does the rest of the pile come in: the hand is melded
        # whole, then the single held card is the going-out discard
        if len(state.held) != 1 or mode == "forbidden":
            return False
        if not_opened and cur + sum(pts[c] for c in hand) < minimum:
            return False
        return places_all(t, hand, sd.melds, nd)
    # cheap necessary conditions first: at most one card (the discard) that nothing could take
    # (the test that settles most hands, so it comes before the count of naturals, and before
    # the side's `SideFacts`: it reads only the fields `SideView.homes` works out), enough
    # cards to finish the canastas needed, enough naturals of one rank or suit for each canasta
    view = side_view(t, sd.melds)
    if nd.wait and min(view.clean(t), state.clean_start) < nd.clean:
        return False
    if view.takes < 0:
        view.homes(t)
    got = lost_cards_by(t, hand, view.takes, view.seq_bits, view.freeable, mode != "forbidden")
    if got is None:
        return False
    lost = got
    if len(lost) > 1 or (lost and mode == "forbidden"):
        return False
    if view.freeable and _homeless_by_cleaning(t, hand, sd.melds, view, mode):
        return False
    f = view.facts(t)
    done, clean, dirty = f.done, f.clean, f.dirty
    more = by_count(f, len(hand), t.completed)
    if done + more < nd.completed or clean + more < nd.clean or dirty + more < nd.dirty:
        return False
    # naturals the sets of their rank cannot all take count with them
    over = len(lost) + overflow(t, hand, sd.melds, f)
    if over > 1 or (over and mode == "forbidden"):
        return False
    if nd.completed > done or nd.clean > clean:
        new, new_clean = by_cards(t, hand, f)
        if done + new < nd.completed or clean + new_clean < nd.clean:
            return False
    if not not_opened and _added_out(t, hand, sd.melds, nd, mode, lost):
        return True
    # the count of what the cards could complete, where the side lacks a completed meld and the
    # search would combine escalera options (without escaleras it counts the ranks first itself)
    screen = t.sequences and done < nd.completed
    slack = None
    if not_opened and not t.opening_concealed_exempt:
        slack = cur + sum(pts[c] for c in hand) - minimum
        if slack < 0:
            return False
    if lost:
        # the one card nothing could take must be the discard
        if slack is not None and pts[lost[0]] > slack:
            return False
        cards = remove(hand, lost)
        tb = table_of(t, sd.melds)
        if screen and _completes_too_few(t, cards, tb, nd.completed):
            return False
        return places_all(t, cards, sd.melds, nd, tb)
    tb = table_of(t, sd.melds)
    if screen and _completes_too_few(t, hand, tb, nd.completed):
        return False
    spare = "upto1" if mode == "optional" else "one" if mode == "required" else "none"
    return places_all(t, hand, sd.melds, nd, tb, spare, slack)


def _completes_too_few(t: Tables, cards: tuple[int, ...], tb: Table, completed: int) -> bool:
    """Whether no placing of `cards` onto the side's melds (`tb`, as `arrange.table_of`) and new
    ones completes `completed` canastas and sambas: a bound on what `places_all` counts, which
    refuses most hands its search would refuse only after trying every escalera option.

    Per suit, the most escaleras any option of the search completes (`arrange._suit_moves`, the
    options it walks); per rank, what the rank's sets complete with up to all the naturals of the
    rank held (`_rank_gains`: `rank_options` of fewer naturals are among those of more, so
    whatever naturals the escaleras take, the search's outcomes for the rank are among these),
    the ranks' net wilds together at most the wilds held (the search's end test)."""
    if completed <= 0:
        return False
    sp = split(t, cards)
    totals = list(sp.other)
    most = 0
    if t.sequences:
        pts = t.points
        rank_pts = tuple([pts[k * 4] for k in range(13)])
        seq_rank = t.seq_rank
        smin = t.sequence_min
        smax = t.sequence_max
        comp = t.completed
        for s in range(4):
            row = sp.seq[s]
            held = 0  # the escalera positions of the suit held in hand or in its escaleras
            for p in range(len(row)):
                k = row[p]
                if k:
                    r = seq_rank[p]
                    totals[r] = totals[r] + k
                    held |= 1 << p
            seqs = tb.seqs[s]
            for lo, hi in seqs:
                held |= (1 << (hi + 1)) - (1 << lo)
            # an escalera completed holds `comp` positions in a row, each held (no wild in it)
            run = held
            for k in range(1, comp):
                run &= held >> k
            if not run:
                continue
            best = 0
            for move in _suit_moves(row, seqs, smin, smax, comp, seq_rank, rank_pts):
                if move[1] > best:
                    best = move[1]
            most += best
    sr = set_rules(t)
    comp = sr.completed
    wilds = sp.jokers + sp.twos
    # the wilds a rank's sets may take at most: the hand's, and those cleaning frees elsewhere
    reach = wilds
    if sr.clean:
        for row_b in tb.sets:
            for _, w in row_b:
                reach += w
    # per count of sets completed, the fewest net wilds that complete so many (the ranks so far)
    fewest: list[int] = [0]
    for rank in range(13):
        a = totals[rank]
        bases = tb.sets[rank]
        if not a and not bases:
            continue
        # a rank whose unfinished sets and naturals held, with every wild, make no completed
        # set keeps its finished sets alone, at best freeing the wilds of its sets
        pool = a
        done = 0
        least = 0
        for n, w in bases:
            if n + w >= comp:
                done += 1
            else:
                pool += n + w
            if sr.clean:
                least -= w
        gains: tuple[int, ...]
        if pool + reach < comp:
            gains = (*([_NEVER] * done), least)
        else:
            gains = _rank_gains(sr, bases, a)
            if not gains:
                return True  # no outcome places the rank's naturals: `places_all` says no
        got = [_NEVER] * (len(fewest) + len(gains) - 1)
        for c0 in range(len(fewest)):
            x0 = fewest[c0]
            if x0 >= _NEVER:
                continue
            for c1 in range(len(gains)):
                x1 = gains[c1]
                if x1 < _NEVER and x0 + x1 < got[c0 + c1]:
                    got[c0 + c1] = x0 + x1
        fewest = got
    sets = -1
    for c in range(len(fewest)):
        if fewest[c] <= wilds:
            sets = c
    return sets < 0 or most + sets < completed


_NEVER: Final = 1 << 20
"""More net wilds than any hand holds: no outcome completes that many."""


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _rank_gains(sr: SetRules, bases: tuple[tuple[int, int], ...], a: int) -> tuple[int, ...]:
    """Per count of melds completed, the fewest net wilds (`_NEVER`: none) of the outcomes of
    `arrange.rank_options` for the rank's sets `bases` and up to `a` naturals (for
    `_completes_too_few`); empty when there is no outcome at all. The outcomes are read packed
    (`arrange._rank_packed`), each field off its bits."""
    best: list[int] = []
    for q in _rank_packed(sr, bases, a):
        c = q >> _AT_DONE & 255
        x = (q >> _AT_X & 255) - _X_ZERO
        while len(best) <= c:
            best.append(_NEVER)
        if x < best[c]:
            best[c] = x
    return tuple(best)


def _homeless_by_cleaning(
    t: Tables, hand: tuple[int, ...], melds: tuple[Meld, ...], view: SideView, mode: str
) -> bool:
    """Whether `lost_cards_by` lists two cards of `hand` (one where going out may not end with a
    discard) when the wilds cleaning could free are counted as a cleaning frees them: each for a
    natural of its set's rank from the hand, so per rank at most the naturals of it held (the
    side's `SideView.freeable` counts every wild of its sets). Only the cards listed are read:
    its verdict on the wilds' count (None) takes every black three for a meld of its own."""
    held = [0] * 13
    for c in hand:
        if LOWEST_NATURAL <= c < JOKER:
            held[c >> 2] = held[c >> 2] + 1
    free = 0
    for m in melds:
        if m.kind == SET:
            k = held[m.key]
            if k:
                w = wild_count(m.cards)
                free += w if w < k else k
                held[m.key] = k - w if w < k else 0
    if free >= view.freeable:
        return False
    got = lost_cards_by(t, hand, view.takes, view.seq_bits, free, mode != "forbidden")
    return got is not None and (len(got) > 1 or (bool(got) and mode == "forbidden"))


def can_go_out_listed(t: Tables, state: State) -> bool:
    """`can_go_out` for the listing of `AskPartner` (a mover holding no pile): False at once
    when two cards of the hand have no home (`two_homeless`), which settles most hands, and
    `can_go_out` otherwise. `ask` runs `can_go_out` itself, which reads every clause it may
    depend on (`trace`)."""
    if two_homeless(t, state.hands[state.seat], side_view(t, mover_side(state).melds)):
        return False
    return can_go_out(t, state)


def two_homeless(t: Tables, hand: tuple[int, ...], view: SideView) -> bool:
    """Whether `arrange.lost_cards` lists two cards or more of the sorted `hand` against the
    side of `view` (cards no arrangement could place: then no sequence of actions empties the
    hand, a discard taking one of them at most), worked out from the side's `SideView.homes`
    without its `SideFacts`: the same tests, card by card, a rank's naturals together."""
    if view.takes < 0:
        view.homes(t)
    takes = view.takes
    seq_bit = t.seq_bit
    wilds = blacks = bits = 0
    for c in hand:
        if c < LOWEST_THREE or c == JOKER:
            wilds += 1
        elif c >= LOWEST_NATURAL:
            bits |= seq_bit[c]
        elif c == THREE * 4 + CLUBS or c == THREE * 4 + SPADES:
            blacks += 1
    covered = run_cover(bits, t.sequence_min, view.seq_bits) if t.sequences else 0
    w_all = wilds + view.freeable
    start_min = t.set_start_min_naturals
    set_min = t.set_min
    lost = 0
    n = len(hand)
    i = 0
    while i < n:
        c = hand[i]
        if LOWEST_NATURAL <= c < JOKER:
            # the naturals of a rank lie together in a sorted hand
            rank = c >> 2
            j = i + 1
            while j < n and hand[j] >> 2 == rank:
                j += 1
            a = j - i
            if not (takes >> rank & 1 or (a >= start_min and a + w_all >= set_min)):
                for k in range(i, j):
                    if not covered & seq_bit[hand[k]]:
                        lost += 1
                if lost > 1:
                    return True
            i = j
            continue
        if LOWEST_THREE <= c < LOWEST_NATURAL:
            if c == THREE * 4 + CLUBS or c == THREE * 4 + SPADES:
                wild_ok = w_all if t.black_three_meld_wilds else 0
                homeless = t.black_threes_meld == "never" or blacks + wild_ok < set_min
            else:
                homeless = True  # a red three: no meld takes it
            if homeless:
                lost += 1
                if lost > 1:
                    return True
        i += 1
    return False


def _added_out(
    t: Tables, hand: tuple[int, ...], melds: tuple[Meld, ...], nd: Need, mode: str, lost: list[int]
) -> bool:
    """A quick sufficient test for `can_go_out` of an opened side: new melds are laid from
    naturals (each a `LayMeld` at its minimum size that `classify` accepts: set_lay naturals of
    a rank the side may start a set of, then sequence_min naturals in a row of one suit), every
    other card but at most one goes onto the side's melds by single `AddToMeld` steps (each
    accepted by `add_problem`), the black threes left go out in one meld of their own, the one
    card left, if any, is the going-out discard, and the side then meets the requirements.

    Naturals go first, then wilds (so a set's wild limits see its naturals); a card no meld takes
    waits for the next pass (an escalera may take it once its neighbour is in). The naturals of
    a rank that nothing takes then start a set with wilds (`_lay_with_wilds`: a `LayMeld` of
    set_lay cards that `classify` accepts) before the wilds go on."""
    if _added_out_by(t, hand, melds, nd, mode, lost, False):
        return True
    # the escaleras first, where a natural both a new set and a new escalera could take is held
    # (else the two orders lay the same melds)
    return _contested(t, hand) and _added_out_by(t, hand, melds, nd, mode, lost, True)


def _contested(t: Tables, hand: tuple[int, ...]) -> bool:
    """Whether a natural of the sorted `hand` is both of a rank with set_lay naturals held and
    at a position of its suit that a run of sequence_min held positions covers (`run_cover`):
    a card `_lay_naturals` may put in a new set or a new escalera."""
    if not t.sequences:
        return False
    lay = t.set_lay
    seq_bit = t.seq_bit
    bits = 0
    for c in hand:
        bits |= seq_bit[c]
    covered = run_cover(bits, t.sequence_min, 0)
    if not covered:
        return False
    n = len(hand)
    i = 0
    while i < n:
        c = hand[i]
        j = i + 1
        while j < n and hand[j] >> 2 == c >> 2:
            j += 1
        if j - i >= lay and LOWEST_NATURAL <= c < JOKER:
            for k in range(i, j):
                if covered & seq_bit[hand[k]]:
                    return True
        i = j
    return False


def _added_out_by(
    t: Tables,
    hand: tuple[int, ...],
    melds: tuple[Meld, ...],
    nd: Need,
    mode: str,
    lost: list[int],
    runs_first: bool,
) -> bool:
    """`_added_out` with the new melds of naturals laid sets first, or escaleras first
    (`_lay_naturals`)."""
    spare = lost[0] if lost else -1
    # the naturals and threes, then the wilds, each in the order of the sorted hand: its twos
    # come first, its jokers last
    n = len(hand)
    lo = 0
    while lo < n and hand[lo] < LOWEST_THREE:
        lo += 1
    hi = n
    while hi > lo and hand[hi - 1] == JOKER:
        hi -= 1
    todo = list(hand[lo:hi])
    if lo or hi < n:
        todo += hand[:lo]
        todo += hand[hi:]
    if spare >= 0:
        todo.remove(spare)
    ms = list(melds)
    if runs_first:
        _lay_naturals(t, todo, ms, True)
    else:
        _lay_naturals(t, todo, ms)
    # where a card may go: a natural onto a set of its rank or an escalera of its suit, a wild
    # onto a set or a wild meld (lists by rank and by suit, None where no meld is: a dictionary's
    # `setdefault` cost more than the rest of the loop)
    by_rank: list[list[int] | None] = [None] * 13
    by_suit: list[list[int] | None] = [None, None, None, None]
    for_wild: list[int] = []
    for i in range(len(ms)):
        m = ms[i]
        kind = m.kind
        if kind == SET:
            _index(by_rank, m.key, i)
            for_wild.append(i)
        elif kind == SEQ:
            _index(by_suit, m.key, i)
        elif kind == WILDS:
            for_wild.append(i)
    if todo and is_wild(todo[-1]) and t.set_lay > 1:
        # the wilds wait while the naturals go on; the naturals of a rank left over start a
        # set with them (`_lay_with_wilds`), and every card left goes on after that
        k = len(todo)
        while k and is_wild(todo[k - 1]):
            k -= 1
        wild = todo[k:]
        todo = _added(t, todo[:k], ms, by_rank, by_suit, for_wild)
        if todo:
            start = len(ms)
            _lay_with_wilds(t, todo, wild, ms)
            for i in range(start, len(ms)):
                _index(by_rank, ms[i].key, i)
                for_wild.append(i)
        todo += wild
    todo = _added(t, todo, ms, by_rank, by_suit, for_wild)
    blacks = tuple([c for c in todo if c in BLACK_THREES])
    if blacks and t.black_threes_meld != "never":
        # the black threes left go out together in one meld, laid last (*:black-threes-meld)
        got = classify(t, blacks)
        if isinstance(got, Meld) and got.kind == BLACK3:
            todo = [c for c in todo if c not in BLACK_THREES]
    left = len(todo) + (spare >= 0)
    if left > 1 or (left and mode == "forbidden") or (not left and mode == "required"):
        return False
    done, clean, dirty = going_out_counts(t, tuple(ms))
    if done < nd.completed or clean < nd.clean or dirty < nd.dirty:
        return False
    return not (nd.wait and min(clean, nd.clean_start) < nd.clean)


def _index(rows: list[list[int] | None], key: int, i: int) -> None:
    """Put meld `i` in the row of `key` (for `_added_out`)."""
    row = rows[key]
    if row is None:
        rows[key] = [i]
    else:
        row.append(i)


def _added(
    t: Tables,
    todo: list[int],
    ms: list[Meld],
    by_rank: list[list[int] | None],
    by_suit: list[list[int] | None],
    for_wild: list[int],
) -> list[int]:
    """The cards of `todo` that single `AddToMeld` steps onto `ms` (grown in place) leave over
    (for `_added_out`): a card no meld takes waits for the next pass (an escalera may take it
    once its neighbour is in); `by_rank`, `by_suit` and `for_wild` say where a card may go (the
    sets of a natural's rank before the escaleras of its suit)."""
    while todo:
        waiting: list[int] = []
        for c in todo:
            if is_wild(c):
                put = _put(t, ms, for_wild, c)
            else:
                rows = by_rank[c >> 2]
                put = rows is not None and _put(t, ms, rows, c)
                if not put:
                    cols = by_suit[c & 3]
                    put = cols is not None and _put(t, ms, cols, c)
            if not put:
                waiting.append(c)
        if len(waiting) == len(todo):
            break
        todo = waiting
    return todo


def _put(t: Tables, ms: list[Meld], places: list[int], c: int) -> bool:
    """Add `c` to the first meld of `ms` at `places` that takes it (`add_problem`), in place:
    whether one did (for `_added`). The grown meld's cards are the old ones with `c` put in
    place (they are sorted), not sorted anew."""
    for i in places:
        m = ms[i]
        if add_problem(t, m, c) is None:
            cards = list(m.cards)
            k = len(cards)
            while k > 0 and cards[k - 1] > c:
                k -= 1
            cards.insert(k, c)
            ms[i] = _new(Meld, (m.kind, m.key, tuple(cards)))
            return True
    return False


def _lay_with_wilds(t: Tables, todo: list[int], wild: list[int], ms: list[Meld]) -> None:
    """Lay new sets onto `ms` (for `_added_out`), taking their cards out of `todo` and `wild`:
    per rank, the naturals of `todo` (fewer than set_lay, the ranks with most first) with the
    wilds that make set_lay cards, where `classify` accepts the set and the side may start one
    of that rank (*:several-sets-same-rank)."""
    lay = t.set_lay
    ranks: dict[int, list[int]] = {}
    for c in todo:
        if LOWEST_NATURAL <= c < JOKER:
            got = ranks.get(c >> 2)
            if got is None:
                ranks[c >> 2] = [c]
            else:
                got.append(c)
    several = t.several_sets_same_rank
    have = [] if several else [m.key for m in ms if m.kind == SET]
    for cs in sorted(ranks.values(), key=len, reverse=True):
        need = lay - len(cs)
        if need <= 0 or need > len(wild) or cs[0] >> 2 in have:
            continue
        m = classify(t, tuple(sorted((*cs, *wild[:need]))))
        if isinstance(m, Meld) and m.kind == SET:
            ms.append(m)
            for c in cs:
                todo.remove(c)
            del wild[:need]


def _lay_naturals(t: Tables, todo: list[int], ms: list[Meld], runs_first: bool = False) -> None:
    """Lay new melds of naturals from `todo` onto `ms` (for `_added_out`), taking their cards
    out of `todo`: per rank, set_lay naturals where the side may start a set of that rank; per
    suit, sequence_min naturals at consecutive escalera positions (`_lay_runs`); the sets
    first, or with `runs_first` the escaleras first (a natural both could take goes where the
    first of them puts it)."""
    if runs_first:
        _lay_runs(t, todo, ms)
    lay = t.set_lay
    nat_rank = t.nat_rank
    # the naturals of each rank, in the order of `todo`, where they lie together (the hand's
    # sorted order, cards taken out of it at most): a list per rank met, no dictionary
    ranks: list[list[int]] = []
    keys: list[int] = []
    last = -1
    for c in todo:
        k = nat_rank[c]
        if k >= 0:
            if k == last:
                ranks[-1].append(c)
            else:
                ranks.append([c])
                keys.append(k)
                last = k
    several = t.several_sets_same_rank
    have = () if several else [m.key for m in ms if m.kind == SET]
    for g in range(len(ranks)):
        cs = ranks[g]
        k = keys[g]
        if len(cs) < lay or k in have:
            continue
        m = classify(t, tuple(cs[:lay]))
        if isinstance(m, Meld) and m.kind == SET:
            ms.append(m)
            for c in m.cards:
                todo.remove(c)
    if not runs_first:
        _lay_runs(t, todo, ms)


def _lay_runs(t: Tables, todo: list[int], ms: list[Meld]) -> None:
    """Lay new escaleras from `todo` onto `ms` (for `_lay_naturals`), taking their cards out of
    `todo`: per suit, sequence_min naturals at consecutive escalera positions."""
    if not t.sequences:
        return
    smin = t.sequence_min
    seq_bit = t.seq_bit
    bits = 0
    for c in todo:
        bits |= seq_bit[c]
    if not bits:
        return
    run = bits
    for k in range(1, smin):
        run &= bits >> k
    seq_rank = t.seq_rank
    for suit in range(4):
        row = bits >> (16 * suit) & 0xFFFF
        if not run >> (16 * suit) & 0xFFFF:
            continue
        p = 0
        while p + smin <= len(seq_rank):
            if row >> p & ((1 << smin) - 1) == (1 << smin) - 1:
                laid = tuple((seq_rank[p + i]) * 4 + suit for i in range(smin))
                m = classify(t, laid)
                if isinstance(m, Meld) and m.kind == SEQ:
                    ms.append(m)
                    for c in laid:
                        todo.remove(c)
                p += smin
            else:
                p += 1


def ask(t: Tables, s: State, j: Judge) -> State:
    """The mover asks the partner "may I go out?". *:ask-partner."""
    if j is LISTED:
        # listed as legal: every check below passes
        return replaced(s, step=ANSWER, asked=True)
    if not t.ask_partner:
        j.halt("ask_partner", "the book has no asking the partner")
    if s.players == s.sides:
        j.halt("ask_partner", "a player without a partner has nobody to ask")
    if s.asked or s.melded or s.held:
        j.refuse("ask_partner", "the partner is asked once, after drawing and before melding")
    if len(s.hands[s.seat]) < 2:
        j.refuse("ask_partner", "with one card there is nothing to ask")
    j.stop()
    if not can_go_out(t, s):
        j.refuse("ask_partner", "only a player who can go out may ask", "ask_and_cannot_go_out")
    return replaced(s, step=ANSWER, asked=True)


def answer(t: Tables, s: State, a: Answer, j: Judge) -> State:
    """The partner's binding answer. *:ask-partner."""
    if s.step != ANSWER:
        j.halt("ask_partner", "nobody has asked to go out")
    return replaced(s, step=PLAY, answer="yes" if a.yes else "no")


def dead_end(t: Tables, s: State, took: bool) -> State:
    """After a draw or a pile take: a hand that cannot be played on is a dead end of the book
    (*:pile-one-card-rule, *:last-red-three-ends-hand); the state itself otherwise."""
    hand = s.hands[s.seat]
    h = len(hand) + len(s.held)
    if h >= 2 or s.no_discard or pending(s):
        return s
    if h == 1 and one_card_ok(t, s):
        return s
    if h == 0:
        p = go_out_problem(t, s, by_discard=False)
        if p is None:
            return end_hand(t, opened(s), "went-out", s.seat)
    p = go_out_problem(t, s, by_discard=h == 1)
    clauses = []
    if took:
        t.consult("pile_one_card_rule")
        clauses.append(t.rules.cid("pile_one_card_rule"))
    elif not s.stock:
        # the last card of the stock was a red three, laid out with nothing to replace it
        t.consult("last_red_three_ends_hand")
        clauses.append(t.rules.cid("last_red_three_ends_hand"))
    clauses.append(t.rules.cid(p[0] if p else "go_out_min_completed"))
    return end_hand(t, s, "dead-end", -1, tuple(clauses))
