"""OpenSpiel's own consistency checks on every rulebook and seating, and its API's contracts."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

from open_spiel.python.observation import make_observation  # noqa: E402

import arbitro.openspiel as aos  # noqa: E402
from arbitro.model.errors import IllegalAction, MalformedInput, OptionError  # noqa: E402
from tests.support.openspiel_cases import seat_params, seating_id, seatings  # noqa: E402
from tests.support.quick import first_of_each  # noqa: E402

CASES = seatings()
# the tables of seven to ten seats play the same code as the smaller ones of their layout (solo,
# pairs) and cost the most: in CI only; a quick run plays the first seating of each book
SIMULATED = first_of_each(
    [
        pytest.param(case, marks=pytest.mark.slow) if case[1].players >= 7 else case
        for case in CASES
    ],
    lambda case: case[0],
)


@pytest.mark.parametrize("case", SIMULATED, ids=seating_id)
def test_random_simulation_with_serialisation_and_clones(case: Any) -> None:
    """pyspiel.random_sim_test: sorted legal actions, unique action strings, clones and
    serialisation round trips, observations of every player at every step, returns in range and
    summing to zero; Escoba to the book's end of the game, Samba and Canasta for one hand."""
    rb, s = case
    hands = 0 if rb == "escoba-es" and s.players == 2 else 1
    game = aos.load(rb, **seat_params(s), max_hands=hands)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_check_fails_on_a_game_whose_returns_do_not_sum_to_zero(monkeypatch: Any) -> None:
    game = aos.load("escoba-es", max_hands=1)
    monkeypatch.setattr(
        aos.ArbitroState,
        "returns",
        lambda self: [1.0] * 2 if self.is_terminal() else [0.0] * 2,
    )
    with pytest.raises(pyspiel.SpielError):
        pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_every_rulebook_is_registered_with_its_options_as_parameters() -> None:
    names = {g.short_name: g for g in pyspiel.registered_games()}
    assert set(aos.GAMES) == {"samba-es", "samba-en", "samba-fr", "canasta-es", "escoba-es"}
    for rb, short in aos.GAMES.items():
        assert short == "arbitro_" + rb.replace("-", "_")
        gt = names[short]
        params = gt.parameter_specification
        assert {"players", "layout", "dealer", "max_hands", "config"} <= set(params)
        assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    esc = names["arbitro_escoba_es"].parameter_specification
    assert str(esc["variant_sevens_all"]) == "False"  # an optional rule, off unless asked
    assert str(esc["setenta_missing_suit"]) == "default"  # a reading, the spec's own by default
    fr = names["arbitro_samba_fr"].parameter_specification
    assert "packs" in fr and "jokers_per_pack" not in fr  # a follower goes with its leader
    # escoba-es:player-counts 2 to 4; samba-fr:layouts 2 to 10 players
    assert (
        names["arbitro_escoba_es"].min_num_players,
        names["arbitro_escoba_es"].max_num_players,
    ) == (2, 4)
    assert (
        names["arbitro_samba_fr"].min_num_players,
        names["arbitro_samba_fr"].max_num_players,
    ) == (2, 10)


def test_a_reading_changes_the_game_played() -> None:
    six = aos.load("samba-fr", packs="six-packs")
    three = aos.load("samba-fr")
    # samba-fr:packs and its follower samba-fr:jokers-per-pack: three packs and six jokers, or six
    # packs and six jokers
    assert (len(three.variant.deck), len(six.variant.deck)) == (3 * 52 + 6, 6 * 52 + 6)
    assert six.num_distinct_actions() > three.num_distinct_actions()
    teams = aos.load("escoba-es", players=4, layout="teams")
    assert (teams.num_players(), teams.variant.seating.sides) == (4, 2)
    alone = aos.load("escoba-es", players=4)
    assert alone.variant.seating.sides == 4


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 5}, "names no seating"),
        ({"layout": "nope"}, "names no seating"),
        ({"setenta_missing_suit": "bogus"}, "readings: default, lowest"),
        ({"max_hands": -1}, "max_hands must be 0"),
        ({"dealer": 2}, "dealer 2 is not a seat of 2 players"),
        ({"config": "tiny"}, "no small configurations"),
    ],
)
def test_bad_parameters_get_one_line_errors(params: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=message) as e:
        aos.load("escoba-es", **params)
    assert "\n" not in str(e.value)


def test_unknown_and_mistyped_parameters_are_refused_by_openspiel() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'bogus'"):
        pyspiel.load_game("arbitro_escoba_es(bogus=1)")
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game("arbitro_escoba_es(players=x)")


def test_an_illegal_action_is_refused_with_its_clause() -> None:
    game = aos.load("escoba-es", max_hands=1)
    state = game.new_initial_state()
    for card in range(40):
        state.apply_action(card)
    legal = set(state.legal_actions())
    illegal = next(i for i in range(game.num_distinct_actions()) if i not in legal)
    with pytest.raises(IllegalAction, match=r"escoba-es:"):
        state.apply_action(illegal)
    with pytest.raises(MalformedInput, match="not in range"):
        state.apply_action(game.num_distinct_actions())
    with pytest.raises(pyspiel.SpielError, match="illegal action"):
        state.apply_action_with_legality_check(illegal)


def _trajectory(game: Any, seed: int, steps: int) -> list[Any]:
    rng = random.Random(seed)
    state = game.new_initial_state()
    out = []
    while not state.is_terminal() and len(out) < steps:
        out.append(state.clone())
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(cards, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    out.append(state)
    return out


@pytest.mark.parametrize("rb", ["escoba-es", "samba-fr", "canasta-es"])
def test_observations_refuse_a_player_out_of_range_and_only_the_mover_has_actions(rb: str) -> None:
    game = aos.load(rb, max_hands=1)
    n = game.num_players()
    for state in _trajectory(game, 1, 400)[::37]:
        for p in (-1, n):
            for f in (
                state.information_state_string,
                state.observation_string,
                state.observation_tensor,
            ):
                with pytest.raises(RuntimeError, match="player"):
                    f(p)
        if state.is_terminal():
            assert state.legal_actions() == []
            assert all(state.legal_actions(p) == [] for p in range(n))
        elif not state.is_chance_node():
            mover = state.current_player()
            for p in range(n):
                assert (state.legal_actions(p) != []) == (p == mover)
            assert len(state.observation_tensor(mover)) == game.observation_tensor_size()


def test_private_and_public_observations_split_the_view() -> None:
    game = aos.load("samba-en", max_hands=1)
    private = make_observation(
        game,
        pyspiel.IIGObservationType(
            public_info=False,
            perfect_recall=False,
            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
        ),
    )
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    everyone = make_observation(
        game,
        pyspiel.IIGObservationType(
            public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        ),
    )
    state = _trajectory(game, 2, 200)[-1]
    mine = private.string_from(state, 1)
    assert '"hand":[' in mine and '"stock_size"' not in mine
    shown = public.string_from(state, 1)
    assert '"hand"' not in shown and '"stock_size"' in shown
    assert public.string_from(state, 0) == shown.replace('"viewer":1', '"viewer":0')
    full = state.get_game().variant.model.state_to_json(state.model_state)
    assert f'"hand":{aos.game._canon(full["hands"])}' in everyone.string_from(state, 0)


def test_serialised_states_replay_to_the_same_state() -> None:
    game = aos.load("canasta-es", layout="two-pairs", max_hands=1)
    state = _trajectory(game, 3, 250)[-1]
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert str(state2) == str(state)
    assert state2.legal_actions() == state.legal_actions()
    assert state2.information_state_string(1) == state.information_state_string(1)
    assert state2.history() == state.history()
