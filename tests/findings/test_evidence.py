"""The evidence added for findings that random play and the solver did not reach: deals searched
for a differing one, hands played to the end of the stock, forbidden actions priced differently,
readings of the books' values, open points proved never to decide anything, and differences on
a rule that never applies. Each is shown to disappear on a deliberately broken rule set.

Expected numbers come from the spec's clause values (the book's numbers), never from the code
under test.
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.findings.compare import diff
from arbitro.findings.core import _Builder, _never_applies, value_groups, value_pairs
from arbitro.model.escoba import scoring as escoba_scoring
from arbitro.model.schema import EscobaRules, RummyRules, rules_for
from arbitro.model.spec import load_all, load_rulebook
from arbitro.proofs import differences
from arbitro.proofs.dead_rules import dead_rules
from arbitro.proofs.moot import cards_double_rule, rest_without_capturer


def _rummy(book: str, options: dict[str, str] | None = None) -> RummyRules:
    r = rules_for(book, options)
    assert isinstance(r, RummyRules)
    return r


def _escoba() -> EscobaRules:
    r = rules_for("escoba-es")
    assert isinstance(r, EscobaRules)
    return r


def test_a_deal_search_tells_the_two_upcard_rules_apart() -> None:
    a = _rummy("canasta-es")
    b = dataclasses.replace(_rummy("canasta-es", {"upcard_cover": "inicio"}), rulebook="inicio")
    w = differences._deals(a, b, "upcard_cover", seed=0)
    assert w is not None and w.how == "deal"
    # INICIO also covers a black three: the one upcard the two readings treat differently
    dealt_a = w.data["states"]["canasta-es"]
    # the second deal is canasta-es's with only the upcard rule taken from the reading, and is
    # named so
    dealt_b = w.data["states"]["canasta-es with inicio's upcard_cover"]
    assert dealt_a != dealt_b
    # the same rule is never told apart by a deal
    assert differences._deals(a, a, "upcard_cover", seed=0) is None


def test_a_red_three_last_in_the_stock_ends_the_hand_under_one_book_only() -> None:
    a, b = _rummy("canasta-es"), _rummy("samba-en")
    assert a.last_red_three_ends_hand != b.last_red_three_ends_hand
    w = differences._stock_end(a, b, "last_red_three_ends_hand", seed=0, budget=2000)
    assert w is not None and w.found and w.how == "moves"
    assert w.data["deal"][-1] in ("3H", "3D")  # the red three put last
    # with samba-en's rule on both sides nothing tells them apart
    same = dataclasses.replace(a, last_red_three_ends_hand=b.last_red_three_ends_hand)
    assert differences._stock_end(same, b, "last_red_three_ends_hand", 0, 2000) is None


def test_a_forbidden_action_is_priced_by_each_books_penalties() -> None:
    a, b = _rummy("canasta-es"), _rummy("samba-en")
    w = differences._refusals(a, b, "penalties", seed=0)
    assert w is not None and w.how == "refusal"
    priced = {p.act: p.points for p in a.penalties}
    got = w.data["penalties"]
    # canasta-es prices drawing out of turn (100) and more; samba-en prices none of them
    # (the second rule set is canasta-es with samba-en's penalties, named as such)
    assert got["canasta-es with samba-en's penalties"] == []
    assert got["canasta-es"][0] in priced.values()
    # the same penalties on both sides: no refusal tells them apart
    same = dataclasses.replace(b, penalties=a.penalties)
    assert differences._refusals(a, same, "penalties", seed=0) is None


def test_the_rest_without_a_capturer_never_arises_under_forced_capture() -> None:
    r = _escoba()
    got = rest_without_capturer(r)
    assert got is not None and r.cid("capture_forced") in got.core
    # without forced capture the last card may be laid: nothing is proved
    assert rest_without_capturer(dataclasses.replace(r, capture_forced=False)) is None


def test_the_two_readings_of_the_cards_double_never_disagree_on_this_pack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = _escoba()
    assert cards_double_rule(r) is not None
    # a side needing only 16 cards leaves the others 24: each under ten, together not
    monkeypatch.setattr(escoba_scoring, "CARDS_DOUBLE_MORE_THAN", 15)
    assert cards_double_rule(r) is None


def test_a_difference_on_a_rule_that_never_applies_rests_on_the_dead_rule_proofs() -> None:
    books = [load_rulebook("canasta-es"), load_rulebook("samba-en")]
    derived = {"dead_rules": [d.to_json() for b in books for d in dead_rules(_rummy(b.id), 20.0)]}
    cids = [b.clause("red_three_undeclared_penalty").id for b in books]
    got = _never_applies(_Builder(books, derived, False), cids)
    assert got is not None and set(got["cores"]) == set(cids)
    # a book where the penalty is not proved dead: nothing is proved about the difference
    derived["dead_rules"] = [x for x in derived["dead_rules"] if x["rulebook"] != "samba-en"]
    assert _never_applies(_Builder(books, derived, False), cids) is None


def test_value_groups_read_every_reading_and_ignore_the_order_of_a_set() -> None:
    books = [b for b in load_all() if b.game != "escoba"]
    groups = value_groups(books, "blocked_by_top")
    # canasta-es lists wild, black three; the Samba books black three, wild: the same rule
    assert any({"canasta-es", "samba-en"} <= {m[0] for m in g} for g in groups)
    # the target: every book's default reaches, two books' other readings exceed
    jobs = value_pairs(books, "target_rule")
    assert jobs and any(j.second[1] or j.first[1] for j in jobs)
    rows = {r.key: r for r in diff(books)}
    assert rows["target_rule"].differs
    # a book's own readings are values too: samba-fr's six packs bring one joker each
    fr = load_rulebook("samba-fr")
    groups = value_groups([books[0], fr], "jokers_per_pack")
    assert ("samba-fr", {"jokers_per_pack": "six-packs"}) in [m for g in groups for m in g]
