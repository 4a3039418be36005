"""The explorer's two shortcuts change nothing it reports, and each check behind them can fail.

The explorer asks for `clauses_used` once per `clauses_key` and skips near-miss probes once every
clause `refusal_clauses` names is found. Both are sound only if the key decides the clause set
and the clause list covers every refusal; these tests check both claims directly (against the
unremembered computation and against `refusals` of many plays), show that a key or a list broken
on purpose is caught, and compare whole explorations with and without the shortcuts.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import pytest

from arbitro.model.errors import ArbitroError
from arbitro.model.escoba import ESCOBA, EscobaModel, EscobaState, Play
from arbitro.model.escoba.cards import tables
from arbitro.model.escoba.clauses import clauses_key, play_clause_keys
from arbitro.model.schema import EscobaRules
from arbitro.proofs.explore import deal_order, explore_deal
from arbitro.proofs.explore_config import Config, load_config

Edge = tuple[EscobaState, Play, EscobaState]
KeyFn = Callable[[EscobaRules, EscobaState, Play, EscobaState], Hashable]

WALKS = [("escoba-12", 0), ("escoba-12", 3), ("escoba-12", 5), ("escoba-16", 1)]


def _walk(config: Config, seed: int) -> Iterator[tuple[EscobaState, Play | None, EscobaState]]:
    """Every state of the deal once (with None for the play) and every edge between them."""
    rules = config.rules
    root = ESCOBA.deal(
        rules, ESCOBA.new_game(rules, config.seating), deal_order(ESCOBA, config, seed)
    )
    seen = {root}
    frontier = [root]
    while frontier:
        nxt = []
        for s in frontier:
            yield s, None, s
            for a in ESCOBA.legal_actions(rules, s):
                after = ESCOBA.apply(rules, s, a)
                yield s, a, after
                if after not in seen:
                    seen.add(after)
                    nxt.append(after)
        frontier = nxt


def _edges(config: Config, seed: int) -> list[Edge]:
    return [(s, a, t) for s, a, t in _walk(config, seed) if a is not None]


def key_conflicts(rules: EscobaRules, edges: list[Edge], key: KeyFn) -> list[Hashable]:
    """The keys shared by plays whose clause sets (worked out afresh, unremembered) differ."""
    t = tables(rules)
    sets: dict[Hashable, frozenset[str]] = {}
    bad: list[Hashable] = []
    for s, a, after in edges:
        k = key(rules, s, a, after)
        got = frozenset(play_clause_keys(rules, t, s, a, after))
        if sets.setdefault(k, got) != got and k not in bad:
            bad.append(k)
    return bad


@pytest.mark.parametrize(("name", "seed"), WALKS)
def test_the_key_decides_the_clauses_of_a_play(name: str, seed: int) -> None:
    config = load_config(name)
    edges = _edges(config, seed)
    assert key_conflicts(config.rules, edges, clauses_key) == []
    # and the remembered answer is the one worked out afresh
    rules = config.rules
    t = tables(rules)
    for s, a, after in edges[::7]:
        fresh = frozenset(rules.cid(k) for k in play_clause_keys(rules, t, s, a, after))
        assert ESCOBA.clauses_used(rules, s, a) == fresh


def test_a_key_that_forgets_a_fact_is_caught() -> None:
    """Dropping how many groups the card could take merges capture_choice with a single group,
    and a laid card that could capture with one that could not."""
    config = load_config("escoba-16")

    def no_groups(r: EscobaRules, s: EscobaState, a: Play, after: EscobaState) -> Hashable:
        k = clauses_key(r, s, a, after)
        assert isinstance(k, tuple)
        return k[1:]

    def no_piles(r: EscobaRules, s: EscobaState, a: Play, after: EscobaState) -> Hashable:
        k = clauses_key(r, s, a, after)
        assert isinstance(k, tuple)
        return k if after.phase == "play" else k[:6] + k[7:]

    edges = _edges(config, 1)
    assert key_conflicts(config.rules, edges, no_groups)
    # the hand's end without the piles: which scoring cases (ties, setenta...) arose is lost
    assert key_conflicts(config.rules, edges, no_piles)


def missing_refusals(
    rules: EscobaRules, states: list[EscobaState], listed: Callable[[EscobaState], frozenset[str]]
) -> set[str]:
    """Clauses `refusals` names for some well-formed play that ``listed`` leaves out."""
    deck = tables(rules).deck
    missing: set[str] = set()
    for s in states:
        table = s.table
        captures = [0, table, table & -table] if table else [0, 1 << deck[0]]
        for seat, c, cap in itertools.product(range(s.players), deck, captures):
            try:
                names = {e.clause for e in ESCOBA.refusals(rules, s, Play(seat, c, cap))}
            except ArbitroError:  # pragma: no cover - refusals lists, it does not raise
                continue
            missing |= names - listed(s)
    return missing


def test_refusal_clauses_cover_every_refusal() -> None:
    config = load_config("escoba-12")
    rules = config.rules
    states = [s for s, a, _ in _walk(config, 0) if a is None]
    before = ESCOBA.new_game(rules, config.seating)
    states.append(before)  # nobody plays before the deal
    assert {s.phase for s in states} >= {"play", "deal"}
    assert missing_refusals(rules, states, lambda s: ESCOBA.refusal_clauses(rules, s)) == set()
    # a list that forgets capture-forced is caught
    forced = rules.cid("capture_forced")
    assert missing_refusals(
        rules, states, lambda s: ESCOBA.refusal_clauses(rules, s) - {forced}
    ) == {forced}


class _Plain(EscobaModel):
    """The Escoba engine without the two shortcuts: every play's clauses asked for, every probe
    made."""

    clauses_key = None  # type: ignore[assignment]
    refusal_clauses = None  # type: ignore[assignment]


class _Blind(EscobaModel):
    """An engine whose refusals name nothing: a probe is never worth making."""

    def refusal_clauses(self, rules: EscobaRules, state: EscobaState) -> frozenset[str]:
        return frozenset()


def _report(result: Any) -> tuple[Any, ...]:
    return (result.states, result.edges, result.terminal, sorted(result.clauses))


@pytest.mark.parametrize(("name", "seed"), [("escoba-12", 0), ("escoba-16", 1)])
def test_the_shortcuts_change_nothing_reported(name: str, seed: int) -> None:
    config = load_config(name)
    fast = explore_deal(config, seed)
    plain = explore_deal(config, seed, model=_Plain())
    assert _report(fast) == _report(plain)
    # the comparison sees a shortcut that drops something: without probes the refusal-only
    # clause capture-forced (never used by a legal play of this deal) would be missed
    blind = explore_deal(config, seed, model=_Blind())
    assert set(plain.clauses) - set(blind.clauses)
