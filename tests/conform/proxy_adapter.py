"""arbitro's reference adapter with its answers altered one way, to give `arbitro conform` a
disagreement of each kind (its outputs are tested on every kind):

    python proxy_adapter.py game-end|hand-end|refused|state|score|legal
"""

from __future__ import annotations

import sys
from typing import Any

from arbitro.conformance.conform_adapter import Reference, serve_reference
from arbitro.model.errors import IllegalAction

MODE = sys.argv[1]


class Altered(Reference):
    def answer(self, request: Any) -> Any:
        op = request.get("op")
        if MODE == "refused" and op == "apply" and request["action"].get("capture") == []:
            raise IllegalAction("this engine never lays a card", clause="none")
        result = super().answer(request)
        if MODE == "game-end" and op == "score":
            result = {**result, "winner": 1 - result["winner"] if result["winner"] else 0}
        if MODE == "score" and op == "score":
            cats = [dict(c) for c in result["categories"]]
            cats[0]["velo"] = 1 - cats[0]["velo"]
            result = {**result, "categories": cats}
        ended = op == "apply" and result.get("ended")
        if MODE == "hand-end" and op == "apply" and not ended and not result["stock"]:
            result = {**result, "ended": True}  # before the last cards are played
            result.pop("to_move", None)
        if MODE == "state" and op == "apply" and result["table"]:
            result = {**result, "table": result["table"][1:]}
        if MODE == "legal" and op == "legal":
            result = result[1:]
        return result


if __name__ == "__main__":
    serve_reference(sys.stdin.buffer, sys.stdout.buffer, Altered())
