"""Scoring a hand by category, and the end of the game. Every expected number is worked out from
the book's tables in the test, never copied from the model."""

from __future__ import annotations

import pytest

from arbitro.model.rummy.scoring import end_hand, score_hand
from arbitro.model.rummy.tables import tables
from tests.support.rummy_helpers import R, make_state

SAMBA_HEARTS = "4H 5H 6H 7H 8H 9H 10H"  # 4 x 5 + 3 x 10 = 50 points of cards
CLEAN_K = "KC KD KH KS KC KD KH"  # 70
DIRTY_Q = "QC QD QH QS QC 2C JK"  # 50 + 20 + 50 (joker 20 in samba-fr)


def cats(
    book: str,
    out_seat: int = 0,
    reason: str = "went-out",
    options: dict[str, str] | None = None,
    **kw: object,
) -> list[dict[str, int]]:
    rules = R(book, **(options or {}))
    s = make_state(rules, **kw)  # type: ignore[arg-type]
    res = score_hand(tables(rules), s, reason, out_seat)
    assert all(
        sum(dict(c).values()) == tot for c, tot in zip(res.categories, res.scores, strict=True)
    )
    return [dict(c) for c in res.categories]


@pytest.mark.parametrize(
    ("book", "bonus"), [("samba-es", 1500), ("samba-en", 500), ("samba-fr", 1500)]
)
def test_samba_bonus(book: str, bonus: int) -> None:
    """*:bonus-samba: 1,500 in samba-es and samba-fr, 500 in samba-en; its cards count 50."""
    c = cats(book, melds={0: (SAMBA_HEARTS,)})
    assert c[0]["canastas"] == bonus
    assert c[0]["melds"] == 50


@pytest.mark.parametrize("book", ["samba-es", "samba-en", "samba-fr", "canasta-es"])
def test_canasta_bonuses(book: str) -> None:
    """*:bonus-clean-canasta 500, *:bonus-dirty-canasta 300 in all four books."""
    layout = {"layout": "two-pairs"} if book == "canasta-es" else {}
    c = cats(book, melds={0: (CLEAN_K, DIRTY_Q)}, **layout)
    assert c[0]["canastas"] == 500 + 300
    joker = 20 if book == "samba-fr" else 50  # samba-fr:card-points
    assert c[0]["melds"] == 70 + 50 + 20 + joker


@pytest.mark.parametrize(
    ("book", "reds", "canastas", "score"),
    [
        # samba-es:red-three-each 100, positive with 2 finished melds, negative below 2
        ("samba-es", "3H 3D", 2, 200),
        ("samba-es", "3H 3D", 1, -200),
        ("samba-es", "3H 3D 3H 3D 3H 3D", 2, 1000),  # samba-es:red-three-all
        ("samba-es", "3H 3D 3H 3D 3H 3D", 0, -1000),  # samba-es:red-three-negative-all (mirror)
        ("samba-en", "3H 3D", 1, -200),
        # samba-fr: negative only below one finished meld; with exactly one they are worth nothing
        ("samba-fr", "3H 3D", 1, 0),
        ("samba-fr", "3H 3D", 0, -200),
        ("samba-fr", "3H 3D 3H 3D 3H 3D", 0, -600),  # samba-fr:red-three-negative-all default
        # canasta-es: one canasta suffices; all four 800, or -800 without a canasta
        ("canasta-es", "3H 3D", 1, 200),
        ("canasta-es", "3H 3D 3H 3D", 1, 800),
        ("canasta-es", "3H 3D 3H 3D", 0, -800),
    ],
)
def test_red_threes(book: str, reds: str, canastas: int, score: int) -> None:
    """*:red-three-each, *:red-three-all, *:red-three-positive-min-completed,
    *:red-three-negative-below-completed, *:red-three-negative-all."""
    layout = {"layout": "two-pairs"} if book == "canasta-es" else {}
    melds = (CLEAN_K, "AC AD AH AS AC AD AH")[:canastas]
    c = cats(book, out_seat=-1, reason="stock-out", melds={0: melds}, reds={0: reds}, **layout)
    assert c[0]["red-threes"] == score


def test_samba_es_penalty_table_reading_of_six_red_threes() -> None:
    """samba-es:red-three-negative-all reading penalty-table: six red threes without two finished
    melds cost 100 each, 600."""
    c = cats(
        "samba-es",
        out_seat=-1,
        reason="stock-out",
        reds={0: "3H 3D 3H 3D 3H 3D"},
        options={"red_three_negative_all": "penalty-table"},
    )
    assert c[0]["red-threes"] == -600


@pytest.mark.parametrize(
    ("book", "each"), [("samba-es", 500), ("samba-en", 500), ("samba-fr", 750), ("canasta-es", 500)]
)
def test_undeclared_red_three(book: str, each: int) -> None:
    """*:red-three-undeclared-penalty: a red three left in a hand (the model never leaves one;
    a hand-made state shows the price)."""
    layout = {"layout": "two-pairs"} if book == "canasta-es" else {}
    c = cats(book, out_seat=-1, reason="stock-out", hands={1: "3H 5C"}, **layout)
    assert c[1]["penalties"] == -each
    assert c[1]["hand"] == -5


@pytest.mark.parametrize(("book", "joker"), [("samba-es", 50), ("samba-fr", 20)])
def test_cards_in_hand_count_against(book: str, joker: int) -> None:
    """*:card-points: cards left in hand are deducted: joker, ace, five."""
    c = cats(book, hands={1: "JK AH 5C", 3: "KD"})
    assert c[1]["hand"] == -(joker + 20 + 5 + 10)


@pytest.mark.parametrize(
    ("book", "options", "loser_melds"),
    [
        ("samba-es", {}, True),  # samba-es:score-losing-melds default: they count
        ("samba-es", {"score_losing_melds": "winners-only"}, False),
        ("samba-en", {}, True),
    ],
)
def test_losing_side_melds(book: str, options: dict[str, str], loser_melds: bool) -> None:
    """*:score-losing-melds: the melds of the side that did not go out: three aces (60), three
    eights (30) and a joker (50)."""
    c = cats(book, melds={1: ("AC AD AH", "8C 8D 8H JK")}, options=options)
    assert c[1]["melds"] == (60 + 30 + 50 if loser_melds else 0)


@pytest.mark.parametrize(
    ("book", "options", "bonus"),
    [
        ("samba-es", {}, 200),
        ("canasta-es", {}, 100),
        ("canasta-es", {"bonus_going_out": "final"}, 200),
    ],
)
def test_going_out_bonus(book: str, options: dict[str, str], bonus: int) -> None:
    """*:bonus-going-out: 200 in Samba; canasta-es lists 100 (honores) and 200 (final)."""
    layout = {"layout": "two-pairs"} if book == "canasta-es" else {}
    assert cats(book, options=options, **layout)[0]["going-out"] == bonus
    stock_out = cats(book, out_seat=-1, reason="stock-out", options=options, **layout)
    assert stock_out[0]["going-out"] == 0  # *:going-out-bonus-on-stock-out = false


def test_canasta_special_awards() -> None:
    """canasta-es:wild-canasta-bonus 2000; canasta-es:canaston-count 5 and canasta-es:canaston-bonus
    500; canasta-es:canasta-de-canastas-count 7 and canasta-es:canasta-de-canastas-bonus 2000
    (reading: in place of the canastón)."""
    rules = R("canasta-es")
    wild = "JK JK 2C 2D 2H 2S 2C"
    five = (
        "KC KD KH KS KC KD KH",
        "QC QD QH QS QC QD QH",
        "JC JD JH JS JC JD JH",
        "10C 10D 10H 10S 10C 10D 10H",
        wild,
    )
    c = cats("canasta-es", layout="three-pairs", melds={0: five})
    assert c[0]["canastas"] == 4 * 500 + 2000
    assert c[0]["canaston"] == 500
    seven = (*five, "9C 9D 9H 9S 9C 9D 9H", "8C 8D 8H 8S 8C 8D 8H")
    c = cats("canasta-es", layout="three-pairs", melds={0: seven})
    assert c[0]["canaston"] == 2000
    _ = rules


def test_canasta_black_threes() -> None:
    """canasta-es:black-three-hand-penalty 95 (+5 card value = 100 each),
    canasta-es:black-threes-all-in-hand-penalty 500, canasta-es:black-threes-all-melded-bonus 500."""
    c = cats("canasta-es", layout="two-pairs", hands={1: "3C 3S 5D"})
    assert c[1]["hand"] == -(5 + 5 + 5)
    assert c[1]["black-threes"] == -2 * 95
    c = cats("canasta-es", layout="two-pairs", hands={1: "3C 3S 3C 3S"})
    assert c[1]["black-threes"] == -4 * 95 - 500
    c = cats("canasta-es", layout="two-pairs", melds={0: ("3C 3S 3C 3S",)})
    assert c[0]["black-threes"] == 500
    assert c[0]["melds"] == 20


@pytest.mark.parametrize(("layout", "packs"), [("two-pairs", 2), ("three-pairs", 3)])
def test_canasta_black_threes_all_but_one_melded(layout: str, packs: int) -> None:
    """canasta-es:black-threes-all-melded-bonus goes to the side that melds *all* the black threes
    (two a pack, canasta-es:packs: two packs for two pairs, three for three pairs): with one of
    them left in the other side's hand, the side going out earns no bonus."""
    melded = " ".join(["3C", "3S"] * packs).split()[:-1]  # every black three but one
    c = cats("canasta-es", layout=layout, melds={0: (" ".join(melded),)}, hands={1: "3S"})
    assert c[0]["black-threes"] == 0
    assert c[0]["melds"] == 5 * len(melded)
    assert c[1]["black-threes"] == -95


@pytest.mark.parametrize(
    ("book", "options", "scores", "over", "winner"),
    [
        # samba-es:target-score 10,000, target-rule reach
        ("samba-es", {}, (10000, 4000), True, 0),
        ("samba-es", {}, (9995, 4000), False, None),
        # samba-en:target-rule reading exceed: exactly 10,000 plays on
        ("samba-en", {"target_rule": "exceed"}, (10000, 4000), False, None),
        ("samba-en", {"target_rule": "exceed"}, (10005, 4000), True, 0),
        # both above: the higher wins
        ("samba-en", {}, (10400, 11000), True, 1),
        # *:target-tie: play on by default, shared as a reading
        ("samba-es", {}, (10500, 10500), False, None),
        ("samba-es", {"target_tie": "shared"}, (10500, 10500), True, None),
        # canasta-es:target-score 5,000
        ("canasta-es", {}, (5000, 10), True, 0),
    ],
)
def test_end_of_game(
    book: str, options: dict[str, str], scores: tuple[int, int], over: bool, winner: int | None
) -> None:
    """*:target-score, *:target-rule, *:target-tie: the totals after the hand decide."""
    from arbitro.model.rummy import RUMMY

    rules = R(book, **options)
    layout = {"layout": "two-pairs"} if book == "canasta-es" else {}
    s = make_state(rules, **layout)  # type: ignore[arg-type]
    hand = score_hand(tables(rules), s, "stock-out", -1).scores
    s = s._replace(scores=tuple(x - h for x, h in zip(scores, hand, strict=True)))
    end = end_hand(tables(rules), s, "stock-out", -1)
    assert end.scores == scores
    assert (end.phase == "over") is over
    assert RUMMY.winner(end) == winner
