"""The protocol's published schemas as `jsonschema` validators, and a running `arbitro serve`."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parents[2] / "arbitro" / "schemas"
"""The published JSON schemas, read from the checkout (independently of arbitro's own loader)."""


def _registry() -> Registry:
    reg: Registry = Registry()
    for p in SCHEMAS.glob("*.json"):
        schema = json.loads(p.read_text(encoding="utf-8"))
        reg = reg.with_resource(schema["$id"], Resource.from_contents(schema))
    return reg


@cache
def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=_registry())


class Server:
    """A running `arbitro serve` talking JSON Lines."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arbitro.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.responses = validator("response.schema.json")

    def raw(self, line: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        response: dict[str, Any] = json.loads(out)
        self.responses.validate(response)
        return response

    def ask(self, **req: Any) -> dict[str, Any]:
        validator("request.schema.json").validate(req)
        response = self.raw(json.dumps(req))
        if response["ok"]:  # every result has its op's shape (result-OP.schema.json)
            validator(f"result-{req['op']}.schema.json").validate(response["result"])
        return response

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=10)
