"""One deal split over partitions gives what one process gives.

The expected values are the one-process explorer's, which the explorer tests check against an
independent brute-force walker; here every count, witness and example must come out the same
however the states are partitioned. A partitioning that loses its way (states sent to the wrong
owner) and an engine broken on purpose (a deadlock, a broken invariant) show the comparison fails
when it should.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.model.escoba import EscobaModel, EscobaState, turn
from arbitro.model.schema import EscobaRules
from arbitro.proofs import cluster, partition
from arbitro.proofs.explore import ExploreError, Result, explore_deal, explore_deals
from arbitro.proofs.explore_config import load_config
from arbitro.proofs.partition import EscobaPacker, InlineRunner, explore_partitioned
from tests.support.clock import sigint_as_in_a_terminal

TIMINGS = ("seconds", "walk_seconds", "cpu_seconds")


def _same(r: Result) -> dict[str, Any]:
    """What must agree: everything but timings and the per-partition figures."""
    d = r.to_json([])
    for k in [*TIMINGS, "partitions", "exchange"]:
        d.pop(k, None)
    return {k: v for k, v in d.items() if not k.endswith("_second")}


@pytest.mark.parametrize(
    ("name", "seed", "parts", "max_states", "symmetry"),
    [
        ("escoba-tiny", 0, 3, None, False),
        ("escoba-12", 1, 2, None, False),
        ("escoba-12", 0, 2, None, True),
        ("escoba-16", 0, 3, 500, False),
        ("samba-small", 0, 2, 600, False),
        ("canasta-small", 0, 3, 300, False),
    ],
)
def test_partitions_give_what_one_process_gives(
    name: str, seed: int, parts: int, max_states: int | None, symmetry: bool
) -> None:
    c = load_config(name)
    one = explore_deal(c, seed, max_states=max_states, symmetry=symmetry)
    split = explore_partitioned(
        c, seed, InlineRunner(parts), max_states=max_states, symmetry=symmetry
    )
    assert _same(split) == _same(one)
    assert split.truncated == (max_states is not None)
    held = [p["states"] for p in split.partitions]
    assert sum(held) == one.orbits
    assert all(held)  # every partition owns some states
    sent = sum(p["sent_states"] + p["kept_states"] for p in split.partitions)
    assert sent >= one.orbits - 1  # every state but the deal's arrived as a successor


def test_a_state_packs_into_an_integer_and_back() -> None:
    """Every state of a deal (renamed ones too, whose stock is not the deal's) round-trips."""
    c = load_config("escoba-12")
    graph: dict[str, Any] = {}
    explore_deal(c, 0, graph=graph, symmetry=True)
    model = EscobaModel()
    states = [model.state_from_json(c.rules, n["state"]) for n in graph["nodes"]]
    packer = EscobaPacker(states[0])
    packed = [packer.pack(s) for s in states]
    assert all(isinstance(p, int) for p in packed)
    assert [packer.unpack(p) for p in packed] == states
    assert len(set(packed)) == len(states)
    assert any(s.phase != "play" for s in states)  # the fields a hand's end changes, too


def _documented_bytes(s: EscobaState, root: EscobaState) -> bytes:
    """The bytes `arbitro.model.escoba.packing` documents, laid out one field at a time."""
    out = b"".join(h.to_bytes(5, "little") for h in s.hands) + s.table.to_bytes(5, "little")
    out += b"".join(p.to_bytes(5, "little") for p in s.piles) + bytes(s.escobas)
    out += bytes((s.last_capturer + 1 | (s.to_move + 1) << 4, s.deal_number))
    misc = (*s[:5], s.hand_number, *s[14:])
    same = misc == (*root[:5], root.hand_number, *root[14:])
    n = len(s.stock)
    if s.stock == root.stock[len(root.stock) - n :]:
        out += bytes((128 + n + (0 if same else 64),))
    else:
        out += bytes((n + (0 if same else 64), *s.stock, 255))
    if not same:
        text = repr(misc).encode()
        out += text + len(text).to_bytes(2, "little") + b"\x02"
    return out


def test_a_packed_state_is_the_documented_bytes() -> None:
    """The integer is the little-endian number of the bytes the packing's docstring lists, for
    every state of a deal and of its renamings (stocks not the deal's) and after the hand ends."""
    c = load_config("escoba-12")
    graph: dict[str, Any] = {}
    explore_deal(c, 0, graph=graph, symmetry=True)
    model = EscobaModel()
    states = [model.state_from_json(c.rules, n["state"]) for n in graph["nodes"]]
    root = states[0]
    packer = EscobaPacker(root)
    ended = states[-1]._replace(scores=(7, 3), hand_number=root.hand_number + 1)
    for s in [*states, ended]:
        assert packer.pack(s) == int.from_bytes(_documented_bytes(s, root), "little")
        assert packer.unpack(packer.pack(s)) == s


def test_a_state_out_of_the_packed_ranges_is_one_clear_error() -> None:
    """A field wider than its byte is refused with the explorer's error, never packed wrong."""
    c = load_config("escoba-12")
    graph: dict[str, Any] = {}
    explore_deal(c, 0, graph=graph)
    root = EscobaModel().state_from_json(c.rules, graph["nodes"][0]["state"])
    packer = EscobaPacker(root)
    for wide in (root._replace(deal_number=256), root._replace(escobas=(0, 300))):
        with pytest.raises(ExploreError, match="out of the packed ranges"):
            packer.pack(wide)


def test_a_partitioning_that_misroutes_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """States sent to an owner that is not theirs are counted twice: the comparison sees it."""
    c = load_config("escoba-12")
    one = explore_deal(c, 0)
    calls = iter(range(10**9))
    monkeypatch.setattr(EscobaPacker, "owner", lambda self, v, parts: next(calls) % parts)
    wrong = explore_partitioned(c, 0, InlineRunner(2))
    assert wrong.orbits > one.orbits
    assert _same(wrong) != _same(one)


class TurnKeeper(EscobaModel):
    """Escoba broken on purpose: a card laid on the table keeps the turn (players run dry)."""

    def apply(self, rules: EscobaRules, state: EscobaState, action: Any) -> EscobaState:  # type: ignore[override]
        after = turn.apply(rules, state, action)
        if action.capture == 0 and after.phase == "play" and after.deal_number == state.deal_number:
            return after._replace(to_move=state.to_move)
        return after


class TableLimit(EscobaModel):
    """Escoba with a whole-state check broken on purpose: three cards on the table 'violate'."""

    def violations(self, rules: EscobaRules, state: EscobaState) -> list[str]:  # type: ignore[override]
        broken = super().violations(rules, state)
        return [*broken, "test:table-limit"] if state.table.bit_count() >= 3 else broken


@pytest.mark.parametrize("symmetry", [False, True])
@pytest.mark.parametrize("model", [TurnKeeper(), TableLimit()], ids=["deadlock", "violation"])
def test_deadlock_witnesses_and_violation_examples_are_one_process_s(
    model: EscobaModel, symmetry: bool
) -> None:
    c = load_config("escoba-12")
    one = explore_deal(c, 0, model=model, symmetry=symmetry)
    assert one.deadlock_count or one.violations  # the engine is broken
    split = explore_partitioned(c, 0, InlineRunner(3, model), symmetry=symmetry)
    assert _same(split) == _same(one)
    assert split.deadlocks == one.deadlocks
    assert split.violation_examples == one.violation_examples


@pytest.mark.slow
def test_two_dask_workers_give_what_one_process_gives() -> None:
    """A local cluster of two workers: one deal split, Escoba and Samba (bounded)."""
    pytest.importorskip("dask.distributed")
    with cluster.dask_client(None, 2) as client:
        for name, max_states in (("escoba-12", None), ("samba-small", 400)):
            c = load_config(name)
            one = explore_deal(c, 0, max_states=max_states)
            split = explore_partitioned(c, 0, partition.DaskRunner(client), max_states=max_states)
            assert _same(split) == _same(one)
            assert len(split.partitions) == 2
            assert sum(p["sent_bytes"] for p in split.partitions) > 0


@pytest.mark.slow
def test_explore_workers_reports_each_partition(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed")
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--deal", "0"]
    assert main([*argv, "--workers", "2", "--json"]) == 0
    split = json.loads(capsys.readouterr().out)
    assert main([*argv, "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert split["states"] == one["states"] and split["edges"] == one["edges"]
    assert [p["partition"] for p in split["partitions"]] == [0, 1]
    assert split["exchange"]["bytes"] == sum(p["sent_bytes"] for p in split["partitions"])
    assert all(p["peak_memory_bytes"] > 0 for p in split["partitions"])
    # the text says the CPU is the partitions' sum, where one process's is its own
    assert main([*argv, "--workers", "2"]) == 0
    assert "s CPU, summed over 2 partitions:" in capsys.readouterr().out
    assert main(argv) == 0
    assert "summed over" not in capsys.readouterr().out


def test_several_deals_still_fan_out_one_task_each() -> None:
    """Without Dask at hand the same call runs in one process; the merge is the same."""
    c = load_config("escoba-tiny")
    one = explore_deals(c, [0, 1])
    assert one.deals == [0, 1] and not one.partitions


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("not a url!!", "is not a Dask scheduler address"),
        ("127.0.0.1:1", "no Dask scheduler answered at '127.0.0.1:1'"),
    ],
)
def test_a_scheduler_that_cannot_be_used_is_one_line(
    address: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--scheduler", address]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_more_workers_than_cores_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from arbitro.proofs.cluster import usable_cores

    n = usable_cores() + 1
    assert main(["explore", "escoba-es", "--config", "escoba-tiny", "--workers", str(n)]) == 2
    err = capsys.readouterr().err
    assert f"--workers {n} is more than the {n - 1} cores" in err
    assert "--scheduler" in err


_EXPLORE_28H4 = [sys.executable, "-m", "arbitro.cli", "explore", "escoba-es", "--config"]
_EXPLORE_28H4 += ["escoba-28h4", "--deal", "0", "--workers", "2", "--max-states", "100000000"]


def _ctrl_c_when(
    tmp_path: Path, ready: Callable[[list[str]], bool], then: float
) -> tuple[str, str]:
    """Runs explore over two local workers in its own process group, sends SIGINT to the whole
    group (as a terminal's Ctrl-C does) `then` seconds after `ready` holds of the group's command
    lines, checks it exits 130 and leaves no process, and returns its stdout and stderr."""
    pytest.importorskip("dask.distributed")
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as o, err.open("w") as e:
        with sigint_as_in_a_terminal():
            run = subprocess.Popen(_EXPLORE_28H4, stdout=o, stderr=e, start_new_session=True)
        try:
            deadline = time.monotonic() + 240
            while not ready(_group(run.pid, args=True)) and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(then)
            os.killpg(run.pid, signal.SIGINT)
            assert run.wait(120) == 130
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while _group(run.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _group(run.pid) == []
    return out.read_text(), err.read_text()


@pytest.mark.slow
def test_ctrl_c_during_two_workers_keeps_the_levels_done_and_ends_every_process(
    tmp_path: Path,
) -> None:
    """Ctrl-C reaches every process of the terminal (the process group): the run prints what
    the finished levels reached, exits 130 without a traceback, and no worker is left."""

    def both_workers(group: list[str]) -> bool:
        return sum("forkserver" in p or "spawn_main" in p for p in group) >= 3

    out, err = _ctrl_c_when(tmp_path, both_workers, 15)  # some levels walked
    assert "INTERRUPTED" in out
    assert "Traceback" not in err


@pytest.mark.slow
def test_ctrl_c_while_the_workers_start_is_not_lost_and_prints_no_traceback(
    tmp_path: Path,
) -> None:
    """A Ctrl-C while the local workers are still starting (the fork server just up, the workers
    importing) ends the run with none of the deal finished, exit 130, no traceback from any
    process (the workers ignore it, the explorer raises it once the cluster can close)."""

    def server_up(group: list[str]) -> bool:
        return any("forkserver" in p for p in group)

    out, err = _ctrl_c_when(tmp_path, server_up, 0.5)
    assert "INTERRUPTED" in out
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in err


def _group(pgid: int, args: bool = False) -> list[str]:
    """The processes of a process group still running (their command lines with `args`)."""
    fields = "pid=,args=" if args else "pid="
    ps = subprocess.run(["ps", "-o", fields, "-g", str(pgid)], capture_output=True, text=True)
    return ps.stdout.strip().splitlines() if args else ps.stdout.split()


@pytest.mark.parametrize(("name", "symmetry"), [("escoba-12", False), ("escoba-12", True)])
def test_a_split_walk_tells_its_levels_as_one_process_does(name: str, symmetry: bool) -> None:
    """The progress a terminal shows (depth, states so far) is told level by level the same
    whether the deal is walked in one process or split (with symmetry, orbits weighed)."""
    c = load_config(name)
    one: list[tuple[int, int]] = []
    explore_deal(c, 1, symmetry=symmetry, levels=lambda d, n: one.append((d, n)))
    split: list[tuple[int, int]] = []
    res = explore_partitioned(
        c, 1, InlineRunner(2), symmetry=symmetry, progress=lambda d, n: split.append((d, n))
    )
    assert split == one
    assert [n for _, n in one] == [sum(res.per_depth[:d]) for d, _ in one]  # counted again


def test_explore_workers_on_one_deal_shows_its_levels_as_one_process_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`explore --workers 2` on one deal ticks the terminal's progress level by level, as one
    process does (a partitioned walk showed nothing until it ended). The cluster is stood in for
    by two partitions in this process: what is tested is what reaches the terminal."""
    from arbitro.proofs import explore as explore_module
    from arbitro.reports import terminal

    ticks: list[tuple[int, str]] = []

    class Recording(terminal.Ticker):
        def __call__(self, done: int, note: str = "") -> None:
            ticks.append((done, note))

    monkeypatch.setattr(terminal, "Ticker", Recording)
    monkeypatch.setattr(explore_module, "dask_client", lambda s, w: contextlib.nullcontext(None))
    monkeypatch.setattr(partition, "DaskRunner", lambda client: InlineRunner(2))
    monkeypatch.setattr(cluster, "usable_cores", lambda: 2)
    argv = ["explore", "escoba-es", "--config", "escoba-12", "--deal", "0", "--json"]
    assert main(argv) == 0
    one = list(ticks)
    ticks.clear()
    capsys.readouterr()
    assert main([*argv, "--workers", "2"]) == 0
    assert len(json.loads(capsys.readouterr().out)["partitions"]) == 2  # split, not one process
    assert ticks == one and len(one) > 3


@pytest.mark.parametrize("stop_at", [2, 5, 7])
@pytest.mark.parametrize(
    "model", [EscobaModel(), TurnKeeper(), TableLimit()], ids=["book", "deadlock", "violation"]
)
def test_ctrl_c_in_a_split_walk_reports_what_its_expanded_levels_found(
    model: EscobaModel, stop_at: int
) -> None:
    """Interrupted, a split walk reports the edges, terminal states, scores, deadlocks, broken
    invariants and clauses of the levels every partition expanded, as one process reports what
    it walked (it reported 0 of each and every clause of the book as never exercised). Counted
    again here by a plain breadth-first walk of the engine over the same levels."""
    from arbitro.proofs.explore import deal_order

    c = load_config("escoba-12")
    rules = c.rules

    def interrupt(depth: int, states: int) -> None:
        if depth == stop_at:  # levels 0..depth-1 reached, 0..depth-2 expanded
            raise KeyboardInterrupt

    part = explore_partitioned(c, 0, InlineRunner(2, model), progress=interrupt)
    assert part.interrupted
    level = {model.deal(rules, model.new_game(rules, c.seating), deal_order(model, c, 0))}
    edges = terminal = deadlocks = 0
    scores: Counter[tuple[int, ...]] = Counter()
    broken: Counter[str] = Counter()
    for _ in range(stop_at - 1):
        nxt = set()
        for s in level:
            broken.update(model.violations(rules, s))
            if model.phase(s) != "play":
                terminal += 1
                hand = model.last_hand(s)
                assert hand is not None
                scores[tuple(hand.scores)] += 1
                continue
            actions = model.legal_actions(rules, s)
            deadlocks += not actions
            edges += len(actions)
            nxt.update(model.apply(rules, s, a) for a in actions)
        level = nxt
    assert (part.edges, part.terminal, part.scores) == (edges, terminal, scores)
    assert part.cpu_seconds > 0  # the levels walked took time: a rate of states per CPU second
    assert (part.deadlock_count, part.violations) == (deadlocks, broken)
    whole = explore_deal(c, 0, model=model)
    assert part.clauses and part.clauses <= whole.clauses
    if type(model) is not EscobaModel and stop_at == 7:
        assert deadlocks or broken  # the broken engines show it within the levels walked


@pytest.mark.parametrize("kind", ["dot", "graphml"])
def test_explore_workers_on_one_small_deal_writes_one_process_s_graph(
    kind: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--dot`/`--graphml` with `--workers` on one deal of a few states write the file one
    process writes (they refused, saying the deal of 17 states had more than 400). The cluster
    is stood in for by two partitions in this process."""
    from arbitro.proofs import explore as explore_module

    monkeypatch.setattr(explore_module, "dask_client", lambda s, w: contextlib.nullcontext(None))
    monkeypatch.setattr(partition, "DaskRunner", lambda client: InlineRunner(2))
    monkeypatch.setattr(cluster, "usable_cores", lambda: 2)
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--deal", "0"]
    one, split = tmp_path / f"one.{kind}", tmp_path / f"split.{kind}"
    assert main([*argv, f"--{kind}", str(one)]) == 0
    assert main([*argv, "--workers", "2", f"--{kind}", str(split)]) == 0, capsys.readouterr().err
    assert "partition 1:" in capsys.readouterr().out  # the walk was split
    assert split.read_bytes() == one.read_bytes()
    edges = explore_deal(load_config("escoba-tiny"), 0).edges  # every edge of the walk is drawn
    assert one.read_text().count("->" if kind == "dot" else "<edge ") == edges > 0
