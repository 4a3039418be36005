"""`apply` plays an action that `legal_actions` listed as legal through the `LISTED` judge, which
leaves out the checks that could only refuse it: the state it reaches is the one the strict
judge reaches, for every listed action of random play in every book."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from arbitro.model.rummy import RUMMY, engine
from arbitro.model.rummy.refusal import LISTED, STRICT, Judge
from arbitro.model.rummy.state import State, replaced
from arbitro.model.rummy.tables import Tables, tables
from tests.support.rummy_helpers import BOOKS, R, seating

Rule = Callable[[Tables, State, Any, Judge], State]


_MELDING = ("LayMeld", "AddToMeld", "Merge", "ReplaceWild", "FinishOpening")


def _runs(book: str, rule: Rule, hands: int, seed: int = 11) -> tuple[Counter[str], list[Any]]:
    """Every action listed along `hands` hands of random play (four players in two sides where
    the book has them; a melding action chosen nine times in ten when there is one, so that
    hands are emptied by melding too), played by `rule` with the strict judge and with
    `LISTED`: how many of each kind were compared (and how many ended the hand), and those
    whose states differ."""
    rules = R(book)
    t = tables(rules)
    seats = seating(rules)
    deck = list(RUMMY.deck(rules, seats))
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    differ: list[Any] = []
    for hand in range(hands):
        order = deck[:]
        rng.shuffle(order)
        s = RUMMY.deal(rules, RUMMY.new_game(rules, seats, dealer=hand % seats.players), order)
        while RUMMY.phase(s) == "play":
            acts = engine.legal_actions(rules, s)
            for a in acts:
                want = rule(t, s, a, STRICT)
                got = rule(t, s, a, LISTED)
                kind = type(a).__name__
                seen[kind] += 1
                if want.phase != "play":
                    seen[f"{kind} ends the hand"] += 1
                if got != want:
                    differ.append((s, a))
            melding = [a for a in acts if type(a).__name__ in _MELDING]
            pool = melding if melding and rng.random() < 0.9 else acts
            s = RUMMY.apply(rules, s, pool[rng.randrange(len(pool))])
    return seen, differ


@pytest.mark.parametrize("book", BOOKS)
def test_listed_judge_reaches_the_strict_state(book: str) -> None:
    """Every kind of action (a discard, a meld, an addition, asking the partner, going out by a
    discard; going out by a meld in samba-es, below) reaches the same state under both
    judges."""
    seen, differ = _runs(book, engine.transition, 6)
    assert differ == []
    for kind in ("Discard", "LayMeld", "AddToMeld", "Draw", "TakePile"):
        assert seen[kind] > 0, (kind, seen)
    assert seen["Discard ends the hand"] > 0, seen
    if R(book).ask_partner:
        assert seen["AskPartner"] > 0, seen


def test_listed_judge_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a `LISTED` judge that also skipped going out when a meld
    empties the hand (`melding.settle`) keeps playing a hand the strict judge ends. (Broken in a
    copy of the melding module run from source, which a patch reaches.)"""
    copy = source_module("arbitro.model.rummy.melding")

    def rule(t: Tables, s: State, a: Any, j: Judge) -> State:
        if type(a).__name__ == "AddToMeld":
            return copy.add(t, s, a, j)  # type: ignore[no-any-return]
        if type(a).__name__ == "LayMeld":
            return copy.lay(t, s, a, j)  # type: ignore[no-any-return]
        return engine.transition(t, s, a, j)

    seen, differ = _runs("samba-es", rule, 6)
    assert differ == []
    assert seen["AddToMeld ends the hand"] + seen["LayMeld ends the hand"] > 0, seen
    settle = copy.settle
    monkeypatch.setattr(
        copy, "settle", lambda t, s, j=STRICT: s if j is LISTED else settle(t, s, j)
    )
    seen, differ = _runs("samba-es", rule, 6)
    assert differ != []


def test_listed_addition_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """It fails too on an addition: a `LISTED` addition (`melding._listed_add`) that leaves the
    card in the hand reaches a state the strict judge does not. (Broken in a copy of the
    melding module run from source.)"""
    copy = source_module("arbitro.model.rummy.melding")

    def rule(t: Tables, s: State, a: Any, j: Judge) -> State:
        if type(a).__name__ == "AddToMeld":
            return copy.add(t, s, a, j)  # type: ignore[no-any-return]
        return engine.transition(t, s, a, j)

    seen, differ = _runs("canasta-es", rule, 2)
    assert differ == []
    assert seen["AddToMeld"] > 0, seen
    listed_add = copy._listed_add

    def kept(t: Tables, s: State, i: int, card: int) -> State:
        got: State = listed_add(t, s, i, card)
        return replaced(got, hands=s.hands) if got.phase == "play" else got

    monkeypatch.setattr(copy, "_listed_add", kept)
    assert _runs("canasta-es", rule, 2)[1] != []


def _listed_melds(m: ModuleType, book: str) -> tuple[int, int]:
    """Over the LayMelds listed along random play of `book`: how many, and for how many the meld
    `m.listed_meld` builds for the listed lay is not the one `classify` makes of its cards."""
    from arbitro.model.rummy.melds import classify
    from tests.model.rummy.test_rummy_fast_paths import walk

    rules = R(book)
    t = tables(rules)
    laid = differ = 0
    for s in walk(rules, 13, 600):
        for a in engine.legal_actions(rules, s):
            if type(a).__name__ == "LayMeld":
                laid += 1
                differ += m.listed_meld(t, a.cards) != classify(t, a.cards)
    return laid, differ


@pytest.mark.parametrize("book", BOOKS)
def test_listed_lay_builds_the_meld_classify_makes(book: str) -> None:
    """A listed lay's meld, built by `melding.listed_meld` without `classify` (naturals of one
    rank a set, of several an escalera, a set with wilds by its counts), is `classify`'s."""
    from arbitro.model.rummy import melding

    laid, differ = _listed_melds(melding, book)
    assert laid > 50
    assert differ == 0


def test_listed_lay_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparisons can fail: naturals taken for a set of the lowest card's rank whatever
    their ranks (an escalera laid as a set) differ from `classify`, and the state the listed
    lay reaches then differs from the strict judge's; so does a listed take whose hand is cut
    by a walk that drops every copy of a card shown. (Broken in copies of the melding and pile
    modules run from source.)"""
    from arbitro.model.rummy.melds import SET, Meld

    copy = source_module("arbitro.model.rummy.melding")
    right = copy.listed_meld

    def broken(t: Tables, cards: tuple[int, ...]) -> Meld:
        if cards[0] >= 8 and cards[-1] < 52:
            return Meld(SET, cards[0] >> 2, cards)
        return right(t, cards)  # type: ignore[no-any-return]

    def rule(t: Tables, s: State, a: Any, j: Judge) -> State:
        if type(a).__name__ == "LayMeld":
            return copy.lay(t, s, a, j)  # type: ignore[no-any-return]
        return engine.transition(t, s, a, j)

    monkeypatch.setattr(copy, "listed_meld", broken)
    assert _listed_melds(copy, "samba-es")[1] > 0
    assert _runs("samba-es", rule, 6)[1] != []

    pile = source_module("arbitro.model.rummy.pile")
    monkeypatch.setattr(
        pile, "without", lambda cards, taken: tuple([c for c in cards if c not in taken])
    )

    def take(t: Tables, s: State, a: Any, j: Judge) -> State:
        if type(a).__name__ == "TakePile":
            return pile.take_pile(t, s, a, j)  # type: ignore[no-any-return]
        return engine.transition(t, s, a, j)

    assert _runs("samba-es", take, 6)[1] != []
