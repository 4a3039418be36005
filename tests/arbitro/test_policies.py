"""Playout policies choose among the engine's own legal actions; the state is always `apply`'s."""

from __future__ import annotations

import random

import pytest

from arbitro.model.errors import OptionError
from arbitro.model.escoba import ESCOBA
from arbitro.model.rummy import RUMMY, Discard, Draw, TakePile
from arbitro.model.rummy.actions import FinishOpening, LayMeld
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules, rules_for
from arbitro.simulation.policies import POLICIES, builds_every_state, choose
from tests.support.rummy_helpers import C, R, make_state


def dealt(rules: RummyRules, seed: int) -> object:
    seating = RUMMY.seatings(rules)[0]
    order = list(RUMMY.deck(rules, seating))
    random.Random(seed).shuffle(order)
    return RUMMY.deal(rules, RUMMY.new_game(rules, seating), order)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("book", ["samba-es", "canasta-es"])
def test_every_choice_is_a_legal_action_and_the_state_apply_gives(policy: str, book: str) -> None:
    rules = R(book)
    s = dealt(rules, 3)
    rng = random.Random(3)
    for _ in range(200):
        if RUMMY.phase(s) != "play":
            break
        got = choose(policy, RUMMY, rules, s, rng)
        assert got is not None
        a, nxt = got
        assert a in RUMMY.legal_actions(rules, s)  # type: ignore[arg-type]
        assert nxt == RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
        s = nxt


def test_fast_takes_a_pile_its_pair_uses_and_finishes_an_opening() -> None:
    """The fast policy takes the pile with a natural pair rather than draw, and finishes an
    opening as soon as that is legal (here three kings and three queens make 60 of 50)."""
    rules = R("samba-en")
    s = make_state(
        rules, hands={0: "KH KS 4C 9D QS"}, melds={0: ("7C 7D 7H",)}, pile="5S KD", step="draw"
    )
    a, _ = choose("fast", RUMMY, rules, s, random.Random(0))  # type: ignore[misc]
    assert a == TakePile(0, "set", -1, C("KH KS"))
    opening = make_state(
        rules, hands={0: "QC QD QH 4C 9D"}, melds={0: ("KC KD KH",)}, opened={0: False}
    )
    a, _ = choose("fast", RUMMY, rules, opening, random.Random(0))  # type: ignore[misc]
    assert a == LayMeld(0, C("QC QD QH"))
    after = RUMMY.apply(rules, opening, a)
    b, _ = choose("fast", RUMMY, rules, after, random.Random(0))  # type: ignore[misc]
    assert b == FinishOpening(0)


def test_fast_discards_when_nothing_melds_and_draws_when_no_pair_takes() -> None:
    rules = R("samba-en")
    s = make_state(rules, hands={0: "4C 9D QS"}, pile="5S KD", step="draw")
    a, _ = choose("fast", RUMMY, rules, s, random.Random(0))  # type: ignore[misc]
    assert a == Draw(0, 1)
    play = make_state(rules, hands={0: "4C 9D QS"}, melds={0: ("KC KD KH",)})
    a, _ = choose("fast", RUMMY, rules, play, random.Random(0))  # type: ignore[misc]
    assert isinstance(a, Discard)


def test_fast_is_uniform_for_escoba() -> None:
    """Escoba has no fast policy of its own: the same generator gives the same choices."""
    rules = rules_for("escoba-es")
    seating = ESCOBA.seatings(rules)[0]
    order = list(ESCOBA.deck(rules, seating))
    random.Random(1).shuffle(order)
    s = ESCOBA.deal(rules, ESCOBA.new_game(rules, seating), order)
    assert choose("fast", ESCOBA, rules, s, random.Random(5)) == ESCOBA.random_step(
        rules, s, random.Random(5)
    )


def test_an_unknown_policy_is_named() -> None:
    rules = R("samba-en")
    with pytest.raises(OptionError, match="unknown policy 'greedy'; policies: uniform, fast"):
        choose("greedy", RUMMY, rules, dealt(rules, 0), random.Random(0))


def test_fast_games_build_every_state_so_every_state_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--check every` works with the fast policy: the whole-state checks see the dealt state of
    each hand and the state after every action, not only the dealt and final ones."""
    from arbitro.simulation.simulate import simulate

    assert builds_every_state("fast", "rummy")
    rules = R("canasta-es")
    seating = RUMMY.seatings(rules)[0]
    checked: list[object] = []
    real = RUMMY.violations

    def counting(rules: RummyRules, state: State) -> list[str]:
        checked.append(state)
        return real(rules, state)

    monkeypatch.setattr(RUMMY, "violations", counting)
    got = simulate(RUMMY, rules, seating, games=1, seed=4, policy="fast", check="every")
    hands = sum(got.hand_endings.values())
    assert got.violations == 0 and got.actions > 10 * hands > 0
    assert len(checked) == got.actions + hands
