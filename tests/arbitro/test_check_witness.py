"""`arbitro check` replays the explorer's witness transcripts: their header names a small
configuration (spec/configs/), whose rules and seating the replay uses instead of the book's."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.games import model_for
from arbitro.model.spec import load_rulebook
from arbitro.proofs.explore import witness
from arbitro.proofs.explore_config import load_config


def _witness(name: str, seed: int, steps: int) -> list[dict[str, Any]]:
    """A path of random legal moves in the configuration, written as the explorer writes its
    deadlock witnesses."""
    config = load_config(name)
    model = model_for(load_rulebook(config.rulebook).game)
    rng = random.Random(seed)
    order = list(model.deck(config.rules, config.seating))
    rng.shuffle(order)
    state = model.deal(config.rules, model.new_game(config.rules, config.seating), order)
    path = []
    while model.phase(state) == "play" and len(path) < steps:
        action = rng.choice(model.legal_actions(config.rules, state))
        path.append(action)
        state = model.apply(config.rules, state, action)
    lines: list[dict[str, Any]] = witness(model, config, order, path)["transcript"]
    return lines


def _write(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    p = tmp_path / "witness.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return p


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["check", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["escoba-tiny", "escoba-12", "samba-small", "canasta-small"])
def test_a_witness_of_each_kind_of_configuration_replays(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _witness(name, seed=1, steps=25)
    assert lines[0]["config"] == name
    code, verdict = _check(_write(tmp_path, lines), capsys)
    # every action replayed under the configuration's rules; a witness has no result line
    assert verdict["status"] == "incomplete" and code == 1
    assert verdict["actions"] == len(lines) - 1


def test_a_broken_witness_is_refused_with_its_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _witness("escoba-12", seed=2, steps=6)
    # the book's forced capture: the first card played that captured is laid on the table instead
    hit = next(i for i, x in enumerate(lines[1:], 1) if x["action"]["capture"])
    lines[hit]["action"]["capture"] = []
    code, verdict = _check(_write(tmp_path, lines), capsys)
    assert code == 1 and verdict["status"] == "illegal-action"
    assert verdict["clause"] == "escoba-es:capture-forced" and verdict["step"] == hit


def test_the_book_refuses_what_only_the_configuration_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _witness("escoba-tiny", seed=1, steps=3)
    del lines[0]["config"]  # the same lines read as the book's 40-card game
    code, verdict = _check(_write(tmp_path, lines), capsys)
    assert code == 2 and verdict["status"] == "malformed"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"config": "no-such-config"}, "no configuration 'no-such-config'"),
        ({"config": "../../etc/passwd"}, "no configuration"),
        ({"config": "samba-small"}, "derives from samba-es, not escoba-es"),
        ({"players": 4, "sides": 2}, "seats 2 players"),
        ({"options": {"target_rule": "exceed"}}, "plays the options"),
    ],
)
def test_a_header_that_names_a_configuration_wrongly_is_malformed(
    change: dict[str, Any], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _witness("escoba-tiny", seed=1, steps=2)
    lines[0].update(change)
    code, verdict = _check(_write(tmp_path, lines), capsys)
    assert code == 2 and verdict["status"] == "malformed"
    assert words in json.dumps(verdict), verdict
