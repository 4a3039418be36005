"""`arbitro serve`: the oracle as JSON Lines over stdin/stdout, exactly one answer per request.

A request is `{"id": ..., "op": ..., ...}`; the answer echoes the id with `"ok": true` and a
`result`, or `"ok": false` and an `error` object (`type`, `message`, and for an illegal action
`clause`, `reason`, `penalty`, `refusals`). Whatever arrives — bytes that are not UTF-8, text that
is not JSON, a request that breaks request.schema.json, a state no play reaches — the answer is
one line of valid JSON and the server keeps serving; a bug of arbitro's own is `internal-error`.

Sessions, in the spirit of a UCI engine: `start` makes an oracle (a rulebook, its options and
seating) under the name given in `oracle`, or restarts the one named "default"; several live side
by side and a request picks one with `oracle` (else the last one started). A state can be kept in the server under a client's id
(`save`) and named by `position` instead of being sent whole; `apply` on a kept position moves
it on, so a client sends moves, not states. The number of kept positions is bounded.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Hashable, Iterable
from typing import IO, Any, BinaryIO

from arbitro.model.errors import (
    ArbitroError,
    IllegalAction,
    MalformedInput,
    OptionError,
    SpecError,
    UnknownRulebook,
)
from arbitro.model.spec import own_spec_ids, rulebook_ids
from arbitro.oracle.core import Oracle, Refused, refusal_json
from arbitro.oracle.jsonio import dumps_line, loads, shorten
from arbitro.oracle.notation import is_position_line
from arbitro.oracle.protocol import Invalid, validate
from arbitro.oracle.states import InconsistentState
from arbitro.oracle.transcript import PROTOCOL

OPS: dict[str, tuple[str, ...]] = {
    "hello": (),
    "start": ("rulebook", "options", "overrides", "players", "teams", "layout"),
    "new_game": ("dealer", "scores", "hand", "save"),
    "position": ("position", "save"),
    "deal": ("state", "position", "order", "dealt", "save"),
    "legal": ("state", "position", "view"),
    "apply": ("state", "position", "action", "actions", "save"),
    "explain": ("state", "position", "view", "action"),
    "score": ("state", "position"),
    "check": ("state", "position"),
    "check_transcript": ("lines",),
    "view": ("state", "position", "seat"),
    "forget": ("position",),
    "quit": (),
}
"""Each op and the fields it reads besides `id`, `op` and `oracle`."""

MAX_LINE = 16 * 1024 * 1024
"""The longest request line read, in bytes; a longer one is skipped and answered with an error."""
MAX_ORACLES = 64
MAX_ACTIONS = 100_000
"""The most actions one `apply` takes (`maxItems` of request.schema.json, where it is checked)."""
DEFAULT = "default"
"""The name of the oracle a `start` without `oracle` makes (replacing the one it made before)."""
MAX_POSITIONS = 10_000


class RequestError(ArbitroError, ValueError):
    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


_KINDS: dict[type[Exception], str] = {
    InconsistentState: "inconsistent-state",
    Invalid: "malformed-input",
    MalformedInput: "malformed-input",
    UnknownRulebook: "unknown-rulebook",
    OptionError: "bad-option",
    SpecError: "bad-spec",
}


class Server:
    """One client's conversation: its oracles and the positions it keeps."""

    def __init__(self, max_positions: int = MAX_POSITIONS) -> None:
        self.oracles: dict[str, Oracle] = {}
        self.current: str | None = None
        self.positions: dict[str, tuple[Oracle, Hashable]] = {}
        self.max_positions = max_positions

    # ------------------------------------------------------------ picking what a request names

    def _oracle(self, req: dict[str, Any]) -> Oracle:
        name = req.get("oracle")
        if name is not None:
            got = self.oracles.get(name)
            if got is None:
                raise RequestError(
                    "not-started",
                    f"no oracle {shorten(name, 40)!r}; started: {', '.join(self.oracles) or 'none'}",
                )
            return got
        if self.current is None:
            raise RequestError(
                "not-started", 'no rulebook yet: send {"op": "start", "rulebook": ...} first'
            )
        return self.oracles[self.current]

    def _source(
        self, req: dict[str, Any], allow_view: bool = False
    ) -> tuple[Oracle, Hashable, str | None]:
        """The oracle, the state a request is about, and the id it is kept under (if any)."""
        given = [k for k in ("state", "position", "view") if k in req]
        if len(given) != 1:
            what = "state or position" + (" or view" if allow_view else "")
            raise RequestError("malformed-request", f"op {req['op']!r} needs exactly one of {what}")
        if (
            "position" in req
            and isinstance(req["position"], str)
            and not is_position_line(req["position"])
        ):
            pid = req["position"]
            kept = self.positions.get(pid)
            if kept is None:
                raise RequestError(
                    "unknown-position",
                    f"no position {shorten(pid, 40)!r} is kept; keep one with save",
                )
            if "oracle" in req and self.oracles.get(req["oracle"]) is not kept[0]:
                raise RequestError(
                    "malformed-request",
                    f"position {pid!r} belongs to another oracle than {req['oracle']!r}",
                )
            return kept[0], kept[1], pid
        oracle = self._oracle(req)
        if "position" in req:
            return oracle, oracle.read_state(oracle.position(req["position"])), None
        if "view" in req:
            if not allow_view:
                raise RequestError("malformed-request", f"op {req['op']!r} takes no view")
            return oracle, oracle.read_state(oracle.from_view(req["view"], mover=True)), None
        return oracle, oracle.read_state(req["state"]), None

    def _keep(self, pid: str, oracle: Oracle, state: Hashable) -> None:
        if pid not in self.positions and len(self.positions) >= self.max_positions:
            raise RequestError(
                "limit-reached",
                f"the server keeps at most {self.max_positions} positions; forget some first",
            )
        self.positions[pid] = (oracle, state)

    def _store(self, req: dict[str, Any], oracle: Oracle, state: Hashable, pid: str | None) -> None:
        """Keep the state a request produced: under `save`, or in place of the kept position."""
        target = req.get("save", pid)
        if target is not None:
            self._keep(target, oracle, state)

    # ------------------------------------------------------------ the ops

    def handle(self, req: dict[str, Any]) -> Any:
        op = req["op"]
        if op == "hello":
            return {
                "protocol": PROTOCOL,
                "ops": list(OPS),
                "rulebooks": sorted({*rulebook_ids(), *own_spec_ids()}),
                "limits": {"line_bytes": MAX_LINE, "positions": self.max_positions},
            }
        if op == "start":
            return self._start(req)
        if op == "forget":
            pid = req.get("position")
            if not isinstance(pid, str):
                raise RequestError("malformed-request", "forget: position names a kept position")
            if self.positions.pop(pid, None) is None:
                raise RequestError("unknown-position", f"no position {shorten(pid, 40)!r} is kept")
            return {"forgotten": pid}
        if op == "new_game":
            oracle = self._oracle(req)
            state = oracle.new_game(req.get("dealer", 0), req.get("scores"), req.get("hand", 0))
            self._store(req, oracle, oracle.read_state(state), None)
            return state
        if op == "position":
            if "position" not in req:
                raise RequestError("malformed-request", "position: give the position to build")
            if isinstance(req["position"], str) and not is_position_line(req["position"]):
                # a kept position, returned (and with save, kept under another id as well)
                oracle, s, _ = self._source(req)
                self._store(req, oracle, s, None)
                return oracle.write(s)
            oracle = self._oracle(req)
            state = oracle.position(req["position"])
            self._store(req, oracle, oracle.read_state(state), None)
            return state
        if op == "deal":
            oracle, s, pid = self._source(req)
            if ("order" in req) == ("dealt" in req):
                raise RequestError("malformed-request", "deal: give either order or dealt")
            state = oracle.deal(oracle.write(s), req.get("order"), req.get("dealt"))
            self._store(req, oracle, oracle.read_state(state), pid)
            return state
        if op == "legal":
            oracle, s, _ = self._source(req, allow_view=True)
            return [
                oracle.model.action_to_json(a) for a in oracle.model.legal_actions(oracle.rules, s)
            ]
        if op == "apply":
            return self._apply(req)
        if op == "explain":
            oracle, s, _ = self._source(req, allow_view=True)
            if "action" not in req:
                raise RequestError("malformed-request", "explain: give the action")
            return oracle.explain(oracle.write(s), req["action"])
        if op == "score":
            oracle, s, _ = self._source(req)
            return oracle.score_of(s)
        if op == "check":
            return self._check(req)
        if op == "check_transcript":
            return _check_transcript(req)
        if op == "view":
            oracle, s, _ = self._source(req)
            if "seat" not in req:
                raise RequestError("malformed-request", "view: give the seat")
            return oracle.view(oracle.write(s), req["seat"])
        raise RequestError("unknown-op", f"unknown op {shorten(op, 40)!r}")  # pragma: no cover

    def _start(self, req: dict[str, Any]) -> Any:
        # without a name, start (re)starts the default oracle, as a one-rulebook client expects
        name = req.get("oracle", DEFAULT)
        if name not in self.oracles and len(self.oracles) >= MAX_ORACLES:
            raise RequestError(
                "limit-reached", f"the server keeps at most {MAX_ORACLES} oracles at once"
            )
        oracle = Oracle(
            req["rulebook"],
            req.get("options"),
            req.get("players"),
            req.get("teams", False),
            req.get("layout"),
            req.get("overrides"),
        )
        old = self.oracles.get(name)
        if old is not None:
            # a restarted name begins afresh: its kept positions go with the old oracle
            self.positions = {k: v for k, v in self.positions.items() if v[0] is not old}
        self.oracles[name] = oracle
        self.current = name
        return {"oracle": name, **oracle.describe()}

    def _apply(self, req: dict[str, Any]) -> Any:
        oracle, s, pid = self._source(req)
        if ("action" in req) == ("actions" in req):
            raise RequestError("malformed-request", "apply: give either action or actions")
        moves = [req["action"]] if "action" in req else req["actions"]
        for i, action in enumerate(moves):
            try:
                s = oracle.apply_to(s, action)
            except (IllegalAction, MalformedInput) as e:
                if "actions" in req:
                    setattr(e, "index", i)  # noqa: B010 - the answer names the failing action
                raise
        self._store(req, oracle, s, pid)
        return oracle.write(s)

    def _check(self, req: dict[str, Any]) -> Any:
        if "state" in req:
            oracle = self._oracle(req)
            return {"violations": oracle.check_state(req["state"])}
        oracle, s, _ = self._source(req)
        return {"violations": oracle.model.violations(oracle.rules, s)}


def _check_transcript(req: dict[str, Any]) -> Any:
    """The verdict of a whole transcript given as its lines, as `arbitro check --json` prints it
    (verdict.schema.json): `check` checks a state, this a game log."""
    from arbitro.oracle.check import check_stream

    lines = req.get("lines")
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        raise RequestError("malformed-request", "check_transcript: lines, the transcript's lines")
    return check_stream(lines)


# ---------------------------------------------------------------- one request, one answer


def _request_id(req: dict[str, Any]) -> tuple[Any, str | None]:
    """The id to echo, and what is wrong with the one given (None if nothing)."""
    if "id" not in req:
        return None, None
    v = req["id"]
    if v is None or type(v) is int:
        return v, None
    if isinstance(v, str):
        if len(v) > 256:
            return None, f"id: a string of at most 256 characters, got {len(v)}"
        if any("\ud800" <= ch <= "\udfff" for ch in v):
            return None, "id: holds a lone surrogate, which UTF-8 cannot carry"
        return v, None
    return None, "id: a string, an integer or null"


def respond(server: Server, line: str) -> tuple[dict[str, Any], bool]:
    """The answer to one request line, and whether the client asked to quit."""
    req_id: Any = None
    try:
        try:
            req = loads(line)
        except MalformedInput as e:
            raise RequestError("malformed-request", str(e)) from None
        if not isinstance(req, dict):
            raise RequestError("malformed-request", "a request is a JSON object")
        req_id, bad_id = _request_id(req)
        if bad_id:
            raise RequestError("malformed-request", bad_id)
        op = req.get("op")
        if not isinstance(op, str):
            raise RequestError("malformed-request", f"op: one of {', '.join(OPS)}")
        if op not in OPS:
            raise RequestError(
                "unknown-op", f"unknown op {shorten(op, 40)!r}; ops: {', '.join(OPS)}"
            )
        try:
            validate(req, "request", "request")
        except Invalid as e:
            raise RequestError("malformed-request", str(e)) from None
        allowed = ("id", "op", "oracle", *OPS[op])
        extra = sorted(k for k in req if k not in allowed)
        if extra:
            fields = ", ".join(OPS[op]) or "none"
            raise RequestError(
                "malformed-request", f"op {op!r} has no field {extra[0]!r}; its fields: {fields}"
            )
        if op == "quit":
            return {"id": req_id, "ok": True, "result": "bye"}, True
        return {"id": req_id, "ok": True, "result": server.handle(req)}, False
    except IllegalAction as e:
        err: dict[str, Any] = {"type": "illegal-action", "message": str(e), **refusal_json(e)}
        refusals = e.refusals if isinstance(e, Refused) else (e,)
        err["refusals"] = [refusal_json(r) for r in refusals]
        if isinstance(e, Refused) and e.move is not None:
            err["move"] = e.move
        if isinstance(e, Refused) and e.position_line is not None:
            err["position_line"] = e.position_line
        return _error(req_id, err, e), False
    except RequestError as e:
        return _error(req_id, {"type": e.kind, "message": str(e)}, e), False
    except ArbitroError as e:
        kind = next((k for t, k in _KINDS.items() if isinstance(e, t)), None)
        if kind is None:
            kind = "rule-gap" if type(e).__name__ == "RuleGap" else "error"
        err = {"type": kind, "message": str(e)}
        if isinstance(e, InconsistentState):
            err["clauses"] = e.clauses
        if isinstance(e, Invalid):
            err["field"] = e.path
        clause = getattr(e, "clause", None)
        if isinstance(clause, str):
            err["clause"] = clause
        return _error(req_id, err, e), False
    except Exception as e:  # a bug of ours must not end a client's session
        message = f"{type(e).__name__}: {e}"
        return _error(req_id, {"type": "internal-error", "message": message}, e), False


MAX_MESSAGE = 1000
"""Messages are cut to this many characters: what a request holds is never echoed whole."""


def _error(req_id: Any, err: dict[str, Any], e: Exception) -> dict[str, Any]:
    err["message"] = shorten(err["message"], MAX_MESSAGE)
    index = getattr(e, "index", None)
    if isinstance(index, int):
        err["index"] = index
    return {"id": req_id, "ok": False, "error": err}


# ---------------------------------------------------------------- the loop


def _lines(stream: BinaryIO) -> Iterable[bytes | None]:
    """Request lines as bytes; None for a line longer than MAX_LINE (skipped to its end)."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def answer_bytes(server: Server, line: bytes | None) -> tuple[bytes | None, bool]:
    """The answer line (None for a blank request line) and whether to stop."""
    if line is None:
        response: dict[str, Any] = {
            "id": None,
            "ok": False,
            "error": {
                "type": "malformed-request",
                "message": f"a request line longer than {MAX_LINE} bytes; it was skipped",
            },
        }
        return dumps_line(response), False
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        response = {
            "id": None,
            "ok": False,
            "error": {
                "type": "malformed-request",
                "message": f"not UTF-8: byte 0x{line[e.start]:02x} at byte {e.start + 1} of the line",
            },
        }
        return dumps_line(response), False
    if not text.strip():
        return None, False
    response, done = respond(server, text)
    return dumps_line(response), done


def serve_bytes(inp: BinaryIO, out: BinaryIO, max_positions: int = MAX_POSITIONS) -> int:
    """Answer each non-blank line of `inp` with exactly one line on `out` until EOF or quit."""
    server = Server(max_positions)
    for line in _lines(inp):
        answer, done = answer_bytes(server, line)
        if answer is not None:
            out.write(answer)
            out.flush()
        if done:
            break
    return 0


def serve(lines: Iterable[str], out: IO[str], log: Callable[[str], None] | None = None) -> int:
    """`serve_bytes` over text: each line of `lines` answered on `out`."""
    server = Server()
    for line in lines:
        answer, done = answer_bytes(server, line.encode("utf-8", "surrogatepass"))
        if answer is not None:
            out.write(answer.decode("utf-8"))
            out.flush()
        if done:
            break
    return 0


def main() -> int:
    try:
        return serve_bytes(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        return 0


def register(sub: Any) -> None:
    """Add `arbitro serve` to the command line's subparsers."""
    p = sub.add_parser("serve", help="answer oracle requests as JSON Lines on stdin/stdout")
    p.add_argument(
        "--max-positions",
        type=int,
        default=MAX_POSITIONS,
        metavar="N",
        help=f"positions a client may keep at once (default {MAX_POSITIONS})",
    )
    p.add_argument("--spec", metavar="FILE", help="also offer your own spec file by its id")
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    if not 0 <= args.max_positions <= 10_000_000:
        raise OptionError(f"--max-positions: from 0 to 10000000, got {args.max_positions}")
    if args.spec:
        from arbitro.model.spec import use_spec_file

        use_spec_file(args.spec)
    try:
        return serve_bytes(sys.stdin.buffer, sys.stdout.buffer, args.max_positions)
    except BrokenPipeError:
        return 0
