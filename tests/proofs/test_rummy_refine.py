"""The rummy refiner (`arbitro.proofs.rummy.refine`): the engine's states, enabled actions and
successors against the guarded relation built from the rules object.

The real engine agrees on random and eager play of every book and on the small configurations;
each kind of disagreement is then produced from a deliberately broken engine's answers (a
successor that loses a card, a legal move left out, an illegal move listed, a hand scored wrong)
and must be reported, so the check can fail.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arbitro.model.errors import IllegalAction as IllegalActionError
from arbitro.model.game import Seating
from arbitro.model.rummy.actions import AddToMeld
from arbitro.model.rummy.model import RUMMY
from arbitro.oracle.check import check_lines
from arbitro.proofs import refine
from arbitro.proofs.explore_config import load_config
from arbitro.proofs.rummy.refine import Refiner
from tests.support.proofs import RUMMY_BOOKS, rummy, step
from tests.support.quick import first_of_each
from tests.support.sizes import sized


def walk(
    rules: Any, seat: Seating, states: int, seed: int, eager: bool = False
) -> Iterator[tuple[Any, tuple[Any, ...], list[Any]]]:
    """States of random play (uniform or eager to meld), each with its actions and successors."""
    rng = random.Random(seed)
    done = 0
    while done < states:
        order = list(RUMMY.deck(rules, seat))
        rng.shuffle(order)
        s = RUMMY.deal(rules, RUMMY.new_game(rules, seat, 0), order)
        while RUMMY.phase(s) == "play" and done < states:
            acts = tuple(RUMMY.legal_actions(rules, s))
            succ = [RUMMY.apply(rules, s, a) for a in acts]
            yield s, acts, succ
            done += 1
            if not acts:
                break
            got = step(RUMMY, rules, s, rng, eager)
            assert got is not None
            s = got[1]


# a quick run plays one book; CI plays the four
@pytest.mark.parametrize("book", first_of_each(RUMMY_BOOKS))
def test_random_and_eager_play_refines(book: str) -> None:
    r = rummy(book)
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    decided = ends = 0
    for eager, seed in ((False, 1), (True, 2)):
        for s, acts, succ in walk(r, seat, sized(30, 60), seed, eager):
            d = ref(s, acts, succ)
            assert d is None, f"{book}: {d}"
            decided += ref.decided(RUMMY.state_to_json(s))
            ends += any(RUMMY.phase(x) != "play" for x in succ)
    # the enabled sets were compared somewhere, so the check could have failed there
    assert decided > 0


@pytest.mark.parametrize("name", ["samba-small", "canasta-small"])
def test_small_configurations_refine_breadth_first(name: str) -> None:
    cfg = load_config(name)
    r, seat = cfg.rules, cfg.seating
    ref = Refiner(r, seat)
    order = list(RUMMY.deck(r, seat))
    random.Random(0).shuffle(order)
    frontier = [RUMMY.deal(r, RUMMY.new_game(r, seat, 0), order)]
    seen = set(frontier)
    checked = 0
    while frontier and checked < 300:
        nxt = []
        for s in frontier:
            if RUMMY.phase(s) != "play" or checked >= 300:
                continue
            acts = RUMMY.legal_actions(r, s)
            succ = [RUMMY.apply(r, s, a) for a in acts]
            assert ref(s, acts, succ) is None
            checked += 1
            nxt += [x for x in succ if x not in seen]
            seen.update(succ)
        frontier = nxt
    assert checked == 300


def _decided(book: str, want: str) -> tuple[Refiner, Any, tuple[Any, ...], list[Any]]:
    """A decided state of random play where the engine lists an action of type `want`."""
    r = rummy(book)
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    for s, acts, succ in walk(r, seat, 2000, 3, eager=True):
        kinds = [RUMMY.action_to_json(a)["type"] for a in acts]
        if ref.decided(RUMMY.state_to_json(s)) and want in kinds:
            return ref, s, acts, succ
    raise AssertionError(f"no decided state with a {want} in {book}")


def test_a_successor_that_loses_a_card_is_caught() -> None:
    ref, s, acts, succ = _decided("samba-en", "discard")
    k = next(i for i, a in enumerate(acts) if RUMMY.action_to_json(a)["type"] == "discard")
    broken = list(succ)
    broken[k] = succ[k]._replace(pile=succ[k].pile[:-1])  # the card discarded vanishes
    d = ref(s, acts, broken)
    assert d is not None and d.action == k and d.kind == "successor"
    assert "invariant" in d.detail or "pile" in d.detail
    assert ref(s, acts, succ) is None


def test_a_legal_addition_left_out_is_caught() -> None:
    ref, s, acts, succ = _decided("canasta-es", "add")
    k = next(i for i, a in enumerate(acts) if RUMMY.action_to_json(a)["type"] == "add")
    d = ref(s, acts[:k] + acts[k + 1 :], succ[:k] + succ[k + 1 :])
    assert d is not None and d.kind == "enabled"
    assert d.missing == (RUMMY.action_to_json(acts[k]),) and not d.extra


def test_an_illegal_addition_listed_is_caught() -> None:
    """The engine lists a natural of another rank onto a set (*:set-min refuses it)."""
    ref, s, acts, succ = _decided("samba-es", "add")
    pre = RUMMY.state_to_json(s)
    seat = int(pre["seat"])
    melds = pre["table"][seat % int(pre["sides"])]["melds"]
    i, meld = next((i, m) for i, m in enumerate(melds) if m["kind"] == "set")
    card = next(
        c for c in pre["hands"][seat] if c[0] not in "23" and c != "JK" and c[:-1] != meld["rank"]
    )
    wrong = AddToMeld(seat, i, RUMMY.parse_card(card))
    d = ref(s, (*acts, wrong), [*succ, succ[0]])
    assert d is not None and d.kind == "enabled"
    assert d.extra == (RUMMY.action_to_json(wrong),) and not d.missing


def test_a_hand_scored_wrong_is_caught() -> None:
    """The engine's final position scored with 100 too many in one category."""
    r = rummy("canasta-es")
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    for s, acts, succ in walk(r, seat, 3000, 4, eager=True):
        for k, x in enumerate(succ):
            res = x.result
            if RUMMY.phase(x) == "play" or res is None:
                continue
            assert ref(s, acts, succ) is None
            cats = list(res.categories)
            cats[0] = tuple((c, p + 100 if c == "melds" else p) for c, p in cats[0])
            broken = list(succ)
            broken[k] = x._replace(result=res._replace(categories=tuple(cats)))
            d = ref(s, acts, broken)
            assert d is not None and d.kind == "successor" and d.action == k
            assert "melds" in d.detail
            return
    pytest.fail("no hand ended")


def test_a_relation_from_a_broken_rule_disagrees_and_check_replays_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The relation built with several sets of a rank allowed, the engine playing samba-es (one
    set per rank): sampled play (its games from 0 points) stops where the relation allows a
    second set of a rank, and `arbitro check` replaying the transcript reports the difference
    at its last step."""
    monkeypatch.delitem(refine.STARTS, "rummy")
    r = rummy("samba-es")
    assert not r.several_sets_same_rank
    seat = next(iter(RUMMY.seatings(r)))
    wrong = dataclasses.replace(r, several_sets_same_rank=True)
    rep = refine.sampled(RUMMY, r, seat, 4000, rulebook="samba-es", check=Refiner(wrong, seat))
    first = rep.first
    assert first is not None and first.kind == "enabled", rep.to_json()
    laid = [a for a in first.missing if a["type"] == "lay"]
    assert laid and not first.extra
    verdict = check_lines([json.dumps(t) for t in rep.transcript])
    assert verdict.status == "legal-mismatch", verdict
    assert verdict.step == len(rep.transcript) - 1


def test_a_position_scored_wrong_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's scoring with a dirty canasta priced as a clean one: the position check of a
    state with a dirty canasta reports it, the same state with the real scoring agrees."""
    from arbitro.proofs.rummy import refine as rr

    r = rummy("canasta-es")
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    real = rr.score_hand
    for s, _, _ in walk(r, seat, 4000, 5, eager=True):
        pre = RUMMY.state_to_json(s)
        dirty = [
            m
            for side in pre["table"]
            for m in side["melds"]
            if len(m["cards"]) >= r.completed_size
            and any(c == "JK" or c[0] == "2" for c in m["cards"])
        ]
        if not dirty:
            continue
        assert ref.position_difference(s, pre) is None

        def broken(t: Any, state: Any, reason: str, out: int) -> Any:
            res = real(t, state, reason, out)
            cats = tuple(
                tuple((c, p + r.bonus_clean_canasta - r.bonus_dirty_canasta if c == "canastas" and p else p) for c, p in side)
                for side in res.categories
            )  # fmt: skip
            return res._replace(categories=cats)

        monkeypatch.setattr(rr, "score_hand", broken)
        bad = ref.position_difference(s, pre)
        assert bad is not None and "canastas" in bad
        return
    pytest.fail("no dirty canasta was made")


def test_a_turn_slip_after_a_red_three_is_caught() -> None:
    """The engine hands the turn to the next player after a draw that met a red three (the seat
    moves, every card stays where it went): the relation keeps the turn with the drawer."""
    r = rummy("samba-en")
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    for s, acts, succ in walk(r, seat, 4000, 6):
        pre = RUMMY.state_to_json(s)
        for k, (a, x) in enumerate(zip(acts, succ, strict=True)):
            post = RUMMY.state_to_json(x)
            mover = int(pre["seat"])
            side = mover % int(pre["sides"])
            reds = len(post["table"][side]["red_threes"]) > len(pre["table"][side]["red_threes"])
            if RUMMY.action_to_json(a)["type"] != "draw" or not reds:
                continue
            assert ref(s, acts, succ) is None
            broken = list(succ)
            broken[k] = x._replace(seat=(mover + 1) % int(pre["players"]))
            d = ref(s, acts, broken)
            assert d is not None and d.kind == "successor" and d.action == k
            assert "play-direction" in d.detail and "draw" in d.detail
            return
    pytest.fail("no red three was drawn")


def test_a_discard_that_skips_a_player_is_caught() -> None:
    """The engine passes the turn two seats on after a discard: the relation names the turn
    order; the real successor agrees."""
    ref, s, acts, succ = _decided("canasta-es", "discard")
    k = next(i for i, a in enumerate(acts) if RUMMY.action_to_json(a)["type"] == "discard")
    pre = RUMMY.state_to_json(s)
    players = int(pre["players"])
    assert int(RUMMY.state_to_json(succ[k])["seat"]) == (int(pre["seat"]) + 1) % players
    broken = list(succ)
    broken[k] = succ[k]._replace(seat=(int(pre["seat"]) + 2) % players)
    d = ref(s, acts, broken)
    assert d is not None and d.kind == "successor" and d.action == k
    assert "play-direction" in d.detail


def test_an_opening_refused_at_its_minimum_is_caught() -> None:
    """Where an opening is under way and its melds reach the minimum, the engine leaving out
    `finish-opening` (as one that wants the minimum exceeded would) is a disagreement; listing it
    where the melds fall short is one too."""
    from arbitro.model.rummy.actions import FinishOpening

    r = rummy("canasta-es")
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    short = reached = False
    for s, acts, succ in walk(r, seat, 6000, 7, eager=True):
        pre = RUMMY.state_to_json(s)
        if ref.opening_difference(pre, [RUMMY.action_to_json(a) for a in acts]) is not None:
            raise AssertionError(f"the real engine disagrees at {pre}")
        kinds = [RUMMY.action_to_json(a)["type"] for a in acts]
        side = pre["table"][int(pre["seat"]) % int(pre["sides"])]
        if side["opened"] or not side["melds"] or pre["step"] != "play":
            continue
        if "finish-opening" in kinds and not reached:
            k = kinds.index("finish-opening")
            d = ref(s, acts[:k] + acts[k + 1 :], succ[:k] + succ[k + 1 :])
            assert d is not None and d.kind == "enabled" and not d.extra
            assert d.missing == ({"type": "finish-opening", "seat": int(pre["seat"])},)
            reached = True
        elif "finish-opening" not in kinds and not short and ref.decided_opening(pre):
            wrong = FinishOpening(int(pre["seat"]))
            d = ref(s, (*acts, wrong), [*succ, succ[0]])
            assert d is not None and d.kind == "enabled" and not d.missing
            assert "minimum" in str(d.extra) or d.extra[0]["type"] == "finish-opening"
            short = True
        if short and reached:
            return
    pytest.fail(f"not both cases met: short {short}, reached {reached}")


def test_play_going_on_after_the_last_red_three_is_caught() -> None:
    """samba-en: when the stock's last card is a red three, the draw that takes it stops play
    without a discard (*:last-red-three-ends-hand). A position is made whose stock holds as many
    naturals as a draw takes less one, then a red three; the engine's own draw agrees with the
    relation, and the same draw with play going on (as an engine that forgets the rule would
    leave it) is refused."""
    from arbitro.model.rummy.actions import Draw
    from arbitro.proofs.rummy import abstract

    r = rummy("samba-en")
    assert r.last_red_three_ends_hand
    n = r.draw_count
    seat = next(iter(RUMMY.seatings(r)))
    ck = abstract.Checker(r)
    for s, _, _ in walk(r, seat, 200, 8):
        pre = RUMMY.state_to_json(s)
        if pre["step"] != "draw" or "3H" in pre["stock"][:1]:
            continue
        natural = next(c for c in pre["stock"] if c[0] not in "23" and c != "JK")
        pre = {**pre, "stock": [natural] * (n - 1) + ["3H"]}
        before = RUMMY.state_from_json(r, pre)
        after = RUMMY.apply(r, before, Draw(int(pre["seat"]), n))
        post = RUMMY.state_to_json(after)
        act = {"type": "draw", "seat": int(pre["seat"]), "count": n}
        assert post["phase"] == "play" and post["no_discard"] and not post["stock"]
        assert abstract.step_checks(ck, pre, act, post) == []
        bad = abstract.step_checks(ck, pre, act, {**post, "no_discard": False})
        assert any("last-red-three-ends-hand" in str(b) for b in bad), bad
        # one card more in the stock, and the same draw does not stop play
        pre3 = {**pre, "stock": [natural] * (n - 1) + ["3H", natural]}
        post3 = RUMMY.state_to_json(
            RUMMY.apply(r, RUMMY.state_from_json(r, pre3), Draw(int(pre["seat"]), n))
        )
        assert not post3["no_discard"] and abstract.step_checks(ck, pre3, act, post3) == []
        return
    pytest.fail("no draw step met")


def test_an_upcard_left_uncovered_is_caught() -> None:
    """canasta-es covers a wild or red three turned up (*:upcard-cover). A dealt position whose
    upcard is swapped with a wild from a hand (every card still in play once) is refused; the
    real deal agrees. The deal relation refuses it too."""
    from arbitro.proofs.rummy import abstract

    r = rummy("canasta-es")
    assert "wild" in r.upcard_cover
    seat = next(iter(RUMMY.seatings(r)))
    ref = Refiner(r, seat)
    lay = next(x for x in r.layouts if x.name == seat.layout)
    rng = random.Random(9)
    for _ in range(50):
        order = list(RUMMY.deck(r, seat))
        rng.shuffle(order)
        s = RUMMY.deal(r, RUMMY.new_game(r, seat, 0), order)
        pre = RUMMY.state_to_json(s)
        holder = next((i for i, h in enumerate(pre["hands"]) if "JK" in h), None)
        if holder is None or len(pre["pile"]) != 1:
            continue
        assert ref.upcards(pre) is None
        hands = [list(h) for h in pre["hands"]]
        hands[holder][hands[holder].index("JK")] = pre["pile"][0]
        bad = {**pre, "hands": [sorted(h, key=RUMMY.parse_card) for h in hands], "pile": ["JK"]}
        broken = RUMMY.state_from_json(r, bad)
        d = ref(broken, tuple(RUMMY.legal_actions(r, broken)), [])
        assert d is not None and d.kind == "invariant" and "upcard" in d.detail
        assert abstract.deal_consistent(r, lay, pre) == "sat"
        assert abstract.deal_consistent(r, lay, bad) == "unsat"
        return
    pytest.fail("no deal with a joker in a hand and a single upcard")


class _Broken:
    """The engine with one answer changed (`deal` or `apply` wrapped), every other method its
    own: a mutant of the engine without a copy of model/."""

    def __init__(self, **changed: Any) -> None:
        self.changed = changed

    def __getattr__(self, name: str) -> Any:
        return self.changed.get(name, getattr(RUMMY, name))


@pytest.mark.slow
def test_built_positions_reach_a_double_cover_and_a_last_red_three() -> None:
    """The positions `prove --refine` walks besides random play (`proofs/rummy/positions.py`):
    samba-es covers wilds and threes turned up (samba-es:upcard-cover) and stops play on a last
    red three (samba-es:last-red-three-ends-hand); its built positions deal a pile of two covered
    cards under an uncovered one, and play to a draw that takes the stock's last card, a red
    three, and stops. The real engine agrees with the relation on every state of them."""
    from arbitro.proofs.rummy import positions

    r = rummy("samba-es")
    seat = next(iter(RUMMY.seatings(r)))
    order = positions.upcard_twice(r, seat)
    assert order is not None
    pile = RUMMY.state_to_json(RUMMY.deal(r, RUMMY.new_game(r, seat, 0), order))["pile"]
    assert len(pile) == 3 and pile[-1][0] not in "23" and pile[-1] != "JK"
    dealer, order, acts = positions.play(r, seat, positions.last_red(r, seat) or [])
    state = RUMMY.deal(r, RUMMY.new_game(r, seat, dealer), order)
    stopped = False
    for act in acts:
        before = RUMMY.state_to_json(state)
        state = RUMMY.apply(r, state, RUMMY.action_from_json(act))
        after = RUMMY.state_to_json(state)
        if act["type"] == "draw" and not after["stock"] and before["stock"][-1][0] == "3":
            stopped = after["no_discard"]
    assert stopped
    rep = refine.directed(RUMMY, r, seat, rulebook="samba-es", target="built")
    # built: the upcard covered twice, the last red three, the escalera at its maximum, the black
    # threes and a wild, a red three under the upcard (samba-es replaces red threes on the owner's
    # turn: no red-for-red deal; lays no wild melds; draws two cards: no going out with all black
    # threes but one); then the seeded hands, and the deals played to the stock's end (its
    # stock-out forces a take onto a meld)
    hands = sum(len(seeds) for *_, seeds in positions.EAGER_HANDS) + len(positions.STOCK_OUT_DEALS)
    assert rep is not None and rep.ok and rep.deals == 5 + hands, rep.first


def test_an_upcard_covered_once_is_caught_on_a_built_position() -> None:
    """The engine mutant `rummy-upcard-cover-once` (benchmarks/mutants.py): the deal covers a
    covered upcard once, even by another card that must be covered. Random play rarely deals two
    covered cards in a row; the built position does, and the refiner reports it there."""
    r = rummy("samba-es")
    seat = next(iter(RUMMY.seatings(r)))

    def deal_once(rules: Any, state: Any, order: Any) -> Any:
        s = RUMMY.state_to_json(RUMMY.deal(rules, state, order))
        pile, stock = s["pile"], s["stock"]
        if len(pile) > 2:  # covered more than once: put the later covers back on the stock
            s = {**s, "pile": pile[:2], "stock": [*pile[2:], *stock]}
        return RUMMY.state_from_json(rules, s)

    broken = _Broken(deal=deal_once)
    rep = refine.directed(broken, r, seat, rulebook="samba-es", target="built")  # type: ignore[arg-type]
    assert rep is not None and rep.first is not None
    assert rep.first.kind == "invariant" and "upcard" in rep.first.detail


def test_play_going_on_after_the_last_red_three_is_caught_on_a_built_position() -> None:
    """The engine mutant `rummy-last-red-no-stop`: a red three drawn as the stock's last card
    does not stop play. The built position draws it; the refiner reports the draw's successor
    (samba-es:last-red-three-ends-hand)."""
    r = rummy("samba-es")
    seat = next(iter(RUMMY.seatings(r)))

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        s = RUMMY.state_to_json(RUMMY.apply(rules, state, action))
        if s["no_discard"]:
            s = {**s, "no_discard": False}
        return RUMMY.state_from_json(rules, s)

    broken = _Broken(apply=apply_on)
    rep = refine.directed(broken, r, seat, rulebook="samba-es", target="built")  # type: ignore[arg-type]
    assert rep is not None and rep.first is not None
    assert rep.first.kind == "successor" and "last-red-three-ends-hand" in rep.first.detail


def _engine_in_refiner(monkeypatch: pytest.MonkeyPatch, **changed: Any) -> None:
    """The refiner asks the engine through `RUMMY` (its `apply` of the actions it must refuse):
    point it at the engine with one answer changed."""
    from arbitro.proofs.rummy import refine as rr

    monkeypatch.setattr(rr, "RUMMY", _Broken(**changed))


def _suited_pair(hand: list[str]) -> list[str] | None:
    """Two naturals of one suit held (an escalera two cards long, or a gapped pair)."""
    nat = sorted({c for c in hand if c[0] not in "23" and c != "JK"}, key=RUMMY.parse_card)
    for a, b in itertools.combinations(nat, 2):
        if a[-1] == b[-1]:
            return [a, b]
    return None


def test_a_short_escalera_refused_as_malformed_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine mutant `rummy-sequence-min-short` (an escalera one card short of
    *:sequence-min classifies as a meld): the engine then calls a two-card escalera laid
    malformed (laid at other than its size) instead of refusing it under samba-en:sequence-min.
    The refiner asks the engine to lay every new meld of any size in a decided state; the book
    wants three cards at least (samba-en:sequence-min), so two of one suit must be refused as
    illegal under a clause the relation names."""
    from arbitro.model.errors import MalformedInput

    ref, s, acts, succ = _decided("samba-en", "discard")
    assert ref(s, acts, succ) is None
    pre = RUMMY.state_to_json(s)
    pair = _suited_pair(pre["hands"][int(pre["seat"])])
    assert pair is not None and ref.run_size == 3

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        a = RUMMY.action_to_json(action)
        if a["type"] == "lay" and len(a["cards"]) == 2 and a["cards"][0][-1] == a["cards"][1][-1]:
            raise MalformedInput("an escalera is laid with exactly 3 cards")
        return RUMMY.apply(rules, state, action)

    _engine_in_refiner(monkeypatch, apply=apply_on)
    d = ref(s, acts, succ)
    assert d is not None and d.kind == "enabled" and "malformed" in d.detail, d
    assert d.extra and d.extra[0]["type"] == "lay" and len(d.extra[0]["cards"]) == 2


def _long_escalera(book: str) -> tuple[Refiner, Any, int, str]:
    """A decided state of samba play rebuilt with an escalera of *:sequence-max cards (5 to J of
    spades, seven escalera ranks in a row) on the mover's side and the queen of spades, which
    would extend it, in the mover's hand; every card taken from the stock, so the deck holds.
    Returns the refiner, the state, the escalera's index among the side's melds and the card."""
    ref, s, _, _ = _decided(book, "discard")
    pre = RUMMY.state_to_json(s)
    run = ["5S", "6S", "7S", "8S", "9S", "10S", "JS"]
    assert len(run) == ref.rules.sequence_max == 7  # samba: an escalera holds 3 to 7 cards
    stock = list(pre["stock"])
    for c in [*run, "QS"]:
        stock.remove(c)
    seat = int(pre["seat"])
    side = seat % int(pre["sides"])
    table = [dict(t) for t in pre["table"]]
    table[side] = {**table[side], "melds": [*table[side]["melds"], {"kind": "escalera", "cards": run, "suit": "S"}]}  # fmt: skip
    hands = [list(h) for h in pre["hands"]]
    hands[seat] = [*hands[seat], "QS"]
    new = {**pre, "stock": stock, "table": table, "hands": hands}
    i = len(table[side]["melds"]) - 1
    return ref, RUMMY.state_from_json(ref.rules, new), i, "QS"


def test_an_addition_past_the_longest_escalera_accepted_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-sequence-max-grows` (an escalera at its maximum takes one card
    more): `legal_actions` still leaves the addition out, but `apply` accepts it. The refiner
    asks the engine to apply the additions the relation refuses: an eighth card onto an
    escalera of seven must be refused under samba-en:sequence-max (the book: 3 to 7 cards)."""
    ref, s, i, card = _long_escalera("samba-en")
    acts = RUMMY.legal_actions(ref.rules, s)
    succ = [RUMMY.apply(ref.rules, s, a) for a in acts]
    assert ref(s, acts, succ) is None

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        a = RUMMY.action_to_json(action)
        if a["type"] == "add" and a["card"] == card and a["meld"] == i:
            return state  # accepted
        return RUMMY.apply(rules, state, action)

    _engine_in_refiner(monkeypatch, apply=apply_on)
    d = ref(s, acts, succ)
    assert d is not None and d.kind == "enabled", d
    assert "accepts" in d.detail and "sequence-max" in d.detail


def test_a_red_three_lost_while_replacing_a_red_three_is_caught() -> None:
    """The engine mutant `rummy-deal-red-for-red-lost`: a red three drawn at the deal to replace
    a red three is lost. canasta-es replaces red threes at the deal (canasta-es:
    red-three-initial-replacement): the built deal gives the first player a red three and puts
    another first in the stock, so that side lays out two and draws again. The refiner's deck
    invariant reports the lost card on the first state."""
    from arbitro.proofs.rummy import positions

    r = rummy("canasta-es")
    seat = next(iter(RUMMY.seatings(r)))
    order = positions.red_for_red(r, seat)
    assert order is not None
    dealt = RUMMY.state_to_json(RUMMY.deal(r, RUMMY.new_game(r, seat, 0), order))
    assert sorted(len(t["red_threes"]) for t in dealt["table"]) == [0, 2]
    assert positions.red_for_red(rummy("samba-es"), next(iter(RUMMY.seatings(rummy("samba-es"))))) is None  # fmt: skip

    def deal_losing(rules: Any, state: Any, order: Any) -> Any:
        s = RUMMY.state_to_json(RUMMY.deal(rules, state, order))
        table = [{**t, "red_threes": t["red_threes"][:1]} for t in s["table"]]
        return RUMMY.state_from_json(rules, {**s, "table": table})

    assert positions.red_for_red in [
        b for b, _, _ in positions.BUILDERS
    ]  # walked by `prove --refine`
    state = deal_losing(r, RUMMY.new_game(r, seat, 0), order)
    acts = RUMMY.legal_actions(r, state)
    d = Refiner(r, seat)(state, acts, [RUMMY.apply(r, state, a) for a in acts])
    # canasta-es plays two packs: two threes of diamonds, and the deal kept one
    assert d is not None and d.kind == "invariant" and "3D 2 in the deck, 1 in play" in d.detail, d


def _relaxed_walk(book: str, changed: dict[str, Any], hands: str) -> Any:
    """`prove --refine`'s walk of `book`'s built positions (first seating) against an engine that
    plays under the rules with `changed` (a guard dropped): the positions are the real engine's
    (the chooser of the EAGER_HANDS named `hands` only), the engine asked at each state is the
    relaxed one. Returns the walk's report."""
    from arbitro.proofs.rummy import positions

    r = rummy(book)
    loose = dataclasses.replace(r, **changed)
    seat = next(iter(RUMMY.seatings(r)))
    broken = _Broken(
        legal_actions=lambda rules, s: RUMMY.legal_actions(loose, s),
        apply=lambda rules, s, a: RUMMY.apply(loose, s, a),
    )
    chosen = tuple(h for h in positions.EAGER_HANDS if h[0] == hands)
    assert chosen, hands
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(positions, "EAGER_HANDS", chosen)
        mp.setattr(positions, "BUILDERS", ())
        return refine.directed(broken, r, seat, rulebook=book, target="built")  # type: ignore[arg-type]


def test_the_top_card_onto_a_meld_before_the_first_take_is_caught() -> None:
    """The engine mutant `rummy-pile-add-first-take`: the top card alone takes the pile onto a
    meld before anybody has taken it, where canasta-es (canasta-es:pile-add-after) asks the first
    take to be made with a natural pair. The eager hand that keeps its wilds (the pile stays
    unfrozen) opens from the hand with the pile untaken and its top card matching a meld; an
    engine without the guard takes it there, and the relation refuses the step. The real engine
    agrees on the same positions (`prove --refine` walks them)."""
    r = rummy("canasta-es")
    assert r.pile_add_after == "first_pile_take"
    rep = _relaxed_walk("canasta-es", {"pile_add_after": "any_time"}, "eager, keeping wilds")
    assert rep is not None and rep.first is not None and rep.first.kind == "successor"
    assert '"use": "add"' in rep.first.detail and "pile-add-after" in rep.first.detail


def test_a_new_set_from_the_pile_with_the_stock_out_is_caught() -> None:
    """The engine mutant `rummy-stock-out-take-any`: with the stock exhausted, samba-es
    (samba-es:stock-out) lets the next player take the pile only when its top card fits a meld of
    the side; an engine that also lets a natural pair start a new set from it makes a step the
    take-pile relation refuses under that clause. A position of samba-es play is rebuilt with the
    stock gone (its cards and the pile's to the next player), a pile of one natural and a pair of
    its rank in the hand of a side that has opened and has no set of that rank; the real engine
    refuses the take, the engine without the guard (the other reading, take_pile_if_able) makes
    it, and the relation refuses that step."""
    from arbitro.proofs.rummy import abstract

    r = rummy("samba-es")
    assert r.stock_out == "forced_take_if_matches_meld"
    loose = dataclasses.replace(r, stock_out="take_pile_if_able")
    seat_ = next(iter(RUMMY.seatings(r)))
    ck = abstract.Checker(r)
    for s, _, _ in walk(r, seat_, 400, 5, eager=True):
        pre = RUMMY.state_to_json(s)
        seat, sides = int(pre["seat"]), int(pre["sides"])
        side = pre["table"][seat % sides]
        if pre["step"] != "draw" or not side["opened"]:
            continue
        other = (seat + 1) % len(pre["hands"])
        pool = [*pre["stock"], *pre["pile"], *pre["hands"][other]]
        have = {m["rank"] for m in side["melds"] if m["kind"] == "set"}
        rank = next(
            (k for k in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") if k not in have
             and sum(c[:-1] == k for c in pool) >= 3),
            None,
        )  # fmt: skip
        if rank is None:
            continue
        three = [c for c in pool if c[:-1] == rank][:3]
        for c in three:
            pool.remove(c)
        hands = [list(h) for h in pre["hands"]]
        hands[seat] += three[:2]
        hands[other] = pool
        pre = {**pre, "stock": [], "pile": [three[2]], "hands": hands}
        before = RUMMY.state_from_json(r, pre)
        act = {"type": "take-pile", "seat": seat, "use": "set", "cards": sorted(three[:2], key=RUMMY.parse_card)}  # fmt: skip
        with pytest.raises(IllegalActionError) as refused:
            RUMMY.apply(r, before, RUMMY.action_from_json(act))
        assert refused.value.clause == "samba-es:stock-out"
        post = RUMMY.state_to_json(RUMMY.apply(loose, before, RUMMY.action_from_json(act)))
        bad = abstract.step_checks(ck, pre, act, post)
        assert any("stock-out" in str(b) for b in bad), bad
        return
    pytest.fail("no draw step of a side that has opened met")


def test_a_wild_past_a_finished_wild_meld_accepted_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-wild-meld-grows` (a finished wild meld takes one wild more):
    canasta-es lays melds of wilds alone and finishes them at seven cards (canasta-es:
    completed-size). The built position deals the first player eight wilds; the growing chooser
    lays five, adds two and keeps one. There the refiner asks the engine to add the eighth wild,
    which it must refuse; an engine that accepts it is caught."""
    from arbitro.proofs.rummy import positions

    r = rummy("canasta-es")
    seat = next(iter(RUMMY.seatings(r)))
    order = positions.long_wild_meld(r, seat)
    assert order is not None
    assert positions.long_wild_meld in [b for b, _, _ in positions.BUILDERS]
    dealer, order, acts = positions.play(r, seat, order, preferred=positions.GROWING, steps=20)
    state = RUMMY.deal(r, RUMMY.new_game(r, seat, dealer), order)
    ref = Refiner(r, seat)
    for act in acts:
        pre = RUMMY.state_to_json(state)
        melds = pre["table"][int(pre["seat"]) % int(pre["sides"])]["melds"]
        full = [i for i, m in enumerate(melds) if m["kind"] == "wilds" and len(m["cards"]) == 7]
        wild = [c for c in pre["hands"][int(pre["seat"])] if c == "JK" or c[0] == "2"]
        if full and wild and ref.decided(pre):
            break
        state = RUMMY.apply(r, state, RUMMY.action_from_json(act))
    else:
        pytest.fail("the built position never holds a finished wild meld and a wild")
    legal = RUMMY.legal_actions(r, state)
    succ = [RUMMY.apply(r, state, a) for a in legal]
    assert ref(state, legal, succ) is None

    def apply_on(rules: Any, s: Any, action: Any) -> Any:
        a = RUMMY.action_to_json(action)
        if a["type"] == "add" and a["meld"] == full[0] and a["card"] in wild:
            return s  # accepted
        return RUMMY.apply(rules, s, action)

    _engine_in_refiner(monkeypatch, apply=apply_on)
    d = ref(state, legal, succ)
    assert d is not None and d.kind == "enabled", d
    assert "accepts" in d.detail and "completed-size" in d.detail


@pytest.mark.slow
def test_a_new_set_from_the_pile_with_the_stock_out_is_caught_on_a_built_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`rummy-stock-out-take-any` on the positions `prove --refine` walks: samba-es's deal
    played by drawing and discarding to the stock's end (positions.STOCK_OUT_DEALS). An engine
    that lets a natural pair start a new set from the pile once the stock is out (played here as
    the other reading, take_pile_if_able) goes on past the stock's end and takes the pile so;
    the take-pile relation's samba-es:stock-out guard refuses that step."""
    from arbitro.proofs.rummy import positions

    r = rummy("samba-es")
    loose = dataclasses.replace(r, stock_out="take_pile_if_able")
    seat = next(iter(RUMMY.seatings(r)))
    broken = _Broken(
        legal_actions=lambda rules, s: RUMMY.legal_actions(loose, s),
        apply=lambda rules, s, a: RUMMY.apply(loose, s, a),
    )
    monkeypatch.setattr(positions, "RUMMY", broken)  # the built hands played by that engine
    monkeypatch.setattr(positions, "BUILDERS", ())
    monkeypatch.setattr(positions, "EAGER_HANDS", ())
    rep = refine.directed(broken, r, seat, rulebook="samba-es", target="built")  # type: ignore[arg-type]
    assert rep is not None and rep.first is not None and rep.first.kind == "successor"
    assert '"use": "set"' in rep.first.detail and "stock-out" in rep.first.detail


def test_an_unfinished_set_merged_into_a_finished_one_is_caught() -> None:
    """The engine mutant `rummy-merge-finished` (only the first of two sets is checked for being
    finished, so an unfinished set merges into a finished one after it): samba-fr merges sets of
    one rank and keeps several (samba-fr:merge-sets, the model's reading: only unfinished sets
    merge). The built position lays two sets of kings and grows the newer one to a canasta
    beside the older; an engine that lists the merge there is caught by the enabled-set row."""
    from arbitro.model.rummy.actions import Merge
    from arbitro.proofs.rummy import positions

    r = rummy("samba-fr")
    seat = next(iter(RUMMY.seatings(r)))
    order = positions.finished_beside_unfinished(r, seat)
    assert order is not None
    dealer, order, acts = positions.play(
        r, seat, order, preferred=positions.SPLITTING, steps=positions.GROWING_STEPS, last_add=True
    )
    state = RUMMY.deal(r, RUMMY.new_game(r, seat, dealer), order)
    ref = Refiner(r, seat)
    for act in acts:
        pre = RUMMY.state_to_json(state)
        melds = pre["table"][int(pre["seat"]) % int(pre["sides"])]["melds"]
        kings = [i for i, m in enumerate(melds) if m["kind"] == "set" and m["rank"] == "K"]
        sizes = [len(melds[i]["cards"]) for i in kings]
        if ref.decided(pre) and len(kings) >= 2 and sizes[0] < 7 <= sizes[-1]:
            break
        state = RUMMY.apply(r, state, RUMMY.action_from_json(act))
    else:
        pytest.fail("the built position never holds a canasta of kings beside an unfinished set")
    legal = RUMMY.legal_actions(r, state)
    succ = [RUMMY.apply(r, state, a) for a in legal]
    assert ref(state, legal, succ) is None
    merge = Merge(int(pre["seat"]), kings[0], kings[-1])
    d = ref(state, (*legal, merge), [*succ, succ[0]])
    assert d is not None and d.kind == "enabled" and d.extra == (RUMMY.action_to_json(merge),), d


# ---------------------------------------------------------------- the game's end


def _to_a_hand_end(
    book: str, start: list[int], seed: int
) -> tuple[Any, Seating, list[int], list[Any], Any]:
    """Random play of a game started at the running totals `start` up to the first state where
    an action ends the hand: (rules, seating, deck order, the actions from the deal, that
    state). The engine alone plays (no refiner on the way)."""
    r = rummy(book)
    seat = next(iter(RUMMY.seatings(r)))
    rng = random.Random(seed)
    order = list(RUMMY.deck(r, seat))
    rng.shuffle(order)
    game = RUMMY.state_to_json(RUMMY.new_game(r, seat, 0))
    s = RUMMY.deal(r, RUMMY.state_from_json(r, {**game, "scores": start}), order)
    path: list[Any] = []
    while RUMMY.phase(s) == "play":
        acts = RUMMY.legal_actions(r, s)
        if any(RUMMY.phase(RUMMY.apply(r, s, a)) != "play" for a in acts):
            return r, seat, order, path, s
        path.append(acts[rng.randrange(len(acts))])
        s = RUMMY.apply(r, s, path[-1])
    raise AssertionError("the hand ended without an action that ends it")


def test_the_game_end_encoding_reads_the_books_target() -> None:
    """`game_end.over` on the books' numbers: samba-es plays to 10,000 and reaching it is enough
    (samba-es:target-score, samba-es:target-rule: "reach"); level sides in front play on
    (samba-es:target-tie, play_on); canasta-es plays to 5,000 (canasta-es:target-score)."""
    from arbitro.proofs.rummy import game_end

    r = rummy("samba-es")
    over = game_end.evaluator(r, 2)
    assert over([10000, 9995])[0] and over([9995, 10000])[0] and over([12000, 11000])[0]
    assert not over([9995, 9990])[0] and not over([10000, 10000])[0]
    shared = game_end.evaluator(dataclasses.replace(r, target_tie="shared"), 2)
    assert shared([10000, 10000])[0] and not shared([9995, 9995])[0]
    past = game_end.evaluator(dataclasses.replace(r, target_rule="exceed"), 2)
    assert not past([10000, 0])[0] and past([10001, 0])[0]
    three = game_end.evaluator(rummy("canasta-es"), 3)
    assert three([5000, 0, 4995])[0] and not three([4995, 0, 4990])[0]
    assert not three([5000, 5000, 0])[0] and three([5000, 5005, 5000])[0]


def _plays_on_exactly_on_the_target(r: Any) -> Any:
    """The engine's `apply` with a side exactly on the target not ending the game (the engine
    mutant `rummy-target-strict`: reaching the target asks for more than it)."""

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        after = RUMMY.apply(rules, state, action)
        if RUMMY.phase(after) == "over" and r.target_score in RUMMY.game_scores(after):
            return after._replace(phase="deal")
        return after

    return apply_on


def test_a_game_that_goes_on_with_a_side_exactly_on_the_target_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """samba-es, a game started 1,000 points short of the target for both sides: at the first
    action that ends a hand, the real engine agrees with the game-end row (its totals and, moved
    so that each side in turn lands exactly on 10,000, the game over: samba-es:target-score,
    "reach"); an engine that plays on with a side exactly on the target is caught there, and
    the transcript, whose game starts at the totals asked, replays in `arbitro check`."""
    r, seat, order, path, s = _to_a_hand_end("samba-es", [9000, 9000], 7)
    acts = RUMMY.legal_actions(r, s)
    assert Refiner(r, seat)(s, acts, [RUMMY.apply(r, s, a) for a in acts]) is None
    broken = _plays_on_exactly_on_the_target(r)
    _engine_in_refiner(monkeypatch, apply=broken)
    d = Refiner(r, seat)(s, acts, [broken(r, s, a) for a in acts])
    assert d is not None and d.kind == "successor" and d.scores is not None, d
    assert "not over" in d.detail and "samba-es:target-score" in d.detail
    head = {
        "type": "header", "protocol": "arbitro/1", "rulebook": "samba-es", "options": {},
        "players": seat.players, "sides": seat.sides, "layout": seat.layout, "dealer": 0,
        "deals": [[RUMMY.card_name(c) for c in order]], "scores": list(d.scores),
    }  # fmt: skip
    lines = refine.transcript(RUMMY, r, head, order, path, seat, d)
    verdict = check_lines([json.dumps(t) for t in lines])
    assert verdict.status == "incomplete", verdict  # replayed to its last line, no hand claimed


def test_a_game_end_encoding_off_the_book_disagrees_with_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The game-end row judges by the encoding, not by the engine: an encoding that asks for
    more than the target (a side exactly on it plays on) disagrees with the book's engine where
    the totals are moved so that a side lands exactly on samba-es's 10,000."""
    from arbitro.proofs.rummy import game_end
    from arbitro.proofs.terms import Evaluator, all_of, any_of

    def strict(rules: Any, sides: int) -> Evaluator:
        xs = game_end.totals(sides)
        t = rules.target_score
        over = any_of(
            (x > t) & all_of(x > y for j, y in enumerate(xs) if j != i) for i, x in enumerate(xs)
        )
        return Evaluator([over], [f"side {i} total" for i in range(sides)])

    r, seat, _, _, s = _to_a_hand_end("samba-es", [9000, 9000], 7)
    acts = RUMMY.legal_actions(r, s)
    monkeypatch.setattr(game_end, "evaluator", strict)
    d = Refiner(r, seat)(s, acts, [RUMMY.apply(r, s, a) for a in acts])
    assert d is not None and d.kind == "successor" and d.scores is not None, d
    assert "the game is over" in d.detail and "target 10000" in d.detail


# ---------------------------------------------------------------- black threes melded to go out


def _only_built(monkeypatch: pytest.MonkeyPatch, builder: str) -> None:
    """`prove --refine`'s kept hands of a seating reduced to one built position."""
    from arbitro.proofs.rummy import positions

    chosen = tuple(b for b in positions.BUILDERS if b[0].__name__ == builder)
    assert len(chosen) == 1
    monkeypatch.setattr(positions, "BUILDERS", chosen)
    monkeypatch.setattr(positions, "EAGER_HANDS", ())
    monkeypatch.setattr(positions, "STOCK_OUT_DEALS", ())


def test_black_threes_laid_with_a_wild_are_caught_on_a_built_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-black-three-one-wild`: samba-es keeps wilds out of a meld of
    black threes (samba-es:black-three-meld-wilds), and an engine that accepts one wild in it
    lists nothing more (`legal_actions` builds those melds from the clause); only `apply`
    accepts. The built position (`positions.black_threes_and_a_wild`) deals the first player a
    canasta's worth of kings, two sets and two black threes, and draws it the third black three
    and a wild on its second turn; the refiner asks the engine there to lay the threes with the
    wild. The real engine refuses and agrees everywhere; the changed one (played here as the
    reading that lets wilds in) accepts, which the lay relation refuses."""
    from arbitro.proofs.rummy import positions

    r = rummy("samba-es")
    assert not r.black_three_meld_wilds and r.set_min == 3
    seat = next(iter(RUMMY.seatings(r)))
    order = positions.black_threes_and_a_wild(r, seat)
    assert order is not None
    _, _, acts = positions.play(
        r, seat, order, preferred=positions.GOING_OUT, steps=positions.GOING_OUT_STEPS,
        keep_wilds=True,
    )  # fmt: skip
    # the first player (seat 1) melds its black threes to go out: three of them, no wild
    laid = [a["cards"] for a in acts if a["type"] == "lay" and a["cards"][0][0] == "3"]
    assert laid and sorted(laid[-1]) == ["3C", "3C", "3S"]
    _only_built(monkeypatch, "black_threes_and_a_wild")
    rep = refine.directed(RUMMY, r, seat, rulebook="samba-es", target="built")
    assert rep is not None and rep.ok, rep and rep.to_json()
    loose = dataclasses.replace(r, black_three_meld_wilds=True)

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        a = RUMMY.action_to_json(action)
        if a["type"] == "lay" and sum(c == "JK" or c[0] == "2" for c in a["cards"]) == 1:
            return RUMMY.apply(loose, state, action)
        return RUMMY.apply(rules, state, action)

    _engine_in_refiner(monkeypatch, apply=apply_on)
    rep = refine.directed(RUMMY, r, seat, rulebook="samba-es", target="built")
    assert rep is not None and rep.first is not None and rep.first.kind == "enabled", rep
    assert "accepts" in rep.first.detail and "samba-es:black-three-meld-wilds" in rep.first.detail


def test_all_black_threes_but_one_melded_scored_as_all_is_caught_on_a_built_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-all-blacks-melded`: canasta-es pays its all-black-threes bonus
    (canasta-es:black-threes-all-melded-bonus, 500) only to a side going out with every black
    three of the deck melded. The built position (`positions.all_blacks_but_one`, two pairs:
    two packs, four black threes) has the first player go out with three of them melded, the
    fourth in the next player's hand (95 against that side, canasta-es:black-three-hand-penalty).
    The real engine agrees with the score encoding there; an engine that pays the bonus to a
    side one black three short is caught at the discard that goes out."""
    from arbitro.model.rummy.model import RUMMY as ENGINE
    from arbitro.proofs.rummy import positions

    r = rummy("canasta-es")
    seat = next(s for s in RUMMY.seatings(r) if s.layout == "two-pairs")
    order = positions.all_blacks_but_one(r, seat)
    assert order is not None
    dealer, order, acts = positions.play(
        r, seat, order, preferred=positions.GOING_OUT, steps=positions.GOING_OUT_STEPS,
        keep_wilds=True,
    )  # fmt: skip
    s = RUMMY.deal(r, RUMMY.new_game(r, seat, dealer), order)
    for a in acts:
        s = RUMMY.apply(r, s, RUMMY.action_from_json(a))
    end = RUMMY.state_to_json(s)
    assert end["result"]["reason"] == "went-out"
    blacks = [sum(c in ("3C", "3S") for m in t["melds"] for c in m["cards"]) for t in end["table"]]
    assert blacks == [0, 3]  # side 1 went out with three of the four
    cats = end["result"]["categories"]
    assert cats[1]["black-threes"] == 0 and cats[0]["black-threes"] == -95
    _only_built(monkeypatch, "all_blacks_but_one")
    rep = refine.directed(RUMMY, r, seat, rulebook="canasta-es", target="built")
    assert rep is not None and rep.ok, rep and rep.to_json()

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        after = ENGINE.apply(rules, state, action)
        res = after.result
        j = RUMMY.state_to_json(after)
        if RUMMY.phase(after) == "play" or res is None or j["result"]["reason"] != "went-out":
            return after
        out = next(i for i, c in enumerate(res.categories) if dict(c)["going-out"])
        melded = sum(c in ("3C", "3S") for m in j["table"][out]["melds"] for c in m["cards"])
        if melded != 3:
            return after
        bonus = rules.black_threes_all_melded_bonus
        cats = list(res.categories)
        cats[out] = tuple((k, p + bonus if k == "black-threes" else p) for k, p in cats[out])
        return after._replace(result=res._replace(categories=tuple(cats)))

    broken = _Broken(apply=apply_on)
    rep = refine.directed(broken, r, seat, rulebook="canasta-es", target="built")  # type: ignore[arg-type]
    assert rep is not None and rep.first is not None and rep.first.kind == "successor", rep
    assert "black-threes" in rep.first.detail


def test_a_red_three_lost_from_a_taken_pile_is_caught_on_a_built_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine mutant `rummy-pile-reds-lost` (a red three in a taken pile is lost): samba-es
    covers a red three turned up (samba-es:upcard-cover), so the built position
    (`positions.red_three_under_the_upcard`) deals a red three under a king and has the first
    player take the pile with two kings. The real engine agrees; one that drops the red three
    the taker lays out breaks the take-pile relation's effect at that take (the red threes of
    the pile go to the taker's side)."""
    r = rummy("samba-es")
    seat = next(iter(RUMMY.seatings(r)))
    _only_built(monkeypatch, "red_three_under_the_upcard")
    rep = refine.directed(RUMMY, r, seat, rulebook="samba-es", target="built")
    assert rep is not None and rep.ok, rep and rep.to_json()

    def apply_on(rules: Any, state: Any, action: Any) -> Any:
        after = RUMMY.apply(rules, state, action)
        pile = RUMMY.state_to_json(state)["pile"]
        if RUMMY.action_to_json(action)["type"] != "take-pile" or not any(
            c in ("3D", "3H") for c in pile
        ):
            return after
        j = RUMMY.state_to_json(after)
        side = j["table"][int(j["seat"]) % int(j["sides"])]
        side["red_threes"] = side["red_threes"][:-1]  # the last one found is lost
        return RUMMY.state_from_json(rules, j)

    broken = _Broken(apply=apply_on)
    rep = refine.directed(broken, r, seat, rulebook="samba-es", target="built")  # type: ignore[arg-type]
    assert rep is not None and rep.first is not None and rep.first.kind == "successor", rep
    assert "take-pile" in rep.first.detail and "red-three-initial-replacement" in rep.first.detail
