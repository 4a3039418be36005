"""Findings that were false, each pinned by the rulebook clause that shows it false, and each check
shown to fail on a deliberately broken book or rule.

- samba-fr "never ends": random play running out of patience is not a proof; no such finding.
- the red-three penalty is dead in samba-es (the book lays every red three out) but alive in
  samba-fr, whose own rule melds red threes from the hand when it ends.
- samba-es against samba-en on the opening table: the tables differ from 7,000 to 9,999.
- a witness's text names the rule set whose rule produced each result.
- an unsat core answered once for one book is never cited for another.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.findings.core import findings
from arbitro.model.rummy.cards import parse_cards
from arbitro.model.rummy.melds import classify
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import rules_for
from arbitro.model.spec import Rulebook, load_rulebook
from arbitro.proofs import runner, smt
from arbitro.proofs.dead_rules import book_dead_rules
from arbitro.proofs.differences import hybrid, mixed_name, score_unit, witness
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import Int


def _with(book: Rulebook, key: str, **changes: Any) -> Rulebook:
    """The book with one clause changed (a deliberately broken book)."""
    clauses = tuple(dataclasses.replace(c, **changes) if c.key == key else c for c in book.clauses)
    return dataclasses.replace(book, clauses=clauses)


def _red_three_dead(book: Rulebook) -> bool:
    return any(d.clause.endswith(":red-three-undeclared-penalty") for d in book_dead_rules(book))


# ---------------------------------------------------------------- games said never to end


def test_a_record_of_random_play_never_becomes_a_finding_that_a_game_never_ends() -> None:
    # an old derivation recorded samba-fr games of 5 and 7-10 players that random play did not
    # finish; `arbitro simulate samba-fr --players 5 --games 2 --seed 3 --policy fast` finishes
    # both. Without a proof or a replayed cycle such a record says nothing about the book.
    books = [load_rulebook("samba-fr")]
    old = {
        "endless": [
            {
                "rulebook": "samba-fr",
                "layout": "7-solo",
                "players": 7,
                "sides": 7,
                "hands": 12,
                "went_out": 0,
                "mean_side_score": -42.0,
                "facts": {"hand_size": 13},
            }
        ]
    }
    found = findings(books, derived=old, sentences=False)
    assert not [f for f in found if "never ends" in f.summary]
    assert not [f for f in found if f.kind == "dead-end" and f.topic == "players"]


# ---------------------------------------------------------------- dead rules per book


def test_the_red_three_penalty_is_dead_where_the_book_lays_red_threes_out() -> None:
    # samba-es, "TANTEO DEL JUEGO": a red three is laid out when received (stated); the 500 for
    # one left in hand prices only an irregularity
    assert load_rulebook("samba-es").clause("red_three_initial_replacement").status == "stated"
    assert _red_three_dead(load_rulebook("samba-es"))


@pytest.mark.slow
def test_the_red_three_penalty_is_alive_in_samba_fr_whose_red_threes_stay_in_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # samba-fr, "Compte des points": red threes join groups only at the end of the hand (the
    # inferred red_threes_meld = going_out_only) and each one left in hand costs 750; that red
    # threes are laid out at once is the model's default (unspecified), not the book
    fr = load_rulebook("samba-fr")
    assert fr.clause("red_threes_meld").value == "going_out_only"
    assert fr.clause("red_three_initial_replacement").status == "unspecified"
    assert not _red_three_dead(fr)  # under every reading of the book
    # the broken books below are dead under their default reading: their other readings (two
    # dozen, each a set of solver questions) are left out
    real = runner.distinct_readings
    monkeypatch.setattr(runner, "distinct_readings", lambda *a: itertools.islice(real(*a), 1))
    # broken: a samba-fr whose red threes are never melded is dead again, as in samba-es
    assert _red_three_dead(_with(fr, "red_threes_meld", value="never"))
    # broken: a samba-fr that stated the laying-out (as samba-es does) proves it dead too
    assert _red_three_dead(_with(fr, "red_three_initial_replacement", status="stated"))


# ---------------------------------------------------------------- the opening tables


def test_samba_es_and_samba_en_opening_tables_are_told_apart_from_7000() -> None:
    # samba-es, EL JUEGO: 120 from 3,000 up; samba-en, The initial meld: 120 up to 6,999 and 160
    # up to 9,999. The first total a game can reach where they differ is 7,000.
    w = witness(rules_for("samba-es"), rules_for("samba-en"), "opening_minimums")
    assert w.found and w.how == "opening"
    assert w.data["side_score"] == 7000
    assert w.data["minimums"] == {"samba-es": 120, "samba-en": 160}


def test_opening_witnesses_use_totals_a_game_can_have() -> None:
    # every Samba score is a multiple of 5 (the fours to sevens count 5), below the 10,000 target
    for a, b in (("samba-es", "samba-fr"), ("samba-en", "samba-fr"), ("canasta-es", "samba-fr")):
        ra, rb = rules_for(a), rules_for(b)
        assert score_unit(ra) == 5
        w = witness(ra, rb, "opening_minimums")
        assert w.found
        total = w.data["side_score"]
        assert total % 5 == 0 and total < 10000, (a, b, total)
    # the samba-fr reading that fills the unstated 6,000 to 7,000 with 150 is told apart at the
    # first multiple of 5 past 6,000, not at 6,001
    fr = dataclasses.replace(
        rules_for("samba-fr", {"opening_minimums": "3000-120-gap-150"}), rulebook="other"
    )
    w = witness(rules_for("samba-fr"), fr, "opening_minimums")
    assert w.data["side_score"] == 6005


# ---------------------------------------------------------------- witness texts


def test_a_meld_witness_says_what_each_rule_set_answered() -> None:
    # canasta-es (COMBINACION) has no escaleras: no run is a legal meld under it, whatever the
    # run's length. The witness of sequence_min must never say canasta-es allows 4C 5C.
    a, b = rules_for("samba-en"), rules_for("canasta-es")
    w = witness(a, b, "sequence_min")
    assert w.found and w.how == "meld"
    counts = parse_cards(" ".join(w.data["meld"]))
    rule_sets = {r.rulebook: r for r in (a, b, hybrid(a, b, "sequence_min"))}
    assert set(w.data["model"]) == set(rule_sets)
    for name, verdict in w.data["model"].items():
        got = classify(tables(rule_sets[name]), counts)
        assert (verdict == "legal") == (not isinstance(got, str)), name
        # the text names each rule set with its own answer
        said = w.text.split("; it ")
        legal = next((x for x in said if "is a legal" in x), "")
        assert (name in legal.split(" under ", 1)[-1].split(" and ")) == (verdict == "legal")
    assert "canasta-es (by its sequences)" in w.text


def test_the_mixed_rule_set_is_named_as_such() -> None:
    a, b = rules_for("samba-es"), rules_for("samba-en")
    assert hybrid(a, b, "draw_count").rulebook == mixed_name("samba-es", "samba-en", "draw_count")
    assert hybrid(a, b, "draw_count").rulebook != "samba-en"


# ---------------------------------------------------------------- unsat cores per book


def _unsat(book: str) -> Facts:
    f = Facts()
    x = Int("x")
    f.add(f"{book}:low", x >= 3)
    f.add(f"{book}:high", x <= 1)
    f.add(f"{book}:other", x >= 0)
    return f


def test_an_unsat_core_names_the_clauses_of_the_book_that_asked() -> None:
    # the same question, word for word, for two books: the second answer is served from memory,
    # and must name the second book's clauses
    first = smt.check(_unsat("samba-es").items, timeout=5.0)
    second = smt.check(_unsat("samba-fr").items, timeout=5.0)
    assert first.status == second.status == "unsat"
    assert set(first.core) == {"samba-es:low", "samba-es:high"}
    assert set(second.core) == {"samba-fr:low", "samba-fr:high"}


# ---------------------------------------------------------------- a house-rules spec


def _house(tmp: Path) -> Path:
    """samba-en as a house-rules spec that draws two cards a turn (samba-es's ROBO rule)."""
    from arbitro.model.spec import spec_dir

    text = (spec_dir() / "samba-en.toml").read_text(encoding="utf-8")
    text = text.replace('id = "samba-en"', 'id = "samba-house"', 1)
    head, _, tail = text.partition('key = "draw_count"')
    tail = tail.replace("value = 1", "value = 2", 1)
    path = tmp / "samba-house.toml"
    path.write_text(head + 'key = "draw_count"' + tail, encoding="utf-8")
    return path


def test_rules_diff_compares_a_house_spec_with_a_book(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _house(tmp_path)
    code = main(["rules", "diff", "--spec", str(spec), "samba-en", "--only-differences", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["rulebooks"] == ["samba-house", "samba-en"]
    assert [r["key"] for r in out["rows"]] == ["draw_count"]
    # values in the book's words, not the model's names
    code = main(["rules", "diff", "samba-es", "samba-en", "--only-differences", "--format", "md"])
    text = capsys.readouterr().out
    assert (
        "take_pile_if_able" not in text and "play goes on while players can take the pile" in text
    )


def test_findings_of_a_house_spec_name_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _house(tmp_path)
    code = main(["findings", "--spec", str(spec), "--declared-only", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["findings"]
    assert all("samba-house" in f["rulebooks"] for f in out["findings"])
    drawn = [f for f in out["findings"] if f.get("key") == "draw_count"]
    assert drawn and set(drawn[0]["rulebooks"]) >= {"samba-house", "samba-en"}


# ---------------------------------------------------------------- one row per defect, stable ids


def test_a_claim_refuted_only_under_another_reading_joins_that_contradiction() -> None:
    # samba-fr Présentation: three packs, eighteen wild cards; La distribution: six packs. The
    # claim of eighteen wild cards fails only under the six-pack reading: one defect, one row.
    fr = load_rulebook("samba-fr")
    claim = next(c for c in fr.claims if c.id == "samba-fr:claim:eighteen-wilds")
    runs = [
        {"claim": claim.id, "options": {}, "method": "computation", "verdict": "PROVED"},
        {
            "claim": claim.id,
            "options": {"packs": "six-packs"},
            "method": "computation",
            "verdict": "REFUTED",
            "witness": {"text": "the deck of 6 packs and 6 jokers holds 30 wild cards"},
        },
    ]
    declared = findings([fr], sentences=False)
    derived = findings([fr], derived={"claims": runs}, sentences=False)
    assert not [f for f in derived if f.kind == "claim"]
    packs = next(f for f in derived if "samba-fr:packs" in f.clauses)
    assert packs.details["consequences"][0]["clauses"][0] == claim.id
    # the ids an editor tracks do not move when derived results join a row
    assert {f.id for f in declared} <= {f.id for f in derived}
    # broken: refuted under the book's own default, the claim is a defect of its own
    runs[0]["verdict"] = "REFUTED"
    assert [
        f for f in findings([fr], derived={"claims": runs}, sentences=False) if f.kind == "claim"
    ]


def test_canasta_being_another_game_is_one_row_per_topic() -> None:
    from arbitro.model.spec import load_all

    found = findings(load_all(), sentences=False)
    cross = [f for f in found if f.kind == "cross-rulebook-difference"]
    # canasta-es (COMBINACION) has no escaleras; every Samba book has them: the four escalera
    # rules are one "different games" row on melds, not four rows
    melds = [f for f in cross if f.details.get("different_game") and f.topic == "melds"]
    assert len(melds) == 1
    assert {"sequences", "sequence_min", "sequence_max", "sequence_ranks"} <= set(
        melds[0].details["keys"]
    )
    assert not [f for f in cross if f.details.get("key") == "sequences"]
    # the draw differs among the Samba books themselves (samba-es two, samba-en one): its own row
    assert [f for f in cross if f.details.get("key") == "draw_count"]
    # one row per topic at most
    topics = [f.topic for f in cross if f.details.get("different_game")]
    assert len(topics) == len(set(topics))
