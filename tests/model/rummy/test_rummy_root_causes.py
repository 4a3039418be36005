"""Root causes (issue 12, item 4): `RUMMY.refusals` lists every clause that refuses an action, the
most specific first, and `apply` raises the first of them."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import RUMMY, AddToMeld, Discard, Draw, LayMeld, TakePile
from arbitro.model.rummy.state import DRAW
from arbitro.model.schema import RummyRules
from tests.support.rummy_helpers import C, R, legal, make_state


def clauses(rules: RummyRules, s: object, a: object) -> list[str]:
    got = RUMMY.refusals(rules, s, a)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
    assert got and e.value.clause == got[0].clause  # apply raises the first
    return [r.clause for r in got]


def test_a_wild_too_many_breaks_both_wild_limits() -> None:
    """samba-fr: a set of two naturals and two wilds takes no third wild, by samba-fr:wild-cap
    (two wilds at most) and by samba-fr:wilds-at-most-naturals (three wilds to two naturals)."""
    rules = R("samba-fr")
    s = make_state(rules, hands={0: "JK 4C 9D"}, melds={0: ("KC KD 2C JK",)})
    assert clauses(rules, s, AddToMeld(0, 0, C("JK")[0])) == [
        "samba-fr:wild-cap",
        "samba-fr:wilds-at-most-naturals",
    ]


def test_a_wild_ratio_break_is_not_reported_as_an_opening_problem() -> None:
    """samba-en (reading at-most-naturals of samba-en:wilds-at-most-naturals): a side opening
    towards 120 lays one natural with two wilds. The set breaks the wild ratio, and that alone is
    reported; a set of naturals in the same hand is refused by samba-en:opening-minimums, so the
    opening check is live here."""
    rules = R("samba-en", wilds_at_most_naturals="at-most-naturals")
    s = make_state(
        rules,
        hands={0: "2C 5D 5H 5S 6D 7H KC JK"},
        opened={0: False},
        minimums=(120, 120),
    )
    assert clauses(rules, s, LayMeld(0, C("2C KC JK"))) == ["samba-en:wilds-at-most-naturals"]
    assert clauses(rules, s, LayMeld(0, C("5D 5H 5S"))) == ["samba-en:opening-minimums"]


def test_a_frozen_pile_before_its_first_take() -> None:
    """canasta-es: the top card alone on a set takes neither a frozen pile (canasta-es:frozen-by)
    nor a pile nobody has taken yet this hand (canasta-es:pile-add-after)."""
    rules = R("canasta-es")
    s = make_state(
        rules,
        hands={0: "4C 6D 8H"},
        melds={0: ("KC KH KS",)},
        pile="JK 5S KD",
        step=DRAW,
    )
    assert clauses(rules, s, TakePile(0, "add", 0, ())) == [
        "canasta-es:frozen-by",
        "canasta-es:pile-add-after",
    ]


def test_three_clauses_refuse_one_pile_take() -> None:
    """canasta-es with the forced-take reading of canasta-es:stock-out, the stock exhausted: a
    natural and a wild on a frozen pile, before anybody took it, for a new set. Frozen
    (canasta-es:frozen-by), too early for a wild (canasta-es:pile-wild-pair-after), and with the
    stock out only a top card that fits a meld takes the pile (canasta-es:stock-out)."""
    rules = R("canasta-es", stock_out="forced-take")
    s = make_state(
        rules,
        hands={0: "KH JK 4C 6D"},
        melds={0: ("7C 7D 7H",)},
        pile="2C 5S KD",
        step=DRAW,
        fill=False,
    )
    assert clauses(rules, s, TakePile(0, "set", -1, C("KH JK"))) == [
        "canasta-es:frozen-by",
        "canasta-es:pile-wild-pair-after",
        "canasta-es:stock-out",
    ]


def test_a_discard_owed_to_the_opening_and_to_the_partner() -> None:
    """samba-es: the partner said yes, and the player has begun an opening it has not finished:
    a discard that keeps cards is refused by both (samba-es:opening-minimums, then
    samba-es:ask-partner)."""
    rules = R("samba-es")
    s = make_state(
        rules,
        hands={0: "4C 6D 8H 9S"},
        melds={0: ("KC KD KH",)},
        opened={0: False},
        answer="yes",
        asked=True,
        melded=True,
    )
    assert clauses(rules, s, Discard(0, C("4C")[0])) == [
        "samba-es:opening-minimums",
        "samba-es:ask-partner",
    ]


def test_a_legal_action_has_no_refusal_and_one_out_of_turn_only_the_turn() -> None:
    """*:play-direction: acting out of turn is refused by the turn order alone, with its price."""
    rules = R("samba-es")
    s = make_state(rules, hands={0: "KH KS KD 4C 5C", 1: "9C 9D"}, step=DRAW)
    assert RUMMY.refusals(rules, s, Draw(0, 2)) == ()
    assert Draw(0, 2) in legal(rules, s)
    got = RUMMY.refusals(rules, s, Draw(1, 2))
    assert [r.clause for r in got] == ["samba-es:play-direction"]
    assert got[0].penalty == 100  # samba-es PENALIDADES: taking from the stock out of turn


@pytest.mark.parametrize("book", ["samba-es", "samba-en", "samba-fr", "canasta-es"])
def test_every_refused_candidate_names_its_clauses_and_apply_agrees(book: str) -> None:
    """Along random play, every candidate the listing refuses has refusals whose first is the
    clause apply raises, and every listed action has none."""
    import random

    from arbitro.model.rummy.engine import _Moment
    from arbitro.model.rummy.tables import tables

    rules = R(book)
    t = tables(rules)
    seating = RUMMY.seatings(rules)[0]
    rng = random.Random(7)
    order = list(RUMMY.deck(rules, seating))
    rng.shuffle(order)
    s = RUMMY.deal(rules, RUMMY.new_game(rules, seating), order)
    seen = 0
    for _ in range(150):
        if RUMMY.phase(s) != "play":
            break
        listed = set(legal(rules, s))
        everything = _Moment(t, s, {}, quick=False)
        for a in everything.legal():
            assert a in listed and RUMMY.refusals(rules, s, a) == ()
        for a in _candidates(s):
            if a in listed:
                continue
            got = RUMMY.refusals(rules, s, a)
            assert got, a
            with pytest.raises(IllegalAction) as e:
                RUMMY.apply(rules, s, a)
            assert e.value.clause == got[0].clause
            seen += 1
        acts = legal(rules, s)
        s = RUMMY.apply(rules, s, acts[rng.randrange(len(acts))])
    assert seen > 50


def _candidates(s: object) -> list[object]:
    """Actions of every type the player to move might try, legal or not."""
    from arbitro.model.rummy.actions import AskPartner, FinishOpening, Merge, Stop

    seat = s.to_move()  # type: ignore[attr-defined]
    hand = s.hands[seat]  # type: ignore[attr-defined]
    melds = s.table[seat % s.sides].melds  # type: ignore[attr-defined]
    out: list[object] = [Draw(seat, 1), Draw(seat, 2), FinishOpening(seat), AskPartner(seat)]
    out += [Stop(seat), TakePile(seat, "add", 0, ())] if melds else [Stop(seat)]
    for c in sorted(set(hand)):
        out.append(Discard(seat, c))
        out += [AddToMeld(seat, i, c) for i in range(len(melds))]
    out += [Merge(seat, 0, i) for i in range(1, len(melds))]
    return out
