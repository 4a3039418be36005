"""`RUMMY.clauses_used`: the clauses whose values decided what an action does or whether it is
allowed. Named where a clause plainly decides; and, along random play, changing any clause not
named (to another reading of the book) never changes what an action does."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbitro.model.errors import ArbitroError
from arbitro.model.rummy import RUMMY, Discard, Draw, LayMeld, TakePile
from arbitro.model.rummy import trace as trace_module
from arbitro.model.rummy.actions import FinishOpening
from arbitro.model.rummy.state import DRAW
from arbitro.model.schema import RummyRules
from arbitro.model.spec import load_rulebook
from tests.support.rummy_helpers import BOOKS, C, R, make_state


def used(rules: RummyRules, s: Any, a: Any) -> set[str]:
    return set(RUMMY.clauses_used(rules, s, a))


def test_a_draw_names_the_draw_count() -> None:
    """samba-es:draw-count (two cards a turn) decides a draw."""
    rules = R("samba-es")
    s = make_state(rules, hands={0: "KH 4C 9D"}, step=DRAW)
    got = used(rules, s, Draw(0, 2))
    assert "samba-es:draw-count" in got
    assert "samba-es:pile-wild-pair-after" not in got


def test_a_pile_take_names_its_clauses() -> None:
    """canasta-es: a natural and a wild take the pile after its first take
    (canasta-es:pile-wild-pair-after, on an unfrozen pile: canasta-es:frozen-by); the top card
    put on a set takes it only then (canasta-es:pile-add-after)."""
    rules = R("canasta-es")
    s = make_state(
        rules,
        hands={0: "KH JK 4C 6D 8H"},
        melds={0: ("7C 7D 7H",)},
        pile="5S KD",
        step=DRAW,
        pile_taken=True,
    )
    set_take = used(rules, s, TakePile(0, "set", -1, C("KH JK")))
    assert {"canasta-es:pile-wild-pair-after", "canasta-es:frozen-by"} <= set_take
    onto = make_state(
        rules,
        hands={0: "4C 6D 8H"},
        melds={0: ("KC KH KS",)},
        pile="5S KD",
        step=DRAW,
        pile_taken=True,
    )
    assert "canasta-es:pile-add-after" in used(rules, onto, TakePile(0, "add", 0, ()))
    refused = used(rules, onto._replace(pile_taken=False), TakePile(0, "add", 0, ()))
    assert "canasta-es:pile-add-after" in refused


def test_melding_names_the_meld_and_opening_clauses() -> None:
    """samba-en: a set with two wilds is checked against samba-en:wild-cap; finishing an
    opening against samba-en:opening-minimums."""
    rules = R("samba-en")
    s = make_state(rules, hands={0: "2C KC JK 4C 9D QS"}, melds={0: ("7C 7D 7H",)})
    assert "samba-en:wild-cap" in used(rules, s, LayMeld(0, C("2C KC JK")))
    opening = make_state(rules, hands={0: "4C 9D QS"}, melds={0: ("KC KD KH",)}, opened={0: False})
    assert "samba-en:opening-minimums" in used(rules, opening, FinishOpening(0))


def test_going_out_names_its_requirements() -> None:
    """samba-fr: discarding the last card goes out only with samba-fr:go-out-min-completed
    canastas; the discard is the going-out one (samba-fr:go-out-discard)."""
    rules = R("samba-fr")
    s = make_state(rules, hands={0: "9D"}, melds={0: ("KC KD KH KS KC KD KH", "QC QD QH")})
    got = used(rules, s, Discard(0, C("9D")[0]))
    assert {"samba-fr:go-out-min-completed", "samba-fr:go-out-discard"} <= got


def _alternatives(book: str) -> list[tuple[str, Any]]:
    """Every other reading of every clause of a book, as (key, label)."""
    out: list[tuple[str, Any]] = []
    for c in load_rulebook(book).clauses:
        if c.optional:
            out.append((c.key, True))
        elif len(c.readings) > 1:
            out += [(c.key, label) for label in c.labels()[1:]]
    return out


def _outcome(rules: RummyRules, s: Any, a: Any) -> Any:
    try:
        return RUMMY.apply(rules, s, a)
    except ArbitroError as e:
        return type(e).__name__


def undeclared(book: str, rules: RummyRules, s: Any, a: Any, named: set[str]) -> list[str]:
    """The clauses not `named` whose other readings change what `a` does in `s`."""
    want = _outcome(rules, s, a)
    out = []
    for key, label in _alternatives(book):
        cid = rules.cid(key)
        if cid in named:
            continue
        try:
            other = R(book, **{key: label})
        except ArbitroError:
            continue
        if other.layouts != rules.layouts or other.packs != rules.packs:
            continue  # a reading of the deck or the seating is another game, not this state's
        if _outcome(other, s, a) != want:
            out.append(cid)
    return out


@pytest.mark.parametrize("book", BOOKS)
def test_a_clause_not_named_never_changes_the_outcome(book: str) -> None:
    """Along random play, for the actions taken (legal ones) and some refused ones, switching any
    clause clauses_used does not name to another reading of the book leaves the next state (or
    the refusal) as it was."""
    rules = R(book)
    seating = RUMMY.seatings(rules)[0]
    rng = random.Random(11)
    order = list(RUMMY.deck(rules, seating))
    rng.shuffle(order)
    s = RUMMY.deal(rules, RUMMY.new_game(rules, seating), order)
    checked = 0
    for step in range(120):
        if RUMMY.phase(s) != "play":
            break
        acts = RUMMY.legal_actions(rules, s)
        a = acts[rng.randrange(len(acts))]
        if step % 3 == 0:
            assert undeclared(book, rules, s, a, used(rules, s, a)) == [], (a, s)
            checked += 1
        s = RUMMY.apply(rules, s, a)
    assert checked > 10


def test_the_check_catches_a_clause_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with a tracer blind to samba-en:set-start-min-naturals, a set
    of one natural and two wilds (legal by default, not under the two-naturals reading) shows
    that clause changing the outcome unnamed."""
    rules = R("samba-en")
    s = make_state(rules, hands={0: "2C KC JK 4C 9D QS"}, melds={0: ("7C 7D 7H",)})
    a = LayMeld(0, C("2C KC JK"))
    assert undeclared("samba-en", rules, s, a, used(rules, s, a)) == []
    monkeypatch.setattr(
        trace_module, "_CLAUSES", trace_module._CLAUSES - {"set_start_min_naturals"}
    )
    blind = used(rules, s, a)
    assert "samba-en:set-start-min-naturals" not in blind
    assert undeclared("samba-en", rules, s, a, blind) == ["samba-en:set-start-min-naturals"]


def _dealt_with_red_three(rules: RummyRules) -> tuple[Any, tuple[int, ...]]:
    """A game before its deal and a deck order whose first card (the first player's) is a red
    three."""
    seating = RUMMY.seatings(rules)[0]
    state = RUMMY.new_game(rules, seating)
    order = list(RUMMY.deck(rules, seating))
    random.Random(7).shuffle(order)
    three = next(i for i, c in enumerate(order) if RUMMY.card_name(c) in ("3H", "3D"))
    order[0], order[three] = order[three], order[0]
    return state, tuple(order)


@pytest.mark.parametrize("book", BOOKS)
def test_a_deal_names_the_clauses_it_reads(book: str) -> None:
    """In phase deal the action is a deck order (the GameModel protocol): the deal reads the hand
    size of the layout (*:layouts), the deck (*:packs), the opening minimum it fixes for each side
    (*:opening-minimums) and, with a red three dealt, how it is replaced
    (*:red-three-initial-replacement)."""
    rules = R(book)
    state, order = _dealt_with_red_three(rules)
    got = used(rules, state, order)
    keys = ("layouts", "packs", "opening-minimums", "red-three-initial-replacement")
    assert {f"{book}:{k}" for k in keys} <= got
    assert f"{book}:go-out-discard" not in got
    with pytest.raises(ArbitroError):
        RUMMY.clauses_used(rules, state, Draw(0, 2))
