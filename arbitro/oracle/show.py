"""`arbitro show POSITION|TRANSCRIPT [--step N]`: a position as a readable board, in 100 columns.

POSITION is a position line (docs/protocol.md, notation) or a file holding one or a state's JSON;
TRANSCRIPT a transcript file, shown after its step N (default: its last action).
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import Any

from arbitro.model.errors import MalformedInput
from arbitro.oracle.core import Oracle
from arbitro.oracle.jsonio import shorten
from arbitro.oracle.notation import (
    is_position_line,
    move_text,
    position_line,
    read_position_line,
)

WIDTH = 100


def _cards(xs: list[str]) -> str:
    return " ".join(xs) if xs else "—"


def _wrap(label: str, text: str) -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=f"{label:<12}", subsequent_indent=" " * 12
    ) or [label]


def board_text(state: dict[str, Any]) -> str:
    """The board of a state's JSON: hands, table, melds, pile, scores, whose turn."""
    out = [
        f"{state['game']} · {state['players']} players, {state['sides']} sides · phase "
        f"{state['phase']} · hand {state['hand_number']} · dealer seat {state['dealer']}"
    ]
    out += BOARDS[state["game"]](state)
    return "\n".join(line[:WIDTH] for line in out)


def _escoba_board(state: dict[str, Any]) -> list[str]:
    out: list[str] = []
    mover = state["to_move"]
    for seat, hand in enumerate(state["hands"]):
        mark = " ◀ to move" if seat == mover else ""
        out += _wrap(f"seat {seat}", f"{_cards(hand)}{mark}")
    out += _wrap("table", _cards(state["table"]))
    out += _wrap("stock", f"{len(state['stock'])} cards · deal {state['deal_number']}")
    for side, pile in enumerate(state["piles"]):
        last = " · captured last" if state["last_capturer"] == side else ""
        out += _wrap(
            f"side {side}",
            f"captured {len(pile)} · escobas {state['escobas'][side]}"
            f" · total {state['scores'][side]}{last}",
        )
    return out


def _rummy_board(state: dict[str, Any]) -> list[str]:
    out: list[str] = []
    mover = state["seat"] if state["phase"] == "play" else None
    for seat, hand in enumerate(state["hands"]):
        mark = f" ◀ to move ({state['step']})" if seat == mover else ""
        out += _wrap(f"seat {seat}", f"{_cards(hand)}{mark}")
    for side, sd in enumerate(state["table"]):
        melds = []
        for i, m in enumerate(sd["melds"]):
            wild = sum(c in ("JK", "2C", "2D", "2H", "2S") for c in m["cards"])
            name = m["kind"] + (
                f" {m.get('rank', m.get('suit', ''))}" if m["kind"] in ("set", "escalera") else ""
            )
            melds.append(f"#{i} {name} ({len(m['cards'])}, {wild} wild): {_cards(m['cards'])}")
        head = (
            f"total {state['scores'][side]} · minimum {state['minimums'][side]}"
            f" · red threes {_cards(sd['red_threes'])}" + ("" if sd["opened"] else " · not opened")
        )
        out += _wrap(f"side {side}", head)
        for m in melds:
            out += _wrap("", m)
    pile = state["pile"]
    top = pile[-1] if pile else "—"
    out += _wrap("pile", f"{len(pile)} cards · top {top}")
    out += _wrap("stock", f"{len(state['stock'])} cards")
    return out


BOARDS = {"escoba": _escoba_board, "rummy": _rummy_board}
"""Each game family's (`GameFamily.name`) board, below the heading line."""

DEFAULT_RULEBOOK = {"escoba": "escoba-es", "rummy": "samba-es"}
"""The rulebook a position of each game family is shown under when --rulebook is not given."""


def _state_of(oracle_for: Any, text: str) -> dict[str, Any]:
    if is_position_line(text.strip()):
        return read_position_line(text.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        shown = text.strip().splitlines()[0][:60] if text.strip() else ""
        raise MalformedInput(
            f"show: {shown!r} is not a position line, a file, a state's JSON or a transcript"
        ) from None
    if not isinstance(data, dict):
        raise MalformedInput("show: a state's JSON is an object, not " + type(data).__name__)
    missing = [k for k in ("game", "players", "layout") if k not in data]
    if missing:
        raise MalformedInput(f"show: the state's JSON lacks {', '.join(missing)}")
    if data["game"] not in BOARDS:
        known = ", ".join(BOARDS)
        raise MalformedInput(
            f"show: unknown game {shorten(repr(data['game']), 40)}; known: {known}"
        )
    state: dict[str, Any] = data
    return state


def register(sub: Any) -> None:
    p = sub.add_parser("show", help="a position or a transcript's position as a readable board")
    p.add_argument("what", metavar="POSITION|TRANSCRIPT")
    p.add_argument("--step", type=int, default=None, metavar="N")
    p.add_argument("--rulebook", default=None, help="the rulebook of a position (default by game)")
    p.add_argument(
        "--move",
        default=None,
        metavar="MOVE",
        help="also judge this move there (e.g. 1@4o): legal, or the clause refusing it (exit 1)",
    )
    p.set_defaults(func=_cmd_show)


def _cmd_show(args: argparse.Namespace) -> int:
    if args.step is not None and args.step < 0:
        raise MalformedInput(f"show: --step must be 0 or more, not {args.step}")
    try:
        return _show(args)
    except KeyError as exc:
        raise MalformedInput(f"show: the input lacks the field {exc.args[0]!r}") from None


def _show(args: argparse.Namespace) -> int:
    text = args.what
    path = Path(text)
    if not is_position_line(text) and path.is_file():
        text = path.read_text(encoding="utf-8")
    first = text.strip().splitlines()[0] if text.strip() else ""
    if first.startswith("{") and '"type":"header"' in first.replace(" ", ""):
        oracle, state = _replay(text.strip().splitlines(), args.step)
    else:
        state = _state_of(None, text)
        book = args.rulebook or DEFAULT_RULEBOOK[state["game"]]
        oracle = Oracle(
            book,
            players=state["players"],
            layout=state["layout"] or None,
            teams=state["layout"] == "teams",
        )
        state = oracle.write(oracle.read_state(state))
    if args.move is None:
        print(board_text(state))
        return 0
    # a bug report is a position and a move: say what the rules make of the move there (the move
    # read first, so that a bad one is named before anything is drawn)
    move = move_text(
        oracle.model.action_to_json(oracle.read_action(oracle.read_state(state), args.move))
    )
    verdict = oracle.explain(state, args.move)
    print(board_text(state))
    if verdict["legal"]:
        print(f"{move} is legal here ({oracle.book.id})")
        return 0
    said = [f"{move} refused: {verdict['reason']} ({verdict['clause']})"]
    said += [f"also refused by {r['clause']}: {r['reason']}" for r in verdict["refusals"][1:]]
    for text in said:
        print("\n".join(textwrap.wrap(text, WIDTH, subsequent_indent="  ")))
    return 1


def _replay(lines: list[str], step: int | None) -> tuple[Oracle, dict[str, Any]]:
    """The state of a transcript after action `step` (default: its last)."""
    header = _json_line(lines[0], 1)
    oracle = Oracle(
        header["rulebook"],
        header.get("options") or None,
        header["players"],
        header["layout"] == "teams",
        header["layout"] or None,
        header.get("overrides") or None,
    )
    state = oracle.new_game(header.get("dealer", 0), header.get("scores"), header.get("hand", 0))
    deals = list(header["deals"])
    done = 0
    for number, raw in enumerate(lines[1:], start=2):
        item = _json_line(raw, number)
        if not isinstance(item, dict):
            raise MalformedInput("show: a transcript line is not a JSON object")
        if item.get("type") != "action" or (step is not None and done >= step):
            continue
        if state["phase"] == "deal" and deals:
            deal = deals.pop(0)
            state = oracle.deal(
                state, **({"dealt": deal} if isinstance(deal, dict) else {"order": deal})
            )
        state = oracle.apply(state, item["action"])
        done += 1
    return oracle, state


def _json_line(raw: str, number: int) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"show: transcript line {number} is not JSON ({exc.msg})") from None


def transcript_report(text: str) -> tuple[str, str | None, str] | None:
    """A transcript as a bug report: the position line before its last action, that action's
    move and the board of that position; None for a transcript this cannot replay (it is then
    shown as it is, by whoever asked)."""
    from arbitro.model.errors import ArbitroError

    lines = [x for x in text.strip().splitlines() if x.strip()]
    try:
        played = sum(1 for x in lines[1:] if json.loads(x).get("type") == "action")
        if not played:
            return None
        oracle, state = _replay(lines, played - 1)
        last = [json.loads(x) for x in lines[1:] if json.loads(x).get("type") == "action"][-1]
        move = move_text(last["action"])
        oracle.explain(state, move)  # the move reads in that position
    except (ArbitroError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None
    return position_line(state), move, board_text(state)
