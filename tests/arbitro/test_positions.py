"""Positions built from what an engine knows, deals given by their cards, hands scored from a
position, games taken up part-way, and views for one seat (the oracle for engine writers).

Expected values come from the books: capture values and sums from escoba-es (Jugadores y cartas,
Captura), points from escoba-es (Puntuación) and samba-en (Card ranks and scoring, Scoring), the
opening minimums from samba-en's table (The initial meld). Each is worked out in the test.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from arbitro import Oracle
from arbitro.model.errors import MalformedInput
from arbitro.oracle.states import HIDDEN, InconsistentState

# escoba-es, Jugadores y cartas: 1 to 7 at face value, sota 8, caballo 9, rey 10
VALUE = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "S": 8, "C": 9, "R": 10}


def escoba_plays(hand: list[str], table: list[str]) -> set[tuple[str, frozenset[str]]]:
    """Every play the book allows, worked out from Captura: a card takes any group that adds up
    to 15 with it, and must take one if it can."""
    plays = set()
    for card in hand:
        need = 15 - VALUE[card[0]]
        groups = [
            frozenset(g)
            for k in range(1, len(table) + 1)
            for g in itertools.combinations(table, k)
            if sum(VALUE[c[0]] for c in g) == need
        ]
        plays |= {(card, g) for g in groups} if groups else {(card, frozenset())}
    return plays


def test_an_escoba_position_from_its_cards_answers_as_the_book() -> None:
    oracle = Oracle("escoba-es", players=2)
    # dealer 0: seat 1 (on the dealer's right) played first and laid the rey; seat 0 to play
    hand = ["7o", "2c", "5e"]
    table = ["1o", "3b", "4e", "7c", "Rc"]
    state = oracle.position(
        {"hands": [hand, ["Sb", "4c"]], "table": table, "to_move": 0, "dealer": 0}
    )
    assert state["deal_number"] == 1 and len(state["stock"]) == 30  # 40 - 6 - 4: five more deals
    got = {(a["card"], frozenset(a["capture"])) for a in oracle.legal_actions(state)}
    assert got == escoba_plays(hand, table)
    # the seat to move follows from the cards played: seat 1 cannot be to move
    with pytest.raises(InconsistentState) as info:
        oracle.position({"hands": [hand, ["Sb", "4c"]], "table": table, "to_move": 1})
    assert info.value.clauses == ["escoba-es:play-direction"]


def test_a_rummy_position_names_melds_by_their_cards_and_returns_them_in_order() -> None:
    oracle = Oracle("canasta-es", players=4)
    hands = [
        ["4C", "4D", "5H", "KS", "KS", "AH", "7C", "8D", "9S", "QH", "2C"],
        ["5C", "5C", "6C", "6C", "7D", "7D", "8H", "9H", "10S", "JS", "QS"],
        ["QD", "QD", "KC", "KC", "KH", "AC", "AD", "3S", "3C", "4S", "6D"],
        ["5D", "5S", "6H", "6S", "8C", "8S", "9C", "9D", "10C", "10D", "JC"],
    ]
    # melds given out of order and by their cards alone; the kind is read from the cards
    melds = [["AS", "2D", "AS"], ["QC", "QS", "QC"]]
    state = oracle.position(
        {"hands": hands, "pile": ["7H"], "table": [{"melds": melds}, {}], "seat": 0, "step": "play"}
    )
    listed = [m["cards"] for m in state["table"][0]["melds"]]
    assert sorted(map(sorted, listed)) == sorted(map(sorted, melds)) and len(listed) == 2
    assert state["table"][0]["opened"] is True and state["step"] == "play"
    assert state["minimums"] == [50, 50]  # canasta-es, LA SALIDA: 0 to 1,495 needs 50
    queens = next(i for i, m in enumerate(state["table"][0]["melds"]) if "QC" in m["cards"])
    by_index = {"type": "add", "seat": 0, "meld": queens, "card": "QH"}
    by_cards = {"type": "add", "seat": 0, "meld": ["QS", "QC", "QC"], "card": "QH"}
    assert oracle.apply(state, by_cards) == oracle.apply(state, by_index)
    with pytest.raises(MalformedInput) as info:
        oracle.apply(state, {**by_cards, "meld": ["QS", "QC", "QD"]})
    assert "action.meld: the cards of a meld of side 0" in str(info.value)
    # an unfinished opening belongs only to the side whose player is laying it
    with pytest.raises(InconsistentState) as bad:
        oracle.position(
            {
                "hands": hands,
                "pile": ["7H"],
                "seat": 1,
                "table": [{"melds": melds, "opened": False}, {}],
            }
        )
    assert bad.value.clauses == ["canasta-es:opening-minimums"]
    with pytest.raises(InconsistentState) as twice:
        # two packs hold two QS: one is in seat 1's hand, one in the queens' meld
        oracle.position(
            {"hands": hands, "pile": ["QS"], "seat": 0, "table": [{"melds": melds}, {}]}
        )
    assert "more than the deck holds: QS" in str(twice.value)


def test_a_finished_escoba_hand_is_scored_from_its_piles() -> None:
    oracle = Oracle("escoba-es", players=2)
    deck = oracle.describe()["deck"]
    oros = [c for c in deck if c.endswith("o")]
    side0 = [*oros, "7c", "7b", "7e", "1c", "2c", "3c", "4c", "5c", "6c", "Sc", "Cc", "Rc"]
    side1 = [c for c in deck if c not in side0]
    state = oracle.position(
        {
            "hands": [[], []],
            "table": [],
            "stock": [],
            "piles": [side0, side1],
            "escobas": [2, 1],
            "last_capturer": 0,
            "ended": True,
        }
    )
    score = oracle.score(state)
    # Puntuación: side 0 has 22 of 40 cards, all ten oros, the 7 of oros and all four sevens
    # (the best setenta): one point each, and its two escobas; side 1 its one escoba
    assert score["hand"]["categories"] == [
        {"cards": 1, "oros": 1, "velo": 1, "setenta": 1, "escobas": 2},
        {"cards": 0, "oros": 0, "velo": 0, "setenta": 0, "escobas": 1},
    ]
    assert score["totals"] == [6, 1] and score["phase"] == "deal"


def test_a_finished_samba_hand_is_scored_from_its_position() -> None:
    oracle = Oracle("samba-en")
    state = oracle.position(
        {
            "hands": [[], ["4C", "5C"], ["KH"], ["AS", "AS", "JK"]],
            "table": [
                {
                    "melds": [
                        ["QC", "QC", "QS", "QH", "QD", "QD", "QS"],
                        ["5H", "6H", "7H", "8H", "9H", "10H", "JH"],
                        ["KC", "KD", "KS"],
                    ],
                    "red_threes": ["3H"],
                },
                {"melds": [["7C", "7D", "7S"]]},
            ],
            "pile": ["9C"],
            "seat": 0,
            "step": "play",
            "ended": {"reason": "went-out"},
        }
    )
    score = oracle.score(state)["hand"]
    # samba-en, Card ranks and scoring: A 20, K-8 10, 7-4 5, joker 50. Side 0 melded seven
    # queens (70), 5-7 of hearts (15) and 8-J (40), three kings (30): 155; its partner holds a
    # king (-10); a natural canasta and a samba are 500 each; one red three with two finished
    # melds is 100; going out 200. Side 1 melded three sevens (15) and holds 4, 5, A, A, joker
    # (-5 -5 -20 -20 -50).
    assert score["categories"][0] == {
        "melds": 155, "hand": -10, "canastas": 1000, "canaston": 0, "red-threes": 100,
        "black-threes": 0, "going-out": 200, "penalties": 0,
    }  # fmt: skip
    assert score["scores"] == [1445, 15 - 100]


@pytest.mark.parametrize(
    ("score", "minimum"), [(-10, 15), (0, 50), (1499, 50), (1500, 90), (4000, 120), (9000, 160)]
)
def test_a_game_taken_up_part_way_opens_with_the_minimum_of_its_totals(
    score: int, minimum: int
) -> None:
    """samba-en, The initial meld: below 0 15, 0-1,499 50, 1,500-2,999 90, 3,000-6,999 120,
    7,000-9,999 160."""
    oracle = Oracle("samba-en")
    before = oracle.new_game(dealer=2, scores=[score, 0], hand=7)
    dealt = oracle.deal(before, oracle.describe()["deck"])
    assert dealt["minimums"] == [minimum, 50]
    assert dealt["seat"] == 3 and dealt["hand_number"] == 7  # the player on the dealer's left


def _per_seat_red_threes(oracle: Oracle, state: dict[str, Any]) -> list[list[str]]:
    """Who laid which red three at the deal, as an engine would record it (the state keeps them
    per side): a seat still owed replacements laid that many; the first player the rest."""
    n, sides = oracle.seating.players, oracle.seating.sides
    first = state["seat"]
    reds: list[list[str]] = [[] for _ in range(n)]
    for side, sd in enumerate(state["table"]):
        pool = list(sd["red_threes"])
        seats = sorted((x for x in range(n) if x % sides == side), key=lambda x: (x - first) % n)
        for x in seats:
            if x != first:
                reds[x], pool = pool[: state["owed"][x]], pool[state["owed"][x] :]
        reds[first if first in seats else seats[0]] += pool
    return reds


def _seatings() -> list[tuple[str, str | None, int | None, bool]]:
    out: list[tuple[str, str | None, int | None, bool]] = []
    for rb in ("samba-es", "samba-en", "canasta-es"):
        for s in Oracle(rb).model.seatings(Oracle(rb).rules):
            out.append((rb, s.layout, None, False))
    out += [("samba-fr", "2-solo", None, False), ("samba-fr", "10-pairs", None, False)]
    out += [("escoba-es", None, n, False) for n in (2, 3, 4)] + [("escoba-es", None, 4, True)]
    return out


@pytest.mark.parametrize(("rulebook", "layout", "players", "teams"), _seatings())
def test_a_deal_given_by_its_cards_is_the_deal_of_its_deck_order(
    rulebook: str, layout: str | None, players: int | None, teams: bool
) -> None:
    oracle = Oracle(rulebook, players=players, teams=teams, layout=layout)
    deck = oracle.describe()["deck"]
    for seed in range(4):
        rng = random.Random(seed)
        before = oracle.new_game(dealer=seed % oracle.seating.players)
        order = rng.sample(deck, len(deck))
        dealt = oracle.deal(before, order)
        if oracle.game.name == "escoba":
            # the four cards dealt face up, wherever a sweep put them
            face_up = dealt["table"] or [c for p in dealt["piles"] for c in p]
            cards: dict[str, Any] = {"hands": dealt["hands"], "table": face_up}
        else:
            cards = {
                "hands": dealt["hands"],
                "red_threes": _per_seat_red_threes(oracle, dealt),
                "pile": dealt["pile"],
            }
        cards["stock"] = dealt["stock"]
        assert oracle.deal(before, dealt=cards) == dealt
        again = oracle.deck_order(before, cards)
        assert oracle.deal(before, again) == dealt


def test_cards_that_no_deal_gives_are_refused() -> None:
    oracle = Oracle("escoba-es", players=2)
    before = oracle.new_game()
    deck = oracle.describe()["deck"]
    with pytest.raises(MalformedInput) as info:
        oracle.deal(before, dealt={"hands": [deck[:4], deck[4:6]], "table": deck[6:10],
                                   "stock": deck[10:]})  # fmt: skip
    assert "dealt.hands[0]: 3 cards dealt to that seat" in str(info.value)
    canasta = Oracle("canasta-es", players=2)
    dealt = canasta.deal(canasta.new_game(), canasta.describe()["deck"])
    # a joker turned up is covered (INICIO); a pile of the joker alone is no deal
    stock = list(dealt["stock"])
    stock.remove("JK")
    reds = [[], []]
    for side, sd in enumerate(dealt["table"]):
        reds[side] = sd["red_threes"]  # two players: each side is one seat
    bad = {"hands": dealt["hands"], "red_threes": reds, "pile": ["JK"],
           "stock": stock + dealt["pile"]}  # fmt: skip
    with pytest.raises(MalformedInput) as again:
        canasta.deal(canasta.new_game(), dealt=bad)
    assert "dealt.pile: dealing as the rules do gives JK " in str(again.value)
    short = {**bad, "stock": stock}
    with pytest.raises(MalformedInput) as missing:
        canasta.deal(canasta.new_game(), dealt=short)
    assert str(missing.value).startswith("dealt: ") and "missing: " in str(missing.value)


@pytest.mark.parametrize("rulebook", ["samba-es", "canasta-es", "escoba-es"])
def test_a_view_hides_what_the_seat_cannot_see_and_answers_the_same(rulebook: str) -> None:
    oracle = Oracle(rulebook)
    deck = oracle.describe()["deck"]
    rng = random.Random(5)
    state = oracle.deal(oracle.new_game(), rng.sample(deck, len(deck)))
    for _ in range(40):
        if state["phase"] != "play":
            break
        seat = state["seat"] if "seat" in state else state["to_move"]
        view = oracle.view(state, seat)
        for i, hand in enumerate(view["hands"]):
            assert hand == state["hands"][i] if i == seat else set(hand) <= {HIDDEN}
        assert view["stock"] == [HIDDEN] * len(state["stock"])
        # what the seat to move may do does not depend on what it cannot see
        assert oracle.legal_actions(oracle.from_view(view)) == oracle.legal_actions(state)
        # a view that hides a card too few is no view of a deal
        if view["stock"]:
            with pytest.raises(MalformedInput):
                oracle.from_view({**view, "stock": view["stock"][:-1]})
        legal = oracle.legal_actions(state)
        state = oracle.apply(state, legal[rng.randrange(len(legal))])
