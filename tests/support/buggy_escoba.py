"""A small Escoba engine written from the book alone (escoba-es.txt), with bugs that can be switched on.

It knows nothing of arbitro's model: cards are the protocol's names, the deal follows the book
(three cards each, one at a time, from the player on the dealer's right, counter-clockwise; four
face up; three more each whenever the hands are empty), seats are numbered clockwise as the
protocol says, so the player on the right of seat s is seat s - 1. It plays random choices among
what it believes legal and writes a transcript with its own legal lists and claimed scores. The
bugs are the ones independent engines were found to have:

- `forced_capture=False`: a card that can capture may be laid (Captura says it must capture);
- `first_group_only=True`: only the first capturing group is offered (the player chooses);
- `target=15`: the game ends at 15 (Ganar el juego says 21);
- `setenta_by_sum=True`: the setenta goes to the higher sum of best cards, not the book's order;
- `opening_sweep=False`: an opening table of 15 or 30 is left on the table;
- `escoba_points`, `cards_points`, `oros_points`, `velo_points`: what each is worth (1 each, say
  Escobas and Puntuación);
- `rest_to_capturer=False`: the cards left at the end stay on the table (Desarrollo del juego
  gives them to the last side that captured);
- `rest_is_escoba=True`: taking those leftovers counts as an escoba (the book says it does not);
- `missing_suit_lowest=True`: a side lacking a suit still shows a setenta, the missing suit worth
  less than any card (the book is silent: arbitro records this as a reading, not its default).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

SUITS = "ocbe"
RANKS = "1234567SCR"
VALUE = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "S": 8, "C": 9, "R": 10}
SETENTA = ["7", "6", "1", "5", "4", "3", "2", "S", "C", "R"]  # best first; figures last, alike
DECK = [r + s for s in SUITS for r in RANKS]


def order_key(card: str) -> tuple[int, int]:
    return SUITS.index(card[1]), RANKS.index(card[0])


@dataclass
class Bugs:
    forced_capture: bool = True
    first_group_only: bool = False
    target: int = 21
    setenta_by_sum: bool = False
    opening_sweep: bool = True
    escoba_points: int = 1
    cards_points: int = 1
    oros_points: int = 1
    velo_points: int = 1
    rest_to_capturer: bool = True
    rest_is_escoba: bool = False
    missing_suit_lowest: bool = False


@dataclass
class Hand:
    hands: list[list[str]]
    table: list[str]
    stock: list[str]
    piles: list[list[str]] = field(default_factory=lambda: [[], []])
    escobas: list[int] = field(default_factory=lambda: [0, 0])
    last: int | None = None


def right(seat: int) -> int:
    return (seat - 1) % 2


def deal(order: list[str], dealer: int, bugs: Bugs) -> tuple[Hand, int]:
    first = right(dealer)
    hands: list[list[str]] = [[], []]
    it = iter(order)
    for _ in range(3):
        for seat in (first, right(first)):
            hands[seat].append(next(it))
    table = [next(it) for _ in range(4)]
    h = Hand(hands, table, list(it))
    total = sum(VALUE[c[0]] for c in table)
    if bugs.opening_sweep and total in (15, 30):
        h.piles[dealer % 2] += table
        h.escobas[dealer % 2] += total // 15
        h.last = dealer % 2
        h.table = []
    return h, first


def plays(h: Hand, seat: int, bugs: Bugs) -> list[tuple[str, list[str]]]:
    out = []
    for card in sorted(h.hands[seat], key=order_key):
        need = 15 - VALUE[card[0]]
        groups = [
            sorted(g, key=order_key)
            for k in range(1, len(h.table) + 1)
            for g in itertools.combinations(sorted(h.table, key=order_key), k)
            if sum(VALUE[c[0]] for c in g) == need
        ]
        if bugs.first_group_only:
            groups = groups[:1]
        out += [(card, g) for g in groups]
        if not groups or not bugs.forced_capture:
            out.append((card, []))
    return out


def score(h: Hand, bugs: Bugs) -> list[dict[str, int]]:
    pts = [dict.fromkeys(("cards", "oros", "velo", "setenta", "escobas"), 0) for _ in range(2)]

    def sole(values: list[Any]) -> int | None:
        best = max(values)
        return values.index(best) if values.count(best) == 1 else None

    w = sole([len(p) for p in h.piles])
    if w is not None:
        pts[w]["cards"] = bugs.cards_points
    w = sole([sum(1 for c in p if c[1] == "o") for p in h.piles])
    if w is not None:
        pts[w]["oros"] = bugs.oros_points
    for side, p in enumerate(h.piles):
        pts[side]["velo"] = bugs.velo_points * int("7o" in p)
        pts[side]["escobas"] = bugs.escoba_points * h.escobas[side]
    best: list[Any] = []
    for p in h.piles:
        per_suit = [[c for c in p if c[1] == s] for s in SUITS]
        if bugs.missing_suit_lowest and any(per_suit):
            # a missing suit ranks below the figures (index 8 of the order, best first)
            ranks = sorted(min(SETENTA.index(c[0]) if c[0] not in "SCR" else 7 for c in cs)
                           if cs else 8 for cs in per_suit)  # fmt: skip
            best.append(tuple(-r for r in ranks))
        elif not all(per_suit):
            best.append(None)
        elif bugs.setenta_by_sum:
            best.append(sum(max(VALUE[c[0]] for c in cs) for cs in per_suit))
        else:
            # the book's order, best first: a lower index is better; figures are alike
            ranks = sorted(min(SETENTA.index(c[0]) if c[0] not in "SCR" else 7 for c in cs)
                           for cs in per_suit)  # fmt: skip
            best.append(tuple(-r for r in ranks))
    shown = [b for b in best if b is not None]
    if shown:
        top = max(shown)
        if best.count(top) == 1:
            pts[best.index(top)]["setenta"] = 1
    return pts


def play_game(
    seed: int, bugs: Bugs, legal_lists: bool, dealt_form: bool = False, max_hands: int = 40
) -> list[dict[str, Any]]:
    """A whole game as transcript objects (header, actions, hand lines, result)."""
    rng = random.Random(seed)
    dealer = 0
    totals = [0, 0]
    deals: list[Any] = []
    body: list[dict[str, Any]] = []
    step = 0
    for hand_no in range(max_hands):
        order = rng.sample(DECK, 40)
        h, seat = deal(order, dealer, bugs)
        if dealt_form:
            face_up = order[6:10]
            deals.append({"hands": [sorted(x, key=order_key) for x in h.hands],
                          "table": face_up, "stock": list(h.stock)})  # fmt: skip
        else:
            deals.append(order)
        while True:
            options = plays(h, seat, bugs)
            card, group = options[rng.randrange(len(options))]
            step += 1
            line: dict[str, Any] = {
                "type": "action", "step": step, "hand": hand_no, "seat": seat,
                "action": {"seat": seat, "card": card, "capture": group},
            }  # fmt: skip
            if legal_lists:
                line["legal"] = [{"seat": seat, "card": c, "capture": g} for c, g in options]
            body.append(line)
            h.hands[seat].remove(card)
            if group:
                for c in group:
                    h.table.remove(c)
                h.piles[seat % 2] += [*group, card]
                h.last = seat % 2
                if not h.table:
                    h.escobas[seat % 2] += 1
            else:
                h.table.append(card)
            seat = right(seat)
            if not any(h.hands):
                if not h.stock:
                    break
                for _ in range(3):
                    for s in (seat, right(seat)):
                        h.hands[s].append(h.stock.pop(0))
        if h.last is not None:
            h.piles[h.last] += h.table
            h.table = []
        pts = score(h, bugs)
        scores = [sum(p.values()) for p in pts]
        body.append({"type": "hand", "hand": hand_no, "scores": scores, "categories": pts})
        totals = [a + b for a, b in zip(totals, scores, strict=True)]
        reached = [s for s in totals if s >= bugs.target]
        if reached and totals.count(max(totals)) == 1:
            break
        dealer = right(dealer)
    winner = totals.index(max(totals)) if totals.count(max(totals)) == 1 else None
    body.append({"type": "result", "scores": totals, "winner": winner})
    header = {
        "type": "header", "protocol": "arbitro/1", "rulebook": "escoba-es", "options": {},
        "players": 2, "sides": 2, "layout": "", "dealer": 0, "deals": deals,
    }  # fmt: skip
    return [header, *body]
