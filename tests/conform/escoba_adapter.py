"""An adapter for the small Escoba engine of tests/support/buggy_escoba.py (written from the book
alone, two players), with its bugs switched on from the command line:

    python escoba_adapter.py [--bug NAME[=VALUE]]... [--crash-at N] [--hang-at N] [--garbage-at N]

`--bug forced_capture` lets a card that can capture be laid; `--bug setenta_by_sum` gives the
setenta to the higher sum of best cards; `--bug NAME=VALUE` sets any other field of
buggy_escoba.Bugs (`target=15`, `escoba_points=2`, `rest_to_capturer=false`...). `--crash-at`, `--hang-at` and `--garbage-at` misbehave
at the N-th request, to test how a broken adapter is reported.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tests.support.buggy_escoba import Bugs, Hand, deal, order_key, plays, right, score


class Engine:
    def __init__(self, bugs: Bugs) -> None:
        self.bugs = bugs
        self.h: Hand | None = None
        self.seat = 0
        self.totals = [0, 0]

    def report(self) -> dict[str, Any]:
        h = self.h
        assert h is not None
        out: dict[str, Any] = {
            "hands": [sorted(x, key=order_key) for x in h.hands],
            "table": sorted(h.table, key=order_key),
            "stock": list(h.stock),
            "piles": [sorted(p, key=order_key) for p in h.piles],
            "escobas": list(h.escobas),
            "last_capturer": h.last,
        }
        if self.over():
            out["ended"] = True
        else:
            out["to_move"] = self.seat
        return out

    def over(self) -> bool:
        h = self.h
        assert h is not None
        return not any(h.hands) and not h.stock

    def start(self, req: dict[str, Any]) -> dict[str, Any]:
        self.h, self.seat = deal(list(req["order"]), req["dealer"], self.bugs)
        self.totals = list(req.get("scores") or [0, 0])
        return self.report()

    def take(self, position: dict[str, Any]) -> dict[str, Any]:
        """Take up arbitro's position (op `position`, after a disagreement)."""
        self.h = Hand(
            [list(x) for x in position["hands"]],
            list(position["table"]),
            list(position.get("stock", [])),
            [list(x) for x in position["piles"]],
            list(position.get("escobas", [0, 0])),
            position.get("last_capturer"),
        )
        self.seat = position["to_move"]
        return self.report()

    def legal(self) -> list[dict[str, Any]]:
        assert self.h is not None
        return [
            {"seat": self.seat, "card": c, "capture": g}
            for c, g in plays(self.h, self.seat, self.bugs)
        ]

    def apply(self, action: dict[str, Any]) -> dict[str, Any]:
        h = self.h
        assert h is not None
        card, group = action["card"], list(action["capture"])
        if (card, sorted(group, key=order_key)) not in plays(h, self.seat, self.bugs):
            raise ValueError(f"not a legal play: {card} taking {group}")
        h.hands[self.seat].remove(card)
        if group:
            for c in group:
                h.table.remove(c)
            h.piles[self.seat % 2] += [*group, card]
            h.last = self.seat % 2
            if not h.table:
                h.escobas[self.seat % 2] += 1
        else:
            h.table.append(card)
        self.seat = right(self.seat)
        if not any(h.hands) and h.stock:
            for _ in range(3):
                for s in (self.seat, right(self.seat)):
                    h.hands[s].append(h.stock.pop(0))
        if self.over() and h.last is not None and self.bugs.rest_to_capturer:
            if self.bugs.rest_is_escoba and h.table:
                h.escobas[h.last] += 1
            h.piles[h.last] += h.table
            h.table = []
        return self.report()

    def score(self) -> dict[str, Any]:
        assert self.h is not None
        pts = score(self.h, self.bugs)
        scores = [sum(p.values()) for p in pts]
        totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        top = max(totals)
        won = top >= self.bugs.target and totals.count(top) == 1
        return {
            "scores": scores,
            "categories": pts,
            "totals": totals,
            "winner": totals.index(top) if won else None,
        }


def main() -> None:
    args = sys.argv[1:]
    bugs = Bugs()
    misbehave: dict[str, int] = {}
    while args:
        flag = args.pop(0)
        if flag == "--bug":
            name, _, value = args.pop(0).partition("=")
            if name == "forced_capture":
                bugs.forced_capture = False
            elif value:
                setattr(bugs, name, int(value) if value.isdigit() else value == "true")
            else:
                setattr(bugs, name, True)
        else:
            misbehave[flag] = int(args.pop(0))
    engine = Engine(bugs)
    for n, line in enumerate(sys.stdin, start=1):
        if misbehave.get("--crash-at") == n:
            sys.stderr.write("escoba engine: index out of range\n")
            sys.exit(3)
        if misbehave.get("--hang-at") == n:
            time.sleep(3600)
        if misbehave.get("--garbage-at") == n:
            sys.stdout.write("ready to play!\n")
            sys.stdout.flush()
            continue
        req = json.loads(line)
        op = req["op"]
        try:
            if op == "hello":
                result: Any = {
                    "protocol": "arbitro-adapter/2",
                    "engine": "test escoba engine",
                    "rulebooks": ["escoba-es"],
                    "seatings": [{"players": 2}],
                    "positions": True,
                    "moves": "atomic",
                }
            elif op == "start":
                result = engine.start(req)
            elif op == "legal":
                result = engine.legal()
            elif op == "apply":
                result = engine.apply(req["action"])
            elif op == "position":
                result = engine.take(req["position"])
            elif op == "score":
                result = engine.score()
            else:
                result = "bye"
            answer = {"id": req["id"], "ok": True, "result": result}
        except ValueError as e:
            answer = {
                "id": req["id"],
                "ok": False,
                "error": {"type": "illegal-action", "message": str(e)},
            }
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "quit":
            break


if __name__ == "__main__":
    main()
