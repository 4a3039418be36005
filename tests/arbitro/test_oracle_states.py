"""States are checked before they are used: a state no play reaches is refused, naming what is wrong.

`legal`, `explain`, `apply` and `score` refuse alike, through `arbitro.Oracle` (typed errors) and
over the wire; `check` lists the clauses instead. The broken states are made from real play by
one deliberate change each, and the expected clause is the one that change breaks.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arbitro import Oracle
from arbitro.model.errors import ArbitroError, MalformedInput
from arbitro.oracle.states import InconsistentState


def played(rulebook: str, actions: int, seed: int = 0, **kw: Any) -> tuple[Oracle, dict[str, Any]]:
    """A state `actions` legal actions into a hand (fewer if the hand ends first)."""
    oracle = Oracle(rulebook, **kw)
    deck = oracle.describe()["deck"]
    rng = random.Random(seed)
    s = oracle.deal(oracle.new_game(), rng.sample(deck, len(deck)))
    for _ in range(actions):
        legal = oracle.legal_actions(s)
        nxt = oracle.apply(s, legal[rng.randrange(len(legal))])
        if nxt["phase"] != "play":
            break
        s = nxt
    return oracle, s


def with_melds(rulebook: str) -> tuple[Oracle, dict[str, Any]]:
    """A state in play where some side has at least two melds on the table."""
    for seed in range(60):
        oracle, s = played(rulebook, 400, seed)
        if any(len(sd["melds"]) >= 2 for sd in s["table"]):
            return oracle, s
    raise AssertionError("no side laid two melds in 60 random hands")


def _an_action(o: Oracle, s: dict[str, Any]) -> dict[str, Any]:
    """A well-formed action for the state: a legal one if its form lets the model list them."""
    try:
        state = o.read_state(s, checked=False)
        legal = o.model.legal_actions(o.rules, state)
    except MalformedInput:
        legal = ()
    if legal:
        return dict(o.model.action_to_json(legal[0]))
    if o.game.name == "rummy":
        return {"type": "draw", "seat": 0, "count": 1}
    return {"seat": 0, "card": "1o", "capture": []}


OPS: list[tuple[str, Callable[[Oracle, dict[str, Any]], Any]]] = [
    ("legal", lambda o, s: o.legal_actions(s)),
    ("score", lambda o, s: o.score(s)),
    ("view", lambda o, s: o.view(s, 0)),
    ("apply", lambda o, s: o.apply(s, _an_action(o, s))),
    ("explain", lambda o, s: o.explain(s, _an_action(o, s))),
]


def _refused_everywhere(
    oracle: Oracle, state: dict[str, Any], kind: type[Exception], words: str
) -> None:
    for name, op in OPS:
        with pytest.raises(kind) as info:
            op(oracle, copy.deepcopy(state))
        assert words in str(info.value), (name, str(info.value))


@pytest.mark.parametrize("rulebook", ["samba-en", "canasta-es", "escoba-es"])
def test_a_duplicated_card_is_refused_naming_it(rulebook: str) -> None:
    oracle, s = played(rulebook, 5)
    seat = s["seat"] if "seat" in s else s["to_move"]
    card = next(c for h in s["hands"] for c in h)
    s["hands"][seat] = sorted([*s["hands"][seat], card], key=oracle.card_key)
    if rulebook == "escoba-es":
        # a pile lists each card once: the second copy goes where cards may not repeat
        s["table"] = sorted([*s["table"], card], key=oracle.card_key)
        s["hands"][seat].remove(card)
    _refused_everywhere(oracle, s, MalformedInput, card)
    if rulebook != "escoba-es":
        clause = f"{rulebook}:packs"
        with pytest.raises(InconsistentState) as info:
            oracle.legal_actions(s)
        assert info.value.clauses == [clause]
        assert f"more than the deck holds: {card}" in str(info.value)
        assert clause in oracle.check_state(s)


@pytest.mark.parametrize("rulebook", ["samba-fr", "canasta-es", "escoba-es"])
def test_a_missing_card_is_refused_naming_it(rulebook: str) -> None:
    oracle, s = played(rulebook, 3)
    card = s["stock"].pop()
    _refused_everywhere(oracle, s, InconsistentState, f"missing: {card}")
    assert oracle.check_state(s)


def test_a_game_set_over_mid_hand_is_refused() -> None:
    oracle, s = played("canasta-es", 20)
    s.update(phase="over", step="")
    s["result"] = {
        "hand": 0,
        "reason": "went-out",
        "scores": [100, 0],
        "categories": [
            {
                "melds": 100,
                "hand": 0,
                "canastas": 0,
                "canaston": 0,
                "red-threes": 0,
                "black-threes": 0,
                "going-out": 0,
                "penalties": 0,
            },
            {
                "melds": 0,
                "hand": 0,
                "canastas": 0,
                "canaston": 0,
                "red-threes": 0,
                "black-threes": 0,
                "going-out": 0,
                "penalties": 0,
            },
        ],
        "finding": [],
    }
    s["hand_number"] = 1
    # over, yet no side has the 5,000 the book asks for
    assert oracle.check_state(s) == ["canasta-es:target-score"]
    _refused_everywhere(oracle, s, InconsistentState, "canasta-es:target-score")


def test_escoba_to_move_out_of_turn_order_is_refused() -> None:
    oracle, s = played("escoba-es", 3, players=4, teams=True)
    s["to_move"] = (s["to_move"] + 1) % 4
    _refused_everywhere(oracle, s, InconsistentState, "escoba-es:play-direction")


def test_rummy_turn_bookkeeping_must_agree_with_the_step() -> None:
    oracle, s = played("samba-es", 0)
    assert s["step"] == "draw"
    for field, value in (("melded", True), ("answer", "yes"), ("took_pile", True)):
        broken = {**s, field: value}
        _refused_everywhere(oracle, broken, MalformedInput, f"state.{field}")


def test_a_minimum_that_the_totals_do_not_call_for_is_refused() -> None:
    oracle, s = played("samba-en", 2)
    s["minimums"] = [15, 50]  # 15 is the minimum below 0; both sides are on 0
    _refused_everywhere(oracle, s, InconsistentState, "samba-en:opening-minimums")


@pytest.mark.parametrize("rulebook", ["samba-en", "canasta-es"])
def test_melds_out_of_canonical_order_are_refused_not_reindexed(rulebook: str) -> None:
    oracle, s = with_melds(rulebook)
    side = next(i for i, sd in enumerate(s["table"]) if len(sd["melds"]) >= 2)
    s["table"][side]["melds"].reverse()
    with pytest.raises(MalformedInput) as info:
        oracle.legal_actions(s)
    assert f"state.table[{side}].melds" in str(info.value)
    assert "canonical order" in str(info.value)


def test_a_state_for_another_seating_is_refused() -> None:
    _, s = played("canasta-es", 1, players=2)
    other = Oracle("canasta-es", players=4)
    with pytest.raises(MalformedInput) as info:
        other.legal_actions(s)
    assert "the seating this oracle answers for (4 players" in str(info.value)


def test_errors_of_the_oracle_are_typed_never_builtin_only() -> None:
    """Whatever the input, the oracle raises its own errors (which also subclass ValueError)."""
    oracle, s = played("samba-en", 4)
    inputs: list[Any] = [
        None,
        [],
        {**s, "hands": s["hands"][:-1]},
        {**s, "seat": 99},
        {
            **s,
            "table": [{"melds": [{"kind": ["set"], "cards": []}], "red_threes": [], "opened": True}]
            * 2,
        },
        {
            **s,
            "result": {
                "hand": 0,
                "reason": "went-out",
                "scores": [1, 1],
                "categories": [{"melds": "x"}, {}],
                "finding": [],
            },
        },
        json.loads(json.dumps(s).replace('"QH"', '"Q♥"')),
    ]
    for bad in inputs:
        for op in (oracle.legal_actions, oracle.score, oracle.check_state):
            with pytest.raises(ArbitroError) as info:
                op(bad)
            assert isinstance(info.value, ValueError)
            assert type(info.value) is not ArbitroError
    for action in ({"type": ["x"]}, {"type": "lay", "seat": "0"}, "draw", {"seat": 10**20}):
        with pytest.raises(ArbitroError):
            oracle.apply(s, action)  # type: ignore[arg-type]


def test_a_rummy_turn_given_to_a_seat_that_cannot_have_it_is_refused() -> None:
    """samba-es replaces a dealt red three when its owner's first turn begins (on_turn): a seat
    still owed a replacement has not played, so no seat after it can be to move."""
    oracle = Oracle("samba-es")
    deck = oracle.describe()["deck"]
    for seed in range(200):
        dealt = oracle.deal(oracle.new_game(), random.Random(seed).sample(deck, len(deck)))
        owed = [x for x, k in enumerate(dealt["owed"]) if k]
        later = [x for x in owed if (x - dealt["seat"]) % 4 < 3]
        if later:
            break
    else:
        pytest.fail("no deal left a later seat owed a red-three replacement")
    x = later[0]
    after = (x + 1) % 4  # the seat after x, which plays only once x has
    moved = {**dealt, "seat": after}
    if dealt["owed"][after]:
        moved["owed"] = [0 if i == after else k for i, k in enumerate(dealt["owed"])]
    with pytest.raises(MalformedInput) as info:
        oracle.legal_actions(moved)
    assert f"state.owed[{x}]" in str(info.value)


def test_clean_start_must_count_the_clean_canastas_when_a_turn_begins() -> None:
    oracle = Oracle("samba-en")
    seven = ["QC", "QC", "QD", "QD", "QH", "QH", "QS"]
    hands = [["4C", "5D"], ["6C", "7D"], ["8C", "9D"], ["10C", "JD"]]
    state = oracle.position({"hands": hands, "pile": ["KS"], "seat": 0,
                             "table": [{"melds": [seven]}, {}]})  # fmt: skip
    assert state["clean_start"] == 1  # a natural canasta of queens (samba-en, Canastas and sambas)
    with pytest.raises(MalformedInput) as info:
        oracle.legal_actions({**state, "clean_start": 0})
    assert "state.clean_start" in str(info.value)
