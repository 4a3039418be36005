"""Escoba's conservation, proved inductive over the guarded relation: it holds for the book, and a
broken rule or a broken step of the relation turns it REFUTED with the step as witness."""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.schema import DealCount, EscobaRules, rules_for
from arbitro.proofs.escoba import invariants as I
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.facts import Facts
from arbitro.proofs.verdict import Verdict

T = 600.0


def _book() -> EscobaRules:
    rules = rules_for("escoba-es")
    assert isinstance(rules, EscobaRules)
    return rules


TWO = R.Seating(2, 2)


@pytest.mark.parametrize(
    ("play", "follow"), [("capture", "pass"), ("lay", "pass"), ("capture", "end")]
)
def test_the_book_keeps_every_card_in_one_place(play: str, follow: str) -> None:
    check = I.step_check(_book(), I.Instance(TWO, 0, 0, play, follow), "cards", T)
    assert check.verdict is Verdict.PROVED, check.witness or check.reason


def test_the_opening_deal_puts_every_card_in_one_place() -> None:
    assert I.deal_check(_book(), TWO, 0, "cards", T).verdict is Verdict.PROVED


def test_a_deal_count_that_leaves_cards_in_the_stock_is_refuted() -> None:
    """Two players: 40 - 2·3 - 4 = 30 cards after the opening deal, 6 a deal: the book's 6 deals.
    With 5, six cards are still in the stock when the last one is played out."""
    wrong = dataclasses.replace(_book(), deals_per_hand=(DealCount(2, 5),))
    check = I.step_check(wrong, I.Instance(TWO, 0, 0, "lay", "end"), "cards", T)
    assert check.verdict is Verdict.REFUTED
    assert check.witness is not None
    assert len(check.witness.data["stock"]) == 6  # type: ignore[arg-type]


def test_a_capture_that_loses_its_cards_is_refuted() -> None:
    """A relation whose capture forgets to put the cards taken in the side's captures."""

    def lose(rel: R.Relation) -> R.Relation:
        rel.effects = Facts(f for f in rel.effects if "captures" not in f.note)
        return rel

    check = I.step_check(_book(), I.Instance(TWO, 0, 0, "capture", "pass"), "cards", T, lose)
    assert check.verdict is Verdict.REFUTED
    assert check.witness is not None and "takes" in check.witness.text


@pytest.mark.slow
def test_conservation_holds_for_every_seating() -> None:
    res = I.conservation(_book(), T)
    assert res.verdict is Verdict.PROVED, res.summary


def test_a_later_deal_that_forgets_the_stock_is_refuted() -> None:
    """A relation whose later deal does not say what the stock keeps: the stock after it may
    hold anything, and the step is refuted (the first, guard-less proof fails, and the check
    with every guard finds a later deal the rules allow that breaks the invariant)."""

    def forget(rel: R.Relation) -> R.Relation:
        rel.effects = Facts(f for f in rel.effects if "keeps the rest" not in f.note)
        return rel

    check = I.step_check(_book(), I.Instance(TWO, 0, 0, "lay", "redeal"), "cards", T, forget)
    assert check.verdict is Verdict.REFUTED
    assert check.witness is not None and "laid" in check.witness.text


def test_a_step_no_state_allows_is_reported_vacuous() -> None:
    """Whether a step can happen is shown by a play of the engine on which its guards and
    premises hold; a step whose guard no state of the invariant meets (here: a deal number below
    the first) fails on that play, and the solver then finds the guard unsatisfiable."""

    def never(rel: R.Relation) -> R.Relation:
        rel.guards.add("escoba-es:deals-per-hand", rel.pre.deal < 1, "before the first deal")
        return rel

    fine = I.step_check(_book(), I.Instance(TWO, 0, 0, "capture", "pass"), "cards", T)
    assert fine.verdict is Verdict.PROVED and not fine.vacuous
    check = I.step_check(_book(), I.Instance(TWO, 0, 0, "capture", "pass"), "cards", T, never)
    assert check.verdict is Verdict.PROVED and check.vacuous


def test_a_deal_that_does_not_say_what_the_stock_holds_is_refuted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deal's parts are asked with the state it leaves put in from the deck order: a deal
    whose facts leave the stock undefined (here: the stock fact dropped) is refuted with a deck
    order, so the substitution does not make the base case hold by itself."""
    real = I.deal_state

    def forget(
        rules: EscobaRules, g: R.Seating, dealer: int
    ) -> tuple[Facts, R.State, list[object]]:
        f, st, order = real(rules, g, dealer)
        return Facts(x for x in f if not x.note.startswith("the stock")), st, order  # type: ignore[return-value]

    monkeypatch.setattr(I, "deal_state", forget)
    check = I.deal_check(_book(), TWO, 0, "cards", T)
    assert check.verdict is Verdict.REFUTED
    assert check.witness is not None and "breaks cards" in check.witness.text
    assert len(check.witness.data["deck"]) == 40  # type: ignore[arg-type]
