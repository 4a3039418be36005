"""Contracts on Escoba's `legal_actions` and `apply`, for CrossHair to check symbolically.

Each contract is a function of a few small ints that starts with its precondition (leading
`assert` statements: CrossHair's ``asserts`` kind) and then states what must hold of the engine's
answer. The ints name a position: the seating (by its index in the book's seatings), the seat to
move, the deal, and the ranks (0-9, a negative int: no card) of up to three cards in the mover's
hand and up to six on the table; each card takes the first suit, from its slot's own on, in which
its rank is free (the ranks decide which captures exist; five of one rank is no position).
`position` builds the
rest of the state from them — the other hands, the stock and the captured piles take the pack's
other cards, lowest first — and the precondition asks the engine's own whole-state check
(`violations`) that it is a state of play the rules allow: the right hand sizes for the deal and
the seat to move, the stock as long as the deals to come need. The contracts then go over every
play `legal_actions` lists:

- `cards_conserved`: after `apply`, every card of the pack is in exactly one place, the mover's
  hand lost the card played, and a capture moved the card and the group into the mover's side's
  captures (escoba-es:suits, escoba-es:capture-sum);
- `captures_sum_to_target`: each listed capture takes cards from the table worth, with the card
  played, the rules' capture sum; each group `capture_groups` finds is listed
  (escoba-es:capture-sum, escoba-es:capture-choice);
- `capture_forced`: under rules that force captures a card is laid only when no group of the
  table makes the sum with it, and a card that can capture is never laid (escoba-es:capture-forced);
- `capture_effects`: while the deal goes on, a capture moves its group and the card played to the
  mover's side's pile, makes that side the last to capture and is an escoba exactly when it
  leaves the table bare; a lay puts its card on the table (escoba-es:escoba-points,
  escoba-es:last-capturer-takes-rest);
- `turn_passes`: after `apply` the next seat in the play direction is to move while a hand holds a
  card, the seat after the dealer once every hand is empty and a deal is left (with the hands
  dealt again), nobody at the end of the hand (escoba-es:play-direction, escoba-es:redeal-size,
  escoba-es:deals-per-hand).

Nothing here reimplements the engine: the expected values are read from the rules (the capture
values and sum, the play direction, the deal sizes) and from the state before the play. The
contracts are plain functions: called on concrete ints they check one position (a test does so on
positions of random play, so they hold where the engine is right); `benchmarks/crosshair_escoba.py`
runs CrossHair on them.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from arbitro.model.escoba.capture import capture_groups, legal_actions
from arbitro.model.escoba.cards import (
    RANK_NAMES,
    RANKS,
    SUIT_NAMES,
    card,
    cards_of,
    mask_of,
    rank_of,
    tables,
)
from arbitro.model.escoba.checks import expected_hands, violations
from arbitro.model.escoba.dealing import deals_in_hand
from arbitro.model.escoba.seats import next_seat, seatings, turn_order
from arbitro.model.escoba.state import NOBODY, EscobaState, Play
from arbitro.model.escoba.turn import apply
from arbitro.model.schema import EscobaRules, rules_for
from arbitro.model.spec import rulebook_ids


def rulebook() -> str:
    """The rulebook the contracts are checked under: the first registered book of the Escoba
    family (its rules are `EscobaRules`), read from the specs rather than named here."""
    for book in rulebook_ids():
        if isinstance(rules_for(book), EscobaRules):
            return book
    raise LookupError("no rulebook of the Escoba family is registered")


DEALER: Final = 0
"""Who deals in every position built: seats are symmetric under rotation."""

_RULES: list[EscobaRules] = []
"""The rules the contracts are checked under, loaded once (`prepare`): CrossHair runs without the
spec loader's caches, so a load inside a contract would parse the spec again on every path."""


def prepare(**changes: object) -> EscobaRules:
    """Loads the rules of `rulebook()`, with ``changes`` to its fields (e.g. ``capture_forced=False``),
    as the rules every contract is checked under from now on (a checker calls it before
    CrossHair runs)."""
    rules = rules_for(rulebook())
    assert isinstance(rules, EscobaRules)
    if changes:
        rules = dataclasses.replace(rules, **changes)  # type: ignore[arg-type]
    _RULES[:] = [rules]
    return rules


def contract_rules() -> EscobaRules:
    """The rules the contracts are checked under (`rulebook()`'s unless `prepare` changed them).

    The same object every time, and so the same lookup tables of the engine: nothing symbolic
    reaches the engine (see `pick`), so its caches keep only plain values from path to path.
    """
    return _RULES[0] if _RULES else prepare()


SURE_SLOTS: Final = 3
"""The table's slots that CrossHair's paths fill more often than not (see `position`)."""


def pick(value: int, options: range) -> int:
    """The option ``value`` names, found by comparisons: every int names one (those below the
    range its first option, those above it its last), so that no path of CrossHair's is spent on
    an int out of range, and the option is a plain int the engine can index with.

    The comparisons split the options a quarter below, three quarters above: CrossHair's path
    search takes the true side of a new branch one time in four, so each option is reached
    about as often as the others (halving would reach the last options far more often, a linear
    search the first ones).
    """
    low, high = options[0], options[-1]
    while low < high:
        mid = low + (high - low) // 4
        if value <= mid:
            high = mid
        else:
            low = mid + 1
    return low


def position(
    rules: EscobaRules, seating: int, mover: int, deal: int, held: list[int], table: list[int]
) -> EscobaState | None:
    """The state in play named by the ints (see the module's docstring), or None when they name
    none: a rank named five times, hand sizes no seat to move has, a state `violations`
    refuses."""
    seats = seatings(rules)
    chair = seats[pick(seating, range(len(seats)))]
    players, sides, layout = chair.players, chair.sides, chair.layout
    seat_to_move = pick(mover, range(players))
    deals = deals_in_hand(rules, players)
    number = pick(deal, range(1, deals + 1))
    t = tables(rules)
    mine: list[int] = []
    laid: list[int] = []
    taken = 0
    for slot, rank in enumerate([*held, *table]):
        # a negative rank: no card in this slot. CrossHair takes a new branch's true side one
        # time in four, so asked "is it negative?" the mover's slots and the table's first
        # three hold a card three times in four, asked "is it not?" the table's last three once
        # in four: tables of every size, bare to six cards, are met
        if slot < len(held) + SURE_SLOTS:
            if rank < 0:
                continue
        elif rank >= 0:
            pass
        else:
            continue
        r = pick(rank, range(RANKS))
        # the first suit of the pack, from the slot's own on, in which this rank is not taken
        # (a rank in all four suits already is no position)
        for k in range(len(SUIT_NAMES)):
            c = card((slot + k) % len(SUIT_NAMES), r)
            if t.full >> c & 1 and not taken >> c & 1:
                taken |= 1 << c
                (mine if slot < len(held) else laid).append(c)
                break
        else:
            return None
    chosen = mine + laid
    size = rules.hand_size if number == 1 else rules.redeal_size
    sizes: tuple[int, ...] | None = None
    for row, seat in expected_hands(rules, t, players, DEALER, size):
        if seat == seat_to_move and row[seat] == len(mine):
            sizes = row
    if sizes is None:
        return None
    free = [c for c in t.deck if c not in chosen]
    hands = []
    for seat in range(players):
        if seat == seat_to_move:
            hands.append(mask_of(mine))
        else:
            hands.append(mask_of(free[: sizes[seat]]))
            free = free[sizes[seat] :]
    stock_size = (deals - number) * (players * rules.redeal_size + rules.redeal_table)
    if stock_size > len(free):
        return None
    stock = tuple(free[:stock_size])
    rest = free[stock_size:]
    piles = tuple(mask_of(rest[side::sides]) for side in range(sides))
    last = 0 if piles[0] else NOBODY
    zeros = (0,) * sides
    state = EscobaState(
        players, sides, layout, "play", DEALER, seat_to_move, 1, number, tuple(hands),
        mask_of(laid), stock, piles, zeros, last, zeros, None,
    )  # fmt: skip
    if violations(rules, state):
        return None
    return state


def zones(state: EscobaState) -> list[int]:
    """Every place a card can be, as a pile: each hand, the table, each side's captures, each
    position of the stock."""
    return [*state.hands, state.table, *state.piles, *(1 << c for c in state.stock)]


def worth(rules: EscobaRules, pile: int) -> int:
    """The capture values of a pile's cards, added up, read from the rules' own list of values by
    rank (escoba-es:capture-values), not from the engine's tables."""
    total = 0
    for c in cards_of(pile):
        total += rules.capture_values[rules.ranks.index(RANK_NAMES[rank_of(c)])]
    return total


def each_play(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
    """The plays `legal_actions` lists, at least one (a seat to move holds a card)."""
    plays = legal_actions(rules, state)
    assert plays, "a seat holding cards has no legal play"
    return plays


def cards_conserved(
    seating: int, mover: int, deal: int, h0: int, h1: int, h2: int,
    t0: int, t1: int, t2: int, t3: int, t4: int, t5: int,
) -> None:  # fmt: skip
    """After every legal play, every card of the pack is in exactly one place, the card played
    left the mover's hand, and a capture put the card and its group in the mover's side's pile."""
    assert position(contract_rules(), seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    rules = contract_rules()
    state = position(rules, seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    assert state is not None
    full = tables(rules).full
    for play in each_play(rules, state):
        after = apply(rules, state, play)
        seen = 0
        for pile in zones(after):
            assert not seen & pile, f"{play}: a card is in two places"
            seen |= pile
        assert seen == full, f"{play}: cards {bin(full & ~seen)} are nowhere"
        if after.phase == "play" and after.deal_number == state.deal_number:
            assert not after.hands[play.seat] >> play.card & 1, f"{play}: the card is still held"
        side = play.seat % state.sides
        if play.capture:
            won = play.capture | 1 << play.card
            assert after.piles[side] & won == won, f"{play}: the capture is not in its pile"


def captures_sum_to_target(
    seating: int, mover: int, deal: int, h0: int, h1: int, h2: int,
    t0: int, t1: int, t2: int, t3: int, t4: int, t5: int,
) -> None:  # fmt: skip
    """Every listed capture takes table cards worth the capture sum with the card played, by the
    seat to move and of a card it holds; every group `capture_groups` finds is listed."""
    assert position(contract_rules(), seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    rules = contract_rules()
    state = position(rules, seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    assert state is not None
    plays = each_play(rules, state)
    for play in plays:
        assert play.seat == state.to_move, f"{play}: not the seat to move"
        assert state.hands[play.seat] >> play.card & 1, f"{play}: the card is not held"
        if play.capture:
            assert play.capture & ~state.table == 0, f"{play}: takes cards not on the table"
            total = worth(rules, play.capture | 1 << play.card)
            assert total == rules.capture_sum, f"{play}: makes {total}, not {rules.capture_sum}"
    hand = state.hands[state.to_move]
    for c in range(64):
        if hand >> c & 1:
            for group in capture_groups(rules, state.table, c):
                assert Play(state.to_move, c, group) in plays, f"card {c} taking {group} unlisted"


def capture_forced(
    seating: int, mover: int, deal: int, h0: int, h1: int, h2: int,
    t0: int, t1: int, t2: int, t3: int, t4: int, t5: int,
) -> None:  # fmt: skip
    """Under forced capture a card is laid only when it can take nothing; otherwise every card held
    can be laid. Every card held is played somehow."""
    assert position(contract_rules(), seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    rules = contract_rules()
    state = position(rules, seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    assert state is not None
    plays = each_play(rules, state)
    laid = {p.card for p in plays if not p.capture}
    taking = {p.card for p in plays if p.capture}
    hand = state.hands[state.to_move]
    for c in range(64):
        if hand >> c & 1:
            assert c in laid or c in taking, f"card {c} is held but has no play"
            if rules.capture_forced:
                assert not (c in laid and c in taking), f"card {c} can capture and is laid"
                if c in laid:
                    groups = capture_groups(rules, state.table, c)
                    assert not groups, f"card {c} is laid but could take {groups}"
            else:
                assert c in laid, f"card {c} cannot be laid where capture is not forced"


def capture_effects(
    seating: int, mover: int, deal: int, h0: int, h1: int, h2: int,
    t0: int, t1: int, t2: int, t3: int, t4: int, t5: int,
) -> None:  # fmt: skip
    """After every legal play that the next seat follows in the same deal: a capture takes its
    group off the table into the mover's side's pile with the card played, makes that side the
    last to capture, and is an escoba exactly when it leaves the table bare; a lay puts the card
    on the table; no other side's pile or escobas change."""
    assert position(contract_rules(), seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    rules = contract_rules()
    state = position(rules, seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    assert state is not None
    for play in each_play(rules, state):
        after = apply(rules, state, play)
        if after.phase != "play" or after.deal_number != state.deal_number:
            continue  # a deal or the hand's end follows: turn_passes and cards_conserved judge it
        side = play.seat % state.sides
        piles, escobas = list(state.piles), list(state.escobas)
        if play.capture:
            table = state.table & ~play.capture
            piles[side] |= play.capture | 1 << play.card
            escobas[side] += 0 if table else 1
            last = side
        else:
            table = state.table | 1 << play.card
            last = state.last_capturer
        assert after.table == table, f"{play}: the table is {after.table:#x}, not {table:#x}"
        assert list(after.piles) == piles, f"{play}: the captured piles are {after.piles}"
        assert list(after.escobas) == escobas, f"{play}: escobas {after.escobas}, not {escobas}"
        assert after.last_capturer == last, f"{play}: side {after.last_capturer} captured last"


def turn_passes(
    seating: int, mover: int, deal: int, h0: int, h1: int, h2: int,
    t0: int, t1: int, t2: int, t3: int, t4: int, t5: int,
) -> None:  # fmt: skip
    """After every legal play: the next seat in the play direction moves while a hand holds a
    card; once every hand is empty, the seat after the dealer moves with the hands dealt again if
    a deal is left, else nobody moves and the hand is over."""
    assert position(contract_rules(), seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    rules = contract_rules()
    state = position(rules, seating, mover, deal, [h0, h1, h2], [t0, t1, t2, t3, t4, t5])
    assert state is not None
    players = state.players
    deals = deals_in_hand(rules, players)
    for play in each_play(rules, state):
        after = apply(rules, state, play)
        held_after = [h & ~(1 << play.card) for h in state.hands]
        if any(held_after):
            want = next_seat(rules, players, play.seat)
            assert after.phase == "play", f"{play}: the hand ended with cards held"
            assert after.to_move == want, f"{play}: seat {after.to_move} moves, not {want}"
            assert after.deal_number == state.deal_number, f"{play}: dealt with cards held"
        elif state.deal_number < deals:
            first = turn_order(rules, players, state.dealer)[0]
            assert after.phase == "play", f"{play}: the hand ended with a deal left"
            assert after.to_move == first, f"{play}: seat {after.to_move} moves, not {first}"
            assert after.deal_number == state.deal_number + 1, f"{play}: no new deal"
            sizes = [h.bit_count() for h in after.hands]
            assert sizes == [rules.redeal_size] * players, f"{play}: dealt {sizes}"
        else:
            assert after.phase in ("deal", "over"), f"{play}: the hand goes on after its last card"
            assert after.to_move == NOBODY, f"{play}: seat {after.to_move} moves after the hand"
