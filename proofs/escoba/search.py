"""Searching for Escoba hands that leave a given amount on the table, and replaying them.

The proofs bound the amount left on the table when a hand ends; whether an amount within the
bound actually happens is shown by a hand that leaves it. `search` looks for such hands with its
own small player (random deck orders, a policy that lays a card whenever a card may be laid and
otherwise captures at random, and local changes to the deck order of the best hands found); it
only proposes hands. `replay` plays a proposed hand through the model's own `deal`,
`legal_actions` and `apply`, checks every play is legal, and measures what is left: only a hand
that passes is a witness.

Found hands are kept in `table_rest_witnesses.json` next to this module; regenerate it with
``uv run python -m arbitro.proofs.escoba.search --seconds 600``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arbitro.model.errors import ArbitroError
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, rules_for
from arbitro.proofs.escoba import cards as E

WITNESSES = Path(__file__).with_name("table_rest_witnesses.json")


@dataclass(frozen=True)
class Hand:
    """A proposed hand: the seating, the deck order (top first) and every play in turn, each
    ``card`` or ``card:taken+taken`` by card names; `left` is the amount it leaves."""

    players: int
    order: tuple[str, ...]
    plays: tuple[str, ...]
    left: int

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "dealer": 0,
            "order": " ".join(self.order),
            "plays": " ".join(self.plays),
            "left": self.left,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Hand:
        return Hand(
            int(data["players"]),
            tuple(str(data["order"]).split()),
            tuple(str(data["plays"]).split()),
            int(data["left"]),
        )


class _Player:
    """A minimal Escoba hand for the search (the model checks whatever it proposes)."""

    def __init__(self, rules: EscobaRules, players: int) -> None:
        self.rules = rules
        self.values = E.values(rules)
        self.n = E.kinds(rules)
        self.players = players
        self.deals = next(d.deals for d in rules.deals_per_hand if d.players == players)
        self.sweeps = {s.total for s in rules.opening_sweeps}

    def groups(self, table: int, need: int) -> list[int]:
        """Every group of table cards worth `need`, as masks."""
        cards = [c for c in range(self.n) if table >> c & 1]
        out: list[int] = []
        vals = self.values

        def walk(i: int, left: int, mask: int) -> None:
            if left == 0:
                out.append(mask)
                return
            if i == len(cards):
                return
            c = cards[i]
            if vals[c] <= left:
                walk(i + 1, left - vals[c], mask | 1 << c)
            walk(i + 1, left, mask)

        if need > 0:
            walk(0, need, 0)
        return out

    def play(self, order: Sequence[int], rng: random.Random) -> tuple[int, list[tuple[int, int]]]:
        r = self.rules
        hands = [0] * self.players
        pos = 0
        for _ in range(r.hand_size):
            for p in range(self.players):
                hands[p] |= 1 << order[pos]
                pos += 1
        table = 0
        for _ in range(r.table_initial):
            table |= 1 << order[pos]
            pos += 1
        if sum(self.values[c] for c in range(self.n) if table >> c & 1) in self.sweeps:
            table = 0
        plays: list[tuple[int, int]] = []
        turn = 0
        big = rng.random()
        while True:
            p = turn % self.players
            lays: list[tuple[int, int]] = []
            caps: list[tuple[int, int]] = []
            for c in range(self.n):
                if hands[p] >> c & 1:
                    g = self.groups(table, r.capture_sum - self.values[c])
                    if g:
                        caps += [(c, m) for m in g]
                    if not g or not r.capture_forced:
                        lays.append((c, 0))
            if lays:
                c, m = rng.choice(lays)
            elif rng.random() < big:
                c, m = max(caps, key=lambda o: bin(o[1]).count("1"))
            else:
                c, m = rng.choice(caps)
            plays.append((c, m))
            hands[p] &= ~(1 << c)
            table = table & ~m if m else table | 1 << c
            turn += 1
            if not any(hands):
                if pos >= len(order):
                    return sum(self.values[x] for x in range(self.n) if table >> x & 1), plays
                for _ in range(r.redeal_size):
                    for q in range(self.players):
                        hands[q] |= 1 << order[pos]
                        pos += 1
                for _ in range(r.redeal_table):
                    table |= 1 << order[pos]
                    pos += 1


def _text(play: tuple[int, int], n: int) -> str:
    c, m = play
    taken = [E.name(x) for x in range(n) if m >> x & 1]
    return E.name(c) + (":" + "+".join(taken) if taken else "")


def search(
    rules: EscobaRules, players: int, seconds: float, seed: int, wanted: set[int]
) -> dict[int, Hand]:
    """Hands leaving each amount in `wanted` found within `seconds` (deck orders mutated around
    the best hands found)."""
    rng = random.Random(seed)
    pl = _Player(rules, players)
    found: dict[int, Hand] = {}
    stop = time.perf_counter() + seconds
    best_order: list[int] = list(range(pl.n))
    best = -1
    while time.perf_counter() < stop and not wanted <= set(found):
        if best < 0 or rng.random() < 0.3:
            order = list(range(pl.n))
            rng.shuffle(order)
        else:
            order = list(best_order)
            for _ in range(rng.randint(1, 3)):
                i, j = rng.randrange(pl.n), rng.randrange(pl.n)
                order[i], order[j] = order[j], order[i]
        left, plays = pl.play(order, rng)
        if left in wanted and left not in found:
            found[left] = Hand(
                players,
                tuple(E.name(c) for c in order),
                tuple(_text(p, pl.n) for p in plays),
                left,
            )
        if left >= best:
            best, best_order = left, order
    return found


class ReplayError(ArbitroError, ValueError):
    """A stored hand the model refuses: an illegal play or a different outcome."""


def replay(rules: EscobaRules, hand: Hand) -> int:
    """Play `hand` through the model (`deal`, `legal_actions`, `apply`); the amount left on the
    table once the last card is played. ReplayError names the first play the model refuses."""
    from arbitro.model.escoba import ESCOBA

    model: Any = ESCOBA
    seating = Seating(hand.players, hand.players)
    state: Any = model.new_game(rules, seating, 0)
    state = model.deal(rules, state, [model.parse_card(x) for x in hand.order])
    left = -1
    for i, text in enumerate(hand.plays):
        if model.phase(state) != "play":
            raise ReplayError(f"play {i + 1} ({text}): the hand is already over")
        card, _, taken = text.partition(":")
        seat = model.to_move(state)
        action = model.action_from_json(
            {"seat": seat, "card": card, "capture": taken.split("+") if taken else []}
        )
        if action not in model.legal_actions(rules, state):
            raise ReplayError(f"play {i + 1} ({text}) by seat {seat} is not legal")
        before = model.state_to_json(state)
        state = model.apply(rules, state, action)
        if model.phase(state) != "play":
            table = set(before["table"])
            if taken:
                table -= set(taken.split("+"))
            else:
                table.add(card)
            left = sum(E.values(rules)[E.kind_of(x)] for x in table)
            if i != len(hand.plays) - 1:
                raise ReplayError(f"the hand ends at play {i + 1}, before its last play")
    if left < 0:
        raise ReplayError("the plays do not finish the hand")
    if left != hand.left:
        raise ReplayError(f"the hand leaves {left}, not the {hand.left} recorded")
    return left


def stored() -> list[Hand]:
    """The hands kept in `table_rest_witnesses.json` (none if the file is missing)."""
    if not WITNESSES.is_file():
        return []
    data = json.loads(WITNESSES.read_text(encoding="utf-8"))
    return [Hand.from_json(x) for x in data["hands"]]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--rulebook", default="escoba-es")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rules = rules_for(args.rulebook)
    assert isinstance(rules, EscobaRules)
    keep = {h.left: h for h in stored()}
    total = sum(E.values(rules))
    step = rules.capture_sum
    wanted = {a for a in range(total % step, total + 1, step)} - set(keep)
    found = search(rules, args.players, args.seconds, args.seed, wanted)
    for left, hand in sorted(found.items()):
        replay(rules, hand)
        keep[left] = hand
        sys.stdout.write(f"found and replayed a hand leaving {left}\n")
    WITNESSES.write_text(
        json.dumps(
            {
                "about": (
                    "Escoba hands that leave each amount on the table when the last card is "
                    "played; proposed by arbitro.proofs.escoba.search (regenerate with: uv run "
                    "python -m arbitro.proofs.escoba.search --seconds 600), each replayed "
                    "through the model before it counts"
                ),
                "rulebook": args.rulebook,
                "hands": [keep[k].to_json() for k in sorted(keep)],
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    sys.stdout.write(f"{WITNESSES}: {', '.join(str(k) for k in sorted(keep))}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["WITNESSES", "Hand", "ReplayError", "replay", "search", "stored"]
