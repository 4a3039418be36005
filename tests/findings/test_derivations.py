"""The derivations behind the findings, each shown to fail on a deliberately broken rule or claim.

Expected verdicts come from the careful reader's inventory (tests/data/reader/, worked out by hand
from the book texts) or from the book's own numbers, never from the code under test.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arbitro.model.schema import Band, RummyRules, rules_for
from arbitro.model.spec import Claim, load_rulebook
from arbitro.proofs.claims import ClaimCheck, check_book, check_claim
from arbitro.proofs.clashes import clashes
from arbitro.proofs.dead_rules import dead_rules, escalera_wild_core
from arbitro.proofs.differences import witness
from arbitro.proofs.verdict import Verdict
from tests.support.quick import first_of_each

READER = Path(__file__).resolve().parent.parent / "data" / "reader"


def reader_verdicts(book: str) -> dict[str, str]:
    """The reader's verdict on each claim of the book: holds, fails or depends."""
    out: dict[str, str] = {}
    for path in READER.glob("*.toml"):
        for item in tomllib.loads(path.read_text(encoding="utf-8")).get("item", []):
            for cid, v in item.get("verdicts", {}).items():
                if cid.startswith(book + ":"):
                    out[cid] = v
    return out


@functools.cache
def default_checks(book: str) -> tuple[ClaimCheck, ...]:
    """Every claim of the book checked under its default readings, once for this file (two tests
    read escoba-es's; each reads without changing them)."""
    return tuple(check_book(book, all_readings=False, timeout=20))


# a quick run checks one book; CI checks the three
@pytest.mark.parametrize("book", first_of_each(["samba-es", "samba-en", "escoba-es"]))
def test_default_verdicts_agree_with_the_reader(book: str) -> None:
    want = reader_verdicts(book)
    got = {c.claim.id: c for c in default_checks(book)}
    assert set(got) == set(want)
    for cid, v in want.items():
        verdict = got[cid].verdict
        if v == "fails":
            assert verdict is Verdict.REFUTED, cid
            assert got[cid].check.witness is not None
        elif verdict is not Verdict.UNKNOWN:  # holds, or depends on a reading the default keeps
            assert verdict is Verdict.PROVED, (cid, got[cid].check.witness)


def test_the_table_rest_claim_is_refuted_by_a_hand_leaving_70() -> None:
    got = {c.claim.name: c for c in default_checks("escoba-es")}
    c = got["table-remainder"]
    assert c.verdict is Verdict.REFUTED
    # 220 = 14 x 15 + 10: what remains is 10 mod 15; 70 is the first amount the book leaves out
    assert c.check.witness is not None and c.check.witness.text.startswith("70 ")
    assert c.check.witness.data["hand"]


def _broken(claim: Claim, **fields: Any) -> Claim:
    return dataclasses.replace(claim, fields={**claim.fields, **fields})


@pytest.mark.parametrize(
    ("book", "name", "fields"),
    [
        ("escoba-es", "forty-cards", {"count": 41}),
        ("escoba-es", "pack-totals-220", {"total": 221}),
        ("escoba-es", "capture-example", {"captures": [[4, 7]]}),
        ("escoba-es", "six-beats-ace", {"winner": "second"}),
        ("escoba-es", "knight-taken-by-six", {"swept_by": [5]}),
        ("escoba-es", "six-deals-for-two", {"deals": 5}),
        ("escoba-es", "four-sevens-two-points", {"categories": ["oros"]}),
        ("samba-en", "deck-size", {"count": 160}),
        ("samba-en", "no-meld-below-fifteen", {"points": 20}),
        ("samba-en", "six-red-threes-thousand", {"points": 900}),
        ("samba-es", "scores-in-fives", {"step": 10}),
        ("samba-fr", "four-jacks", {"legal": False}),
        ("samba-fr", "five-sambas-per-suit", {"count": 4}),
        ("canasta-es", "wild-table", {"by_size": {"7": 2}}),
        ("canasta-es", "queens-canasta", {"points": 600}),
        ("canasta-es", "only-aces-reach-90", {"ranks": ["A", "K"]}),
        ("canasta-es", "target-in-one-hand", {"points": 100000}),
    ],
)
def test_a_broken_claim_is_refuted(book: str, name: str, fields: dict[str, Any]) -> None:
    rb = load_rulebook(book)
    claim = next(c for c in rb.claims if c.name == name)
    assert check_claim(claim, rules_for(rb), timeout=20).verdict is Verdict.PROVED
    broken = check_claim(_broken(claim, **fields), rules_for(rb), timeout=20)
    assert broken.verdict is Verdict.REFUTED
    assert broken.check.witness is not None or broken.check.core


def _rummy(book: str, **changes: Any) -> RummyRules:
    r = rules_for(book)
    assert isinstance(r, RummyRules)
    return dataclasses.replace(r, **changes)


def test_no_clause_clash_in_the_books_but_one_in_a_broken_canasta() -> None:
    assert clashes(_rummy("canasta-es")) == []
    # a wild-only meld must start with more wild cards than any meld may hold: shows only through
    # the consequence that no wild meld can be laid at all
    broken = _rummy("canasta-es", wild_meld_min_start=9)
    found = clashes(broken)
    assert found and "wild cards only" in found[0].permission
    assert "canasta-es:wild-meld-min-start" in found[0].core


def test_a_going_out_rule_nobody_can_meet_is_a_clash() -> None:
    # eight completed melds are more than the two-pack canasta deck holds wild cards and naturals for
    broken = _rummy("canasta-es", go_out_min_completed=40)
    assert any(c.permission == "a side may go out" for c in clashes(broken))


def test_the_undeclared_red_three_penalty_is_dead_and_comes_alive_without_the_replacement() -> None:
    dead = [d for d in dead_rules(_rummy("samba-en")) if "red three" in d.what]
    assert dead and dead[0].core == ("samba-en:red-three-initial-replacement",)
    assert not [
        d
        for d in dead_rules(_rummy("samba-en", red_three_undeclared_penalty=0))
        if "red three" in d.what
    ]


def test_an_opening_row_below_the_least_meld_is_dead_and_one_above_is_not() -> None:
    # the least meld is three natural fives (or fours, sixes, sevens): 3 x 5 = 15 points
    rows = (Band(15, None, -1), Band(50, 0, None))
    found = [
        d for d in dead_rules(_rummy("samba-es", opening_minimums=rows)) if "opening" in d.what
    ]
    assert [d.what for d in found] == ["the opening minimum of 15 for a side on -1 or less"]
    assert found[0].witness["points"] == 15
    rows = (Band(20, None, -1), Band(50, 0, None))
    assert not [
        d for d in dead_rules(_rummy("samba-es", opening_minimums=rows)) if "opening" in d.what
    ]


def test_no_samba_holds_a_wild_unless_escaleras_may_take_one() -> None:
    assert escalera_wild_core(_rummy("samba-en")) is not None
    assert escalera_wild_core(_rummy("canasta-es")) is None  # no escaleras at all


def test_a_meld_difference_is_told_apart_by_the_models_of_both_books() -> None:
    a, b = rules_for("canasta-es"), rules_for("samba-en")
    w = witness(a, b, "wild_cap")
    assert w.found and w.how == "meld"
    verdicts = list(w.data["model"].values())
    assert verdicts[0] == "legal" and verdicts[1].startswith("refused")


def test_a_score_difference_shows_both_scores() -> None:
    w = witness(rules_for("canasta-es"), rules_for("samba-en"), "wild_canasta_bonus")
    assert w.found and w.how == "score"
    a, b = w.data["scores"].values()
    # canasta-es pays 2000 for a canasta of wild cards, samba-en nothing (its bonus clause)
    assert sum(a.values()) - sum(b.values()) == 2000


def test_the_same_rule_is_never_told_apart() -> None:
    a = rules_for("samba-en")
    w = witness(a, a, "draw_count", hands=1, budget=1000)
    assert not w.found


def test_an_escoba_reading_is_told_apart_by_a_played_hand() -> None:
    a = rules_for("escoba-es")
    b = rules_for("escoba-es", {"setenta_missing_suit": "lowest"})
    w = witness(a, b, "setenta_missing_suit", hands=20, budget=20000)
    assert w.found and w.how == "score"
