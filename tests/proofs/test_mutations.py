"""Every property can fail: a deliberately broken rule set or move comes out REFUTED, with a
witness that shows the break in the book's terms.

Each break is made in one place only (the rule that admits a move, or one move's effect), so
the property's other side still states the book's rule; the witness is then checked against
what the break predicts, by arithmetic done here, not by the code under test.
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.schema import Band, DealCount, Sweep
from arbitro.proofs.escoba import invariants as escoba_inv
from arbitro.proofs.escoba import moves as escoba_moves
from arbitro.proofs.escoba import relation as escoba_rel
from arbitro.proofs.escoba import scoring as escoba_scoring
from arbitro.proofs.escoba import table_rest
from arbitro.proofs.facts import Facts
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy import conservation, meld_caps, moves, opening, scoring
from arbitro.proofs.verdict import Verdict
from tests.support.proofs import escoba, rummy

T = 600.0  # a safety net only: the resource limit decides, as in the other proof tests
TWO = escoba_rel.Seating(2, 2)


def test_conservation_refutes_a_discard_that_drops_the_card() -> None:
    rel = moves.discard(rummy("samba-en"))[0]
    rel.effects = Facts([f for f in rel.effects if f.note != "the pile gets it"])
    rel.effects.given(rel.post["pile"].eq(rel.pre["pile"]), "the pile keeps what it had")
    check = conservation.move_check(rel, T)
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    diff = check.witness.data["differences"]
    assert len(diff) == 1 and diff[0].endswith("1 before, 0 after")


def test_conservation_refutes_a_pile_take_that_keeps_the_red_threes() -> None:
    """The red threes of a taken pile go nowhere: the take loses them."""
    rel = moves.take_pile(rummy("canasta-es"))[0]
    rel.effects = Facts([f for f in rel.effects if "red threes in the pile" not in f.note])
    rel.effects.given(rel.post["reds"].eq(rel.pre["reds"]), "the row keeps what it had")
    check = conservation.move_check(rel, T)
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    assert all(d[:2] in ("3D", "3H") for d in check.witness.data["differences"])


def test_conservation_refutes_a_capture_that_keeps_the_card() -> None:
    rel = escoba_moves.capture(escoba())
    rel.effects = Facts([f for f in rel.effects if "side's captures" not in f.note])
    rel.effects.given(
        rel.post["pile"].eq(rel.pre["pile"] + rel.params["taken"]), "only the group is taken"
    )
    check = escoba_moves.move_check(rel, T)
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    assert len(check.witness.data["differences"]) == 1


def test_meld_caps_refutes_a_wild_cap_raised_in_the_addition_rule_only() -> None:
    r = rummy("samba-en")
    checks = {
        c.name: c for c in meld_caps.meld_caps(r, T, guard=dataclasses.replace(r, wild_cap=3))
    }
    add = checks["add/set"]
    assert add.verdict is Verdict.REFUTED and add.witness is not None
    after = add.witness.data["after"]
    assert sum(1 for x in after if x == "JK" or x.startswith("2")) == 3
    assert any("samba-en:wild-cap" in b for b in add.witness.data["breaks"])


def test_meld_caps_refutes_a_canasta_that_grows_where_the_book_closes_it() -> None:
    r = rummy("samba-en")  # completed_set_growth = none
    checks = {
        c.name: c
        for c in meld_caps.meld_caps(r, T, guard=dataclasses.replace(r, completed_set_growth="any"))
    }
    add = checks["add/set"]
    assert add.verdict is Verdict.REFUTED and add.witness is not None
    assert len(add.witness.data["after"]) == 8


def test_meld_caps_refutes_a_halved_wild_limit() -> None:
    """samba-fr's relation built with its wild limit halved (2 -> 1): the soundness steps still
    hold (a stricter guard keeps every cap), but `exact/set` is REFUTED with a set the book allows
    and the halved relation never builds: two wilds (over 1, within 2), no more wilds than
    naturals. The engine's `classify` agrees: a set under the book, refused for its wild cap once
    halved."""
    from arbitro.model.rummy.melds import classify
    from arbitro.model.rummy.model import RUMMY
    from arbitro.model.rummy.tables import tables

    r = rummy("samba-fr")
    assert r.wild_cap == 2 and r.wilds_at_most_naturals  # samba-fr:wild-cap, two-wilds reading
    half = dataclasses.replace(r, wild_cap=1)
    assert all(c.verdict is Verdict.PROVED for c in meld_caps.meld_caps(r, T, guard=half))
    checks = {c.name: c for c in meld_caps.exact(r, T, guard=half)}
    got = checks["exact/set"]
    assert got.verdict is Verdict.REFUTED and got.witness is not None
    meld = got.witness.data["meld"]
    wilds = sum(1 for x in meld if x == "JK" or x.startswith("2"))
    naturals = [x[:-1] for x in meld if x != "JK" and not x.startswith("2")]
    assert wilds == 2 and len(naturals) >= 2 and len(set(naturals)) == 1
    cards = tuple(sorted(RUMMY.parse_card(x) for x in meld))
    assert not isinstance(classify(tables(r), cards), str)
    assert classify(tables(half), cards) == "wild_cap"
    assert {c.name: c.verdict for c in meld_caps.exact(r, T)}["exact/set"] is Verdict.PROVED


def test_meld_caps_refutes_a_raised_escalera_minimum() -> None:
    """An escalera minimum raised by one in the relation alone: a three-card escalera is within
    samba-en's caps and never built."""
    r = rummy("samba-en")
    checks = {
        c.name: c
        for c in meld_caps.exact(
            r, T, guard=dataclasses.replace(r, sequence_min=r.sequence_min + 1)
        )
    }
    got = checks["exact/escalera"]
    assert got.verdict is Verdict.REFUTED and got.witness is not None
    assert len(got.witness.data["meld"]) == r.sequence_min == 3  # samba-en:sequence-min


def test_meld_caps_refutes_a_lowered_escalera_minimum() -> None:
    """The other way: an escalera minimum lowered by one in the relation alone lets a two-card
    escalera be laid, which breaks samba-en's minimum of three (the sound half, `lay`)."""
    r = rummy("samba-en")
    checks = {
        c.name: c
        for c in meld_caps.meld_caps(
            r, T, guard=dataclasses.replace(r, sequence_min=r.sequence_min - 1)
        )
    }
    got = checks["lay"]
    assert got.verdict is Verdict.REFUTED and got.witness is not None
    assert len(got.witness.data["meld"]) == 2
    assert any("samba-en:sequence-min" in b for b in got.witness.data["breaks"])


def test_score_bounds_refutes_a_negative_bonus() -> None:
    r = dataclasses.replace(rummy("canasta-es"), bonus_clean_canasta=-500)
    checks = {c.name: c for c in scoring.signs(r, T)}
    bad = checks["sign/canastas"]
    assert bad.verdict is Verdict.REFUTED and bad.witness is not None
    data = bad.witness.data
    assert data["categories"]["canastas"] < 0
    clean = [
        m for m in data["melds"] if len(m) >= 7 and not any(x == "JK" or x[0] == "2" for x in m)
    ]
    assert clean  # the witness holds a clean canasta, now priced below zero


def test_score_step_refutes_a_bonus_off_the_card_unit() -> None:
    r = dataclasses.replace(rummy("canasta-es"), bonus_going_out=101)
    res = scoring.step(r, T)
    check = res.checks[0]
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    data = check.witness.data
    assert data["total"] % 5 != 0
    assert data["total"] == sum(data["categories"].values())
    assert data["categories"]["going-out"] == 101


def test_opening_table_refutes_a_gap() -> None:
    r = rummy("samba-es")
    bands = list(r.opening_minimums)
    i = next(j for j, b in enumerate(bands) if b.high == 2999)
    bands[i] = Band(bands[i].minimum, bands[i].low, 2899)  # 2900 to 2999 fall in no row
    res = opening.run(dataclasses.replace(r, opening_minimums=tuple(bands)), T, step=5)
    check = res.checks[0]
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    score = check.witness.data["side_score"]
    assert 2900 <= score <= 2999 and score % 5 == 0


def test_opening_table_refutes_rows_that_disagree() -> None:
    r = rummy("canasta-es")
    bands = (*r.opening_minimums, Band(75, 1000, 1200))
    res = opening.run(dataclasses.replace(r, opening_minimums=bands), T, step=5)
    check = res.checks[0]
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    assert 1000 <= check.witness.data["side_score"] <= 1200
    assert sorted(check.witness.data["minimums"]) == [50, 75]


def test_table_rest_refutes_a_sweep_total_off_the_capture_sum() -> None:
    # the deal's check of two players alone: the break is in the deal, which every seating shares
    # (`test_the_real_books_hold_where_the_mutants_do_not` runs all of `invariant_checks`)
    r = dataclasses.replace(escoba(), opening_sweeps=(Sweep(15, 1), Sweep(31, 2)))
    deal = table_rest.deal_check(r, TWO, T)
    assert deal.name == "deal/2p2s"
    assert deal.verdict is Verdict.REFUTED and deal.witness is not None
    assert deal.witness.data["worth"] == 31


@pytest.mark.slow
def test_table_rest_refutes_a_capture_rule_changed_alone() -> None:
    r = escoba()
    guard = dataclasses.replace(r, capture_sum=14)
    # the steps of two players that the assertions read (the break is in the capture rule, which
    # every seating shares; `invariant_checks` itself runs whole on the real book below)
    checks = {
        c.name: c
        for c in (
            table_rest.step_check(r, escoba_inv.Instance(TWO, 0, 0, play, follow), T, guard)
            for play, follow in (("capture", "pass"), ("capture", "end"), ("lay", "pass"))
        )
    }
    cap = checks["capture/pass/2p2s"]
    assert cap.verdict is Verdict.REFUTED and cap.witness is not None
    assert cap.witness.data["worth"] == 14
    # the hand's last play then leaves on the table what no multiple of 15 explains
    assert checks["capture/end/2p2s"].verdict is Verdict.REFUTED
    assert checks["lay/pass/2p2s"].verdict is Verdict.PROVED  # a lay captures nothing either way


def test_escoba_score_bounds_refutes_a_negative_point() -> None:
    r = dataclasses.replace(escoba(), velo_points=-1)
    checks = {c.name: c for c in escoba_scoring.signs(r, T)}
    bad = checks["sign/velo"]
    assert bad.verdict is Verdict.REFUTED and bad.witness is not None
    assert "7o" in bad.witness.data["piles"][0]


def test_deal_arithmetic_refutes_a_wrong_deal_count() -> None:
    r = escoba()
    wrong = dataclasses.replace(
        r, deals_per_hand=(DealCount(2, 5), DealCount(3, 4), DealCount(4, 3))
    )
    res = escoba_scoring.deal_arithmetic(wrong, T)
    check = res.checks[0]
    assert check.verdict is Verdict.REFUTED and check.witness is not None
    # 2 x 3 + 4 + 4 x (2 x 3) = 34 cards
    assert check.witness.data == {"players": 2, "deals": 5, "cards": 34}


def test_the_real_books_hold_where_the_mutants_do_not() -> None:
    """The unbroken rules of the same books: the same checks are PROVED (so the refutations
    above come from the breaks)."""
    assert all(c.verdict is Verdict.PROVED for c in meld_caps.meld_caps(rummy("samba-en"), T))
    assert all(c.verdict is Verdict.PROVED for c in meld_caps.exact(rummy("samba-en"), T))
    assert all(c.verdict is Verdict.PROVED for c in scoring.signs(rummy("canasta-es"), T))
    assert all(c.verdict is Verdict.PROVED for c in table_rest.invariant_checks(escoba(), T))
    assert conservation.move_check(moves.discard(rummy("samba-en"))[0], T).verdict is Verdict.PROVED


_ = C


def test_red_three_claim_refutes_a_relation_where_drawn_red_threes_join_the_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """canasta-es' claim "a red three reaches the pile only as the upcard" holds on the relation,
    which lays every red three out as it is drawn, whatever the book: no spec change breaks it.
    With the draw's effects changed so that drawn red threes join the hand (as an engine that
    kept them would play), the same check is REFUTED and names the draw."""
    from arbitro.model.spec import load_rulebook
    from arbitro.proofs import claims

    r = rummy("canasta-es")
    claim = next(c for c in load_rulebook("canasta-es").claims if c.id.endswith("only-as-upcard"))
    assert claims.check_claim(claim, r).verdict is Verdict.PROVED
    real = moves.relations

    def kept(rules: object) -> dict[str, moves.Relation]:
        out = dict(real(rules))  # type: ignore[arg-type]
        rel = out["draw"]
        x = rel.params["drawn"]
        rel.effects = Facts(
            [f for f in rel.effects if "hand" not in f.note and "red threes" not in f.note]
        )
        rel.effects.given(rel.post["hand"].eq(rel.pre["hand"] + x), "drawn cards, red threes too")
        rel.effects.given(rel.post["reds"].eq(rel.pre["reds"]), "nothing laid out")
        return out

    monkeypatch.setattr(moves, "relations", kept)
    got = claims.check_claim(claim, r)
    assert got.verdict is Verdict.REFUTED and got.check.witness is not None
    assert got.check.witness.data["move"] == "draw"
