"""The smaller reproductions of the reliability issue, each as it was reported: a spec id with a
newline or past 64 characters, a long word in a spec text, an Escoba game whose totals are past
the target, and an Escoba position naming a last capturer that never captured. Each is one line
naming what is wrong (exit 2 on the command line, an error answer in the server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.oracle.server import Server, respond

SPEC = Path(__file__).resolve().parents[2] / "spec" / "escoba-es.toml"


def _one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    assert len(err) < 400  # named, not echoed
    return err


@pytest.mark.parametrize(
    "bad_id",
    ["my\\nbook", "m" * 65, "Escoba", "escoba es", ""],
)
def test_a_spec_id_that_is_not_a_short_kebab_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_id: str
) -> None:
    text = SPEC.read_text(encoding="utf-8").replace('id = "escoba-es"', f'id = "{bad_id}"', 1)
    assert f'id = "{bad_id}"' in text
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    _one_line_exit_2(["rules", "show", "--spec", str(path)], capsys, "rulebook.id")


def test_the_accepted_id_of_64_characters_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the bound itself is not a refusal: the file is read up to the check that names it
    name = "m" * 64
    text = SPEC.read_text(encoding="utf-8").replace('id = "escoba-es"', f'id = "{name}"', 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    main(["rules", "show", "--spec", str(path)])
    assert "rulebook.id: expected" not in capsys.readouterr().err


def test_a_long_word_in_a_spec_text_is_refused_by_its_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 20 MB in one word took rules show over 120 s; every text of a spec is bounded instead
    text = SPEC.read_text(encoding="utf-8").replace(
        'title = "Escoba"', 'title = "' + "w" * 400_000 + '"', 1
    )
    path = tmp_path / "escoba-es.toml"
    path.write_text(text, encoding="utf-8")
    _one_line_exit_2(
        ["rules", "show", "--spec", str(path)], capsys, "rulebook.title", "at most 4,000"
    )


def _ask(server: Server, **req: Any) -> dict[str, Any]:
    answer, _ = respond(server, json.dumps(req))
    return answer


@pytest.fixture
def escoba() -> Server:
    server = Server()
    assert _ask(server, op="start", rulebook="escoba-es", players=2)["ok"]
    return server


def test_escoba_totals_past_the_target_name_the_target_not_missing_cards(escoba: Server) -> None:
    # escoba-es:target-score: a game ends at 21; a new hand after totals 40 to 3 cannot be
    for scores in ([40, 3], [21, 0], [3, 25]):
        got = _ask(escoba, op="new_game", scores=scores)
        assert not got["ok"], got
        message = got["error"]["message"]
        assert "target" in message and "missing" not in message, message
    assert _ask(escoba, op="new_game", scores=[20, 20])["ok"]  # below the target: a game goes on


def test_an_escoba_position_naming_a_last_capturer_that_never_captured_is_refused(
    escoba: Server,
) -> None:
    order = _order(escoba)
    assert _ask(escoba, op="new_game", save="g")["ok"]
    state = _ask(escoba, op="deal", position="g", order=order)["result"]
    assert state["last_capturer"] is None and state["piles"] == [[], []]
    assert _ask(escoba, op="legal", state=state)["ok"]
    state["last_capturer"] = 0  # nobody has captured: both piles are empty
    got = _ask(escoba, op="legal", state=state)
    assert not got["ok"] and got["error"]["type"] == "inconsistent-state", got
    assert "escoba-es:last-capturer-takes-rest" in got["error"]["clauses"]


def _order(server: Server) -> list[str]:
    """A deck order: the deck as the oracle describes it, reversed (any order deals)."""
    deck: list[str] = _ask(server, op="start", rulebook="escoba-es", players=2)["result"]["deck"]
    return deck[::-1]
