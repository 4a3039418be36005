"""Fast random hands: a whole hand played without building the states in between.

`play_hand` deals from a deck order and plays every turn with the play
``legal_actions(rules, s)[choose(len(legal_actions(rules, s)))]`` — exactly what stepping with
`legal_actions` and `apply` would do with the same ``choose`` — and returns the state at the end of
the hand. It exists for simulation and benchmarks; tests check it against the stepwise model.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Sequence

from arbitro.model.escoba.cards import cards_of, mask_of, tables
from arbitro.model.escoba.dealing import deal
from arbitro.model.escoba.seats import turn_order
from arbitro.model.escoba.state import EscobaState
from arbitro.model.escoba.turn import end_hand
from arbitro.model.schema import EscobaRules

Chooser = Callable[[int], int]
"""Given how many legal plays there are, the index of the one to make (e.g. ``rng.randrange``)."""


def play_hand(
    rules: EscobaRules, state: EscobaState, order: Sequence[int], choose: Chooser
) -> EscobaState:
    """Deal ``order`` and play the hand out with ``choose``; the state after the hand."""
    s = deal(rules, state, order)
    t = tables(rules)
    seating = s.seating
    players = seating.players
    sides = seating.sides
    seats = turn_order(rules, players, s.dealer)
    deals = t.deals[players]
    values = t.values
    shift = t.shift
    pm = t.poly_mask
    lane = t.lane
    lm = t.lane_mask
    target = t.target
    top = t.most_needed
    forced = rules.capture_forced
    table = s.table
    stock = s.stock
    piles = list(s.piles)
    escobas = list(s.escobas)
    last = s.last_capturer
    # by card: lane * (what it needs from the table), or -1 when no group can be worth that
    need_shift = [lane * (target - v) if 0 < target - v <= top else -1 for v in values]
    lay_extra = 0 if forced else 1  # a capturing card may also be laid when capture is optional
    # hands as ascending lists of cards; the table's cards ascending with their prefix
    # subset-count polynomials
    hands = [sorted(cards_of(h)) for h in s.hands]
    cards = sorted(cards_of(table))
    size = rules.redeal_size
    per_deal = players * size
    for d in range(1, deals + 1):
        if d == 1:
            rounds = rules.hand_size
        else:
            for j, seat in enumerate(seats):
                hands[seat] = sorted(stock[j:per_deal:players])
            extra = stock[per_deal : per_deal + rules.redeal_table]
            for x in extra:
                table |= 1 << x
            cards = sorted(cards_of(table))
            stock = stock[per_deal + rules.redeal_table :]
            rounds = size
        for _ in range(rounds):
            for seat in seats:
                polys = [1]
                p = 1
                for x in cards:
                    p = (p + (p << shift[x])) & pm
                    polys.append(p)
                hand = hands[seat]
                counts = []
                total = 0
                for c in hand:
                    ns = need_shift[c]
                    n = (p >> ns) & lm if ns >= 0 else 0
                    counts.append(n)
                    total += n + lay_extra if n else 1
                k = choose(total)
                if not 0 <= k < total:
                    raise IndexError(f"choose({total}) gave {k}, not an index of the legal plays")
                j = 0
                for n in counts:
                    width = n + lay_extra if n else 1
                    if k < width:
                        break
                    k -= width
                    j += 1
                c = hand.pop(j)
                k -= lay_extra if n else 1  # k < 0: the card is laid
                bit = 1 << c
                if k >= 0:
                    need = target - values[c]
                    cap = 0
                    i = len(cards)
                    while need:
                        i -= 1
                        without = (polys[i] >> lane * need) & lm
                        if k >= without:
                            k -= without
                            x = cards[i]
                            cap |= 1 << x
                            need -= values[x]
                    side = seat % sides
                    table ^= cap
                    cards = [x for x in cards if not cap >> x & 1]
                    piles[side] |= cap | bit
                    if not table:
                        escobas[side] += 1
                    last = side
                else:
                    table |= bit
                    insort(cards, c)
    hands_left = tuple(mask_of(h) for h in hands)
    return end_hand(rules, s, deals, hands_left, table, tuple(piles), tuple(escobas), last)


def play_hand_stepwise(
    rules: EscobaRules, state: EscobaState, order: Sequence[int], choose: Chooser
) -> EscobaState:
    """The same as `play_hand` through the public model, one state per play (the reference)."""
    from arbitro.model.escoba.capture import legal_actions
    from arbitro.model.escoba.turn import apply

    s = deal(rules, state, order)
    while s.phase == "play":
        actions = legal_actions(rules, s)
        s = apply(rules, s, actions[choose(len(actions))])
    return s
