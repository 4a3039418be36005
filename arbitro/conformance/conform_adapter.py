"""Talking to an engine under test over the adapter protocol (docs/conformance.md), and arbitro's
own adapter, the reference every other adapter is measured against (`arbitro adapter`).

An adapter is a program that reads one JSON request per line on stdin and writes exactly one JSON
answer per line on stdout, in the envelope of the server's answers (`response.schema.json`):
`hello`, `start` (a hand dealt from a deck order, the totals before it), `legal`, `apply`,
`score` and `quit`. What it reports of its state is a *position* (`escoba-position`,
`rummy-position`): the oracle's own description of what an engine knows.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import IO, Any

from arbitro.model.errors import ArbitroError, IllegalAction
from arbitro.oracle.core import Oracle
from arbitro.oracle.jsonio import dumps_line, loads, shorten
from arbitro.oracle.protocol import validate

PROTOCOL = "arbitro-adapter/1"
OPS = ("hello", "start", "legal", "apply", "score", "quit")
LINE_BYTES = 16 * 1024 * 1024


class AdapterFailure(ArbitroError, RuntimeError):
    """The engine under test cannot be talked to: it crashed, hung, or spoke garbage. `kind` is
    `crashed`, `timeout`, `garbage` or `refused-op` (it answered an error where the protocol
    needs an answer)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# ------------------------------------------------------------------ the reference's reports


def report_of(oracle: Oracle, state: Mapping[str, Any]) -> dict[str, Any]:
    """What a conforming engine reports of `state` (a position, docs/conformance.md): the cards
    in every place, the totals, whose turn, and `ended` once the hand is over."""
    over = state["phase"] != "play"
    if state["game"] == "escoba":
        out: dict[str, Any] = {
            key: state[key]
            for key in ("hands", "table", "stock", "piles", "escobas", "last_capturer", "to_move")
        }
    else:
        out = {
            "hands": state["hands"],
            "stock": state["stock"],
            "pile": state["pile"],
            "table": [
                {
                    "melds": [m["cards"] for m in side["melds"]],
                    "red_threes": side["red_threes"],
                    "opened": side["opened"],
                }
                for side in state["table"]
            ],
            "seat": state["seat"],
        }
    out["scores"] = state["scores"]
    if over:
        if state["game"] == "escoba":
            out["ended"] = True
            del out["to_move"]  # nobody is to move once the hand is over
        else:
            reason = state["result"]["reason"]
            # the seat of a position that ended is the one that went out, if one did
            out["ended"] = {"reason": reason, "seat": state["seat"]}
            if reason != "went-out":
                del out["ended"]["seat"]
    return out


def score_report(oracle: Oracle, state: Mapping[str, Any]) -> dict[str, Any]:
    """The `score` answer of a conforming engine after a hand: the hand's scores by category,
    the totals, the winner (a side, or null while the game goes on)."""
    got = oracle.score(state)
    hand = got["hand"]
    return {
        "scores": hand["scores"],
        "categories": hand["categories"],
        "totals": got["totals"],
        "winner": got["winner"],
    }


class Reference:
    """arbitro's own engine behind the adapter protocol."""

    def __init__(self) -> None:
        self.oracle: Oracle | None = None
        self.state: dict[str, Any] | None = None

    def answer(self, request: Mapping[str, Any]) -> Any:
        validate(request, "adapter-request", "request")
        op = request.get("op")
        if op == "hello":
            return {"protocol": PROTOCOL, "engine": "arbitro reference"}
        if op == "quit":
            return "bye"
        if op == "start":
            self.oracle = Oracle(
                request["rulebook"],
                request.get("options") or {},
                players=request.get("players"),
                layout=request.get("layout") or None,
                overrides=request.get("overrides") or {},
            )
            fresh = self.oracle.new_game(
                dealer=request.get("dealer", 0), scores=request.get("scores"), hand=0
            )
            self.state = self.oracle.deal(fresh, order=request["order"])
            return report_of(self.oracle, self.state)
        if self.oracle is None or self.state is None:
            raise _Refusal("not-started", "no game: send start first")
        if op == "legal":
            return self.oracle.legal_actions(self.state)
        if op == "apply":
            self.state = self.oracle.apply(self.state, request["action"])
            return report_of(self.oracle, self.state)
        if op == "score":
            if self.state["phase"] == "play":
                raise _Refusal("error", "the hand is still being played")
            return score_report(self.oracle, self.state)
        raise _Refusal("unknown-op", f"unknown op {shorten(repr(op), 40)}; known: {OPS}")


class _Refusal(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def serve_reference(stdin: IO[bytes], stdout: IO[bytes], engine: Reference | None = None) -> int:
    """Answer adapter requests with arbitro's own engine (or `engine`) until `quit` or the end
    of input."""
    engine = engine or Reference()
    for raw in stdin:
        if not raw.strip():
            continue
        rid: Any = None
        try:
            request = loads(raw.decode("utf-8"))
            if not isinstance(request, dict):
                raise _Refusal("malformed-request", "a request is a JSON object")
            rid = request.get("id")
            answer: dict[str, Any] = {"id": rid, "ok": True, "result": engine.answer(request)}
        except IllegalAction as e:
            answer = {
                "id": rid,
                "ok": False,
                "error": {"type": "illegal-action", "message": str(e), "clause": e.clause},
            }
        except _Refusal as e:
            answer = {"id": rid, "ok": False, "error": {"type": e.kind, "message": str(e)}}
        except (ArbitroError, ValueError, KeyError, TypeError) as e:
            message = shorten(str(e) or type(e).__name__, 1000)
            answer = {"id": rid, "ok": False, "error": {"type": "error", "message": message}}
        stdout.write(dumps_line(answer))
        stdout.flush()
        if answer.get("result") == "bye":
            break
    return 0


def cmd_adapter(args: argparse.Namespace) -> int:
    return serve_reference(sys.stdin.buffer, sys.stdout.buffer)


# ------------------------------------------------------------------ the engine under test


class Adapter:
    """An engine under test, run as a child process speaking the adapter protocol. Every request
    has a time limit; whatever happens, `close` ends the process (and its own children)."""

    def __init__(self, command: Sequence[str], timeout: float = 10.0) -> None:
        if not command:
            raise AdapterFailure("crashed", "no adapter command given (after --)")
        self.command = list(command)
        self.timeout = timeout
        self.next_id = 0
        self.requests = 0
        self.stderr_tail: list[str] = []
        try:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            reason = (e.strerror or str(e)).lower()
            raise AdapterFailure(
                "crashed", f"cannot start the adapter {shorten(command[0], 80)!r}: {reason}"
            ) from None
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = self.proc.stdout.readline(LINE_BYTES)
                if not line:
                    break
                self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.proc.stderr:
                text = line.decode("utf-8", "replace").strip()
                if text:
                    self.stderr_tail = [*self.stderr_tail[-4:], text]

    def _last_words(self) -> str:
        return f"; its last words: {shorten(self.stderr_tail[-1], 200)}" if self.stderr_tail else ""

    def ask(self, op: str, **fields: Any) -> Any:
        """The result of one request; AdapterFailure when the adapter does not answer in time,
        exits, or answers what the protocol does not allow; _EngineError for an error answer."""
        self.next_id += 1
        self.requests += 1
        rid = self.next_id
        line = dumps_line({"id": rid, "op": op, **fields})
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._gone(op) from None
        try:
            raw = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise AdapterFailure(
                "timeout", f"the adapter gave no answer to {op!r} within {self.timeout:g} s"
            ) from None
        if raw is None:
            raise self._gone(op)
        return self._result(op, rid, raw)

    def _gone(self, op: str) -> AdapterFailure:
        try:
            status = self.proc.wait(timeout=2)
            how = f"exit status {status}" if status >= 0 else f"signal {-status}"
        except subprocess.TimeoutExpired:
            how = "it closed its output"
        return AdapterFailure(
            "crashed", f"the adapter stopped answering at {op!r} ({how}){self._last_words()}"
        )

    def _result(self, op: str, rid: int, raw: bytes) -> Any:
        where = f"its answer to {op!r}"
        if not raw.endswith(b"\n") and len(raw) >= LINE_BYTES:
            raise AdapterFailure("garbage", f"{where} is longer than {LINE_BYTES} bytes")
        try:
            answer = loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise AdapterFailure("garbage", f"{where} is not UTF-8") from None
        except (ValueError, RecursionError):
            text = shorten(raw.decode("utf-8", "replace").strip(), 80)
            raise AdapterFailure("garbage", f"{where} is not JSON: {text!r}") from None
        if not isinstance(answer, dict) or not isinstance(answer.get("ok"), bool):
            raise AdapterFailure(
                "garbage", f"{where} is not an answer object with ok true or false"
            )
        if answer.get("id") != rid:
            raise AdapterFailure(
                "garbage",
                f"{where} carries id {shorten(repr(answer.get('id')), 40)}, expected {rid}",
            )
        if answer["ok"]:
            if "result" not in answer:
                raise AdapterFailure("garbage", f"{where} has ok true but no result")
            return answer["result"]
        error = answer.get("error")
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            raise AdapterFailure("garbage", f"{where} has ok false but no error message")
        raise EngineError(str(error.get("type", "error")), error["message"])

    def close(self) -> None:
        """End the adapter: `quit`, its input closed, then a signal to its process group."""
        proc = self.proc
        if proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.write(dumps_line({"id": None, "op": "quit"}))
                proc.stdin.close()
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    _signal_group(proc, signal.SIGKILL)
                    proc.wait()
        # children the adapter left behind in its group
        _signal_group(proc, signal.SIGKILL)
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, sig)


class EngineError(Exception):
    """The engine answered a request with an error (e.g. it refuses a move)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def register(sub: Any) -> None:
    """Add `arbitro adapter` (the reference adapter) to the command line's subparsers."""
    p = sub.add_parser(
        "adapter", help="arbitro's own engine over the adapter protocol (the reference adapter)"
    )
    p.set_defaults(func=cmd_adapter)


__all__ = [
    "PROTOCOL",
    "Adapter",
    "AdapterFailure",
    "EngineError",
    "Reference",
    "report_of",
    "score_report",
    "serve_reference",
]
