"""`book-numbers`: the numbers the book's text states, proved over the encodings built from the
rules. The book's numbers (Captura: "suman 15 puntos"; Puntuación: "Hay cuatro puntos fijos",
one point each, and "un punto por cada escoba") are the spec's claims; a rules object changed in
one of them (as a spec mutant changes a clause's value) turns the property REFUTED with a witness.
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.schema import EscobaRules, rules_for
from arbitro.proofs.claims import check_claim
from arbitro.proofs.escoba import book_numbers as B
from arbitro.proofs.verdict import Verdict

T = 600.0
BOOK_VALUES = dict(zip("1234567SCR", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10), strict=True))
"""Capture values by rank, from the book (Jugadores y cartas: one to seven their pips, the sota 8,
the caballo 9, the rey 10)."""


def _book() -> EscobaRules:
    rules = rules_for("escoba-es")
    assert isinstance(rules, EscobaRules)
    return rules


def test_the_book_states_its_numbers_as_claims() -> None:
    kinds = {c.kind: c for c in B.book_claims(_book())}
    assert int(kinds["capture_total"].fields["total"]) == 15  # type: ignore[arg-type]
    assert int(kinds["category_points"].fields["points"]) == 1  # type: ignore[arg-type]
    assert int(kinds["escoba_points"].fields["points"]) == 1  # type: ignore[arg-type]


def test_the_book_keeps_its_numbers() -> None:
    res = B.run(_book(), T)
    assert res.verdict is Verdict.PROVED, res.summary
    assert {c.name.split("/")[1] for c in res.checks} == {
        "capture", "cards", "oros", "velo", "setenta", "escobas", "2-sides", "3-sides", "4-sides"
    }  # fmt: skip


@pytest.mark.parametrize("total", [14, 16])
def test_a_capture_sum_off_the_book_is_refuted_with_a_capture(total: int) -> None:
    res = B.run(dataclasses.replace(_book(), capture_sum=total), T)
    assert res.verdict is Verdict.REFUTED
    bad = next(c for c in res.checks if c.verdict is Verdict.REFUTED)
    assert bad.witness is not None
    data = bad.witness.data
    cards = [*data["card"], *data["taken"]]  # type: ignore[misc]
    assert sum(BOOK_VALUES[c[0]] for c in cards) == total


@pytest.mark.parametrize(
    ("field", "category"),
    [("velo_points", "velo"), ("setenta_points", "setenta"), ("oros_points", "oros"),
     ("cards_points", "cards"), ("escoba_points", "escobas")],
)  # fmt: skip
def test_a_point_off_the_book_is_refuted_with_a_hand(field: str, category: str) -> None:
    res = B.run(dataclasses.replace(_book(), **{field: 2}), T)
    assert res.verdict is Verdict.REFUTED
    bad = [c for c in res.checks if c.verdict is Verdict.REFUTED]
    assert [c.name.split("/")[1] for c in bad] == [category]
    assert bad[0].witness is not None
    assert bad[0].witness.data["categories"][category] >= 2  # type: ignore[index]


def test_the_book_states_its_target_as_a_claim() -> None:
    """Ganar el juego: "El primer equipo que tenga 21 o más puntos al final de una mano gana"."""
    (claim,) = [c for c in B.book_claims(_book()) if c.kind == "game_target"]
    assert int(claim.fields["points"]) == 21  # type: ignore[arg-type]
    assert "21" in claim.anchor


@pytest.mark.parametrize("target", [15, 25])
def test_a_target_off_the_book_is_refuted_with_totals(target: int) -> None:
    """A game to 15 ends with a side alone on fewer than 21; a game to 25 goes on with a side
    alone on 21 or more. The witness is the totals, and the engine of the changed rules agrees
    with the encoding on them (`game_winner`)."""
    res = B.run(dataclasses.replace(_book(), target_score=target), T)
    assert res.verdict is Verdict.REFUTED
    bad = [c for c in res.checks if c.verdict is Verdict.REFUTED]
    assert {c.name for c in bad} == {f"twenty-one-wins/{n}-sides" for n in (2, 3, 4)}
    for c in bad:
        assert c.witness is not None
        totals: list[int] = c.witness.data["totals"]  # type: ignore[assignment]
        top = max(totals)
        alone = totals.count(top) == 1
        if target < 21:  # the game ends below the book's 21
            assert c.witness.data["winner"] is not None and top < 21
        else:  # a side alone on 21 or more has not won
            assert c.witness.data["winner"] is None and top >= 21 and alone


def test_a_variant_the_book_lists_is_not_read_as_a_changed_point() -> None:
    """Variantes: all ten coins pay two points for oros. With that variant on, the oros point is
    not the fixed one and is left out; the rest still hold."""
    res = B.run(dataclasses.replace(_book(), variant_oros_all=True), T)
    assert res.verdict is Verdict.PROVED, res.summary
    assert "oros" not in {c.name.split("/")[1] for c in res.checks}


def test_the_claims_are_checked_by_the_same_proofs() -> None:
    book = _book()
    claim = next(c for c in B.book_claims(book) if c.kind == "capture_total")
    assert check_claim(claim, book, T).check.verdict is Verdict.PROVED
    wrong = dataclasses.replace(book, capture_sum=14)
    got = check_claim(claim, wrong, T).check
    assert got.verdict is Verdict.REFUTED and got.witness is not None


def test_the_capture_witness_replays_in_the_engine_of_the_changed_rules_only() -> None:
    """The witness's deck order, dealt by the engine under the rules that capture to 14, lets the
    first mover play the capture; under the book's rules the same deal does not."""
    from arbitro.model.escoba import ESCOBA as model
    from arbitro.proofs.escoba.hand_scores import seating_of

    book = _book()
    wrong = dataclasses.replace(book, capture_sum=14)
    bad = next(c for c in B.run(wrong, T).checks if c.verdict is Verdict.REFUTED)
    assert bad.witness is not None
    data = bad.witness.data
    deck = [model.parse_card(x) for x in data["deck"]]  # type: ignore[attr-defined]
    play = {"card": data["card"][0], "capture": data["taken"]}  # type: ignore[index]
    for rules, legal in ((wrong, True), (book, False)):
        state = model.deal(rules, model.new_game(rules, seating_of(rules, 2, 2), 0), deck)
        action = model.action_from_json({"seat": model.to_move(state), **play})
        assert (action in model.legal_actions(rules, state)) is legal
