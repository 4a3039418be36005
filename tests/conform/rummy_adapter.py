"""arbitro's reference adapter with one bug: the card a player discards to go out is lost (it never
reaches the discard pile). Run as `python rummy_adapter.py`."""

from __future__ import annotations

import sys
from typing import Any

from arbitro.conformance.conform_adapter import Reference, serve_reference


class LosesTheLastDiscard(Reference):
    def answer(self, request: Any) -> Any:
        result = super().answer(request)
        ended = isinstance(result, dict) and isinstance(result.get("ended"), dict)
        went_out = ended and result["ended"]["reason"] == "went-out"
        action = request.get("action") or {}
        if went_out and action.get("type") == "discard" and result["pile"]:
            result = {**result, "pile": result["pile"][:-1]}
        return result


if __name__ == "__main__":
    serve_reference(sys.stdin.buffer, sys.stdout.buffer, LosesTheLastDiscard())
