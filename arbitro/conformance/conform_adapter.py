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
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from arbitro.model.errors import ArbitroError, IllegalAction
from arbitro.oracle.core import Oracle
from arbitro.oracle.jsonio import clean_text, dumps_line, loads, shorten
from arbitro.oracle.protocol import validate

PROTOCOL = "arbitro-adapter/2"
PROTOCOLS = ("arbitro-adapter/1", "arbitro-adapter/2")
"""The protocols spoken: /2 adds what `hello` may declare, the `position` op and compound moves;
an adapter of /1 is still played."""
OPS = ("hello", "start", "legal", "apply", "score", "position", "quit")
POSITION_FIELDS = (
    "step", "pile_taken", "owed", "took_pile", "held", "top_points", "asked", "answer",
    "melded", "no_discard", "freed", "freed_meld", "clean_start",
)  # fmt: skip
"""The bookkeeping of a Samba/Canasta position sent with a resynchronisation, when the state
holds it (docs/protocol.md, positions)."""
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
    return REPORTS[state["game"]](state, state["phase"] != "play")


def _escoba_report(state: Mapping[str, Any], over: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        key: state[key]
        for key in ("hands", "table", "stock", "piles", "escobas", "last_capturer", "to_move")
    }
    out["scores"] = state["scores"]
    if over:
        out["ended"] = True
        del out["to_move"]  # nobody is to move once the hand is over
    return out


def _rummy_report(state: Mapping[str, Any], over: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
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
        reason = state["result"]["reason"]
        # the seat of a position that ended is the one that went out, if one did
        out["ended"] = {"reason": reason, "seat": state["seat"]}
        if reason != "went-out":
            del out["ended"]["seat"]
    return out


REPORTS: dict[str, Callable[[Mapping[str, Any], bool], dict[str, Any]]] = {
    "escoba": _escoba_report,
    "rummy": _rummy_report,
}
"""Each game family's (`GameFamily.name`) report of a position."""

POSITION_EXTRA: dict[str, tuple[str, ...]] = {"escoba": (), "rummy": POSITION_FIELDS}
"""The fields a position sent to an engine has beyond its report, by game family."""


def position_of(oracle: Oracle, state: Mapping[str, Any]) -> dict[str, Any]:
    """arbitro's position of `state`, as sent to an engine that takes one (op `position`): the
    report, and what a position needs besides to go on (the dealer, the hand, the turn's
    bookkeeping)."""
    out = report_of(oracle, state)
    out.pop("ended", None)
    out.update({k: state[k] for k in POSITION_EXTRA[state["game"]] if k in state})
    for k in ("dealer", "hand"):
        if k in state:
            out[k] = state[k]
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
            return {"protocol": PROTOCOL, "engine": "arbitro reference", "positions": True}
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
        if op == "position":
            self.state = self.oracle.position(request["position"])
            return report_of(self.oracle, self.state)
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


class Deadline(Exception):
    """The whole run's `--deadline` passed while waiting for the adapter: the run stops with what
    it has (never an adapter failure: a slow engine that answers is not a broken one)."""


STDERR_TAIL = 4096
"""Bytes of the adapter's stderr kept (its last words): the rest is read and dropped."""
_LONE_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


class Adapter:
    """An engine under test, run as a child process speaking the adapter protocol, in a process
    group of its own. Its pipes are read without blocking and without threads, so neither a flood
    on stderr nor a detached grandchild holding its stdout can hold arbitro: every request has a
    time limit (`timeout`, and the whole run's `deadline`, a `time.monotonic()` instant), and
    `close` ends the process and its group, whatever happened."""

    def __init__(
        self, command: Sequence[str], timeout: float = 10.0, deadline: float | None = None
    ) -> None:
        if not command:
            raise AdapterFailure("crashed", "no adapter command given (after --)")
        self.command = list(command)
        self.timeout = timeout
        self.deadline = deadline
        self.next_id = 0
        self.requests = 0
        self.pending = bytearray()
        self.stderr_tail = b""
        self.eof = False
        self.closed = False
        self.hung = False
        try:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                bufsize=0,
            )
        except (OSError, ValueError) as e:
            reason = (getattr(e, "strerror", None) or str(e)).lower()
            raise AdapterFailure(
                "crashed", f"cannot start the adapter {shorten(command[0], 80)!r}: {reason}"
            ) from None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.fd_in = self.proc.stdin.fileno()
        self.fd_out = self.proc.stdout.fileno()
        self.fd_err: int | None = self.proc.stderr.fileno()
        for fd in (self.fd_in, self.fd_out, self.fd_err):
            os.set_blocking(fd, False)

    # ------------------------------------------------------------ the pipes

    def _limit(self, op: str) -> tuple[float, bool]:
        """The instant an answer to `op` is due, and whether that is the run's deadline."""
        until = time.monotonic() + self.timeout
        if self.deadline is not None and self.deadline < until:
            return self.deadline, True
        return until, False

    def _late(self, op: str, deadline: bool) -> Exception:
        self.hung = True  # it will not read a quit either
        if deadline:
            return Deadline(f"the run's deadline came while waiting for {op!r}")
        return AdapterFailure(
            "timeout", f"the adapter gave no answer to {op!r} within {self.timeout:g} s"
        )

    def _drain_stderr(self) -> None:
        if self.fd_err is None:
            return
        with contextlib.suppress(BlockingIOError, InterruptedError):
            for _ in range(64):  # a bounded amount each time: a flood cannot starve the answer
                chunk = os.read(self.fd_err, 65536)
                if not chunk:
                    self.fd_err = None
                    return
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]

    def _read_stdout(self) -> None:
        with contextlib.suppress(BlockingIOError, InterruptedError):
            for _ in range(64):
                chunk = os.read(self.fd_out, 65536)
                if not chunk:
                    self.eof = True
                    return
                self.pending += chunk
                if len(self.pending) > LINE_BYTES or b"\n" in chunk:
                    return

    def _send(self, op: str, data: bytes) -> None:
        until, deadline = self._limit(op)
        view = memoryview(data)
        while view:
            left = until - time.monotonic()
            if left <= 0:
                raise self._late(op, deadline)
            _, ready, _ = select.select([], [self.fd_in], [], min(left, 0.25))
            self._drain_stderr()
            if not ready:
                if self.proc.poll() is not None:
                    raise self._gone(op)
                continue
            try:
                n = os.write(self.fd_in, view)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:  # BrokenPipeError among them: it is gone
                raise self._gone(op) from None
            view = view[n:]

    def _line(self, op: str) -> bytes:
        until, deadline = self._limit(op)
        exited_at: float | None = None
        scanned = 0
        while True:
            cut = self.pending.find(b"\n", scanned)
            if cut >= 0:
                line = bytes(self.pending[: cut + 1])
                del self.pending[: cut + 1]
                return line
            scanned = len(self.pending)
            if scanned > LINE_BYTES:
                raise AdapterFailure(
                    "garbage", f"its answer to {op!r} is longer than {LINE_BYTES} bytes"
                )
            if self.eof:
                raise self._gone(op)
            now = time.monotonic()
            if now >= until:
                raise self._late(op, deadline)
            if exited_at is None and self.proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > 0.2:
                # it exited; whatever still holds its output (a detached child) is not it
                raise self._gone(op)
            wait = [self.fd_out] + ([self.fd_err] if self.fd_err is not None else [])
            ready, _, _ = select.select(wait, [], [], min(until - now, 0.1))
            if self.fd_err is not None and self.fd_err in ready:
                self._drain_stderr()
            if self.fd_out in ready or exited_at is not None:
                self._read_stdout()

    def _last_words(self) -> str:
        self._drain_stderr()
        lines = [x.strip() for x in self.stderr_tail.decode("utf-8", "replace").splitlines()]
        lines = [clean_text(x) for x in lines if x]
        return f"; its last words: {shorten(lines[-1], 200)}" if lines else ""

    def ask(self, op: str, refusable: bool = False, **fields: Any) -> Any:
        """The result of one request. AdapterFailure when the adapter does not answer in time,
        exits, answers what the protocol does not allow, or answers an error where the protocol
        needs an answer; EngineError for an error answer to a `refusable` request (`apply`: the
        engine refuses a move); Deadline when the run's deadline comes first."""
        if self.closed:
            raise AdapterFailure("crashed", f"the adapter was already ended before {op!r}")
        self.next_id += 1
        self.requests += 1
        rid = self.next_id
        self._send(op, dumps_line({"id": rid, "op": op, **fields}))
        raw = self._line(op)
        try:
            return self._result(op, rid, raw)
        except EngineError as e:
            if refusable:
                raise
            raise AdapterFailure(
                "refused-op",
                f"the adapter answered {op!r} with an error ({shorten(clean_text(e.kind), 40)}): "
                f"{shorten(clean_text(str(e)), 200)}",
            ) from None

    def _gone(self, op: str) -> AdapterFailure:
        try:
            status = self.proc.wait(timeout=0.5)
            how = f"exit status {status}" if status >= 0 else f"signal {-status}"
        except subprocess.TimeoutExpired:
            how = "it closed its output"
        return AdapterFailure(
            "crashed", f"the adapter stopped answering at {op!r} ({how}){self._last_words()}"
        )

    def _result(self, op: str, rid: int, raw: bytes) -> Any:
        where = f"its answer to {op!r}"
        try:
            answer = loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise AdapterFailure("garbage", f"{where} is not UTF-8") from None
        except (ValueError, RecursionError):
            text = shorten(clean_text(raw.decode("utf-8", "replace").strip()), 80)
            raise AdapterFailure("garbage", f"{where} is not JSON: {text!r}") from None
        if _LONE_SURROGATE.search(raw):
            try:
                json.dumps(answer, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                raise AdapterFailure(
                    "garbage", f"{where} holds a lone surrogate (an escape that is no character)"
                ) from None
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
        """End the adapter: `quit` and its input closed, then SIGTERM and SIGKILL to its process
        group, whatever it left behind in the group included. Ctrl-C waits for this."""
        if self.closed:
            return
        self.closed = True
        old = None
        with contextlib.suppress(ValueError):  # only the main thread may set a handler
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            proc = self.proc
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    os.write(self.fd_in, dumps_line({"id": None, "op": "quit"}))
            with contextlib.suppress(OSError, ValueError):
                if proc.stdin is not None:
                    proc.stdin.close()
            grace = 0.05 if self.hung else 1.0
            for sig, wait in ((None, grace), (signal.SIGTERM, 1.0), (signal.SIGKILL, None)):
                if sig is not None:
                    _signal_group(proc, sig)
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            _signal_group(proc, signal.SIGKILL)  # what it left in its group
            for stream in (proc.stdout, proc.stderr):
                with contextlib.suppress(OSError, ValueError):
                    if stream is not None:
                        stream.close()
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)


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
    "PROTOCOLS",
    "Adapter",
    "AdapterFailure",
    "Deadline",
    "EngineError",
    "Reference",
    "position_of",
    "report_of",
    "score_report",
    "serve_reference",
]
