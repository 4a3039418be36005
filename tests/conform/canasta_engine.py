"""A small Canasta engine written from the book alone (canasta-es.txt), for two players, and its
adapter (arbitro-adapter/2), with bugs that can be switched on:

    python canasta_engine.py [--bug NAME[=VALUE]]...

It plays the hand without melds: the house rule `set_min` = `completed_size` = 20 and the wild
limits (option `wild_canasta=wild-limits`) leave no meld possible, so a turn is a draw from the
stock and a discard, and a hand ends when the stock is exhausted. What it implements is the book's:

- INICIO: two players get 15 cards each, one at a time from the player after the dealer; red
  threes are shown, laid beside their owner and replaced from the stock, starting with the player
  who got the first card; the first stock card starts the pile, covered while it is a wild or a
  red three (EL POZO; INICIO also names the black three: the `inicio` reading);
- a red three drawn is laid out at once and replaced (VALOR DE LAS CARTAS, "el 3 rojo");
- VALORACIÓN: cards left in hand count against (joker 50, two and ace 20, eight to king 10, four
  to seven 5, a black three 5 and 95 more, all four black threes in one hand 500 more); a side
  with no canasta counts each red three 100 against, all four 800 against;
- drawing from an exhausted stock ends the hand (the book is silent; arbitro's default).

Bugs (each a flag): `red_three_each=N` (100 by the book), `red_threes_all_each` (all four red
threes of a side without canasta cost 400, four times one, not 800), `black_three_extra=N` (95),
`cover_black_three` (the upcard is also covered when it is a black three, INICIO's list),
`draw_count=N` (1: ROBAR, one card from the stock), `ace_points=N` (20).
"""

from __future__ import annotations

import json
import sys
from typing import Any

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def points(card: str, bugs: dict[str, Any]) -> int:
    rank = card[:-1] if card != "JK" else "JK"
    if rank == "JK":
        return 50
    if rank == "2":
        return 20
    if rank == "A":
        return int(bugs.get("ace_points", 20))
    if rank == "3":
        return 5
    return 10 if rank in ("8", "9", "10", "J", "Q", "K") else 5


def red_three(c: str) -> bool:
    return c in ("3H", "3D")


def black_three(c: str) -> bool:
    return c in ("3C", "3S")


def wild(c: str) -> bool:
    return c == "JK" or c.startswith("2")


class Hand:
    def __init__(self, order: list[str], dealer: int, scores: list[int], bugs: dict[str, Any]):
        self.bugs = bugs
        self.scores = scores
        self.stock = list(order)
        self.hands: list[list[str]] = [[], []]
        first = (dealer + 1) % 2
        for i in range(30):
            self.hands[(first + i) % 2].append(self.stock.pop(0))
        self.threes: list[list[str]] = [[], []]
        for seat in (first, 1 - first):
            while any(red_three(c) for c in self.hands[seat]):
                shown = [c for c in self.hands[seat] if red_three(c)]
                for c in shown:
                    self.hands[seat].remove(c)
                    self.threes[seat].append(c)
                self.hands[seat] += [self.stock.pop(0) for _ in shown]
        self.pile = [self.stock.pop(0)]
        while (
            wild(self.pile[-1])
            or red_three(self.pile[-1])
            or (bugs.get("cover_black_three") and black_three(self.pile[-1]))
        ):
            self.pile.append(self.stock.pop(0))
        self.seat = first
        self.step = "draw"
        self.over = False

    def take(self, position: dict[str, Any]) -> dict[str, Any]:
        """arbitro's position, taken up after a disagreement (op `position`)."""
        self.hands = [list(h) for h in position["hands"]]
        self.stock = list(position["stock"])
        self.pile = list(position["pile"])
        self.threes = [list(side["red_threes"]) for side in position["table"]]
        self.seat, self.step = position["seat"], position.get("step", "draw")
        return self.report()

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hands": self.hands,
            "stock": self.stock,
            "pile": self.pile,
            "table": [{"melds": [], "red_threes": t} for t in self.threes],
            "seat": self.seat,
        }
        if self.over:
            out["ended"] = {"reason": "stock-out"}
        return out

    def legal(self) -> list[Any]:
        if self.step == "draw":
            return [
                {"type": "draw", "seat": self.seat, "count": int(self.bugs.get("draw_count", 1))}
            ]
        cards = sorted(set(self.hands[self.seat]))
        return [{"type": "discard", "seat": self.seat, "card": c} for c in cards]

    def apply(self, action: dict[str, Any]) -> dict[str, Any]:
        if action not in self.legal():
            raise ValueError(f"not a move now: {action}")
        hand = self.hands[self.seat]
        if action["type"] == "draw":
            if len(self.stock) < action["count"]:
                self.over = True  # a stock too short for the draw ends the hand too
                return self.report()
            for _ in range(action["count"]):
                while self.stock:
                    c = self.stock.pop(0)
                    if not red_three(c):
                        hand.append(c)
                        break
                    self.threes[self.seat].append(c)  # shown at once and replaced
            self.step = "play"
        else:
            hand.remove(action["card"])
            self.pile.append(action["card"])
            self.seat, self.step = 1 - self.seat, "draw"
        return self.report()

    def score(self) -> dict[str, Any]:
        b = self.bugs
        cats = []
        for side in range(2):
            held = self.hands[side]
            blacks = sum(1 for c in held if black_three(c))
            reds = len(self.threes[side])
            if reds == 4:
                red = (
                    -4 * int(b.get("red_three_each", 100)) if b.get("red_threes_all_each") else -800
                )
            else:
                red = -int(b.get("red_three_each", 100)) * reds
            extra = -int(b.get("black_three_extra", 95)) * blacks - (500 if blacks == 4 else 0)
            cats.append({
                "melds": 0, "hand": -sum(points(c, b) for c in held), "canastas": 0,
                "canaston": 0, "red-threes": red, "black-threes": extra, "going-out": 0,
                "penalties": 0,
            })  # fmt: skip
        scores = [sum(c.values()) for c in cats]
        totals = [a + s for a, s in zip(self.scores, scores, strict=True)]
        top = max(totals)
        winner = totals.index(top) if top >= 5000 and totals.count(top) == 1 else None
        return {"scores": scores, "categories": cats, "totals": totals, "winner": winner}


def main() -> None:
    bugs: dict[str, Any] = {}
    args = sys.argv[1:]
    while args:
        name, _, value = args[1].partition("=")
        bugs[name] = int(value) if value else True
        args = args[2:]
    hand: Hand | None = None
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        try:
            if op == "hello":
                result: Any = {
                    "protocol": "arbitro-adapter/2",
                    "engine": "canasta without melds (test engine)",
                    "rulebooks": ["canasta-es"],
                    "seatings": [{"players": 2}],
                    "options": {"wild_canasta": "wild-limits"},
                    "positions": True,
                    "moves": "atomic",
                }
            elif op == "start":
                result = None
                if (req.get("overrides") or {}).get("canasta-es:set-min", 3) < 16:
                    raise LookupError("this engine plays only hands without melds: set-min 20")
                hand = Hand(req["order"], req["dealer"], req["scores"], bugs)
                result = hand.report()
            elif op in ("legal", "apply", "score", "position") and hand is None:
                raise LookupError("no hand: send start first")
            elif op == "position":
                result = hand.take(req["position"])  # type: ignore[union-attr]
            elif op == "legal":
                result = hand.legal()  # type: ignore[union-attr]
            elif op == "apply":
                result = hand.apply(req["action"])  # type: ignore[union-attr]
            elif op == "score":
                result = hand.score()  # type: ignore[union-attr]
            else:
                result = "bye"
            answer = {"id": req["id"], "ok": True, "result": result}
        except ValueError as e:
            answer = {
                "id": req["id"],
                "ok": False,
                "error": {"type": "illegal-action", "message": str(e)},
            }
        except LookupError as e:
            answer = {
                "id": req["id"],
                "ok": False,
                "error": {"type": "unsupported", "message": str(e)},
            }
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "quit":
            break


if __name__ == "__main__":
    main()
