"""play writes canonical transcripts; check replays them and names the step and clause that break."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.oracle.check import check_lines
from arbitro.oracle.transcript import TranscriptError

ROOT = Path(__file__).resolve().parents[2]


def _play(tmp_path: Path, name: str, *argv: str) -> list[dict[str, Any]]:
    path = tmp_path / name
    assert main(["play", *argv, "--transcript", str(path)]) == 0
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _lines(objs: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for o in objs]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return _play(
        tmp_path_factory.mktemp("t"),
        "g.jsonl",
        "escoba-es",
        "--players",
        "4",
        "--teams",
        "--seed",
        "11",
    )


def test_the_same_game_written_twice_is_byte_identical(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    assert main(["play", "escoba-es", "--players", "3", "--seed", "5", "--transcript", str(a)]) == 0
    assert main(["play", "escoba-es", "--players", "3", "--seed", "5", "--transcript", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    for line in a.read_text(encoding="utf-8").splitlines():
        assert line == json.dumps(
            json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )


def test_play_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("keep me\n", encoding="utf-8")
    assert main(["play", "escoba-es", "--seed", "1", "--transcript", str(path)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "keep me\n"


def test_a_played_game_checks_valid(game: list[dict[str, Any]]) -> None:
    verdict = check_lines(_lines(game))
    assert verdict.status == "valid", verdict.to_json()
    assert verdict.actions == sum(1 for o in game if o["type"] == "action")
    assert verdict.hands == len(game[0]["deals"])


def test_a_claimed_score_that_differs_names_the_category(game: list[dict[str, Any]]) -> None:
    broken = [dict(o) for o in game]
    i = next(i for i, o in enumerate(broken) if o["type"] == "hand")
    cats = [dict(c) for c in broken[i]["categories"]]
    cats[0]["oros"] += 1
    broken[i] = {**broken[i], "categories": cats}
    verdict = check_lines(_lines(broken))
    assert verdict.status == "score-mismatch"
    (m,) = verdict.mismatches
    assert (m["hand"], m["side"], m["category"], m["claimed"] - m["actual"]) == (0, 0, "oros", 1)


def test_a_wrong_final_total_is_reported(game: list[dict[str, Any]]) -> None:
    broken = [dict(o) for o in game]
    broken[-1] = {**broken[-1], "scores": [s + 1 for s in broken[-1]["scores"]]}
    verdict = check_lines(_lines(broken))
    assert verdict.status == "score-mismatch"
    assert {m["category"] for m in verdict.mismatches} == {"game-total"}


def _first_action(game: list[dict[str, Any]], pred: Any) -> int:
    return next(i for i, o in enumerate(game) if o["type"] == "action" and pred(o))


def test_skipping_a_forced_capture_is_illegal(game: list[dict[str, Any]]) -> None:
    broken = [dict(o) for o in game]
    i = _first_action(broken, lambda o: o["action"]["capture"])
    broken[i] = {**broken[i], "action": {**broken[i]["action"], "capture": []}}
    verdict = check_lines(_lines(broken))
    assert verdict.status == "illegal-action"
    assert verdict.clause == "escoba-es:capture-forced"
    assert verdict.step == broken[i]["step"] and verdict.line == i + 1
    assert verdict.state is not None and verdict.state["phase"] == "play"


def test_playing_a_card_twice_is_illegal(game: list[dict[str, Any]]) -> None:
    """The second play of a card already played: it is in no hand any more."""
    broken = [dict(o) for o in game]
    i = _first_action(broken, lambda o: True)
    j = _first_action(
        broken, lambda o: o["seat"] == broken[i]["seat"] and o["step"] > broken[i]["step"]
    )
    again = {**broken[j]["action"], "card": broken[i]["action"]["card"], "capture": []}
    broken[j] = {**broken[j], "action": again}
    verdict = check_lines(_lines(broken))
    assert verdict.status == "illegal-action"
    assert verdict.clause == "escoba-es:hand-size"
    assert verdict.step == broken[j]["step"]


def test_acting_out_of_turn_is_illegal(game: list[dict[str, Any]]) -> None:
    broken = [dict(o) for o in game]
    i = _first_action(broken, lambda o: True)
    seat = (broken[i]["seat"] + 1) % 4
    broken[i] = {**broken[i], "seat": seat, "action": {**broken[i]["action"], "seat": seat}}
    verdict = check_lines(_lines(broken))
    assert verdict.status == "illegal-action"
    assert verdict.clause == "escoba-es:play-direction"


@pytest.mark.parametrize(
    ("mutate", "line", "field"),
    [
        (lambda g: g.__setitem__(1, "{not json"), 2, "<json>"),
        (lambda g: g.__setitem__(0, g[0].replace('"arbitro/1"', '"arbitro/0"')), 1, "protocol"),
        (lambda g: g.__setitem__(0, g[0].replace('"dealer":0', '"dealer":"north"')), 1, "dealer"),
        (lambda g: g.__setitem__(1, g[1].replace('"step":1', '"step":2')), 2, "step"),
        (lambda g: g.__setitem__(1, g[1].replace('"type":"action"', '"type":"move"')), 2, "type"),
        (
            lambda g: g.__setitem__(1, g[1].replace('"hand":0,"seat":', '"hand":0,"chair":', 1)),
            2,
            "chair",
        ),
        (lambda g: g.__setitem__(1, g[1].replace('"seat":', '"chair":', 1)), 2, "action"),
        (
            lambda g: g.__setitem__(0, g[0].replace('"escoba-es"', '"escoba-it"')),
            1,
            "rulebook/options",
        ),
        (lambda g: g.__setitem__(0, g[0].replace('["', '["1o","', 1)), 1, "deals[0]"),
        (
            lambda g: g.__setitem__(0, g[0].replace('"deals":[[', '"deals":[["9o"],[', 1)),
            1,
            "deals[0]",
        ),
    ],
)
def test_malformed_transcripts_name_line_and_field(
    game: list[dict[str, Any]], mutate: Any, line: int, field: str
) -> None:
    text = _lines(game)
    mutate(text)
    with pytest.raises(TranscriptError) as info:
        check_lines(text)
    assert (info.value.line, info.value.field) == (line, field)


def test_check_exit_status_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: list[dict[str, Any]]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(_lines(game)) + "\n", encoding="utf-8")
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out.startswith("valid: ")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*_lines(game)[:1], "[1, 2]"]) + "\n", encoding="utf-8")
    assert main(["check", str(bad)]) == 2
    assert "line 2: <json>: a JSON object, got list" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main(["check", str(binary)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_incomplete_transcript_is_not_valid(game: list[dict[str, Any]]) -> None:
    verdict = check_lines(_lines(game[:-1]))
    assert verdict.status == "incomplete"


def test_every_line_matches_the_published_schemas(game: list[dict[str, Any]]) -> None:
    from tests.support.serve import validator

    header = validator("transcript-header.schema.json")
    by_type = {
        "action": validator("transcript-action.schema.json"),
        "hand": validator("transcript-hand.schema.json"),
        "result": validator("transcript-result.schema.json"),
    }
    action = validator("escoba-action.schema.json")
    header.validate(game[0])
    for o in game[1:]:
        by_type[o["type"]].validate(o)
        if o["type"] == "action":
            action.validate(o["action"])


def test_states_match_the_published_schema() -> None:
    from arbitro import Oracle
    from tests.support.serve import validator

    schema = validator("escoba-state.schema.json")
    oracle = Oracle("escoba-es", players=4, teams=True)
    state = oracle.new_game()
    schema.validate(state)
    state = oracle.deal(state, oracle.describe()["deck"])
    while state["phase"] == "play" and state["last_hand"] is None:
        schema.validate(state)
        state = oracle.apply(state, oracle.legal_actions(state)[-1])
    schema.validate(state)
