"""The same situation under the three Samba books: where they disagree, and which clause of each
decides. Each test builds one situation and asks every book."""

from __future__ import annotations

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import RUMMY, AddToMeld, AskPartner, Draw, LayMeld, TakePile, parse_card
from arbitro.model.rummy.scoring import score_hand
from arbitro.model.rummy.state import DRAW
from arbitro.model.rummy.tables import tables
from tests.support.rummy_helpers import C, R, legal, make_state

FILLER = "4C 6D 8H 10S QC"


def _answers(
    situation: object, books: tuple[str, ...] = ("samba-es", "samba-en", "samba-fr")
) -> dict[str, object]:
    return {b: situation(b) for b in books}  # type: ignore[operator]


def test_draw_one_or_two() -> None:
    """samba-es:draw-count = 2, samba-en:draw-count = 1, samba-fr:draw-count = 2."""

    def situation(book: str) -> int:
        rules = R(book)
        s = make_state(rules, hands={0: FILLER}, step=DRAW)
        (draw,) = [a for a in legal(rules, s) if isinstance(a, Draw)]
        return draw.count

    assert _answers(situation) == {"samba-es": 2, "samba-en": 1, "samba-fr": 2}


def test_natural_and_wild_take_the_pile_after_opening() -> None:
    """Opened side, unfrozen pile topped by a king, K and joker in hand. samba-es allows it by
    samba-es:pile-wild-pair-after but its samba-es:set-start-min-naturals (three naturals)
    refuses the resulting set; samba-en:pile-wild-pair-after and samba-fr:pile-wild-pair-after
    say never."""

    def situation(book: str) -> str:
        rules = R(book)
        s = make_state(
            rules, hands={0: f"KH JK {FILLER}"}, melds={0: ("7C 7D 7H",)}, pile="5S KD", step=DRAW
        )
        try:
            RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH JK")))
        except IllegalAction as e:
            return e.clause
        return "taken"

    assert _answers(situation) == {
        "samba-es": "samba-es:set-start-min-naturals",
        "samba-en": "samba-en:pile-wild-pair-after",
        "samba-fr": "samba-fr:pile-wild-pair-after",
    }


def test_samba_bonus() -> None:
    """samba-es:bonus-samba 1,500, samba-en:bonus-samba 500, samba-fr:bonus-samba 1,500."""

    def situation(book: str) -> int:
        rules = R(book)
        s = make_state(rules, melds={0: ("4H 5H 6H 7H 8H 9H 10H",)})
        return dict(score_hand(tables(rules), s, "went-out", 0).categories[0])["canastas"]

    assert _answers(situation) == {"samba-es": 1500, "samba-en": 500, "samba-fr": 1500}


def test_going_out_with_one_canasta() -> None:
    """samba-es:go-out-min-completed = 1; samba-en and samba-fr = 2: one canasta, a nine to add
    and a five to discard."""

    def situation(book: str) -> bool:
        rules = R(book)
        s = make_state(rules, hands={0: "9H 5C"}, melds={0: ("7C 7D 7H 7S 7C 7D 7H", "9C 9D 9S")})
        return AddToMeld(0, 1, parse_card("9H")) in legal(rules, s)

    assert _answers(situation) == {"samba-es": True, "samba-en": False, "samba-fr": False}


def test_a_joker_left_in_hand() -> None:
    """samba-es:card-points and samba-en:card-points: joker 50; samba-fr:card-points: 20."""

    def situation(book: str) -> int:
        rules = R(book)
        s = make_state(rules, hands={1: "JK"})
        return dict(score_hand(tables(rules), s, "went-out", 0).categories[1])["hand"]

    assert _answers(situation) == {"samba-es": -50, "samba-en": -50, "samba-fr": -20}


def test_black_three_under_the_top_card() -> None:
    """samba-fr:frozen-by includes black threes; samba-es:frozen-by and samba-en:frozen-by do not:
    the top king may go onto the side's kings only where the pile is not frozen."""

    def situation(book: str) -> bool:
        rules = R(book)
        s = make_state(
            rules, hands={0: FILLER}, melds={0: ("KC KH KS",)}, pile="3C 5S KD", step=DRAW
        )
        return TakePile(0, "add", 0, ()) in legal(rules, s)

    assert _answers(situation) == {"samba-es": True, "samba-en": True, "samba-fr": False}


def test_eighth_card_on_a_clean_canasta() -> None:
    """*:completed-set-growth: samba-es naturals, samba-en none, samba-fr any."""

    def situation(book: str) -> tuple[bool, bool]:
        rules = R(book)
        s = make_state(rules, hands={0: f"KH JK {FILLER}"}, melds={0: ("KC KD KH KS KC KD KH",)})
        acts = legal(rules, s)
        return AddToMeld(0, 0, parse_card("KH")) in acts, AddToMeld(0, 0, 52) in acts

    assert _answers(situation) == {
        "samba-es": (True, False),
        "samba-en": (False, False),
        "samba-fr": (True, True),
    }


def test_one_natural_two_wilds() -> None:
    """samba-en:set-start-min-naturals = 1 with samba-en:wilds-at-most-naturals = false allows K +
    two wilds; samba-es:set-start-min-naturals (3) and samba-fr:set-start-min-naturals (2) refuse."""

    def situation(book: str) -> bool:
        rules = R(book)
        s = make_state(rules, hands={0: f"KH JK 2C {FILLER}"}, melds={0: ("7C 7D 7H",)})
        return LayMeld(0, C("KH JK 2C")) in legal(rules, s)

    assert _answers(situation) == {"samba-es": False, "samba-en": True, "samba-fr": False}


def test_red_threes_with_one_canasta() -> None:
    """*:red-three-negative-below-completed: two in samba-es and samba-en (minus), one in samba-fr,
    so with exactly one canasta samba-fr scores them nothing."""

    def situation(book: str) -> int:
        rules = R(book)
        s = make_state(rules, melds={0: ("KC KD KH KS KC KD KH",)}, reds={0: "3H"})
        return dict(score_hand(tables(rules), s, "stock-out", -1).categories[0])["red-threes"]

    assert _answers(situation) == {"samba-es": -100, "samba-en": -100, "samba-fr": 0}


def test_top_card_onto_an_escalera() -> None:
    """samba-es:pile-to-own-sequence = false (unspecified), samba-en and samba-fr = true."""

    def situation(book: str) -> bool:
        rules = R(book)
        s = make_state(rules, hands={0: FILLER}, melds={0: ("4H 5H 6H",)}, pile="5S 7H", step=DRAW)
        return TakePile(0, "add", 0, ()) in legal(rules, s)

    assert _answers(situation) == {"samba-es": False, "samba-en": True, "samba-fr": True}


def test_asking_to_go_out() -> None:
    """samba-es:ask-partner and samba-en:ask-partner = true; samba-fr:ask-partner = false."""

    def situation(book: str) -> bool:
        rules = R(book)
        two = ("7C 7D 7H 7S 7C 7D 7H", "KC KD KH KS KC KD KH", "9C 9D 9S")
        s = make_state(rules, hands={0: "9H 5C"}, melds={0: two})
        return AskPartner(0) in legal(rules, s)

    assert _answers(situation) == {"samba-es": True, "samba-en": True, "samba-fr": False}
