"""Positions random play rarely meets, built for `prove --refine` to check (Samba and Canasta).

Each is a deck order stacked from the rules' card classes (never from a rulebook's name), dealt by
the engine and played on by a fixed chooser over the engine's own legal actions, so that the
refiner (`arbitro.proofs.rummy.refine`) checks every state on the way:

- **the upcard covered twice** (*:upcard-cover): the cards after the hands are two of covered
  classes and then one of no covered class, so the deal must cover the upcard, then cover the
  covering card, before a card that stays up shows;
- **the last card of the stock a red three** (*:last-red-three-ends-hand, *:stock-out): the hands
  and the upcard hold no red three and the deck's last card is one; the chooser draws and
  discards until the stock runs out, so the draw that takes that red three is checked (it stops
  play without a discard exactly where the book says so);
- **a red three replaced by a red three** (*:red-three-initial-replacement): where the deal
  replaces red threes, the first card dealt is one and the first card of the stock, drawn to
  replace it, is another, so the deal must lay that one out too and draw again;
- **an escalera at its maximum** (*:sequence-max): the first player holds one card more than
  the longest escalera, in a row of one suit, and the growing chooser lays it and grows it to its
  maximum, so a state holds the escalera and the card that would extend it past the book's
  limit (the refiner asks the engine to refuse that addition);
- **a wild meld at its finished size** (*:completed-size, where *:wild-canasta lays wild melds):
  the first player holds one wild more than a finished meld and nothing else that melds; the
  same chooser lays the wilds, grows the meld to its finished size and keeps a wild;
- **the stock run out** (*:stock-out, where it forces a take onto a meld only): seeded deals
  drawn and discarded to the stock's end, with hands grown long, so the pile is offered with the
  stock exhausted to a player holding a pair of its top card's rank;
- **a finished set beside an unfinished one of its rank** (*:merge-sets, where sets of one rank
  merge and a side may keep several): the first player lays two sets of kings at once and adds
  the kings it draws later to the newer one until it is finished;
- **a red three under the upcard** (*:upcard-cover, where a red three upcard is covered): the
  upcard is a red three covered by a king, and the first player holds two kings and two sets,
  so the growing chooser takes the pile, red three and all, on its first turn;
- **black threes melded to go out** (*:black-threes-meld): the mover holding three black threes
  and a wild with one card to discard (two-card draws), or going out with all black threes of
  the deck but one melded, the last in an opponent's hand (one-card draws, a partner);
- **eager hands**: seeded deals played by a chooser that takes the pile whenever the engine
  allows it and lays and adds at once, so the pile is taken early and often, by sides that have
  opened and by sides that have not, and players go out; one of them keeps its wilds and threes
  when it discards, so the pile stays unfrozen while sides open from the hand and the top card
  alone onto a meld is asked before anybody has taken the pile (*:pile-add-after).

Implements, as positions to check, *:upcard-cover, *:last-red-three-ends-hand,
*:red-three-initial-replacement, *:sequence-max, *:completed-size, *:stock-out, *:merge-sets
and, through the eager hands, *:pile-add-after, *:pile-wild-pair-after, *:frozen-by and
*:blocked-by-top.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arbitro.model.game import Seating
from arbitro.model.rummy.model import RUMMY
from arbitro.model.schema import RummyRules
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.moves import in_classes

PREFERRED = ("draw", "discard")
"""The chooser's order: the first legal action of the first of these types, else the engine's
first legal action (a red three's replacement, a question answered, the end of play)."""
MAX_STEPS = 600
"""A played position stops after this many actions (the stock of the largest deck runs out
well before)."""

Position = tuple[int, list[int], list[dict[str, Any]]]
"""(dealer, deck order, the actions from the deal as the engine's JSON)."""


def _kind(card: int) -> int:
    return C.kind_of(RUMMY.card_name(card))


def _need(rules: RummyRules, seating: Seating) -> int:
    """How many cards the deal hands out before the upcard."""
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    return lay.players * lay.hand_size


def upcard_twice(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose upcard and the card covering it are both of covered classes, the next
    card of none; None when the book covers no class or the deck has too few such cards."""
    deck = sorted(RUMMY.deck(rules, seating))
    covered = [c for c in deck if in_classes(_kind(c), rules.upcard_cover)]
    # plain: neither covered nor a red three (a red three dealt would be replaced from the stock)
    plain = [c for c in deck if c not in covered and _kind(c) not in C.RED_THREES]
    need = _need(rules, seating)
    if len(covered) < 2 or len(plain) < need + 1:
        return None
    # two covered cards of different kinds where the deck has them: a wild under another class
    first = covered[0]
    second = next((c for c in covered if _kind(c) != _kind(first)), covered[1])
    order = [*plain[:need], first, second, plain[need]]
    return _complete(deck, order)


def last_red(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose hands and upcard hold no red three and whose last card is one."""
    deck, reds, plain = _reds_and_plain(rules, seating)
    need = _need(rules, seating)
    if not reds or len(plain) < need + 1:
        return None
    head = [*plain[: need + 1], reds[0]]
    return [*head[:-1], *_complete(deck, head)[len(head) :], reds[0]]


def red_for_red(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first card dealt is a red three and whose first card after the hands
    (its replacement, where red threes are replaced at the deal) is another, replaced in turn by
    a plain card; None when the book replaces red threes later or the deck has one red three."""
    if rules.red_three_initial_replacement != "at_deal":
        return None
    deck, reds, plain = _reds_and_plain(rules, seating)
    need = _need(rules, seating)
    if len(reds) < 2 or len(plain) < need + 1:
        return None
    return _complete(deck, [reds[0], *plain[: need - 1], reds[1], *plain[need - 1 : need + 1]])


def long_escalera(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first player holds the top *:sequence-max + 1 escalera ranks of one
    suit, the rest of the hand cards that meld with nothing (black threes, naturals of other
    ranks, no two of a rank), and draws cards of the run's ranks in other suits: the growing
    chooser lays an escalera, grows it to its maximum and keeps the card that would extend it
    once more, in a state whose additions the refiner compares. None without escaleras, or
    when the hand is too small."""
    if not rules.sequences or rules.sequence_max < 1:
        return None
    ranks = C.sequence_positions(rules)[-(rules.sequence_max + 1) :]
    if len(ranks) <= rules.sequence_max:
        return None
    spade = C.SUITS.index("S")
    draws = [C.kind(r, (r + s) % 3) for s in (0, 1, 2) for r in ranks]
    return _stacked(rules, seating, [C.kind(r, spade) for r in ranks], ranks, draws)


def long_wild_meld(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first player holds one wild card more than a finished wild meld
    (*:completed-size), the rest of the hand cards that meld with nothing: the growing chooser
    lays a meld of wilds alone, grows it to the finished size and keeps one wild, in a state
    whose additions the refiner compares (a finished wild meld takes no more). None where wild
    melds are not laid (*:wild-canasta) or the hand is too small."""
    if not rules.wild_canasta or rules.completed_size < 1:
        return None
    wilds = [k for k in range(C.KINDS) if C.is_wild(k)]
    core = [wilds[i % len(wilds)] for i in range(rules.completed_size + 1)]
    reserved = C.NATURAL_RANKS[-3:]  # drawn, never dealt to the first player: no pair in hand
    draws = [C.kind(r, s) for s in (0, 1, 2) for r in reserved]
    return _stacked(rules, seating, core, reserved, draws)


def finished_beside_unfinished(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first player lays two sets of one rank at once and then, over two more
    turns, draws four more naturals of it, which the SPLITTING chooser adds to the newer set:
    the side holds an unfinished set beside a finished one of the same rank, where *:merge-sets
    lets two sets of a rank merge (only unfinished ones do, in the model's reading), and the
    refiner compares the merges the engine lists there. None where sets do not merge, a side
    keeps one set per rank, or the hand is too small."""
    if not rules.merge_sets or not rules.several_sets_same_rank or rules.draw_count < 1:
        return None
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    king = C.RANKS.index("K")
    kings = [C.kind(king, s) for s in range(4)]
    size = 2 * max(rules.set_min, rules.set_start_min_naturals)
    more = rules.completed_size - size // 2
    core = [kings[i % 4] for i in range(size)]
    later = [kings[(size + i) % 4] for i in range(more)]
    drawn = [r for r in C.NATURAL_RANKS if r != king][-6:]  # never in the first hand: no pair
    reserved = (king, *drawn)
    plain = [C.kind(r, s) for r in drawn for s in range(4)]
    # the stock after the hands: the upcard, then each player's draws, round by round; the
    # first player's draws of the second turn on are the later kings
    rounds = 1 + -(-more // rules.draw_count)
    if 1 + rounds * lay.players * rules.draw_count - more > len(plain):
        return None  # one pack's worth of each drawn rank is all this counts on
    draws: list[int] = [plain.pop()]
    for r in range(rounds):
        for p in range(lay.players):
            for _ in range(rules.draw_count):
                draws.append(later.pop() if p == 0 and r > 0 and later else plain.pop())
    if later:
        return None
    return _stacked(rules, seating, core, reserved, draws, exact=True)


def _stacked(
    rules: RummyRules, seating: Seating, core: list[int], ranks: Sequence[int], draws: list[int],
    exact: bool = False,
) -> list[int] | None:  # fmt: skip
    """A deck order whose first player holds the cards of kinds `core` and fills the hand with
    cards that meld with nothing (black threes, one natural of each rank not in `ranks`), the
    cards of kinds `draws` then first in the stock (the upcard and the first draws; with `exact`,
    every one of them or None); the other
    hands get cards of no covered class and no red three, so nothing is replaced at the deal.
    None when the deck or the hand cannot hold that."""
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    n, size = lay.players, lay.hand_size
    if size < len(core) + 2:
        return None
    deck = sorted(RUMMY.deck(rules, seating))
    left = list(deck)
    take = _taker(left)

    mine = [take(k) for k in core]
    if None in mine:
        return None
    fillers = [take(k) for k in C.BLACK_THREES for _ in range(3)]
    fillers += [take(C.kind(r, (r + 1) % 3)) for r in C.NATURAL_RANKS if r not in ranks]
    hand = [c for c in (*mine, *fillers) if c is not None][:size]
    if len(hand) < size:
        return None
    others = [c for c in (take(k) for k in draws) if c is not None]
    if exact and len(others) < len(draws):
        return None  # the draws must come in the order given
    plain = [
        c
        for c in left
        if _kind(c) not in C.RED_THREES and not in_classes(_kind(c), rules.upcard_cover)
    ]
    need = n * size
    if len(plain) < need - size or len(others) < 4:
        return None
    order: list[int] = []
    rest = iter(plain)
    for i in range(need):
        order.append(hand[i // n] if i % n == 0 else next(rest))
    return _complete(deck, [*order, *others])


def black_threes_and_a_wild(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first player opens with two sets and a finished set of kings in its
    first turn, keeping all but one of *:set-min black threes, and draws the last black three
    and a wild in its second turn: the mover can then go out holding the black threes and a
    wild, where the refiner asks the engine to lay them together (*:black-three-meld-wilds).
    None where black threes are never melded, a turn draws one card, or the hand does not hold
    exactly those cards."""
    if rules.black_threes_meld == "never" or rules.draw_count < 2:
        return None
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    king, queen, jack = (C.RANKS.index(x) for x in ("K", "Q", "J"))
    size = max(rules.set_min, rules.set_start_min_naturals)
    blacks = [C.BLACK_THREES[i % 2] for i in range(rules.set_min)]
    # one suit per rank of the sets: no escalera to lay instead of them
    first = [
        *(C.kind(king, i % 4) for i in range(rules.completed_size)),
        *(C.kind(queen, 0) for _ in range(size)),
        *(C.kind(jack, 1) for _ in range(size)),
        *blacks[1:],
    ]
    d, n = rules.draw_count, lay.players
    singles = _singles(rules, (king, queen, jack), 1 + n * d + d - 2)
    if singles is None or len(first) != lay.hand_size:
        return None
    wild = next(k for k in range(C.KINDS) if C.is_wild(k))
    # the upcard, the first turn's draws and the others', then the black three and the wild
    head = [*singles[: 1 + n * d], blacks[0], wild, *singles[1 + n * d :]]
    hands: dict[int, list[int]] = {0: first}
    if lay.sides < n:  # the partner holds nothing that would let it go out on the side's canasta
        partner = _meldless((king, queen, jack), lay.hand_size)
        if partner is None:
            return None
        hands[lay.sides] = partner
    return _arranged(rules, seating, hands, head, (king, queen, jack))


def all_blacks_but_one(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose first player finishes a clean set of kings in its first turn and
    keeps every black three of the deck but one, which the next player (an opponent) holds; the
    partner lays an unfinished set of queens with wilds, which the first player's next draw, a
    queen, finishes (*:go-out-min-completed and its clean and dirty counts,
    *:go-out-wait-after-clean): that player then goes out melding all but one black three, which
    does not earn *:black-threes-all-melded-bonus. None without a partner, where black threes
    are never melded, a turn draws other than one card, or the hands do not hold those cards."""
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    if rules.black_threes_meld == "never" or rules.draw_count != 1 or lay.sides >= lay.players:
        return None
    king, queen = C.RANKS.index("K"), C.RANKS.index("Q")
    blacks = [
        k for k in (_kind(c) for c in sorted(RUMMY.deck(rules, seating))) if k in C.BLACK_THREES
    ]
    n, size = lay.players, lay.hand_size
    singles = _singles(rules, (king, queen), 2 * size + n + 1)
    naturals = rules.completed_size - 1 - rules.wild_cap
    if singles is None or naturals < max(1, rules.set_start_min_naturals):
        return None
    first = [*(C.kind(king, i % 4) for i in range(rules.completed_size)), *blacks[1:]]
    if len(first) > size:
        return None
    extra = size - len(first)
    first += singles[:extra]
    wilds = [k for k in range(C.KINDS) if C.is_wild(k)]
    partner = [
        *(C.kind(queen, i % 4) for i in range(naturals)),
        *(wilds[i % len(wilds)] for i in range(rules.wild_cap)),
    ]
    more = size - len(partner)
    partner += singles[extra : extra + more]
    # the upcard, a round of draws (none pairs a single the partner holds), then the queen
    head = [*singles[extra + more : extra + more + 1 + n], C.kind(queen, 3)]
    return _arranged(
        rules, seating, {0: first, 1: [blacks[0]], lay.sides: partner}, head, (king, queen)
    )


def red_three_under_the_upcard(rules: RummyRules, seating: Seating) -> list[int] | None:
    """A deck order whose upcard is a red three, covered by a king (*:upcard-cover), and whose
    first player holds two kings and two sets to open with: the growing chooser takes the pile, red
    three and all, on the first turn, so the step that lays out a red three taken with the pile
    (*:red-three-initial-replacement) is checked. None where a red three upcard is not covered
    or the hand is too small."""
    if not any(in_classes(k, rules.upcard_cover) for k in C.RED_THREES):
        return None
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    king, queen, jack = (C.RANKS.index(x) for x in ("K", "Q", "J"))
    size = max(rules.set_min, rules.set_start_min_naturals)
    first = [C.kind(king, 1), C.kind(king, 2)]
    # two suits per rank, none shared by three ranks in a row: no escalera among them
    first += [C.kind(queen, (0, 3)[i % 2]) for i in range(size)]
    first += [C.kind(jack, (1, 2)[i % 2]) for i in range(size)]
    if len(first) > lay.hand_size:
        return None
    red = next(k for k in C.RED_THREES if in_classes(k, rules.upcard_cover))
    return _arranged(rules, seating, {0: first}, [red, C.kind(king, 0)], (king, queen, jack))


def _singles(rules: RummyRules, ranks: Sequence[int], n: int) -> list[int] | None:
    """`n` natural kinds of ranks other than `ranks`, none of a class that covers the upcard,
    suit by suit (each rank once before any rank twice: no pair among the first of them)."""
    pool = [
        C.kind(r, s)
        for s in range(4)
        for r in C.NATURAL_RANKS
        if r not in ranks and not in_classes(C.kind(r, s), rules.upcard_cover)
    ]
    return pool[:n] if len(pool) >= n else None


def _meldless(ranks: Sequence[int], n: int) -> list[int] | None:
    """`n` natural kinds of ranks other than `ranks` of which no three are of one rank and no
    three of one suit follow each other: two suits per rank, the other two for the next rank."""
    pool = [
        C.kind(r, s + 2 * (i % 2))
        for i, r in enumerate(x for x in C.NATURAL_RANKS if x not in ranks)
        for s in (0, 1)
    ]
    return pool[:n] if len(pool) >= n else None


def _arranged(
    rules: RummyRules, seating: Seating, hands: Mapping[int, Sequence[int]], head: Sequence[int],
    reserved: Sequence[int],
) -> list[int] | None:  # fmt: skip
    """A deck order whose players, counted from the first to play, hold the kinds `hands` gives
    them, filled with plain naturals of no rank in `reserved` (dealt to the short hands in turn,
    so that no hand holds many of a rank), and whose stock starts with the kinds `head` (the
    upcard, then the draws in turn). None when the deck cannot give those cards."""
    lay = next(x for x in rules.layouts if x.name == seating.layout)
    deck = sorted(RUMMY.deck(rules, seating))
    left = list(deck)
    take = _taker(left)

    dealt = [[take(k) for k in hands.get(p, ())] for p in range(lay.players)]
    top = [take(k) for k in head]
    if any(None in h for h in (*dealt, top)) or any(len(h) > lay.hand_size for h in dealt):
        return None
    fill = iter(
        c
        for c in left
        if _kind(c) in C.NATURALS
        and _kind(c) // 4 not in reserved
        and not in_classes(_kind(c), rules.upcard_cover)
    )
    full = [[c for c in h if c is not None] for h in dealt]
    while any(len(h) < lay.hand_size for h in full):
        for h in full:
            if len(h) < lay.hand_size:
                c = next(fill, None)
                if c is None:
                    return None
                h.append(c)
    order = [full[i % lay.players][i // lay.players] for i in range(lay.players * lay.hand_size)]
    return _complete(deck, [*order, *(c for c in top if c is not None)])


def _taker(left: list[int]) -> Callable[[int], int | None]:
    """Takes out of `left` (the cards not yet placed) its first card of a kind; None when it has
    none left."""

    def take(k: int) -> int | None:
        got = next((c for c in left if _kind(c) == k), None)
        if got is not None:
            left.remove(got)
        return got

    return take


def _complete(deck: Sequence[int], head: Sequence[int]) -> list[int]:
    """`head` followed by the rest of the deck (a multiset: copies count), in deck order."""
    left = list(deck)
    for c in head:
        left.remove(c)
    return [*head, *left]


def play(
    rules: RummyRules, seating: Seating, order: Sequence[int], dealer: int = 0,
    preferred: Sequence[str] = PREFERRED, steps: int = MAX_STEPS, keep_wilds: bool = False,
    last_add: bool = False,
) -> Position:  # fmt: skip
    """The deal of `order`, then the chooser's actions (the first legal action of the first type
    of `preferred`, else the first legal action) until the hand ends or `steps` were played.
    With `keep_wilds`, a discard is of the first natural card held that is listed (wilds and
    threes are kept, so the pile is not frozen by a discard). With `last_add`, an addition is
    the last one listed (onto the newest meld)."""
    state: Any = RUMMY.deal(rules, RUMMY.new_game(rules, seating, dealer), order)
    acts: list[dict[str, Any]] = []
    for _ in range(steps):
        if RUMMY.phase(state) != "play":
            break
        legal = RUMMY.legal_actions(rules, state)
        if not legal:
            break
        as_json = [RUMMY.action_to_json(a) for a in legal]
        k = next((i for t in preferred for i, a in enumerate(as_json) if a["type"] == t), 0)
        if keep_wilds and as_json[k]["type"] == "discard":
            natural = (
                i
                for i, a in enumerate(as_json)
                if a["type"] == "discard" and C.kind_of(a["card"]) in C.NATURALS
            )
            k = next(natural, k)
        if last_add and as_json[k]["type"] == "add":
            k = max(i for i, a in enumerate(as_json) if a["type"] == "add")
        acts.append(as_json[k])
        state = RUMMY.apply(rules, state, legal[k])
    return dealer, list(order), acts


GROWING = ("take-pile", "finish-opening", "add", "lay", "draw", "discard")
"""The chooser of the escalera at its maximum: additions before new melds, so one escalera
grows to its maximum rather than two being laid."""
SPLITTING = ("finish-opening", "lay", "add", "draw", "discard")
"""The chooser of the finished set beside an unfinished one: new sets first, additions onto the
newest meld (`play`'s last_add), the pile never taken."""
GROWING_STEPS = 40
"""Its hand is kept that far: the escalera is at its maximum within the first player's turn."""
GOING_OUT = ("finish-opening", "add", "lay", "draw", "discard")
"""The chooser of the black threes melded to go out: melds grown and laid at once, the pile
never taken, wilds and threes kept when it discards (`play`'s keep_wilds), so the first player
goes out with its black threes on its second turn."""
GOING_OUT_STEPS = 80
"""Its hands are kept that far: the first player goes out within the second round."""

Builder = Callable[[RummyRules, Seating], list[int] | None]
BUILDERS: tuple[tuple[Builder, tuple[str, ...], int], ...] = (
    (upcard_twice, PREFERRED, MAX_STEPS),
    (last_red, PREFERRED, MAX_STEPS),
    (red_for_red, PREFERRED, MAX_STEPS),
    (long_escalera, GROWING, GROWING_STEPS),
    (long_wild_meld, GROWING, GROWING_STEPS),
    (finished_beside_unfinished, SPLITTING, GROWING_STEPS),
    (black_threes_and_a_wild, GOING_OUT, GOING_OUT_STEPS),
    (all_blacks_but_one, GOING_OUT, GOING_OUT_STEPS),
    (red_three_under_the_upcard, GROWING, GROWING_STEPS),
)
"""Each built deck order with the chooser that plays it and how many of its actions are kept."""

EAGER = ("take-pile", "finish-opening", "lay", "add", "draw", "discard")
"""The chooser of the eager hands: the pile taken whenever the engine allows it, melds laid and
added to at once; so the pile is taken early and often, by sides that have opened and by sides
that have not (the cases *:pile-wild-pair-after, *:frozen-by and *:blocked-by-top tell apart)."""
EAGER_DEALS = 2
EAGER_STEPS = 150
EAGER_HANDS: tuple[tuple[str, tuple[str, ...], bool, int, tuple[int, ...]], ...] = (
    ("eager", EAGER, False, EAGER_STEPS, tuple(range(EAGER_DEALS))),
    # the pile stays unfrozen while sides open from the hand: the top card alone onto a meld is
    # asked before anybody has taken the pile (*:pile-add-after)
    ("eager, keeping wilds", EAGER, True, EAGER_STEPS, (0,)),
)
"""The seeded hands: (name, chooser, keep_wilds, actions kept, the seeds of their deck orders:
`random.Random(f"eager:{seed}")` shuffles the deck)."""


STOCK_OUT_DEALS = (4,)
"""Seeded deals played by the PREFERRED chooser (draw and discard, nobody melds) until the stock
runs out, where *:stock-out forces a take onto a meld only: the pile is then offered to a player
holding a natural pair of its top card's rank, which starts no meld from it."""


def eager(rules: RummyRules, seating: Seating) -> list[Position]:
    """Hands from seeded deck orders played by the choosers of EAGER_HANDS (and, where the stock
    running out forces a take onto a meld only, the STOCK_OUT_DEALS played to the stock's end)."""
    out: list[Position] = []
    if rules.stock_out == "forced_take_if_matches_meld":
        for seed in STOCK_OUT_DEALS:
            order = list(RUMMY.deck(rules, seating))
            random.Random(f"eager:{seed}").shuffle(order)
            out.append(play(rules, seating, order))
    for _, preferred, keep, steps, seeds in EAGER_HANDS:
        for seed in seeds:
            order = list(RUMMY.deck(rules, seating))
            random.Random(f"eager:{seed}").shuffle(order)
            out.append(
                play(rules, seating, order, preferred=preferred, steps=steps, keep_wilds=keep)
            )
    return out


def directed(rules: RummyRules, seating: Seating) -> list[Position]:
    """The built positions of a seating for `prove --refine` to walk (see the module)."""
    out: list[Position] = []
    for build, preferred, steps in BUILDERS:
        order = build(rules, seating)
        if order is not None:
            last, keep = preferred is SPLITTING, preferred is GOING_OUT
            out.append(
                play(
                    rules,
                    seating,
                    order,
                    preferred=preferred,
                    steps=steps,
                    last_add=last,
                    keep_wilds=keep,
                )
            )
    return out + eager(rules, seating)


__all__ = [
    "BUILDERS",
    "EAGER_HANDS",
    "GOING_OUT",
    "GROWING",
    "MAX_STEPS",
    "PREFERRED",
    "READINGS",
    "READING_HANDS",
    "STOCK_OUT_DEALS",
    "Position",
    "all_blacks_but_one",
    "black_threes_and_a_wild",
    "directed",
    "finished_beside_unfinished",
    "last_red",
    "long_escalera",
    "long_wild_meld",
    "play",
    "readings",
    "red_for_red",
    "red_three_under_the_upcard",
    "upcard_twice",
]


def _reds_and_plain(rules: RummyRules, seating: Seating) -> tuple[list[int], list[int], list[int]]:
    """The deck in order, its red threes, and its plain cards: neither a red three nor a card
    that covers the upcard."""
    deck = sorted(RUMMY.deck(rules, seating))
    reds = [c for c in deck if _kind(c) in C.RED_THREES]
    plain = [
        c
        for c in deck
        if _kind(c) not in C.RED_THREES and not in_classes(_kind(c), rules.upcard_cover)
    ]
    return deck, reds, plain


# ---------------------------------------------------------------- hands under another reading

READINGS: tuple[tuple[str, object], ...] = (
    # only the side going out scores its melds: a hand ended with nobody out (the stock run out,
    # which the refiner's position row scores at every state) then scores the melds of no side
    ("score_losing_melds", False),
    # a natural and a wild take the pile once the side has opened, not once anybody took it
    ("pile_wild_pair_after", "side_opened"),
    # a set starts with two naturals: the natural and the wild of a pile take start one
    ("set_start_min_naturals", 2),
)
"""The readings a bug can hide behind in a walk of the book's defaults, as (clause key, value):
under each reading of a book that gives the clause that value and is not the book's default
(nor the reading the walk was asked for), the READING_HANDS are walked too."""
READING_HANDS = (0,)
"""The seeds of the eager hands walked under each such reading (played by the EAGER chooser,
EAGER_STEPS actions kept)."""


def readings(
    rulebook: str, options: Mapping[str, str | bool], seating: Seating
) -> list[tuple[dict[str, str | bool], RummyRules, list[Position]]]:
    """The hands to walk under the book's other readings (READINGS): for each, the options that
    select it (added to `options`, the readings the walk was asked for), the rules they give and
    the eager hands of READING_HANDS played under them."""
    from arbitro.model.schema import option_key, rules_for
    from arbitro.model.spec import load_rulebook

    book = load_rulebook(rulebook)
    asked = {option_key(k) for k in options}
    out: list[tuple[dict[str, str | bool], RummyRules, list[Position]]] = []
    for key, value in READINGS:
        if key in asked or not book.has(key):
            continue
        clause = book.clause(key)
        for reading in clause.readings:
            if reading.label == clause.default or reading.value != value:
                continue
            chosen: dict[str, str | bool] = {**options, key: reading.label}
            rules = rules_for(rulebook, chosen)
            if not isinstance(rules, RummyRules):
                continue
            hands = []
            for seed in READING_HANDS:
                order = list(RUMMY.deck(rules, seating))
                random.Random(f"eager:{seed}").shuffle(order)
                hands.append(play(rules, seating, order, preferred=EAGER, steps=EAGER_STEPS))
            out.append((chosen, rules, hands))
    return out
