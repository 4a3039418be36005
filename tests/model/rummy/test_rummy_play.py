"""Random play of every book and layout; acting out of turn; a dead end of the books."""

from __future__ import annotations

import random
import zlib

import pytest

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.game import Seating
from arbitro.model.rummy import RUMMY, AddToMeld, Discard, Draw, LayMeld, TakePile, parse_card
from arbitro.model.rummy.actions import action_key
from arbitro.model.rummy.state import DRAW
from arbitro.model.schema import RummyRules
from tests.support.rummy_helpers import BOOKS, R, make_state

CASES = [(b, s.layout) for b in BOOKS for s in RUMMY.seatings(R(b))]


def play_hands(rules: RummyRules, seating: Seating, seed: int, hands: int) -> list[str]:
    """Play `hands` random hands, checking every state; return how each hand ended."""
    rng = random.Random(seed)
    s = RUMMY.new_game(rules, seating, dealer=seed % seating.players)
    deck = list(RUMMY.deck(rules, seating))
    reasons: list[str] = []
    while len(reasons) < hands and RUMMY.phase(s) != "over":
        if RUMMY.phase(s) == "deal":
            order = deck[:]
            rng.shuffle(order)
            s = RUMMY.deal(rules, s, order)
            assert RUMMY.violations(rules, s) == []
            continue
        acts = RUMMY.legal_actions(rules, s)
        assert acts, "a state in play with no legal action"
        assert list(acts) == sorted(acts, key=action_key)
        assert len(set(acts)) == len(acts)
        a = acts[rng.randrange(len(acts))]
        assert a.seat == RUMMY.to_move(s)
        s = RUMMY.apply(rules, s, a)
        assert RUMMY.violations(rules, s) == []
        if RUMMY.phase(s) != "play":
            assert s.result is not None
            reasons.append(s.result.reason)
    return reasons


@pytest.mark.parametrize(("book", "layout"), CASES)
def test_random_play(book: str, layout: str) -> None:
    """Every reachable state breaks no clause (violations() empty: conservation, meld shapes, wild
    limits) and always has a legal action until the hand ends. *:layouts of each book."""
    rules = R(book)
    seating = next(s for s in RUMMY.seatings(rules) if s.layout == layout)
    reasons = play_hands(
        rules, seating, seed=zlib.crc32(f"{book}:{layout}".encode()) % 1000, hands=2
    )
    assert reasons and set(reasons) <= {"went-out", "stock-out", "dead-end"}


@pytest.mark.parametrize("book", BOOKS)
def test_json_round_trip_of_reachable_states(book: str) -> None:
    """States serialise to canonical JSON and back without loss; actions too."""
    rules = R(book)
    seating = RUMMY.seatings(rules)[0]
    rng = random.Random(7)
    s = RUMMY.new_game(rules, seating)
    order = list(RUMMY.deck(rules, seating))
    rng.shuffle(order)
    s = RUMMY.deal(rules, s, order)
    for _ in range(300):
        if RUMMY.phase(s) != "play":
            break
        data = RUMMY.state_to_json(s)
        assert RUMMY.state_from_json(rules, data) == s
        acts = RUMMY.legal_actions(rules, s)
        for a in acts:
            assert RUMMY.action_from_json(RUMMY.action_to_json(a)) == a
        s = RUMMY.apply(rules, s, acts[rng.randrange(len(acts))])
    assert RUMMY.state_from_json(rules, RUMMY.state_to_json(s)) == s


def test_malformed_input() -> None:
    """Malformed actions and states raise MalformedInput naming what is wrong."""
    rules = R("samba-es")
    s = make_state(rules, hands={0: "KH KS KD 4C 5C"})
    for bad in (
        {"type": "fly", "seat": 0},
        {"type": "discard", "seat": 0, "card": "ZZ"},
        {"type": "draw"},
    ):
        with pytest.raises(MalformedInput):
            RUMMY.action_from_json(bad)
    # a card the player does not hold is well formed but would be in two places at once: refused
    # with the deck clause (samba-es:packs), as a transcript checker must report it
    with pytest.raises(IllegalAction) as info:
        RUMMY.apply(rules, s, Discard(0, parse_card("AS")))
    assert info.value.clause == "samba-es:packs"
    with pytest.raises(MalformedInput):
        RUMMY.apply(rules, s, LayMeld(0, (parse_card("KH"), 99)))
    with pytest.raises(MalformedInput):
        RUMMY.apply(rules, s, AddToMeld(0, 5, parse_card("KH")))  # no meld 5
    with pytest.raises(MalformedInput):
        RUMMY.apply(rules, s, "discard")
    data = RUMMY.state_to_json(s)
    data["hands"] = [["XX"]]
    with pytest.raises(MalformedInput):
        RUMMY.state_from_json(rules, data)


@pytest.mark.parametrize(
    ("book", "action", "penalty"),
    [
        # samba-es: drawing out of turn 100, taking the pile out of turn 100, melding 100
        ("samba-es", Draw(1, 2), 100),
        ("samba-es", TakePile(1, "set", -1, ()), 100),
        ("samba-es", LayMeld(2, ()), 100),
        # canasta-es: melding in the partner's turn 200, in an opponent's 100
        ("canasta-es", LayMeld(2, ()), 200),
        ("canasta-es", LayMeld(1, ()), 100),
        ("canasta-es", Draw(3, 1), 100),
        # samba-fr prices nothing
        ("samba-fr", Draw(1, 2), None),
    ],
)
def test_acting_out_of_turn(book: str, action: object, penalty: int | None) -> None:
    """*:penalties, *:play-direction: an act out of turn is refused with the book's price for it."""
    rules = R(book)
    layout = (
        {"layout": "two-pairs"}
        if book == "canasta-es"
        else {"layout": "4-pairs"}
        if book == "samba-fr"
        else {}
    )
    s = make_state(rules, hands={0: "KH KS KD 4C 5C"}, step=DRAW, **layout)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, action)
    assert e.value.clause == f"{book}:play-direction"
    assert e.value.penalty == penalty


def test_dead_end_of_canasta_es_is_a_finding() -> None:
    """canasta-es:pile-one-card-rule = false lets a player holding one card take a one-card pile
    onto a meld (once the pile has been taken this hand, canasta-es:pile-add-after); the last card then cannot be discarded (going out needs canastas,
    canasta-es:go-out-min-completed) nor melded. The books give no way on: the hand ends as a
    dead end and the result names the clauses."""
    rules = R("canasta-es")
    s = make_state(
        rules,
        layout="two-players",
        hands={0: "4D"},
        melds={0: ("7C 7H JK",)},
        pile="7D",
        step=DRAW,
        pile_taken=True,
    )
    a = TakePile(0, "add", 0, ())
    assert a in RUMMY.legal_actions(rules, s)
    end = RUMMY.apply(rules, s, a)
    assert end.result is not None and end.result.reason == "dead-end"
    assert end.result.finding == (
        "canasta-es:pile-one-card-rule",
        "canasta-es:go-out-min-completed",
    )
    assert RUMMY.last_hand(end) is RUMMY.last_hand(end)  # one shared object per result


def test_samba_es_one_card_rule_prevents_that_dead_end() -> None:
    """samba-es:pile-one-card-rule: the same situation is simply not a legal take while the stock
    lasts."""
    rules = R("samba-es")
    s = make_state(rules, hands={0: "4D"}, melds={0: ("7C 7H 7S",)}, pile="7D", step=DRAW)
    assert not any(isinstance(a, TakePile) for a in RUMMY.legal_actions(rules, s))


def test_dead_end_after_a_last_red_three() -> None:
    """canasta-es:last-red-three-ends-hand = false: a player holding one card draws the stock's last
    card, a red three, which is laid out with nothing to replace it; the single card left cannot
    go out (canasta-es:go-out-min-completed). Another dead end of the book."""
    rules = R("canasta-es")
    s = make_state(
        rules,
        layout="two-players",
        hands={0: "4D"},
        melds={0: ("7C 7H JK",)},
        step=DRAW,
        stock="3H",
        fill=False,
    )
    end = RUMMY.apply(rules, s, Draw(0, 1))
    assert end.result is not None and end.result.reason == "dead-end"
    assert end.result.finding == (
        "canasta-es:last-red-three-ends-hand",
        "canasta-es:go-out-min-completed",
    )


@pytest.mark.slow
@pytest.mark.parametrize("book", BOOKS)
def test_random_play_under_every_reading(book: str) -> None:
    """Every reading of every clause with readings plays random hands without breaking a clause."""
    from arbitro.model.spec import load_rulebook

    rb = load_rulebook(book)
    for c in rb.clauses:
        if len(c.readings) < 2:
            continue
        for reading in c.readings:
            rules = R(book, **{c.key: reading.label})
            for seating in RUMMY.seatings(rules)[:3]:
                play_hands(rules, seating, seed=zlib.crc32(reading.label.encode()) % 100, hands=1)
