"""arbitro simulate: whole random games, a summary whose numbers add up, and clean option errors."""

from __future__ import annotations

import json

import pytest

from arbitro.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object] | str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, out, err


@pytest.mark.parametrize(
    ("players", "teams"), [("2", False), ("3", False), ("4", False), ("4", True)]
)
def test_escoba_summary_adds_up(
    capsys: pytest.CaptureFixture[str], players: str, teams: bool
) -> None:
    """escoba-es:table-initial, escoba-es:deals-per-hand — every hand plays the 36 cards not dealt to the table."""
    argv = ["simulate", "escoba-es", "--players", players, "--games", "20", "--seed", "4", "--json"]
    code, data, _ = run(capsys, *argv, *(["--teams"] if teams else []))
    assert code == 0 and isinstance(data, dict)
    assert data["games"] == 20 and data["violations"] == 0 and data["unfinished_games"] == 0
    assert data["actions"] == 36 * data["hands"]  # 40 cards, 4 to the table at the start of a hand
    assert sum(data["wins_by_side"].values()) == 20  # type: ignore[union-attr]
    assert data["sides"] == (2 if teams else int(players))
    assert {"games", "hands", "actions", "violations", "seconds"} <= data.keys()


def test_the_same_seed_gives_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    a = run(capsys, "simulate", "escoba-es", "--games", "5", "--seed", "9", "--json")[1]
    b = run(capsys, "simulate", "escoba-es", "--games", "5", "--seed", "9", "--json")[1]
    assert isinstance(a, dict) and isinstance(b, dict)
    assert {k: v for k, v in a.items() if k != "seconds"} == {
        k: v for k, v in b.items() if k != "seconds"
    }


@pytest.mark.parametrize("rulebook", ["samba-es", "samba-en", "samba-fr", "canasta-es"])
def test_rummy_games_run_clean(capsys: pytest.CaptureFixture[str], rulebook: str) -> None:
    code, data, _ = run(capsys, "simulate", rulebook, "--games", "1", "--seed", "2", "--json")
    assert code == 0 and isinstance(data, dict)
    assert data["violations"] == 0
    assert sum(data["hand_endings"].values()) == data["hands"] >= 1  # type: ignore[union-attr]
    assert set(data["hand_endings"]) <= {"went-out", "stock-out", "dead-end"}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "escoba-es", "--players", "5"], "is not played by 5 players"),
        (["simulate", "escoba-es", "--players", "3", "--teams"], "has no team play for 3 players"),
        (["simulate", "samba-es", "--layout", "trios"], "has no layout 'trios'; named layouts: "),
        (["simulate", "escoba-es", "--option", "target_score"], "is not KEY=VALUE"),
        (
            ["simulate", "escoba-es", "--option", "variant_oros_all=maybe"],
            "is an optional rule: give true or false",
        ),
        (["simulate", "escoba-es", "--games", "0"], "--games must be from 1 to"),
        (
            ["simulate", "escoba-es", "--games", "100000000000000000000"],
            "--games must be from 1 to",
        ),
        (["simulate", "escoba-es", "--layout", "2"], "the others have no name: choose them with"),
        (
            ["simulate", "escoba-es", "--layout", "teams", "--players", "2"],
            "--layout teams seats 4 players, but --players says 2",
        ),
        (
            ["simulate", "canasta-es", "--layout", "three-players", "--teams"],
            "seats every player alone, but --teams asks for partnerships",
        ),
        (
            [
                "simulate",
                "samba-fr",
                "--option",
                "packs=six-packs",
                "--option",
                "jokers-per-pack=three-packs",
            ],
            "no reading of samba-fr gives that mix",
        ),
    ],
)
def test_bad_options_are_named(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("arbitro: error: ") and message in err


def test_a_game_past_max_hands_is_counted_unfinished(capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = run(
        capsys,
        "simulate",
        "samba-fr",
        "--players",
        "7",
        "--games",
        "1",
        "--max-hands",
        "2",
        "--json",
    )
    assert code == 0 and isinstance(data, dict)
    assert (data["unfinished_games"], data["hands"]) == (1, 2)
    assert data["final_scores"] == {"min": [], "mean": [], "max": []}
