"""simulate --records, --policy, --dead-ends and Ctrl-C, checked against the books' own counts."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.simulation.policies import POLICIES
from tests.support.clock import process_cpu_seconds, sigint_as_in_a_terminal, signal_state

ROOT = Path(__file__).resolve().parents[2]

# escoba-es:suits, escoba-es:capture-values: a 40-card Spanish pack, ranks 1-7, sota, caballo, rey
ESCOBA_DECK = 40
# escoba-es:table-initial: four cards face up; every other card is played from a hand
ESCOBA_ACTIONS = ESCOBA_DECK - 4


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_escoba_records_add_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "hands.jsonl"
    argv = ["simulate", "escoba-es", "--games", "5", "--seed", "7", "--records", str(rec), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    rows = _jsonl(rec)
    assert len(rows) == summary["hands"]
    for r in rows:
        deal = r["deal"]
        assert isinstance(deal, list) and len(deal) == len(set(deal)) == ESCOBA_DECK
        assert r["actions"] == ESCOBA_ACTIONS and r["ended"] == "cards-played"
        # a hand's score is the sum of its categories, side by side
        cats = r["categories"]
        assert isinstance(cats, list)
        assert r["scores"] == [sum(c.values()) for c in cats]
        assert (r["seed"], r["rulebook"]) == (7, "escoba-es")
    # a game's final totals are the sums of its hands (escoba-es:target-score counts hand points)
    totals: dict[object, list[int]] = {}
    for r in rows:
        scores = r["scores"]
        assert isinstance(scores, list)
        got = totals.setdefault(r["game"], [0, 0])
        totals[r["game"]] = [a + b for a, b in zip(got, scores, strict=True)]
    for side in (0, 1):
        finals = [t[side] for t in totals.values()]
        assert summary["final_scores"]["max"][side] == max(finals)
        assert summary["final_scores"]["min"][side] == min(finals)


def test_csv_records_carry_the_same_numbers(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.csv"
    assert main(["simulate", "escoba-es", "--games", "3", "--records", str(a), "--json"]) == 0
    assert main(["simulate", "escoba-es", "--games", "3", "--records", str(b), "--json"]) == 0
    rows = _jsonl(a)
    with b.open(encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows)
    for j, c in zip(rows, table, strict=True):
        assert [int(c["score_0"]), int(c["score_1"])] == j["scores"]
        assert c["deal"].split() == j["deal"]
        cats = j["categories"]
        assert isinstance(cats, list)
        assert {k: int(c[f"{k}_1"]) for k in cats[1]} == cats[1]


def test_the_fast_escoba_policy_makes_the_uniform_choices(tmp_path: Path) -> None:
    """Escoba has no playout beside its engine: `fast` plays the uniform choices."""
    u, f = tmp_path / "u.jsonl", tmp_path / "f.jsonl"
    for path, policy in ((u, "uniform"), (f, "fast")):
        argv = ["simulate", "escoba-es", "--games", "4", "--seed", "2", "--policy", policy]
        assert main([*argv, "--records", str(path), "--json"]) == 0
    assert _jsonl(u) == _jsonl(f)
    assert set(POLICIES) == {"uniform", "fast"}


@pytest.mark.slow
def test_dead_ends_are_saved_as_transcripts_check_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # samba-en:pile-one-card-rule is off by default, so a player may be left with one card that
    # can neither be melded nor discarded to go out: the model ends such a hand as a dead end
    out = tmp_path / "dead"
    argv = [
        "simulate",
        "samba-en",
        "--games",
        "2",
        "--seed",
        "0",
        "--dead-ends",
        str(out),
        "--json",
    ]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["dead_ends"] >= 1
    saved = summary["dead_end_transcripts"]
    assert saved and all(Path(p).parent == out for p in saved)
    for p in saved:
        assert main(["check", p, "--json"]) == 0
        verdict = json.loads(capsys.readouterr().out)
        assert verdict["status"] == "valid" and verdict["hands"] >= 1
    # a changed claim in a saved game is caught: the transcript really is replayed
    lines = Path(saved[0]).read_text(encoding="utf-8").splitlines()
    result = json.loads(lines[-1])
    result["scores"][0] += 5
    lines[-1] = json.dumps(result)
    Path(saved[0]).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["check", saved[0], "--json"]) == 1


def test_fast_rummy_games_replay_through_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arbitro.games import model_for
    from arbitro.model.schema import rules_for
    from arbitro.simulation.simulate import game_transcript

    rules = rules_for("canasta-es")
    model = model_for("canasta")
    seating = model.seatings(rules)[0]
    t = game_transcript(model, rules, seating, {}, "fast", 5, 0)
    path = tmp_path / "g.jsonl"
    path.write_text(t.text(), encoding="utf-8")
    assert main(["check", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "valid"


def test_ctrl_c_keeps_the_results_so_far(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with sigint_as_in_a_terminal():
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "arbitro.cli",
                "simulate",
                "samba-fr",
                "--games",
                "100000",
                "--records",
                str(rec),
                "--json",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    try:
        # once the records are open, some hands played: CPU seconds of the run, which a busy
        # machine stretches in wall time but not in work done
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(tmp_path.glob(".r.jsonl.*.tmp")):
            time.sleep(0.1)
        start = process_cpu_seconds(proc.pid)
        while time.monotonic() < deadline and process_cpu_seconds(proc.pid) < start + 1.5:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        sent = signal_state(proc.pid)
        try:
            out, err = proc.communicate(timeout=180)  # a hang guard: a busy machine is slow
        except subprocess.TimeoutExpired:
            pytest.fail(f"no end 180 s after Ctrl-C; its signals then: {sent}; now: "
                        f"{signal_state(proc.pid)}")  # fmt: skip
    finally:
        # whatever happened above, the 100,000-game run and anything it started end here
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 130, (err, sent)
    summary = json.loads(out)
    assert summary["interrupted"] and 0 < summary["games"] < 100000
    rows = _jsonl(rec)
    assert len(rows) >= summary["hands"] >= 1
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    assert "Traceback" not in err and os.path.getsize(rec) > 0
