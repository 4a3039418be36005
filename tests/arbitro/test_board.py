"""arbitro.Board: push, pop, legal moves in notation, and the README's example run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arbitro import Board
from arbitro.oracle.core import Refused

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"### From Python: a board.*?```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1)
    assert len(code.strip().splitlines()) == 5
    exec(compile(code, "README.md", "exec"), {})


def test_push_pop_and_the_end_of_a_hand() -> None:
    """escoba-es: 40 cards, 4 dealt face up, one card a play: 36 moves end the hand."""
    board = Board("escoba-es", seed=4)
    start = board.notation()
    played = 0
    while board.legal_moves:
        board.push(board.legal_moves[-1])
        played += 1
    assert played == 40 - 4
    assert board.result()["hand"] is not None
    assert board.turn is None and board.legal_moves == []
    while board.move_stack[-1] != "deal":
        board.pop()
    assert board.notation() == start


def test_an_illegal_move_is_refused_with_its_clause_move_and_position() -> None:
    board = Board("escoba-es", seed=2)
    laid = next(m for m in board.legal_moves if "x" in m).split("x")[0]
    with pytest.raises(Refused) as e:
        board.push(laid)  # laying a card that can capture: escoba-es:capture-forced
    assert e.value.clause == "escoba-es:capture-forced"
    assert e.value.move == laid and e.value.position_line == board.notation()
