"""The most escobas a side makes in an Escoba hand, proved on the guarded relation
(`proofs/escoba/escobas.py`): ESC inductive over the relation's steps, and the steps that end a
hand unsat above the most.

The expected counts come from the book's clauses by counting, not from the code under test:
every escoba takes cards worth 15 (*Captura*) and the pack is worth 4 x (1 + ... + 10) = 220 =
14 x 15 + 10, so no side makes more than 14; a side makes one escoba at most per card it plays,
and the dealer (who plays every round's last card) two more for an opening table worth 30
(*Reparto*); the hand's last play leaves the table worth 220 less a multiple of 15, never bare,
so it is no escoba. Two players: 14. Three: the dealer plays 12 cards, 11 + 2 = 13. Four alone:
9 cards, 8 + 2 = 10. Four in teams: 18 cards a side, the pack's 14 binds.

Each verdict is shown to fail: a relation that counts an escoba twice, or captures to 14 while
the book counts 15, breaks ESC at a capture step (REFUTED, with the step); an opening sweep
scoring 3 escobas for 30 breaks it at the deal; and asked to stay at one escoba fewer than the
hands reach, the end steps are not unsat (the bound moves up to the count reached).
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.schema import EscobaRules, Sweep, rules_for
from arbitro.proofs.escoba import escobas as X
from arbitro.proofs.escoba import invariants as I
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.facts import Fact, Facts
from arbitro.proofs.terms import ite
from arbitro.proofs.verdict import Verdict

BOOK = rules_for("escoba-es")
assert isinstance(BOOK, EscobaRules)
T = 600.0
PACK = 4 * sum(range(1, 11))  # the capture values of the four suits
MOST = {
    (2, 2): PACK // 15,  # 14
    (3, 3): (12 - 1) + 2,  # 13
    (4, 4): (9 - 1) + 2,  # 10
    (4, 2): PACK // 15,  # 14
}


def test_two_players_make_at_most_fourteen_escobas_on_the_relation() -> None:
    got = X.most(BOOK, 2, 2, MOST[(2, 2)], T, vacuity=True)
    assert got.inductive and got.exact, [c.reason for c in got.checks if c.reason]
    assert got.bound == 14 == MOST[(2, 2)]
    # every step of each seat, and the deal: none vacuous (each step can happen)
    assert len(got.checks) == 1 + 2 * len(R.PLAYS) * len(R.FOLLOWS)
    assert not any(c.vacuous for c in got.checks)


@pytest.mark.slow
@pytest.mark.parametrize("seating", [(3, 3), (4, 4), (4, 2)])
def test_the_book_s_most_escobas_per_seating(seating: tuple[int, int]) -> None:
    got = X.most(BOOK, *seating, MOST[seating], T)
    assert got.exact and got.bound == MOST[seating]


def test_the_end_step_is_unsat_above_fourteen_and_not_above_thirteen() -> None:
    """Two players, the dealer laying the hand's last card: more than 14 escobas is unsat; more
    than 13 is not (the claim can fail). (Capturing last, 14 escobas and the last capture would
    take 15 x 15 = 225, more than the pack's 220.)"""
    g = R.Seating(2, 2)
    assert X.end_check(BOOK, g, 0, "lay", 14, T).verdict is Verdict.PROVED
    assert X.end_check(BOOK, g, 0, "capture", 13, T).verdict is Verdict.PROVED
    out = X.end_check(BOOK, g, 0, "lay", 13, T)
    assert out.verdict is Verdict.UNKNOWN
    assert "do not exclude more than 13 escobas" in out.reason


@pytest.mark.slow
def test_one_escoba_fewer_than_the_hands_make_is_not_excluded() -> None:
    """Asked to stay at 9 escobas with four players, where the dealer's 8 plays and a sweep of
    two make 10: the end steps are not unsat, and the bound found is 10 — the claim can fail."""
    got = X.most(BOOK, 4, 4, 9, T)
    assert got.inductive and not got.exact
    assert got.bound == MOST[(4, 4)]
    failed = [c for c in got.checks if c.verdict is not Verdict.PROVED]
    assert failed and all(c.verdict is Verdict.UNKNOWN for c in failed)
    assert all("do not exclude more than 9 escobas" in c.reason for c in failed)


def _escobas_twice(rel: R.Relation) -> R.Relation:
    """The relation with one rule broken: a capture that leaves the table bare counts two."""
    if rel.play != "capture":
        return rel
    bare = (rel.pre.table - rel.taken).size().eq(0)
    side = rel.mover % len(rel.pre.piles)
    effects = []
    for f in rel.effects:
        if f.note == f"side {side}'s escobas" and rel.follow != "end":
            post, pre = rel.post.escobas[side], rel.pre.escobas[side]
            f = Fact(f.clause, post.eq(pre + ite(bare, 2, 0)), f.note)
        effects.append(f)
    return dataclasses.replace(rel, effects=Facts(effects))


def test_escobas_counted_twice_break_esc_at_a_capture() -> None:
    inst = I.Instance(R.Seating(2, 2), 0, 0, "capture", "pass")
    assert X.step_check(BOOK, inst, T).verdict is Verdict.PROVED
    out = X.step_check(BOOK, inst, T, tamper=_escobas_twice)
    assert out.verdict is Verdict.REFUTED and out.witness is not None
    data = out.witness.data
    # the witness captures every table card and its side's escobas go up by two
    assert set(data["taken"]) == set(data["table"])
    assert data["escobas_after"][0] == data["escobas"][0] + 2


def test_a_capture_to_fourteen_breaks_esc_at_a_capture() -> None:
    """The relation's captures built to 14 while ESC states the book's 15: an escoba worth 14
    leaves the side's escobas times 15 above what it captured."""
    fourteen = dataclasses.replace(BOOK, capture_sum=14)
    g = R.Seating(2, 2)

    def tamper(rel: R.Relation) -> R.Relation:
        return R.step(fourteen, g, 0, rel.mover, rel.play, rel.follow, domain=False)

    out = X.step_check(BOOK, I.Instance(g, 0, 0, "capture", "pass"), T, tamper=tamper)
    assert out.verdict is Verdict.REFUTED and out.witness is not None
    data = out.witness.data
    worth = sum(
        BOOK.capture_values["1234567SCR".index(c[0])] for c in [*data["card"], *data["taken"]]
    )
    assert worth == 14
    assert set(data["taken"]) == set(data["table"])  # an escoba


def test_an_opening_sweep_of_three_escobas_breaks_esc_at_the_deal() -> None:
    """An opening table worth 30 scoring 3 escobas (the book: 2) is more escobas than captures
    worth 15: the deal is REFUTED."""
    three = dataclasses.replace(
        BOOK, opening_sweeps=tuple(Sweep(s.total, 3 if s.total == 30 else s.escobas)
                                   for s in BOOK.opening_sweeps)
    )  # fmt: skip
    assert {(s.total, s.escobas) for s in BOOK.opening_sweeps} == {(15, 1), (30, 2)}
    assert X.deal_check(BOOK, R.Seating(2, 2), 0, T).verdict is Verdict.PROVED
    assert X.deal_check(three, R.Seating(2, 2), 0, T).verdict is Verdict.REFUTED


@pytest.mark.slow
def test_the_rest_counted_as_an_escoba_raises_two_players_most_to_fifteen() -> None:
    """*:rest-is-escoba turned on: the last capturer's rest (never empty: 220 is no multiple of
    15) is one escoba more, so 14 + 1 = 15 for two players; 14 is then not unsat."""
    on = dataclasses.replace(BOOK, rest_is_escoba=True)
    got = X.most(on, 2, 2, MOST[(2, 2)] + 1, T)
    assert got.exact and got.bound == 15
    assert X.most(on, 2, 2, MOST[(2, 2)], T).bound == 15
