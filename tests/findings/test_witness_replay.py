"""Every witness is a replay: the engine, under each rule set the witness names, gives the results
the witness records, and a corrupted witness is caught.

Expected numbers come from the books' clauses (cited at each test), never from the code's output.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.findings.core import (
    KINDS,
    WitnessJob,
    findings,
    refuted_properties,
)
from arbitro.findings.replay import EXHIBITS, SUPPORTS, replay, wrong_witnesses
from arbitro.model.spec import Rulebook, load_all, load_rulebook

ROOT = Path(__file__).resolve().parents[2]


def _job(key: str, a: str, b: str, ao: dict[str, str] | None = None) -> dict[str, Any]:
    one, two = (a, ao or {}), (b, {})
    w: dict[str, Any] = WitnessJob(f"{key}|{a}|{b}", key, one, two).run(10.0).to_json()
    return w


def test_a_meld_witness_replays_and_a_flipped_verdict_is_caught() -> None:
    # samba-en (Melding) allows escaleras; canasta-es (COMBINACION) has none: a run is legal under
    # samba-en and refused under canasta-es itself, so the witness exhibits the difference
    w = _job("sequences", "samba-en", "canasta-es")
    got = replay(w)
    assert got.agrees and got.evidence == EXHIBITS, got
    bad = copy.deepcopy(w)
    bad["model"]["canasta-es"] = "legal"
    assert not replay(bad).agrees
    assert wrong_witnesses([w, bad]) and len(wrong_witnesses([w, bad])) == 1


def test_an_opening_witness_replays_at_a_total_a_game_can_have() -> None:
    # samba-es EL JUEGO: 120 from 3,000 up; samba-en The initial meld: 160 from 7,000 to 9,999
    w = _job("opening_minimums", "samba-es", "samba-en")
    assert w["side_score"] == 7000
    got = replay(w)
    assert got.agrees and got.evidence == EXHIBITS
    for total in (6995, 7001, 10005):  # the tables agree; off the step of 5; past the target
        bad = {**w, "side_score": total}
        assert not replay(bad).agrees, total


def test_a_canasta_against_samba_case_on_a_common_table_is_asked_of_both_books() -> None:
    # canasta-es EL POZO: the top card put on a side's meld takes the pile only after the pile's
    # first take; samba-fr (Le déroulement du jeu): completing a meld takes it with no such
    # condition. canasta-es's three pairs (a third pack, 13 cards each) and samba-fr's six
    # players (thirteen cards, three packs) deal one deck of 162 to three sides of two, so a
    # case found there is a position of both games, asked of each book itself
    w = _job("pile_add_after", "canasta-es", "samba-fr")
    assert w["found"] and w["layout"] == "three-pairs", w["text"]
    got = replay(w)
    assert got.agrees and got.evidence == EXHIBITS, got
    # broken: the rule set named samba-fr is canasta-es itself; the books no longer part
    bad = copy.deepcopy(w)
    bad["rule_sets"]["samba-fr"] = {"book": "canasta-es", "options": {}}
    assert replay(bad).evidence != EXHIBITS
    # a cross-book row shows such a case before one shown only with a rule swapped in; neither
    # the case above made weaker nor one that does not replay is taken for it
    from arbitro.findings.core import _exhibits

    books = {b.id: b for b in load_all()}
    miscounted = {**w, "legal_counts": [n + 1 for n in w["legal_counts"]]}
    assert _exhibits(w, books) and not _exhibits(bad, books)
    assert not _exhibits(miscounted, books)


def test_a_minimum_past_the_table_is_told_apart_at_a_total_a_game_can_have() -> None:
    # samba-en The initial meld: rows up to 9,999, then (our flagged default) 160, or no minimum
    # under the no-minimum reading; Scoring and our default for ties: level sides on 10,000 play
    # on. samba-es EL JUEGO: 120 from 3,000 up. No hand of random play gets there, so the
    # totals are computed
    w = _job(
        "opening_minimum_past_table",
        "samba-en",
        "samba-en",
        {"opening_minimum_past_table": "no-minimum"},
    )
    assert w["found"] and w["how"] == "past-table" and w["side_score"] == 10000
    assert sorted(w["results"].values()) == [0, 160]
    got = replay(w)
    assert got.agrees and got.evidence == EXHIBITS, got
    cross = _job("opening_minimum_past_table", "samba-es", "samba-en")
    assert cross["results"] == {"samba-es": 120, "samba-en": 160}
    assert replay(cross).agrees and replay(cross).evidence == EXHIBITS
    # broken: a total inside the table, where both readings give 160; results swapped
    assert not replay({**w, "side_score": 9995, "totals": [9995, 9995]}).agrees
    flipped = dict(zip(w["results"], reversed(list(w["results"].values())), strict=True))
    assert not replay({**w, "results": flipped}).agrees


def test_a_witness_naming_no_rule_sets_does_not_replay() -> None:
    w = _job("opening_minimums", "samba-es", "samba-en")
    del w["rule_sets"]
    assert not replay(w).agrees


def test_a_played_witness_replays_move_by_move() -> None:
    # samba-en Drawing: one card a turn; samba-es ROBO: two. The first draw differs.
    w = _job("draw_count", "samba-es", "samba-en")
    assert w["found"], w
    got = replay(w)
    assert got.agrees, got
    bad = copy.deepcopy(w)
    if "legal_counts" in bad:
        bad["legal_counts"] = [n + 1 for n in bad["legal_counts"]]
    elif "states" in bad:
        first = next(iter(bad["states"]))
        bad["states"][first] = {}
    else:
        pytest.skip(f"a witness of kind {bad['how']}")
    assert not replay(bad).agrees


def _with_table(book: Rulebook, rows: list[dict[str, int]]) -> Rulebook:
    clauses = tuple(
        dataclasses.replace(c, value=rows) if c.key == "opening_minimums" else c
        for c in book.clauses
    )
    return dataclasses.replace(book, clauses=clauses)


def test_the_samba_en_tie_past_the_target_is_a_finding_that_replays() -> None:
    # samba-en, The initial meld: the table's rows stop at 9,999 and the book gives nothing past
    # them; Scoring: the higher score wins once 10,000 is passed, and equal scores are not dealt
    # with (our default: play goes on). Two sides level on 10,000 start another hand for which
    # the book has no minimum. Our flagged default (opening-minimum-past-table, unspecified)
    # fills the hole for the model; the finding is about the book, so it is asked of the book's
    # own table, without that default.
    book = load_rulebook("samba-en")
    assert book.clause("opening_minimum_past_table").status == "unspecified"
    props = refuted_properties(book, 10.0)
    assert props, "prove's opening-table property holds for samba-en's own table"
    first = props[0]
    assert first["options"] == {} and first["unset"] == ["opening_minimum_past_table"]
    assert first["data"]["side_score"] >= 10000 and first["data"]["minimums"] == []
    found = [
        f
        for f in findings([book], derived={"properties": props}, sentences=False)
        if f.details.get("property") == "opening-table"
    ]
    assert len(found) == 1
    f = found[0]
    # one row for the one defect: the gap of the clause the book is silent on, now with its case
    assert f.kind == "gap" and f.clauses == ("samba-en:opening-minimum-past-table",)
    assert f.witness is not None and f.witness["side_score"] >= 10000
    assert f.evidence == EXHIBITS and replay(f.witness).agrees
    # broken witness: replayed under the model's default (160 past the table) the hand is dealt
    name = f.witness["books"][0]
    filled = copy.deepcopy(f.witness)
    del filled["rule_sets"][name]["unset"]
    assert not replay(filled).agrees
    # broken rule: a last row open upwards covers every total; nothing is refuted
    rows = [dict(r) for r in book.clause("opening_minimums").value]  # type: ignore[union-attr]
    rows[-1].pop("high", None)
    assert not refuted_properties(_with_table(book, rows), 10.0)
    # broken input: a book that stated a minimum past its table has no hole
    stated = dataclasses.replace(
        book,
        clauses=tuple(
            dataclasses.replace(c, status="stated") if c.key == "opening_minimum_past_table" else c
            for c in book.clauses
        ),
    )
    assert not refuted_properties(stated, 10.0)


def test_rules_comparison_check_fails_on_a_witness_that_does_not_replay(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arbitro.reports import report

    good = _job("opening_minimums", "samba-es", "samba-en")
    bad = {**good, "minimums": {"samba-es": 120, "samba-en": 120}}
    monkeypatch.setattr(
        report, "comparison_witnesses", lambda books: {"samba": {"opening_minimums": [bad]}}
    )
    assert main(["rules", "comparison", "--check"]) == 1
    err = capsys.readouterr().err
    assert "does not replay" in err and "samba-es / samba-en" in err


# ---------------------------------------------------------------- every witness, on a derivation

REPLAYED = ("internal-contradiction", "clause-clash", "cross-rulebook-difference", "dead-end")


@pytest.mark.slow
def test_every_witness_in_findings_json_replays(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import os

    from arbitro.findings import core

    use = "ARBITRO_CACHE" in os.environ  # a verified cache of these sources, else derived now
    derived = core.load_or_derive(load_all(), use_cache=use, store=False)[0]
    monkeypatch.setenv("ARBITRO_CACHE", str(tmp_path))

    monkeypatch.setattr(core, "derive", lambda *a, **k: derived)
    assert main(["findings", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    books = {b.id: b for b in load_all()}
    shown = 0
    for f in data["findings"]:
        w = f.get("witness")
        if not w or f["evidence"] != EXHIBITS:
            continue
        if f["kind"] == "claim":  # a refuted claim's case: replayed by replay_claim (above)
            shown += 1
            continue
        got = replay(w, books)
        assert got.agrees and got.evidence == EXHIBITS, (f["id"], w.get("text"), got)
        shown += 1
    counts = data["evidence"]
    assert counts["exhibits"] == shown
    assert counts["exhibits"] + counts["supports"] + counts["none"] == counts["total"]
    # every finding of the kinds that need a case has one that replays, or says it has none
    for f in data["findings"]:
        if f["kind"] in REPLAYED and f["checked"] and f["evidence"] == SUPPORTS:
            w = f.get("witness") or {}
            assert (
                w.get("how") in (None, "solver", "dead-rule", "arises", "never-arises")
                or replay(w, books).agrees
            ), f["id"]
    assert set(KINDS) >= {f["kind"] for f in data["findings"]}


@pytest.mark.slow
def test_a_dead_end_replays_to_a_player_without_a_move_and_a_cut_one_does_not() -> None:
    from arbitro.findings.dead_ends import dead_ends

    found = dead_ends(load_rulebook("canasta-es"), hands=20)
    assert found, "random play of canasta-es met no dead end"
    w = {"how": "play", "transcript": found[0].transcript}
    assert replay(w).agrees and replay(w).evidence == EXHIBITS
    lines = found[0].transcript.splitlines()
    actions = [i for i, x in enumerate(lines) if '"type":"action"' in x]
    cut = "\n".join(x for i, x in enumerate(lines) if i != actions[-1])
    assert not replay({"how": "play", "transcript": cut}).agrees


def _claim_finding(cid: str, witness: dict[str, Any]) -> Any:
    from arbitro.findings.core import Finding

    book = cid.split(":", 1)[0]
    return Finding("claim", "x", (book,), "claims", (cid,), "", witness=witness, checked=True)


def test_a_refuted_claims_case_is_replayed_by_the_engine() -> None:
    from arbitro.findings.replay import replay_claim

    books = {b.id: b for b in load_all()}
    # escoba-es says 10, 25, 40 or 55 stay on the table; the stored hands are played by the
    # engine and one leaves 70 (proofs/escoba/table_rest_witnesses.json)
    stored = json.loads(
        (ROOT / "proofs" / "escoba" / "table_rest_witnesses.json").read_text(encoding="utf-8")
    )
    seventy = next(h for h in stored["hands"] if h["left"] == 70)
    got = replay_claim(_claim_finding("escoba-es:claim:table-remainder", {"hand": seventy}), books)
    assert got is not None and got.agrees and got.evidence == EXHIBITS
    wrong = {**seventy, "left": 55}  # a hand said to leave what it does not
    got = replay_claim(_claim_finding("escoba-es:claim:table-remainder", {"hand": wrong}), books)
    assert got is not None and not got.agrees
    # samba-fr says Canasta has sequences; canasta-es (COMBINACION) has none
    cid = "samba-fr:claim:canasta-sequences"
    assert replay_claim(_claim_finding(cid, {"value": False}), books).agrees  # type: ignore[union-attr]
    assert not replay_claim(_claim_finding(cid, {"value": True}), books).agrees  # type: ignore[union-attr]
