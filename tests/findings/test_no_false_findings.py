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
from typing import Any

from arbitro.findings.core import findings
from arbitro.model.rummy.cards import parse_cards
from arbitro.model.rummy.melds import classify
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import rules_for
from arbitro.model.spec import Rulebook, load_rulebook
from arbitro.proofs import smt
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


def test_the_red_three_penalty_is_alive_in_samba_fr_whose_red_threes_stay_in_hand() -> None:
    # samba-fr, "Compte des points": red threes join groups only at the end of the hand (the
    # inferred red_threes_meld = going_out_only) and each one left in hand costs 750; that red
    # threes are laid out at once is the model's default (unspecified), not the book
    fr = load_rulebook("samba-fr")
    assert fr.clause("red_threes_meld").value == "going_out_only"
    assert fr.clause("red_three_initial_replacement").status == "unspecified"
    assert not _red_three_dead(fr)
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
