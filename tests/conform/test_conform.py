"""`arbitro conform` against engines whose bugs are known: each bug found, minimised and blamed on
the clause the book states it under; arbitro's own adapter and an independent engine conforming;
broken adapters getting one-line verdicts and being cleaned up.

The expected clauses come from the books: escoba-es *Captura* (a card that can capture must:
capture-forced), *Puntuación* (the best setenta by the rank order, setenta-points), samba-en
*Going out* (the last cards are melded or discarded: go-out-discard). The buggy engines are
tests/support/buggy_escoba.py (written from the book alone) and arbitro's reference with the
going-out discard dropped.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.conformance.conform import Lockstep, conform, following, html, text
from arbitro.conformance.conform_adapter import Adapter
from arbitro.oracle.core import Oracle
from arbitro.oracle.notation import move_text, position_line
from tests.support.clock import stopwatch, stretched

HERE = Path(__file__).parent
PY = sys.executable
ESCOBA = [PY, str(HERE / "escoba_adapter.py")]
RUMMY_BUG = [PY, str(HERE / "rummy_adapter.py")]
REFERENCE = [PY, "-m", "arbitro.cli", "adapter"]


def test_the_reference_adapter_conforms_to_itself() -> None:
    run = conform("escoba-es", REFERENCE, games=3, seed=5)
    assert run.status == "conforms" and run.played == 3 and run.agreeing == 3
    run = conform("canasta-es", REFERENCE, games=1, seed=5)
    assert run.status == "conforms" and run.steps > 0
    # the profile counts what the engine says each move read (`clauses_used`), not only the
    # clauses of each move's type: taking the pile reads when a meld may take it (pile-add-after)
    agree = {p["clause"] for p in run.profile if p["verdict"] == "agree"}
    assert {"canasta-es:pile-add-after", "canasta-es:several-sets-same-rank"} <= agree


def test_an_engine_written_from_the_book_conforms() -> None:
    run = conform("escoba-es", ESCOBA, games=6, seed=1)
    assert run.status == "conforms", text(run)
    # two players, 40 cards, one card a step: 36 steps after the four face up
    assert run.steps == 6 * 36
    verdicts = {r["clause"]: r["verdict"] for r in run.profile}
    assert verdicts["escoba-es:capture-forced"] == "agree"
    assert verdicts["escoba-es:setenta-points"] == "agree"


@pytest.mark.slow
def test_skipping_forced_capture_is_found_at_the_first_move_and_blamed_on_captura() -> None:
    run = conform("escoba-es", [*ESCOBA, "--bug", "forced_capture"], games=4, seed=3)
    assert run.status == "disagrees"
    [d] = run.disagreements
    assert (d.kind, d.clause) == ("legal", "escoba-es:capture-forced")
    assert d.step == 1  # minimised: the first move of the hand already shows it
    assert d.detail["too_lax"] and not d.detail["too_strict"]
    for lax in d.detail["too_lax"]:
        assert lax["action"]["capture"] == [] and lax["clause"] == "escoba-es:capture-forced"
    assert {
        "clause": "escoba-es:capture-forced",
        "overrides": {"escoba-es:capture-forced": False},
    } in (d.agrees_under)
    row = next(r for r in run.profile if r["clause"] == "escoba-es:capture-forced")
    assert row["verdict"] == "disagree" and row["agrees_under"]
    # the reproducer is a bug report: one position line and one move, which arbitro refuses by
    # the clause of *Captura* (a card that can capture must), and the text prints both whole
    assert d.position is not None and d.move is not None
    oracle = Oracle("escoba-es")
    refusal = oracle.explain(d.position, d.move)
    assert refusal["legal"] is False and refusal["clause"] == "escoba-es:capture-forced"
    out = text(run).splitlines()
    at = out.index(d.position)
    assert out[at - 1].strip().startswith("reproduce") and out[at + 1].strip() == d.move
    assert d.to_json()["reproducer"]["position"] == d.position
    page = html(run)
    assert f"<code>{d.move}</code>" in page and "◀ to move" in page  # the board, as show draws it


@pytest.mark.slow
def test_setenta_by_sum_is_a_score_disagreement_on_the_setenta() -> None:
    run = conform(
        "escoba-es", [*ESCOBA, "--bug", "setenta_by_sum"], games=6, seed=1, blame_budget=6
    )
    [d] = run.disagreements
    assert (d.kind, d.clause) == ("score", "escoba-es:setenta-points")
    assert {w["category"] for w in d.detail["categories"]} == {"setenta"}
    assert d.start.scores == (0, 0) and d.start.dealer == 0  # the plainest start that shows it
    assert not d.agrees_under  # no reading of the book scores the setenta by sum
    tried = {next(iter(t.get("options", t.get("overrides", {})))) for t in d.tried}
    assert "setenta_missing_suit" in tried
    # the reproducer alone shows it again, from scratch
    oracle = Oracle("escoba-es")
    adapter = Adapter([*ESCOBA, "--bug", "setenta_by_sum"])
    try:
        adapter.ask("hello")
        ls = Lockstep(adapter, oracle, {"rulebook": "escoba-es", "players": 2})
        again = ls.play(d.start, following(d.actions, "x")).disagreement
    finally:
        adapter.close()
    assert again is not None and again.kind == "score" and again.step == d.step


@pytest.mark.slow
def test_a_card_lost_when_going_out_is_blamed_on_going_out() -> None:
    run = conform("samba-en", RUMMY_BUG, games=4, seed=2, budget=3, readings=False)
    [d] = run.disagreements
    assert d.kind == "state" and d.clause == "samba-en:go-out-discard"
    assert d.actions[-1]["type"] == "discard"
    [pile] = [f for f in d.detail["fields"] if f["field"] == "pile"]
    assert len(pile["arbitro"]) == len(pile["engine"]) + 1
    assert pile["arbitro"][-1] == d.actions[-1]["card"]


@pytest.mark.parametrize(
    ("flag", "kind", "words"),
    [
        ("--crash-at", "crashed", "stopped answering"),
        ("--garbage-at", "garbage", "is not JSON"),
        ("--hang-at", "timeout", "no answer"),
    ],
)
def test_a_broken_adapter_gets_a_one_line_verdict(
    flag: str, kind: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a second to answer on an idle machine, more on a busy one: the adapter must start first,
    # and a crash or garbage reported as a timeout would be the wrong verdict
    timeout = stretched(1)
    argv = ["conform", "escoba-es", "--games", "2", "--timeout", f"{timeout:g}"]
    assert main([*argv, "--", *ESCOBA, flag, "4"]) == 3
    out, err = capsys.readouterr()
    assert out.count("\n") == 1 and words in out and err == ""
    run = conform("escoba-es", [*ESCOBA, flag, "4"], games=2, seed=0, timeout=stretched(1))
    assert run.failure is not None and run.failure["kind"] == kind


def test_the_adapter_process_is_ended_even_when_it_hangs(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = f"import os,time; open({str(pidfile)!r},'w').write(str(os.getpid())); time.sleep(60)"
    timeout = stretched(0.5)  # time for it to start and note its pid, however busy the machine
    with stopwatch() as took:
        run = conform("escoba-es", [PY, "-c", script], games=1, seed=0, timeout=timeout)
    assert run.failure is not None and run.failure["kind"] == "timeout"
    took.assert_within(waits=timeout, fails_past=60)  # not the 60 s the adapter sleeps
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_bad_command_lines_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "escoba-es", "--games", "2"]) == 2
    assert main(["conform", "escoba-es", "--", "/no/such/engine"]) == 2
    assert main(["conform", "nope", "--", *ESCOBA]) == 2
    _, err = capsys.readouterr()
    assert all(line.startswith("arbitro: error:") for line in err.splitlines())


def test_json_and_text_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    # small budgets: the outputs' shapes are checked here, the blame and the shrinking elsewhere
    argv = ["conform", "escoba-es", "--games", "2", "--blame-budget", "2", "--shrink-budget", "2"]
    adapter = ["--", *ESCOBA, "--bug", "forced_capture"]
    assert main([*argv, "--json", *adapter]) == 1
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == "disagrees"
    assert got["disagreements"][0]["reproducer"]["order"]
    assert {r["verdict"] for r in got["profile"]} <= {"agree", "disagree", "unsettled", "untested"}
    assert main([*argv, *adapter]) == 1
    out = capsys.readouterr().out
    # 100 columns, but the position line of a reproducer, written whole to be copied
    assert max(len(line) for line in out.splitlines() if not line.startswith("escoba ")) <= 100
    assert any(line.startswith("escoba ") for line in out.splitlines())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_the_html_profile_opens_in_chromium(tmp_path: Path) -> None:
    run = conform("escoba-es", [*ESCOBA, "--bug", "forced_capture"], games=2, seed=0)
    page = tmp_path / "profile.html"
    page.write_text(html(run), encoding="utf-8")
    done = subprocess.run(
        [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0
    assert "escoba-es:capture-forced" in done.stdout and "<table" in done.stdout


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed: the example adapter is JavaScript")
def test_the_example_javascript_adapter_conforms() -> None:
    assert NODE is not None
    example = str(HERE.parent.parent / "adapters" / "escoba.js")
    for players in (2, 4):
        run = conform("escoba-es", [NODE, example], games=3, seed=7, players=players)
        assert run.status == "conforms", text(run)
        assert run.engine == "example escoba engine (node)"


@pytest.mark.skipif(NODE is None, reason="node is not installed: the example adapter is JavaScript")
@pytest.mark.parametrize(("players", "sides", "layout"), [(2, 2, ""), (4, 2, "teams")])
def test_the_javascript_example_reports_a_refused_move_in_notation(
    players: int, sides: int, layout: str
) -> None:
    """adapters/escoba.js, written from docs/protocol.md, answers a move it refuses with a bug
    report: the move and the position line. Its line is arbitro's, byte for byte, and arbitro
    refuses the move there by the clause of *Captura* (a card that can capture must)."""
    assert NODE is not None
    oracle = Oracle("escoba-es", players=players, teams=bool(layout))
    deck = oracle.describe()["deck"]
    rng = random.Random(4)
    proc = subprocess.Popen(
        [NODE, str(HERE.parent.parent / "adapters" / "escoba.js")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(**req: Any) -> Any:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"id": 1, **req}) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        found = 0
        for _ in range(30):
            order = rng.sample(deck, len(deck))
            state = oracle.deal(oracle.new_game(), order)
            ask(op="start", rulebook="escoba-es", players=players, sides=sides, layout=layout,
                dealer=0, scores=[0] * sides, order=order)  # fmt: skip
            while state["phase"] == "play" and found < 3:
                legal = oracle.legal_actions(state)
                took = next((a for a in legal if a["capture"]), None)
                if took is not None:
                    laid = {**took, "capture": []}  # the card laid though it can take
                    error = ask(op="apply", action=laid)["error"]["message"]
                    move, _, line = error.removeprefix("refused ").partition(" in ")
                    assert move == move_text(laid) and line == position_line(state)
                    refusal = oracle.explain(line, move)
                    assert refusal["clause"] == "escoba-es:capture-forced"
                    found += 1
                action = legal[rng.randrange(len(legal))]
                assert ask(op="apply", action=action)["ok"]
                state = oracle.apply(state, action)
            if found >= 3:
                break
        assert found == 3
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_minimising_brings_a_late_disagreement_to_the_first_move() -> None:
    """A game whose first forced capture comes late is replayed from deals where it comes
    sooner, down to the first move, and the smaller reproducer still shows it from scratch."""
    bug = [*ESCOBA, "--bug", "forced_capture"]
    late = None
    for seed in range(40):
        run = conform("escoba-es", bug, games=1, seed=seed, budget=0, readings=False)
        if run.disagreements[0].step > 1:
            late = (seed, run.disagreements[0])
            break
    assert late is not None, "no seed in 0..39 deals a hand whose first play cannot capture"
    seed, raw = late
    run = conform("escoba-es", bug, games=1, seed=seed, readings=False)
    [small] = run.disagreements
    assert (small.kind, small.clause) == (raw.kind, raw.clause)
    assert small.step == 1 < raw.step and small.replays > 0
    assert sorted(small.start.order) == sorted(raw.start.order)  # still a whole deck
    adapter = Adapter(bug)
    try:
        adapter.ask("hello")
        ls = Lockstep(adapter, Oracle("escoba-es"), {"rulebook": "escoba-es", "players": 2})
        again = ls.play(small.start, following(small.actions, "x")).disagreement
    finally:
        adapter.close()
    assert again is not None and (again.kind, again.step) == ("legal", 1)
