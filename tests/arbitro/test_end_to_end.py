"""End to end: random games of every rulebook played through `arbitro serve` (a subprocess, as another
engine would drive it), written as transcripts from the answers alone, and judged by `arbitro check`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbitro.games import model_for
from arbitro.model.spec import load_rulebook, rulebook_ids
from arbitro.oracle.transcript import PROTOCOL, canonical_line
from tests.support.serve import Server


def _available() -> list[str]:
    out = []
    for rb in rulebook_ids():
        try:
            model_for(load_rulebook(rb).game)
        except (ImportError, AttributeError):
            continue
        out.append(rb)
    return out


def play_through_server(server: Server, rulebook: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    start = server.ask(id=0, op="start", rulebook=rulebook)
    assert start["ok"], start
    info = start["result"]
    state: dict[str, Any] = server.ask(id=1, op="new_game")["result"]
    deals: list[list[str]] = []
    body: list[dict[str, Any]] = []
    step = hand = 0
    while state["phase"] != "over":
        if state["phase"] == "deal":
            order = list(info["deck"])
            rng.shuffle(order)
            deals.append(order)
            state = server.ask(id=2, op="deal", state=state, order=order)["result"]
            continue
        legal = server.ask(id=3, op="legal", state=state)["result"]
        assert legal, "the server offers no legal action in play"
        action = legal[rng.randrange(len(legal))]
        reply = server.ask(id=4, op="apply", state=state, action=action)
        assert reply["ok"], reply
        state = reply["result"]
        step += 1
        body.append(
            {"type": "action", "step": step, "hand": hand, "seat": action["seat"], "action": action}
        )
        if state["phase"] != "play":  # the hand is over: claim its scores as the server gives them
            scored = server.ask(id=5, op="score", state=state)["result"]["hand"]
            body.append(
                {
                    "type": "hand",
                    "hand": hand,
                    "scores": scored["scores"],
                    "categories": scored["categories"],
                }
            )
            hand += 1
        assert step < 200_000
    final = server.ask(id=6, op="score", state=state)["result"]
    body.append({"type": "result", "scores": final["totals"], "winner": final["winner"]})
    header = {
        "type": "header",
        "protocol": PROTOCOL,
        "rulebook": rulebook,
        "options": {},
        "players": info["players"],
        "sides": info["sides"],
        "layout": info["layout"],
        "dealer": 0,
        "deals": deals,
    }
    return [canonical_line(header), *(canonical_line(o) for o in body)]


@pytest.mark.parametrize(
    "rulebook",
    # Escoba by default; the Samba and Canasta games (hundreds of turns each) in the slow run
    [
        r if r.startswith("escoba") else pytest.param(r, marks=pytest.mark.slow)
        for r in _available()
    ],
)
def test_a_game_played_through_serve_checks_valid(rulebook: str, tmp_path: Path) -> None:
    server = Server()
    try:
        lines = play_through_server(server, rulebook, seed=3)
    finally:
        server.close()
    path = tmp_path / f"{rulebook}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "arbitro.cli", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    verdict = json.loads(proc.stdout)
    assert proc.returncode == 0, verdict
    assert verdict["status"] == "valid"
    assert verdict["actions"] == sum(1 for line in lines if line.startswith('{"action"'))
