"""`arbitro serve`: the oracle as JSON Lines over stdin/stdout, one response per request.

A request is `{"id": ..., "op": ..., ...}`; the response echoes the id with `"ok": true` and a
`result`, or `"ok": false` and an `error` object (`type`, `message`, and `clause`/`penalty` for an
illegal action). A malformed request gets an error and the server keeps serving.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any

from arbitro.model.errors import (
    ArbitroError,
    IllegalAction,
    MalformedInput,
    OptionError,
    SpecError,
    UnknownRulebook,
)
from arbitro.model.spec import rulebook_ids
from arbitro.oracle import Oracle
from arbitro.transcript import PROTOCOL

OPS = ("hello", "start", "new_game", "deal", "legal", "apply", "score", "check", "explain", "quit")


class RequestError(ArbitroError, ValueError):
    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)


class Session:
    """One client's conversation: the oracle it started, if any."""

    def __init__(self) -> None:
        self.oracle: Oracle | None = None

    def _need(self) -> Oracle:
        if self.oracle is None:
            raise RequestError(
                "not-started", 'no rulebook yet: send {"op": "start", "rulebook": ...} first'
            )
        return self.oracle

    def _field(self, req: dict[str, Any], key: str) -> Any:
        if key not in req:
            raise RequestError("malformed-request", f"op {req['op']!r} needs the field {key!r}")
        return req[key]

    def handle(self, req: dict[str, Any]) -> Any:
        op = req["op"]
        if op not in OPS:
            raise RequestError("unknown-op", f"unknown op {op!r}; ops: {', '.join(OPS)}")
        if op == "hello":
            return {"protocol": PROTOCOL, "ops": list(OPS), "rulebooks": rulebook_ids()}
        if op == "start":
            rulebook = self._field(req, "rulebook")
            if not isinstance(rulebook, str):
                raise RequestError("malformed-request", "rulebook: expected a rulebook id string")
            options = req.get("options", {})
            if not isinstance(options, dict):
                raise RequestError("malformed-request", "options: expected an object")
            players = req.get("players")
            if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
                raise RequestError("malformed-request", "players: expected an integer")
            self.oracle = Oracle(
                rulebook, options, players, bool(req.get("teams", False)), req.get("layout")
            )
            return self.oracle.describe()
        oracle = self._need()
        if op == "new_game":
            return oracle.new_game(req.get("dealer", 0))
        if op == "deal":
            return oracle.deal(self._field(req, "state"), self._field(req, "order"))
        if op == "legal":
            return oracle.legal_actions(self._field(req, "state"))
        if op == "apply":
            return oracle.apply(self._field(req, "state"), self._field(req, "action"))
        if op == "score":
            return oracle.score(self._field(req, "state"))
        if op == "check":
            return {"violations": oracle.check_state(self._field(req, "state"))}
        if op == "explain":
            return oracle.explain(self._field(req, "state"), self._field(req, "action"))
        raise RequestError("unknown-op", f"unknown op {op!r}; ops: {', '.join(OPS)}")


_KINDS: dict[type[Exception], str] = {
    MalformedInput: "malformed-input",
    UnknownRulebook: "unknown-rulebook",
    OptionError: "bad-option",
    SpecError: "bad-spec",
}


def respond(session: Session, line: str) -> tuple[dict[str, Any], bool]:
    """The response to one request line, and whether the client asked to quit."""
    req_id: Any = None
    try:
        try:
            req = json.loads(line)
        except json.JSONDecodeError as e:
            raise RequestError(
                "malformed-request", f"not JSON: {e.msg} at column {e.colno}"
            ) from None
        if not isinstance(req, dict):
            raise RequestError("malformed-request", "a request is a JSON object")
        req_id = req.get("id")
        op = req.get("op")
        if not isinstance(op, str):
            raise RequestError("malformed-request", f"op: expected one of {', '.join(OPS)}")
        if op == "quit":
            return {"id": req_id, "ok": True, "result": "bye"}, True
        return {"id": req_id, "ok": True, "result": session.handle(req)}, False
    except IllegalAction as e:
        err: dict[str, Any] = {
            "type": "illegal-action",
            "message": str(e),
            "clause": e.clause,
            "reason": e.reason,
        }
        if e.penalty is not None:
            err["penalty"] = e.penalty
        return {"id": req_id, "ok": False, "error": err}, False
    except RequestError as e:
        return {"id": req_id, "ok": False, "error": {"type": e.kind, "message": str(e)}}, False
    except (MalformedInput, UnknownRulebook, OptionError, SpecError) as e:
        return {
            "id": req_id,
            "ok": False,
            "error": {"type": _KINDS[type(e)], "message": str(e)},
        }, False
    except ArbitroError as e:
        return {"id": req_id, "ok": False, "error": {"type": "error", "message": str(e)}}, False
    except Exception as e:  # a bug of ours must not kill a client's session
        return {
            "id": req_id,
            "ok": False,
            "error": {"type": "internal-error", "message": f"{type(e).__name__}: {e}"},
        }, False


def serve(lines: Iterable[str], out: IO[str], log: Callable[[str], None] | None = None) -> int:
    """Answer each non-blank line with exactly one response line until EOF or quit."""
    session = Session()
    for line in lines:
        if not line.strip():
            continue
        response, done = respond(session, line)
        out.write(json.dumps(response, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()
        if done:
            break
    return 0


def main() -> int:
    return serve(sys.stdin, sys.stdout)
