"""An engine whose move is a whole turn, adapted to `arbitro conform` with compound moves: a
small Canasta engine (canasta-es, two players, hands without melds: the house rule `set_min` =
`completed_size` = 20, with the wild limits) that knows only whole turns, draw then discard. Its
adapter lists each turn as one compound move, `[draw, discard]`, and applies it as one.

    arbitro conform canasta-es --override canasta-es:set-min=20 \\
        --override canasta-es:completed-size=20 -- python3 adapters/canasta_turns.py
"""

import json
import sys


def is_red_three(c):  # the red threes are honours, laid out at once
    return c in ("3H", "3D")


def value(c):  # VALOR DE LAS CARTAS
    return 50 if c == "JK" else 20 if c[:-1] in "2A" else 10 if c[:-1] in "8910JQK" else 5


class Turns:  # the engine: a hand dealt from a deck order, played a whole turn at a time
    def __init__(self, order, dealer, totals):
        self.stock, self.totals = list(order), totals
        self.hands, self.threes = [[], []], [[], []]
        first = self.seat = (dealer + 1) % 2
        for i in range(30):
            self.hands[(first + i) % 2].append(self.stock.pop(0))
        for seat in (first, 1 - first):  # red threes shown and replaced, repeatedly
            while reds := [c for c in self.hands[seat] if is_red_three(c)]:
                for c in reds:
                    self.hands[seat].remove(c)
                self.threes[seat] += reds
                self.hands[seat] += [self.stock.pop(0) for _ in reds]
        self.pile = [self.stock.pop(0)]
        while self.pile[-1] == "JK" or self.pile[-1][0] == "2" or is_red_three(self.pile[-1]):
            self.pile.append(self.stock.pop(0))
        self.over = False

    def draw(self):  # what a draw brings: a card, the red threes before it, how many in all
        stock, threes = list(self.stock), []
        while stock and is_red_three(stock[0]):
            threes.append(stock.pop(0))
        return (stock[0] if stock else None), threes, len(threes) + 1

    def turns(self):
        if not self.stock:
            return [[{"type": "draw", "seat": self.seat, "count": 1}]]  # ends the hand
        card, _, _ = self.draw()
        hand = sorted(set(self.hands[self.seat] + [card]))
        draw = {"type": "draw", "seat": self.seat, "count": 1}
        return [[draw, {"type": "discard", "seat": self.seat, "card": c}] for c in hand]

    def play(self, turn):
        if not self.stock:
            self.over = True  # drawing from an exhausted stock ends the hand
            return
        card, threes, used = self.draw()
        self.stock = self.stock[used:]
        self.threes[self.seat] += threes
        self.hands[self.seat].append(card)
        self.hands[self.seat].remove(turn[1]["card"])
        self.pile.append(turn[1]["card"])
        self.seat = 1 - self.seat

    def report(self):
        table = [{"melds": [], "red_threes": t} for t in self.threes]
        out = {"hands": self.hands, "stock": self.stock, "pile": self.pile, "table": table}
        out["seat"] = self.seat
        if self.over:
            out["ended"] = {"reason": "stock-out"}
        return out

    def score(self):
        cats = []
        for side in range(2):
            held, reds = self.hands[side], len(self.threes[side])
            blacks = sum(c in ("3C", "3S") for c in held)
            cat = dict.fromkeys(("melds", "canastas", "canaston", "going-out", "penalties"), 0)
            cat["hand"] = -sum(value(c) for c in held)  # every category, even at 0
            cat["red-threes"] = -800 if reds == 4 else -100 * reds  # no canasta: against
            cat["black-threes"] = -95 * blacks - (500 if blacks == 4 else 0)
            cats.append(cat)
        scores = [sum(c.values()) for c in cats]
        totals = [a + b for a, b in zip(self.totals, scores, strict=True)]
        won = max(totals) >= 5000 and totals.count(max(totals)) == 1
        winner = totals.index(max(totals)) if won else None
        return {"scores": scores, "categories": cats, "totals": totals, "winner": winner}


def main(engine=Turns):
    game = None
    for line in sys.stdin:
        req = json.loads(line)
        op, answer = req["op"], {"id": req["id"], "ok": True}
        if op == "hello":
            answer["result"] = {"protocol": "arbitro-adapter/2", "engine": "canasta by turns"}
            answer["result"].update(rulebooks=["canasta-es"], seatings=[{"players": 2}])
            answer["result"].update(options={"wild_canasta": "wild-limits"}, moves="compound")
        elif op == "start":
            game = engine(req["order"], req["dealer"], req["scores"])
            answer["result"] = game.report()
        elif op == "legal":
            answer["result"] = game.turns()
        elif op == "apply":
            game.play(req["action"])  # one of the turns listed: a compound move, played as one
            answer["result"] = game.report()
        elif op == "score":
            answer["result"] = game.score()
        else:
            answer["result"] = "bye"
        print(json.dumps(answer), flush=True)
        if op == "quit":
            break


if __name__ == "__main__":
    main()
