"""Short soaks: memory stays bounded under a long stream of hostile requests and under a flooding
adapter. Behaviour, not time: what is measured is memory the process holds (Python's own
allocations, traced), compared with the work done; the long runs with their memory over time are
`benchmarks/soak_server.py` (300,000 requests) and `benchmarks/soak_conform.py`.

Each check is shown to fail on a deliberately leaking server and a reader that keeps the flood."""

from __future__ import annotations

import gc
import importlib
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arbitro.conformance import conform_adapter
from arbitro.conformance.conform import conform
from arbitro.oracle.server import Server, answer_bytes
from tests.support.clock import children

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 3


def _requests(total: int) -> list[bytes]:
    # benchmarks/ is a folder of scripts beside tests/; the repository's root is on sys.path
    soak: Any = importlib.import_module("benchmarks.soak_server")
    return list(soak.requests(total, seed=1))


def _traced_after_each_round(server: Server, lines: list[bytes]) -> list[int]:
    """Python's traced memory after each of ROUNDS passes of the same requests to one server.
    The first pass fills what is remembered by design (checked states, schemas, kept positions,
    all bounded); later passes of the same requests must add nothing."""
    sizes = []
    tracemalloc.start()
    try:
        for _ in range(ROUNDS):
            for line in lines:
                answer_bytes(server, line.rstrip(b"\n"))
            gc.collect()
            sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    return sizes


GROWTH = 64 * 1024
"""What two more passes of the same 600 requests may add, in bytes (4 KB measured): about 50
bytes a request. A server keeping each request it answers adds far more than that."""


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    return _requests(600)


def test_the_server_holds_no_more_memory_after_rounds_of_the_same_hostile_requests(
    lines: list[bytes],
) -> None:
    sizes = _traced_after_each_round(Server(), lines)
    assert sizes[-1] - sizes[1] < GROWTH, sizes


class _Leaky(Server):
    """A server that keeps every request it answers (a log never emptied): what a leak looks
    like."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    def handle(self, req: dict[str, Any]) -> Any:
        self.seen.append(req)
        return super().handle(req)


def test_a_server_keeping_each_request_is_caught(lines: list[bytes]) -> None:
    sizes = _traced_after_each_round(_Leaky(), lines)
    assert sizes[-1] - sizes[1] >= GROWTH, sizes


# ---------------------------------------------------------------- conform against a flood


def _flooding_adapter(flood_kb: int) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "benchmarks" / "soak_conform.py"),
        "--adapter",
        "--flood-kb",
        str(flood_kb),
        "--pad-kb",
        "16",
    ]


def _peak_during(run: Callable[[], Any]) -> tuple[Any, int]:
    gc.collect()
    tracemalloc.start()
    try:
        got = run()
        return got, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def no_orphans() -> Iterator[None]:
    """Every adapter process conform started is ended and reaped when the test ends."""
    before = children()
    yield
    assert children() <= before


def _conform(flood_kb: int, games: int) -> Any:
    return conform(
        "escoba-es", _flooding_adapter(flood_kb), games=games, seed=0, players=2, timeout=60
    )


def test_conform_against_a_flooding_adapter_keeps_its_memory(no_orphans: None) -> None:
    run, peak = _peak_during(lambda: _conform(flood_kb=256, games=1))
    assert run.failure is None and run.status == "conforms", run.failure
    flooded = run.requests * 256 * 1024
    assert flooded > 16 * 1024 * 1024  # what the adapter wrote on stderr
    # 1.2 MB measured (0.14 MB without the flood): a pipe's reads, one answer line, 4 KB kept
    assert peak < 4 * 1024 * 1024, (peak, flooded)


def test_a_reader_keeping_the_flood_is_caught(
    monkeypatch: pytest.MonkeyPatch, no_orphans: None
) -> None:
    # the stderr kept whole instead of its last words: the peak follows the flood
    monkeypatch.setattr(conform_adapter, "STDERR_TAIL", 1 << 40)
    run, peak = _peak_during(lambda: _conform(flood_kb=128, games=1))
    assert run.failure is None
    flooded = run.requests * 128 * 1024
    assert peak >= 4 * 1024 * 1024 and peak >= flooded // 2, (peak, flooded)
