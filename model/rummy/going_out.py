"""Going out: when a player may empty the hand, and whether one still can this turn.

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
"""

from __future__ import annotations

from arbitro.model.rummy.arrange import Need, completions_bound, homeless, places_all, table_of
from arbitro.model.rummy.cards import remove
from arbitro.model.rummy.melds import Meld, add_problem
from arbitro.model.rummy.state import Side, State
from arbitro.model.rummy.table import going_out_counts, mover_side, opening_points
from arbitro.model.rummy.tables import Tables

Problem = tuple[str, str, str | None]
"""(clause key, reason, priced act or None)."""


def need(t: Tables, state: State) -> Need:
    r = t.rules
    return Need(
        r.go_out_min_completed,
        r.go_out_min_clean,
        r.go_out_min_dirty,
        r.go_out_wait_after_clean,
        state.clean_start,
    )


def go_out_problem(t: Tables, state: State, by_discard: bool) -> Problem | None:
    """Why the mover may not go out now (hand emptied by a meld, or by discarding the last card)."""
    r = t.rules
    if state.answer == "no":
        return ("ask_partner", "the partner said no: going out is refused", "go_out_after_refusal")
    if by_discard:
        if r.go_out_discard == "forbidden":
            return (
                "go_out_discard",
                "a player goes out by melding every card, not by a discard",
                None,
            )
        if state.no_discard:
            return (
                "last_red_three_ends_hand",
                "play stops after the last red three of the stock: no discard",
                None,
            )
    elif r.go_out_discard == "required":
        return ("go_out_discard", "going out ends with a discard: keep one card to throw", None)
    sd = mover_side(state)
    if not sd.opened and not r.opening_concealed_exempt:
        got = opening_points(t, state)
        need_pts = state.minimums[state.seat % state.sides]
        if got < need_pts:
            return (
                "opening_minimums",
                f"the side has not opened: its melds make {got} points, the minimum is {need_pts}",
                None,
            )
    done, clean, dirty = going_out_counts(t, sd.melds)
    if done < r.go_out_min_completed:
        return (
            "go_out_min_completed",
            f"going out needs {r.go_out_min_completed} finished canastas or sambas; the side has {done}",
            None,
        )
    if clean < r.go_out_min_clean:
        return ("go_out_min_clean", f"going out needs {r.go_out_min_clean} clean canastas", None)
    if r.go_out_wait_after_clean and min(clean, state.clean_start) < r.go_out_min_clean:
        return (
            "go_out_wait_after_clean",
            "not in the turn the needed clean canasta was finished",
            None,
        )
    if dirty < r.go_out_min_dirty:
        return ("go_out_min_dirty", f"going out needs {r.go_out_min_dirty} dirty canastas", None)
    return None


def with_melds(state: State, melds: tuple[Meld, ...], hand: tuple[int, ...]) -> State:
    """The state with the mover's side holding `melds` and the mover holding `hand`."""
    i = state.seat % state.sides
    sd = state.table[i]
    table = (*state.table[:i], Side(melds, sd.red_threes, sd.opened), *state.table[i + 1 :])
    hands = (*state.hands[: state.seat], hand, *state.hands[state.seat + 1 :])
    return state._replace(table=table, hands=hands)


def one_card_ok(t: Tables, state: State) -> bool:
    """With one card left: can the player go out with it, by discarding or melding it?"""
    hand = state.hands[state.seat]
    if len(hand) != 1 or state.held:
        return False
    if go_out_problem(t, state, by_discard=True) is None:
        return True
    c = hand[0]
    melds = mover_side(state).melds
    for i, m in enumerate(melds):
        if add_problem(t, m, c) is None:
            grown = tuple(
                sorted(
                    (*melds[:i], m._replace(cards=tuple(sorted((*m.cards, c)))), *melds[i + 1 :])
                )
            )
            if go_out_problem(t, with_melds(state, grown, ()), by_discard=False) is None:
                return True
    return False


def can_go_out(t: Tables, state: State) -> bool:
    """Whether some sequence of actions lets the mover go out in this turn."""
    r = t.rules
    if state.answer == "no":
        return False
    sd = mover_side(state)
    hand = state.hands[state.seat]
    mode = "forbidden" if state.no_discard else r.go_out_discard
    pts = t.points
    not_opened = not sd.opened
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
    # cheap necessary conditions first: enough cards to finish the canastas needed, and at most
    # one card (the discard) that nothing could take
    done, clean, dirty = going_out_counts(t, sd.melds)
    if nd.wait and min(clean, state.clean_start) < nd.clean:
        return False
    more = completions_bound(t, len(hand), sd.melds)
    if done + more < nd.completed or clean + more < nd.clean or dirty + more < nd.dirty:
        return False
    tb = table_of(t, sd.melds)
    lost = homeless(t, hand, tb)
    if len(lost) > 1 or (lost and mode == "forbidden"):
        return False
    slack = None
    if not_opened and not r.opening_concealed_exempt:
        slack = cur + sum(pts[c] for c in hand) - minimum
        if slack < 0:
            return False
    if lost:
        # the one card nothing could take must be the discard
        if slack is not None and pts[lost[0]] > slack:
            return False
        return places_all(t, remove(hand, lost), sd.melds, nd, tb)
    spare = {"optional": "upto1", "required": "one"}.get(mode, "none")
    return places_all(t, hand, sd.melds, nd, tb, spare, slack)
