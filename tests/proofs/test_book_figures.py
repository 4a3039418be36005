"""The `book-figures` property: the meld relation against the numbers the book writes out.

The numbers expected here are the books' own words (each `stated_value` claim's anchor holds its
number, checked below against a table of number words of the book's language); a rule changed
from them must come out REFUTED with a meld that the engine, under the changed rule, treats as
the witness says.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from arbitro.model.rummy.melds import Meld, classify
from arbitro.model.rummy.model import RUMMY
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.proofs.rummy import book_figures
from arbitro.proofs.verdict import Verdict
from tests.support.proofs import RUMMY_BOOKS, rummy

WORDS = {
    "en": {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8},
    "es": {"uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7},
    "fr": {"un": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7},
}
"""Small numbers as the books write them (English, Spanish, French)."""


def _numbers(anchor: str, language: str) -> set[int]:
    words = re.findall(r"\w+", anchor.lower())
    return {int(w) for w in words if w.isdigit()} | {
        WORDS[language][w] for w in words if w in WORDS[language]
    }


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_every_stated_number_is_written_at_its_anchor(book: str) -> None:
    """A `stated_value` claim is the book's own number: its anchor (found in the book's text by
    the spec tests) writes that number out."""
    stated = [c for c in load_rulebook(book).claims if c.kind == "stated_value"]
    assert stated
    language = book.split("-")[1]
    rb = load_rulebook(book)
    for c in stated:
        value = c.fields["value"]
        if isinstance(value, bool):
            # a rule the book states in words, not a number: the claim is anchored where the
            # book's own clause for it is
            assert c.anchor == rb.clause(str(c.fields["key"])).anchor, (c.id, c.anchor)
            continue
        if isinstance(value, dict):  # a table's entries, priced at this sentence
            assert set(value.values()) <= _numbers(c.anchor, language), (c.id, c.anchor)
            continue
        assert value in _numbers(c.anchor, language), (c.id, c.anchor)


def test_the_numbers_are_read_from_the_claims() -> None:
    # samba-en: "more than two wild cards", "three to seven cards", "maximum size of seven"
    assert book_figures.figures(rummy("samba-en")) == {
        "wild_cap": 2,
        "set_min": 3,
        "sequence_min": 3,
        "sequence_max": 7,
        "completed_size": 7,
    }


@pytest.mark.slow
def test_every_book_keeps_its_own_numbers() -> None:
    for book in RUMMY_BOOKS:
        res = book_figures.run(rummy(book), 30.0)
        assert res.verdict is Verdict.PROVED, (book, [c.name for c in res.failing()])


def _refuted(changed: dict[str, Any]) -> tuple[Any, list[str]]:
    """book-figures on samba-en with `changed` clause values (the claims keep the book's
    numbers): the first refuted check and its witness meld."""
    r = dataclasses.replace(rummy("samba-en"), **changed)
    res = book_figures.run(r, 30.0)
    assert res.verdict is Verdict.REFUTED, changed
    check = res.failing()[0]
    assert check.witness is not None
    return r, list(check.witness.data["meld"])


def _engine_takes(rules: Any, meld: list[str]) -> bool:
    """Whether the engine's meld rules (`classify`) accept these cards as one meld."""
    cards = tuple(sorted(RUMMY.parse_card(c) for c in meld))
    return isinstance(classify(tables(rules), cards), Meld)


def _wilds(meld: list[str]) -> int:
    return sum(1 for c in meld if c == "JK" or c[0] == "2")


def test_a_raised_wild_cap_is_refuted_with_a_meld_past_the_books_cap() -> None:
    """samba-en's wild cap changed 2 -> 3 (the spec mutant samba-en-wild-cap-up): the moves
    build a meld of three wilds, past "more than two wild cards"; the engine under the
    changed rule lays it, under the book's it does not."""
    r, meld = _refuted({"wild_cap": 3})
    assert _wilds(meld) == 3
    assert _engine_takes(r, meld) and not _engine_takes(rummy("samba-en"), meld)


def test_a_lowered_wild_cap_is_refuted_with_a_meld_the_book_allows() -> None:
    """samba-en's wild cap changed 2 -> 1 (samba-en-wild-cap-down): a set of two wilds is within
    the book's cap and no move builds it."""
    r, meld = _refuted({"wild_cap": 1})
    assert _wilds(meld) == 2
    assert _engine_takes(rummy("samba-en"), meld) and not _engine_takes(r, meld)


def test_a_longer_escalera_is_refuted() -> None:
    """samba-en's longest escalera changed 7 -> 8 (samba-en-sequence-max): the moves build one of
    eight cards, past "three to seven cards"."""
    r, meld = _refuted({"sequence_max": 8})
    assert len(meld) == 8 and _wilds(meld) == 0
    assert _engine_takes(r, meld) and not _engine_takes(rummy("samba-en"), meld)


@pytest.mark.parametrize(("key", "size"), [("set_min", 3), ("sequence_min", 3)])
def test_a_raised_minimum_is_refuted_with_a_meld_of_the_books_minimum(key: str, size: int) -> None:
    """samba-en's set and escalera minimums changed 3 -> 4 (samba-en-set-min,
    samba-en-sequence-min): a meld of three cards, which the book allows, is never built."""
    r, meld = _refuted({key: 4})
    assert len(meld) == size
    assert _engine_takes(rummy("samba-en"), meld) and not _engine_takes(r, meld)


def test_a_stated_value_claim_fails_on_a_changed_clause() -> None:
    """The claim check itself: samba-en's claim that the book writes its wild cap as two holds of
    the book's rules and is REFUTED, naming the clause, once the value is changed."""
    from arbitro.proofs.claims import check_claim

    r = rummy("samba-en")
    claim = next(
        c for c in load_rulebook("samba-en").claims if c.id == "samba-en:claim:stated-wild-cap"
    )
    assert check_claim(claim, r).check.verdict is Verdict.PROVED
    bad = check_claim(claim, dataclasses.replace(r, wild_cap=3)).check
    assert bad.verdict is Verdict.REFUTED and bad.core == ("samba-en:wild-cap",)


@pytest.mark.parametrize(
    ("book", "key", "value", "category", "stated"),
    [
        # samba-en "Natural canastas and sambas: 500 points each" (spec mutant: 450)
        ("samba-en", "bonus_samba", 450, "canastas", 500),
        # canasta-es "Canasta sucia (con 1 a 3 comodines): 300 puntos" (spec mutant: 305)
        ("canasta-es", "bonus_dirty_canasta", 305, "canastas", 300),
        # canasta-es "Cada tres rojo: 100 puntos" (spec mutant: 90)
        ("canasta-es", "red_three_each", 90, "red-threes", 100),
        # canasta-es "Cada 3 negro que quede en la mano de un jugador vale 100 puntos en
        # contra", its card value (5) counted in: the clause's own 95 (spec mutant: 100)
        ("canasta-es", "black_three_hand_penalty", 100, "black-threes", 95),
    ],
)
def test_a_changed_score_value_is_refuted_with_a_hand_scored_otherwise(
    book: str, key: str, value: int, category: str, stated: int
) -> None:
    """A score value changed from the book's number: the `scores` check finds a side's
    end-of-hand configuration whose category differs, by a multiple of the change."""
    stated_values = book_figures.figures(rummy(book), book_figures.SCORE_FIGURES)
    assert stated_values[key] == stated
    r = dataclasses.replace(rummy(book), **{key: value})
    check = book_figures.scores(r, stated_values, 30.0)
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    data = check.witness.data
    ours, theirs = data["categories"][category], data["book"][category]
    assert ours != theirs and (theirs - ours) % (stated - value) == 0
    assert book_figures.scores(rummy(book), stated_values, 30.0).verdict is Verdict.PROVED


def _refuted_in(book: str, changed: dict[str, Any]) -> tuple[Any, list[str]]:
    """book-figures on `book` with `changed` clause values: the first refuted check's meld."""
    r = dataclasses.replace(rummy(book), **changed)
    res = book_figures.run(r, 30.0)
    assert res.verdict is Verdict.REFUTED, changed
    check = res.failing()[0]
    assert check.witness is not None
    return r, list(check.witness.data["meld"])


def test_a_wild_meld_begun_short_is_refuted_with_the_meld() -> None:
    """canasta-es's wild melds begun with four wilds (the book: "iniciarse con un mínimo de 5";
    the spec mutant canasta-es-wild-meld-min-start): the moves lay a meld of four wilds, which
    the engine lays under the changed rule and refuses under the book's."""
    r, meld = _refuted_in("canasta-es", {"wild_meld_min_start": 4})
    assert len(meld) == 4 and _wilds(meld) == 4
    assert _engine_takes(r, meld) and not _engine_takes(rummy("canasta-es"), meld)


def test_wilds_past_the_naturals_are_refuted_with_the_meld() -> None:
    """samba-fr's wilds allowed to outnumber the naturals (the book: "ne doit pas dépasser le
    nombre de cartes naturelles"; samba-fr-wilds-at-most-naturals): the moves lay a meld with
    more wilds than naturals (two wilds and a black three), which the engine lays under the
    changed rule only."""
    r, meld = _refuted_in("samba-fr", {"wilds_at_most_naturals": False})
    assert _wilds(meld) > len(meld) - _wilds(meld)
    assert _engine_takes(r, meld) and not _engine_takes(rummy("samba-fr"), meld)


def test_canasta_sets_begun_with_one_natural_change_no_meld() -> None:
    """canasta-es's sets begun with one natural (canasta-es-set-start-min-naturals) change no
    meld: wilds at most the naturals and three cards at least already ask two naturals of every
    set, so book-figures stays PROVED, as it must. The claim is not idle: with the wilds also
    allowed past the naturals, the same change is REFUTED with a set of one natural."""
    r = dataclasses.replace(rummy("canasta-es"), set_start_min_naturals=1)
    assert book_figures.run(r, 30.0).verdict is Verdict.PROVED
    _, meld = _refuted_in(
        "canasta-es", {"set_start_min_naturals": 1, "wilds_at_most_naturals": False}
    )
    assert len(meld) - _wilds(meld) == 1


def test_a_reading_claim_speaks_only_of_its_reading() -> None:
    """canasta-es states the wild meld's start twice (5, and a trio of wilds): its claim of
    five is read under the default reading, and a changed value of no reading, and not under
    the trio reading, where the claim check is vacuous."""
    from arbitro.proofs.claims import check_claim

    assert book_figures.figures(rummy("canasta-es"))["wild_meld_min_start"] == 5
    trio = rules_for("canasta-es", {"wild_meld_min_start": "trio"})
    assert "wild_meld_min_start" not in book_figures.figures(trio)
    claim = next(
        c
        for c in load_rulebook("canasta-es").claims
        if c.id == "canasta-es:claim:stated-wild-meld-min-start"
    )
    vacuous = check_claim(claim, trio).check
    assert vacuous.verdict is Verdict.PROVED and vacuous.vacuous
    bad = check_claim(claim, dataclasses.replace(rummy("canasta-es"), wild_meld_min_start=4))
    assert bad.check.verdict is Verdict.REFUTED


def test_a_claim_naming_no_reading_of_its_clause_is_refused(tmp_path: Any) -> None:
    """A `stated_value` claim's `reading` must be a reading of its clause: a misspelt label is
    named at load, never silently a claim that speaks of nothing."""
    from arbitro.model.errors import SpecError
    from arbitro.model.spec import load_file

    text = Path(__file__).resolve().parents[2] / "spec" / "canasta-es.toml"
    bad = text.read_text(encoding="utf-8").replace('reading = "five"', 'reading = "fiev"')
    path = tmp_path / "canasta-es.toml"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(SpecError, match="'fiev' is not a reading of 'wild_meld_min_start'"):
        load_file(path)


def test_a_changed_card_value_is_refuted_with_a_hand_holding_the_card() -> None:
    """samba-en's joker counted 40 (the book: "Jokers are wild. 50 points each."; the spec
    mutant samba-en-card-points): the `scores` check finds a configuration with a joker, melded
    or held, that the changed rules score 10 apart from the book's values."""
    r = rummy("samba-en")
    stated = book_figures.figures(r, book_figures.SCORE_FIGURES)
    # the five sentences of the book's card values, gathered into one table
    assert stated["card_points"] == {"joker": 50, "two": 20, "ace": 20, "high": 10, "low": 5}
    changed = dataclasses.replace(r, card_points=dataclasses.replace(r.card_points, joker=40))
    check = book_figures.scores(changed, stated, 30.0)
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    data = check.witness.data
    differ = [c for c in data["book"] if data["categories"][c] != data["book"][c]]
    assert differ and all(abs(data["categories"][c] - data["book"][c]) % 10 == 0 for c in differ)
    assert "JK" in [c for m in data["melds"] for c in m] + list(data["hand"])


def test_the_black_three_in_hand_is_read_under_its_reading_only() -> None:
    """canasta-es says twice what a black three left in hand costs: its list of card values
    (100 in all, the card's 5 counted in) and its scoring note (only a side that could not
    open). The claim of the list is the clause's 95 under that reading, and is not read under
    the note's."""
    stated = book_figures.figures(rummy("canasta-es"), book_figures.SCORE_FIGURES)
    assert stated["black_three_hand_penalty"] == 100 - rummy("canasta-es").card_points.black_three
    nota = rules_for("canasta-es", {"black_three_hand_penalty": "nota"})
    assert "black_three_hand_penalty" not in book_figures.figures(nota, book_figures.SCORE_FIGURES)
