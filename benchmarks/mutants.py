"""Mutation testing of the engine: small realistic bugs planted in a copy of model/, one at a time,
and which layer of checks notices each.

Every mutant is a textual patch of one engine file — the exact old snippet (it must occur exactly
once in the file), its replacement and a one-line description of the bug — in the spirit of the
bugs a real change to the engine could bring: a card dropped in one rare capture or pile take, a
guard skipped in one case, a wrong constant in one score category, a wrong wild cap for one meld
size, an off-by-one in dealing, a turn-order slip after a red three.

For each mutant the harness copies the repository (the files git knows, with their uncommitted
edits) to a temporary folder, applies the patch, checks that the copy runs its engine from source
(`arbitro --version` must say pure-Python: a compiled build would hide the edit), and runs two
layers against it, each on its own:

- `refine`: `arbitro prove --refine` on the mutated family's rulebooks (the guarded relation
  against `legal_actions`/`apply`, exhaustively on small configurations and sampled at full size);
- `suite`: the fast tests that exercise the engine (`tests/model`, `tests/proofs`, stopping at the
  first failure).

A layer kills a mutant when it exits with status 1 (a disagreement, a failed test); any other
status is an error of the run and is reported as such, never as a kill. Before the mutants, the
same layers run on the unmutated copy: both must pass, or the harness stops (a layer that fails on
the real engine would "kill" everything).

Usage:
    uv run python benchmarks/mutants.py                    # every mutant, both layers
    uv run python benchmarks/mutants.py --list             # the mutants, one line each
    uv run python benchmarks/mutants.py --only rummy-pile-rest-drop --layer suite
    uv run python benchmarks/mutants.py --family escoba --json mutants.json

Reported: per mutant, what each layer said and how long it took (CPU seconds of the children);
kill rates per layer and of either layer. Nothing is asserted: tests/benchmarks/test_mutants.py
checks that every snippet still occurs exactly once and runs a few mutants end to end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = Path(os.environ.get("ARBITRO_RULEBOOKS", ROOT.parent / "shared" / "rulebooks"))
FAMILY_BOOKS = {
    "escoba": ("escoba-es",),
    "rummy": ("samba-en", "samba-es", "samba-fr", "canasta-es"),
}
REFINE_SIZE = {"escoba": (20_000, 5_000), "rummy": (3_000, 1_000)}
"""Per family, the state budget of each configuration and the states sampled from full-size play
that `prove --refine` is run with in a mutant's copy: the command's walk (`proofs.refine.run`)
with smaller budgets than its defaults, so that a mutant costs a minute, not the full run's hour."""
REFINE = """
import sys
from benchmarks.mutants import refine_walk
sys.exit(refine_walk({books!r}, budget={budget}, samples={samples}))
"""
FIRST_PASS = 10
"""The refine layer's first pass walks 1/FIRST_PASS of each budget over every target, so a bug that
any target shows dies in seconds; the second pass is the whole walk (see `refine_walk`)."""
SUITE = ("tests/model", "tests/proofs")
SUITE_IGNORE = ("tests/proofs/test_mutants_harness.py",)
"""Left out of the suite layer: the harness's own tests check that every mutant's old snippet is in
the engine, which in a mutated copy fails by construction (a "kill" that says nothing of the
engine)."""
LAYERS = ("refine", "suite")


@dataclass(frozen=True)
class Mutant:
    """One planted bug: in `file`, `old` (occurring exactly once) becomes `new`."""

    name: str
    family: str  # "escoba" or "rummy"
    file: str  # relative to the repository's root
    old: str
    new: str
    about: str


def _e(name: str, file: str, old: str, new: str, about: str) -> Mutant:
    return Mutant(f"escoba-{name}", "escoba", f"model/escoba/{file}", old, new, about)


def _r(name: str, file: str, old: str, new: str, about: str) -> Mutant:
    return Mutant(f"rummy-{name}", "rummy", f"model/rummy/{file}", old, new, about)


MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------------------ Escoba: captures and play
    _e(
        "capture-three-drops-card",
        "turn.py",
        "won = cap | bit\n",
        "won = cap | bit if cap.bit_count() != 3 else (cap & (cap - 1)) | bit\n",
        "a three-card capture (two sides) loses its lowest table card",
    ),
    _e(
        "forced-capture-skipped",
        "capture.py",
        "        if not forced:\n",
        "        if not forced or (need == 5 and table.bit_count() >= 4):\n",
        "a card that needs 5 may also be laid when the table holds four cards or more",
    ),
    _e(
        "capture-overshoot",
        "capture.py",
        "            if need == 0:\n",
        "            if need <= 0:\n",
        "a group worth more than the capture sum is taken",
    ),
    _e(
        "escoba-big-sweep-uncounted",
        "turn.py",
        "escobas = (e0 + 1, e1) if side == 0 else (e0, e1 + 1)",
        "escobas = (e0 + 1, e1) if side == 0 else (e0, e1 + (cap.bit_count() < 4))",
        "the second side's sweep of four table cards or more is not an escoba",
    ),
    _e(
        "sweep-many-sides-uncounted",
        "turn.py",
        "escobas = put(escobas, side, escobas[side] + 1)\n",
        "escobas = put(escobas, side, escobas[side] + (side != 2))\n",
        "with three sides, the third side's sweeps are not escobas",
    ),
    _e(
        "last-capturer-single",
        "turn.py",
        "        last = side\n",
        "        last = side if cap.bit_count() > 1 or last < 0 else last\n",
        "a one-card capture does not make its side the last to capture",
    ),
    _e(
        "rest-to-dealer",
        "turn.py",
        "                taker = last\n",
        "                taker = dealer % state.sides\n",
        "the table's rest goes to the dealer's side, not the last capturer's",
    ),
    _e(
        "turn-order-after-capture",
        "turn.py",
        '"play", f[4], t.after[players][seat], f[6]',
        '"play", f[4], t.after[players][seat] if not cap or players != 3 else seat, f[6]',
        "with three players, a capture lets the same player play again",
    ),
    # ------------------------------------------------------------ Escoba: dealing
    _e(
        "redeal-drops-card",
        "turn.py",
        "stock[used + t.redeal_table :], piles",
        "stock[used + t.redeal_table + (len(stock) == 12) :], piles",
        "the redeal from a stock of 12 cards skips one card",
    ),
    _e(
        "deal-stock-overlap",
        "dealing.py",
        "    stock = cards[rest:]\n",
        "    stock = cards[rest - 1 :]\n",
        "the stock starts one card early: the last table card is in the stock too",
    ),
    _e(
        "sweep-to-first-player",
        "dealing.py",
        "        side = dealer % sides  # the dealer's side (Seating.side_of)\n",
        "        side = seats[0] % sides\n",
        "the opening sweep goes to the first player's side, not the dealer's",
    ),
    _e(
        "double-sweep-single",
        "dealing.py",
        "        escobas = put(escobas, side, sweeps)\n",
        "        escobas = put(escobas, side, 1)\n",
        "an opening table worth two sweeps scores one",
    ),
    # ------------------------------------------------------------ Escoba: scoring and game end
    _e(
        "tie-gives-point",
        "scoring.py",
        "    if len(leaders) == 1:\n        return leaders[0]\n",
        "    if len(leaders) >= 1:\n        return leaders[0]\n",
        "a category tied between sides gives its point to the first of them",
    ),
    _e(
        "velo-double",
        "scoring.py",
        "                velo[side] = t.velo_points\n",
        "                velo[side] = t.velo_points * (1 + (p.bit_count() > 30))\n",
        "the seven of coins scores two when its side holds more than 30 cards",
    ),
    _e(
        "cards-count-off",
        "scoring.py",
        "    counts = [p.bit_count() for p in piles]\n",
        "    counts = [p.bit_count() + (i == 1) for i, p in enumerate(piles)]\n",
        "the second side's cards are counted one too many",
    ),
    _e(
        "setenta-tie-broken",
        "scoring.py",
        "    if len(leaders) == 1:\n        seventy[leaders[0]] = t.setenta_points\n",
        "    if leaders:\n        seventy[leaders[0]] = t.setenta_points\n",
        "a tied setenta gives its point to the first tied side",
    ),
    _e(
        "target-strict",
        "turn.py",
        "        if x >= t.target_score:\n",
        "        if x > t.target_score:\n",
        "a side exactly on the target score does not end the game",
    ),
    # ------------------------------------------------------------ Samba/Canasta: the pile
    _r(
        "pile-reds-lost",
        "pile.py",
        "reds = [c for c in rest if is_red_three(c)]\n",
        "reds = [c for c in rest if is_red_three(c)][:-1]\n",
        "a red three in a taken pile is lost (the last one found)",
    ),
    _r(
        "pile-rest-bottom-lost",
        "pile.py",
        "new_hand = tuple(sorted((*new_hand, *rest)))",
        "new_hand = tuple(sorted((*new_hand, *rest[1 if len(rest) > 6 else 0 :])))",
        "a pile of eight cards or more taken to the hand loses its bottom card",
    ),
    _r(
        "pile-held-rest-lost",
        "pile.py",
        "held = tuple(sorted(rest))",
        "held = tuple(sorted(rest[1:]))",
        "the rest of a pile held aside for an opening loses its bottom card",
    ),
    _r(
        "frozen-ignores-bottom",
        "pile.py",
        "return any(frozen_by[c] for c in pile)",
        "return any(frozen_by[c] for c in pile[1:])",
        "the bottom card of the pile (the upcard) never freezes it",
    ),
    _r(
        "wild-pair-first-take",
        "pile.py",
        '    if when == "first_pile_take":\n        return state.pile_taken\n',
        '    if when == "first_pile_take":\n        return True\n',
        "a natural and a wild take the pile before anybody has taken it",
    ),
    _r(
        "wild-pair-before-opening",
        "pile.py",
        '    if when == "side_opened":\n        return opened\n',
        '    if when == "side_opened":\n        return opened or state.pile_taken\n',
        "a natural and a wild take the pile before opening once the pile was taken",
    ),
    _r(
        "pile-add-first-take",
        "pile.py",
        'return t.pile_add_after != "first_pile_take" or state.pile_taken',
        "return True",
        "the top card alone takes the pile before anybody has taken it",
    ),
    _r(
        "stock-out-take-any",
        "pile.py",
        't.stock_out == "forced_take_if_matches_meld" and not (use == "add" or joined)',
        't.stock_out == "forced_take_if_matches_meld" and not (use != "escalera" or joined)',
        "with the stock exhausted, a new set from the pile also takes it",
    ),
    # ------------------------------------------------------------ Samba/Canasta: melds
    _r(
        "wild-cap-big-sets",
        "melds.py",
        '    if w > t.wild_cap:\n        return "wild_cap"\n',
        '    if w > t.wild_cap + (n + w > 7):\n        return "wild_cap"\n',
        "a set past seven cards may hold one wild more than the cap",
    ),
    _r(
        "wilds-vs-naturals-off",
        "melds.py",
        '    if t.wilds_at_most_naturals and w > n:\n        return "wilds_at_most_naturals"\n'
        "    return None\n",
        '    if t.wilds_at_most_naturals and w > n + 1:\n        return "wilds_at_most_naturals"\n'
        "    return None\n",
        "a set may hold one wild more than its naturals",
    ),
    _r(
        "set-lay-size",
        "tables.py",
        "set_lay=max(rules.set_min, rules.set_start_min_naturals),",
        "set_lay=max(rules.set_min, rules.set_start_min_naturals) + 1,",
        "a new set is laid with one card more than its minimum",
    ),
    _r(
        "sequence-min-short",
        "melds.py",
        "    if len(cards) < t.sequence_min:\n",
        "    if len(cards) < t.sequence_min - 1:\n",
        "an escalera one card short of the minimum is a meld",
    ),
    _r(
        "sequence-max-grows",
        "melds.py",
        '        if size >= t.sequence_max:\n            return "sequence_max"\n',
        '        if size > t.sequence_max:\n            return "sequence_max"\n',
        "an escalera at its maximum takes one card more",
    ),
    _r(
        "sequence-gap",
        "melds.py",
        "if p == -1 or (p != lo - 1 and p != hi + 1):",
        "if p == -1 or (p != lo - 1 and p != hi + 1 and p != hi + 2):",
        "a card two places above an escalera's top joins it, leaving a gap",
    ),
    _r(
        "completed-growth-wild",
        "melds.py",
        '            if g == "naturals" and wild:\n',
        '            if g == "naturals" and wild and size > t.completed:\n',
        "a finished canasta that grows only by naturals takes one wild",
    ),
    _r(
        "wild-meld-grows",
        "melds.py",
        '        if size >= t.completed:\n            return "completed_size"\n        return None\n',
        '        if size > t.completed:\n            return "completed_size"\n        return None\n',
        "a finished wild meld takes one wild more",
    ),
    _r(
        "black-three-one-wild",
        "melds.py",
        "        if w and not t.black_three_meld_wilds:\n",
        "        if w > 1 and not t.black_three_meld_wilds:\n",
        "a black-three meld may hold one wild where the book forbids wilds in it",
    ),
    _r(
        "merge-finished",
        "melds.py",
        "    if len(a.cards) >= t.completed or len(b.cards) >= t.completed:\n",
        "    if len(a.cards) >= t.completed:\n",
        "an unfinished set may be merged into a finished one",
    ),
    # ------------------------------------------------------------ Samba/Canasta: stock and turn
    _r(
        "draw-short-drops",
        "stock.py",
        "hand = inserted_top(s.hands[s.seat], stock, want)",
        "hand = inserted_top(s.hands[s.seat], stock, min(want, 1 + (len(stock) > 3)))",
        "a two-card draw from a stock of three cards or fewer keeps only one",
    ),
    _r(
        "draw-two-reds-one-lost",
        "stock.py",
        "        if is_red_three(c):\n            reds.append(c)\n",
        "        if is_red_three(c):\n            reds.extend([c] if not reds else [])\n",
        "the second red three met in one draw is lost",
    ),
    _r(
        "last-red-no-stop",
        "stock.py",
        "            last_red = pos == len(stock)\n",
        "            last_red = False\n",
        "a red three drawn as the stock's last card does not stop play",
    ),
    _r(
        "red-three-turn-slip",
        "stock.py",
        "        s2 = after_draw(s, hands, rest, with_reds(s.table, seat % s.sides, laid), stop)\n",
        "        s2 = replaced(\n"
        "            after_draw(s, hands, rest, with_reds(s.table, seat % s.sides, laid), stop),\n"
        "            seat=(s.seat + 1) % s.players,\n"
        "        )\n",
        "after drawing a red three the next player plays the turn",
    ),
    _r(
        "discard-two-skips",
        "turn.py",
        "return begin_turn(t, s, (s.seat + 1) % s.players, with_hand(s, hand), s.pile + top)",
        "return begin_turn(t, s, (s.seat + 1 + (card < 4)) % s.players, with_hand(s, hand),"
        " s.pile + top)",
        "discarding a two skips the next player",
    ),
    # ------------------------------------------------------------ Samba/Canasta: the deal
    _r(
        "deal-stock-overlap",
        "dealing.py",
        "    stock = list(order[need:])\n",
        "    stock = list(order[need - 1 :])\n",
        "the stock starts one card early: the last card dealt is in the stock too",
    ),
    _r(
        "deal-red-for-red-lost",
        "dealing.py",
        "                if is_red_three(c):\n                    reds[side].append(c)\n",
        "                if is_red_three(c):\n                    pass\n",
        "a red three drawn to replace a red three at the deal is lost",
    ),
    _r(
        "upcard-cover-once",
        "dealing.py",
        "while t.cover[pile[-1]] and pos < len(stock):",
        "if t.cover[pile[-1]] and pos < len(stock):",
        "an upcard is covered once only, even by another card that must be covered",
    ),
    # ------------------------------------------------------------ Samba/Canasta: opening, going out
    _r(
        "opening-strict",
        "opening.py",
        "return opening_points(t, state) >= minimum_of(t, state)",
        "return opening_points(t, state) > minimum_of(t, state)",
        "an opening exactly at the minimum does not open",
    ),
    _r(
        "go-out-canastas-short",
        "going_out.py",
        "    if done < t.go_out_min_completed:\n",
        "    if done < t.go_out_min_completed - 1:\n",
        "a player goes out by discarding with one finished meld fewer than required",
    ),
    # ------------------------------------------------------------ Samba/Canasta: scoring
    _r(
        "red-threes-all-off",
        "red_threes.py",
        "return rules.red_three_all if count == total else count * rules.red_three_each",
        "return rules.red_three_all if count >= total - 1 else count * rules.red_three_each",
        "three of the four red threes score as all four",
    ),
    _r(
        "dirty-big-canasta-clean",
        "scoring.py",
        "r.bonus_clean_canasta if is_clean(m) else r.bonus_dirty_canasta",
        "r.bonus_clean_canasta if is_clean(m) or len(m.cards) > 7 else r.bonus_dirty_canasta",
        "a dirty canasta past seven cards scores as a clean one",
    ),
    _r(
        "samba-bonus",
        "scoring.py",
        "                    canastas += r.bonus_samba\n",
        "                    canastas += r.bonus_clean_canasta\n",
        "a finished escalera scores the clean-canasta bonus",
    ),
    _r(
        "held-not-counted",
        "scoring.py",
        "                for x in state.held:\n",
        "                for x in ():\n",
        "the rest of a pile held aside is not counted against the hand",
    ),
    _r(
        "stock-out-melds",
        "scoring.py",
        "if went < 0 or i == went or r.score_losing_melds:",
        "if i == went or r.score_losing_melds:",
        "when the stock runs out, the melds of sides that keep them score nothing",
    ),
    _r(
        "going-out-second-side",
        "scoring.py",
        "        if i == went:\n            going_out = r.bonus_going_out\n",
        "        if i == went:\n            going_out = r.bonus_going_out - 100 * i\n",
        "the going-out bonus of the second side is 100 short",
    ),
    _r(
        "all-blacks-melded",
        "scoring.py",
        "if i == went and melded_blacks == blacks_total:",
        "if i == went and melded_blacks >= blacks_total - 1:",
        "all but one black three melded earns the all-black-threes bonus",
    ),
    _r(
        "target-strict",
        "scoring.py",
        'return score >= r.target_score if r.target_rule == "reach" else score > r.target_score',
        'return score > r.target_score if r.target_rule == "reach" else score > r.target_score',
        "a side exactly on the target does not end the game",
    ),
)


# ---------------------------------------------------------------- the refine layer's walk


def refine_walk(books: Sequence[str], *, budget: int, samples: int) -> int:
    """`prove --refine`'s walk of these rulebooks (`proofs.refine.run`: every explorer
    configuration of the books, `budget` states each; `samples` states of full-size play per
    book over its seatings; the family's kept hands, and those under the books' other readings),
    reordered so that a broken engine is caught
    early, and stopped at the first disagreement (exit 1; 0 when everything agrees).

    First pass: 1/FIRST_PASS of every budget — sampled play of every seating (its seeded prefix),
    the kept hands, the first states of every configuration. Second pass: the whole walk (the
    sampled play and configurations again with their full budgets; the sampled play is seeded, so
    the first pass was a prefix of it). Every check of the command's walk is run, cheap ones
    first; nothing is left out."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs import refine
    from arbitro.proofs.explore_config import config_names, load_config, model_of

    checks: dict[Any, Any] = {}

    def check_for(key: Any, rules: Any, seating: Any) -> Any:
        if key not in checks:
            checks[key] = refine.refiner_for(rules, seating)
        return checks[key]

    def said(rep: Any, stage: str) -> int:
        how = "agree" if rep.ok else rep.unavailable or f"{rep.first.kind}: {rep.first.detail}"
        print(f"{stage}: {rep.target}: {rep.states} states: {how}"[:600], flush=True)
        if rep.unavailable:
            return 2
        return 0 if rep.ok else 1

    configs = [c for c in (load_config(n) for n in config_names()) if c.rulebook in books]
    plays = []
    for book in books:
        rules = rules_for(book)
        model = refine._model_for(book)
        seatings = list(model.seatings(rules))
        plays += [(book, rules, model, s, max(1, samples // len(seatings))) for s in seatings]
    for stage, part in (("first pass", FIRST_PASS), ("whole walk", 1)):
        for book, rules, model, seating, n in plays:
            label = f"{book}, {seating.players} players in {seating.sides} sides"
            check = check_for((book, seating), rules, seating)
            rep = refine.sampled(
                model, rules, seating, max(1, n // part), rulebook=book,
                target=f"{label} (sampled)", check=check,
            )  # fmt: skip
            if code := said(rep, stage):
                return code
            if part != 1:
                kept = refine.directed(
                    model, rules, seating, rulebook=book, target=f"{label} (kept hands)",
                    check=check,
                )  # fmt: skip
                if kept is not None and (code := said(kept, stage)):
                    return code
                for other in refine.under_readings(model, rules, seating, rulebook=book):
                    if code := said(other, stage):
                        return code
        for cfg in configs:
            model = model_of(cfg)
            check = check_for(cfg.name, cfg.rules, cfg.seating)
            orders, how = refine.orders_for(model, cfg.rules, cfg.seating, None)
            rep = refine.exhaustive(
                model, cfg.rules, cfg.seating, orders, rulebook=cfg.rulebook,
                options=cfg.options, config=cfg.name, check=check, target=cfg.name,
                budget=None if how == "every deal" and part == 1 else budget // part,
                max_states=budget // part,
            )  # fmt: skip
            if code := said(rep, stage):
                return code
    return 0


# ---------------------------------------------------------------- spec mutants


@dataclass(frozen=True)
class SpecMutant:
    """One changed rule: in spec/`book`.toml, the value of the clause `key` becomes `value` (a
    TOML literal). It is proved as a spec of its own (`arbitro prove --spec FILE`)."""

    name: str
    book: str
    key: str
    value: str
    about: str


def _s(book: str, key: str, value: str, about: str, tag: str = "") -> SpecMutant:
    return SpecMutant(f"{book}-{key.replace('_', '-')}{tag}", book, key, value, about)


SPEC_MUTANTS: tuple[SpecMutant, ...] = (
    # wild limits
    _s("samba-en", "wild_cap", "3", "a set may hold three wilds (the book: two)", "-up"),
    _s("samba-en", "wild_cap", "1", "a set may hold one wild only (the book: two)", "-down"),
    _s("canasta-es", "wild_cap", "2", "a set may hold two wilds only (the book: three)"),
    _s("samba-fr", "wilds_at_most_naturals", "false", "a set may hold more wilds than naturals"),
    # meld minimums and sizes
    _s("samba-en", "set_min", "4", "a set needs four cards (the book: three)"),
    _s("samba-en", "sequence_min", "4", "an escalera needs four cards (the book: three)"),
    _s("samba-en", "sequence_max", "8", "an escalera holds eight cards (the book: seven)"),
    _s(
        "canasta-es", "set_start_min_naturals", "1", "a set starts with one natural (the book: two)"
    ),
    _s(
        "canasta-es",
        "wild_meld_min_start",
        "4",
        "a wild meld starts with four wilds (the book: five)",
    ),
    _s("samba-en", "completed_size", "6", "a canasta is six cards (the book: seven)"),
    # score values
    _s(
        "samba-en",
        "card_points",
        "{ joker = 40, two = 20, ace = 20, high = 10, low = 5, black_three = 5 }",
        "a joker counts 40 (the book: 50)",
    ),
    _s("samba-en", "bonus_samba", "450", "a samba scores 450 (the book: 500)"),
    _s("canasta-es", "bonus_dirty_canasta", "305", "a dirty canasta scores 305 (the book: 300)"),
    _s("canasta-es", "red_three_each", "90", "a red three scores 90 (the book: 100)"),
    _s(
        "canasta-es",
        "black_three_hand_penalty",
        "100",
        "a black three left in hand costs 100 (the book: 95)",
    ),
    _s("escoba-es", "velo_points", "2", "the seven of coins scores two (the book: one)"),
    _s("escoba-es", "escoba_points", "2", "an escoba scores two (the book: one)"),
    _s("escoba-es", "setenta_points", "2", "the setenta scores two (the book: one)"),
    # capture target, dealing, game end
    _s("escoba-es", "capture_sum", "14", "a capture makes 14 (the book: 15)"),
    _s("escoba-es", "capture_sum", "16", "a capture makes 16 (the book: 15)", "-up"),
    _s("escoba-es", "table_initial", "5", "five cards to the table at the deal (the book: four)"),
    _s("escoba-es", "hand_size", "4", "four cards to each hand (the book: three)"),
    _s("escoba-es", "target_score", "15", "the game is to 15 (the book: 21)"),
)


def spec_text(book: str, key: str | None, value: str, new_id: str, root: Path = ROOT) -> str:
    """The book's spec with the first `value = ...` line after `key = "KEY"` (the clause's own
    value, before its readings) replaced, and its id changed to `new_id`."""
    text = (root / "spec" / f"{book}.toml").read_text(encoding="utf-8")
    old_id = f'id = "{book}"\n'
    if text.count(old_id) < 1:
        raise MutantError(f"spec/{book}.toml: no line {old_id.strip()!r}")
    text = text.replace(old_id, f'id = "{new_id}"\n', 1)
    if key is None:
        return text
    at = text.find(f'\nkey = "{key}"\n')
    if at < 0:
        raise MutantError(f"spec/{book}.toml: no clause with key {key!r}")
    start = text.find("\nvalue = ", at)
    nxt = text.find("\n[[clause]]", at + 1)
    if start < 0 or (0 <= nxt < start):
        raise MutantError(f"spec/{book}.toml: the clause {key!r} has no value line")
    end = text.find("\n", start + 1)
    while text[end + 1 : end + 2] in (" ", "]", "}") and end + 1 < len(
        text
    ):  # a value on many lines
        end = text.find("\n", end + 1)
    return text[: start + 1] + f"value = {value}" + text[end:]


LAST_PROPERTIES = ("hand-scores",)
"""Properties proved after the others, each alone with its own limit of CPU seconds
(`--property-cpu`: CPU, not wall time, so that a loaded machine does not cut it short).
`hand-scores` replays its kept hands, and searches from scratch for the scores they do not show:
the hands are kept for the book's own id and rules, so a spec mutant (an id of its own, one rule
changed) has none, and under a changed capture sum the search can run for hours where under the
book's it takes a minute. A property that runs out of time is recorded as `unfinished` in the
row (its checks counted neither way); the mutant is judged on the checks that finished."""
PROPERTY_CPU = 300


def prove_spec(
    path: Path, timeout: float, properties: Sequence[str] = (), cpu: int | None = None
) -> tuple[Outcome, list[dict[str, Any]]]:
    """`arbitro prove --spec FILE --json --jobs 1` on a spec file (only `properties`, when named;
    stopped after `cpu` seconds of CPU, when given): the outcome (status "ran" or "error") and
    the results."""
    code = cli(ROOT)
    if cpu is not None:
        code = (
            f"import resource; resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu + 10})); {code}"
        )
    with tempfile.TemporaryDirectory(prefix="arbitro-specmut-") as tmp:
        out = Path(tmp) / "out.json"
        args = ["-c", code, "prove", "--spec", str(path), "--json", "--jobs", "1"]
        for name in properties:
            args += ["--property", name]
        got = _run(ROOT, args, timeout, stdout=out)
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Outcome("error", got.seconds, got.detail), []
    return Outcome("ran", got.seconds, ""), list(data.get("results", []))


def prove_spec_in_parts(
    path: Path, timeout: float, property_cpu: int
) -> tuple[Outcome, list[dict[str, Any]], list[str]]:
    """Every property but LAST_PROPERTIES in one run, then each of those alone, stopped after
    `property_cpu` seconds of CPU (each run also after `timeout` seconds of wall time): the
    outcome of the whole (CPU summed; "error" when the first run failed), the results, and the
    last properties that did not finish."""
    from arbitro.proofs.properties import names

    first = [n for n in names() if n not in LAST_PROPERTIES]
    o, results = prove_spec(path, timeout, first)
    spent, unfinished = o.seconds, []
    if o.status == "error":
        return o, results, []
    for name in LAST_PROPERTIES:
        got, more = prove_spec(path, timeout, [name], property_cpu)
        spent += got.seconds
        if got.status == "error":
            unfinished.append(name)
        results += more
    return Outcome("ran", spent, ""), results, unfinished


def verdicts(results: Sequence[dict[str, Any]]) -> dict[str, tuple[str, bool]]:
    """Each check's verdict and whether it carries a witness, as "property/check"."""
    out: dict[str, tuple[str, bool]] = {}
    for r in results:
        for c in r.get("checks", []):
            out[f"{r['property']}/{c['name']}"] = (c["verdict"], "witness" in c)
    return out


def run_spec_mutants(
    chosen: Sequence[SpecMutant],
    timeout: float,
    jobs: int,
    done: Callable[[list[dict[str, Any]]], None] | None = None,
    property_cpu: int = PROPERTY_CPU,
) -> list[dict[str, Any]]:
    """Each book's spec renamed and unchanged (the baseline), then each mutant: the checks that
    are REFUTED with a witness on the mutant and were not on the baseline (of the properties
    that finished on both: see LAST_PROPERTIES). `done` is given the rows so far as each mutant
    ends."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="arbitro-specmut-") as tmp:

        def prove_one(
            book: str, m: SpecMutant | None
        ) -> tuple[Outcome, list[dict[str, Any]], list[str]]:
            new_id = f"{book}-{'base' if m is None else 'm' + str(SPEC_MUTANTS.index(m))}"
            path = Path(tmp) / f"{new_id}.toml"
            text = spec_text(
                book, None if m is None else m.key, "" if m is None else m.value, new_id
            )
            path.write_text(text, encoding="utf-8")
            return prove_spec_in_parts(path, timeout, property_cpu)

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            books = sorted({m.book for m in chosen})
            base = {b: pool.submit(prove_one, b, None) for b in books}
            runs = {m: pool.submit(prove_one, m.book, m) for m in chosen}
            base_v = {}
            base_left: dict[str, list[str]] = {}
            for b, f in base.items():
                o, res, left = f.result()
                base_v[b], base_left[b] = verdicts(res), left
                print(f"baseline {b}: {o.status} in {o.seconds:.0f}s: " + ", ".join(
                    f"{k} {v[0]}" for k, v in base_v[b].items())
                    + "".join(f"; {x} unfinished" for x in left), flush=True)  # fmt: skip
            for m, f in runs.items():
                o, res, left = f.result()
                gone = (*left, *base_left[m.book])  # a property unfinished on either side
                got = {k: v for k, v in verdicts(res).items() if k.split("/")[0] not in gone}
                was = base_v[m.book]
                turned = sorted(k for k, (v, w) in got.items()
                                if v == "REFUTED" and w and was.get(k, ("",))[0] != "REFUTED")  # fmt: skip
                changed = sorted(f"{k} {was.get(k, ('absent',))[0]}->{v}"
                                 for k, (v, _) in got.items() if was.get(k, ("",))[0] != v)  # fmt: skip
                status = "error" if o.status == "error" else "killed" if turned else "survived"
                row = {"name": m.name, "book": m.book, "key": m.key, "value": m.value,
                       "about": m.about, "status": status, "refuted": turned,
                       "changed": changed, "cpu_seconds": round(o.seconds, 1),
                       "detail": o.detail}  # fmt: skip
                if gone:
                    row["unfinished"] = sorted(set(gone))
                    row["property_cpu"] = property_cpu
                rows.append(row)
                if done is not None:
                    done(rows)
                print(f"{m.name:40} {status} ({o.seconds:.0f}s): "
                      + (", ".join(turned) or "no property REFUTED") + (f" [{o.detail}]" if o.detail else ""),
                      flush=True)  # fmt: skip
    return rows


# ---------------------------------------------------------------- patching


class MutantError(ValueError):
    """A mutant that no longer applies (its snippet is missing or not unique)."""


def snippet_problems(root: Path = ROOT, mutants: Iterable[Mutant] = MUTANTS) -> list[str]:
    """One line per mutant whose old snippet does not occur exactly once, or whose name is a
    duplicate: the list must follow the engine as it changes."""
    out: list[str] = []
    seen: set[str] = set()
    for m in mutants:
        if m.name in seen:
            out.append(f"{m.name}: the name is used twice")
        seen.add(m.name)
        path = root / m.file
        if not path.is_file():
            out.append(f"{m.name}: {m.file} does not exist")
            continue
        n = path.read_text(encoding="utf-8").count(m.old)
        if n != 1:
            out.append(f"{m.name}: the old snippet occurs {n} times in {m.file}, not once")
        if m.old == m.new:
            out.append(f"{m.name}: the new snippet is the old one")
    return out


def apply_mutant(copy: Path, m: Mutant) -> None:
    path = copy / m.file
    text = path.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        raise MutantError(f"{m.name}: the old snippet occurs {text.count(m.old)} times in {m.file}")
    path.write_text(text.replace(m.old, m.new), encoding="utf-8")


def copy_tree(root: Path, dest: Path) -> Path:
    """The repository's files as git knows them (tracked and new, with their edits) in `dest`;
    symlinks (arbitro/model, arbitro/proofs) stay links, relative to the copy."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = raw.decode()
        src = root / rel
        if rel.startswith("arbitro/_compiled") or not (src.is_file() or src.is_symlink()):
            continue  # the compiled build is never run in a copy; a deleted file is gone
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            out.symlink_to(os.readlink(src))
        else:
            shutil.copy2(src, out)
    return dest


# ---------------------------------------------------------------- running the layers


@dataclass
class Outcome:
    """What one layer said of one copy: "killed", "survived" or "error" (with its reason)."""

    status: str
    seconds: float
    detail: str = ""


def _env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ARBITRO_NATIVE"] = "0"
    env["PYTHONPATH"] = str(copy)
    env["ARBITRO_RULEBOOKS"] = str(RULEBOOKS)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def cli(copy: Path) -> str:
    """Python code running the copy's `arbitro` command (its entry point in pyproject.toml)."""
    with (copy / "pyproject.toml").open("rb") as f:
        module, _, func = tomllib.load(f)["project"]["scripts"]["arbitro"].partition(":")
    return f"import sys; from {module} import {func}; sys.exit({func}())"


def engine_line(copy: Path) -> str:
    """`arbitro --version` as run in the copy (it must name the pure-Python engine)."""
    got = subprocess.run(
        [sys.executable, "-c", cli(copy), "--version"],
        cwd=copy,
        env=_env(copy),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return (got.stdout + got.stderr).strip()


LIVE: set[int] = set()
COPIES: set[str] = set()
"""The temporary folders holding the mutated copies under way."""
"""The layer runs under way, each the leader of its own process group (in this process's session,
so they share its scheduling group and niceness: the whole run counts as one job to the kernel)."""


def _stop_live(signum: int, _frame: Any) -> None:
    """On SIGTERM or SIGINT, stop every layer run under way (process groups of their own, so a
    signal to this one does not reach them), then exit."""
    for pid in list(LIVE):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    for tmp in list(COPIES):  # os._exit skips the temporary folders' own clean-up
        shutil.rmtree(tmp, ignore_errors=True)
    os._exit(128 + signum)


def _run(copy: Path, args: Sequence[str], timeout: float, stdout: Path | None = None) -> Outcome:
    """Run `python args` in the copy; its CPU is its own and its waited-for children's
    (`os.wait4` of this one process, so layers running side by side are counted apart)."""
    with tempfile.TemporaryFile() as log, open(stdout or os.devnull, "wb") as out:
        p = subprocess.Popen(
            [sys.executable, *args], cwd=copy, env=_env(copy), stdout=out if stdout else log,
            stderr=log if stdout else subprocess.STDOUT, stdin=subprocess.DEVNULL,
            process_group=0,
        )  # fmt: skip
        LIVE.add(p.pid)
        deadline = time.monotonic() + timeout
        late = False
        try:
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    late = True
                    os.killpg(p.pid, signal.SIGKILL)
                    pid, status, usage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.2)
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            os.wait4(p.pid, 0)
            raise
        finally:
            LIVE.discard(p.pid)
            p.returncode = -1  # reaped here: Popen must not wait for it again
        spent = usage.ru_utime + usage.ru_stime
        log.seek(0)
        text = log.read().decode(errors="replace")
    if late:
        return Outcome("error", spent, f"no answer within {timeout:g} s")
    code = os.waitstatus_to_exitcode(status)
    tail = [x for x in text.strip().splitlines() if x.strip()][-3:]
    detail = " | ".join(tail)[-400:]
    if code == 0:
        return Outcome("survived", spent, detail)
    if code == 1:
        return Outcome("killed", spent, detail)
    return Outcome("error", spent, f"exit {code}: {detail}")


def run_refine(
    copy: Path, family: str, extra: Sequence[str], timeout: float, books: Sequence[str] = ()
) -> Outcome:
    """`prove --refine` of the family's rulebooks (or of `books` among them), as the command walks
    them (see REFINE_SIZE); `extra` arguments, if any, run the command itself with them instead."""
    chosen = [b for b in FAMILY_BOOKS[family] if not books or b in books] or FAMILY_BOOKS[family]
    if extra:
        args = ["-c", cli(copy), "prove", "--refine", *chosen, *extra]
    else:
        budget, samples = REFINE_SIZE[family]
        code = REFINE.format(books=list(chosen), samples=samples, budget=budget)
        args = ["-c", code]
    return _run(copy, args, timeout)


def suite_order(tests: Sequence[str], family: str) -> list[str]:
    """The default suite with the mutated family's engine tests first, then the proofs' tests,
    then the other families' (the same tests: with -x, a killed mutant stops sooner)."""
    if tuple(tests) != SUITE:
        return list(tests)
    others = [f"tests/model/{f}" for f in sorted(FAMILY_BOOKS) if f != family]
    return [f"tests/model/{family}", "tests/proofs", *others]


def suite_args(tests: Sequence[str]) -> list[str]:
    """The pytest command line of the suite layer (the harness's own tests left out)."""
    return [
        "-m",
        "pytest",
        *tests,
        *(f"--ignore={x}" for x in SUITE_IGNORE),
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        "0",
        "-m",
        "not slow",
    ]


def run_suite(copy: Path, tests: Sequence[str], timeout: float) -> Outcome:
    return _run(copy, suite_args(tests), timeout)


@dataclass
class Row:
    mutant: Mutant
    outcomes: dict[str, Outcome]


def run_one(
    m: Mutant | None,
    family: str,
    layers: Sequence[str],
    *,
    root: Path = ROOT,
    tests: Sequence[str] = SUITE,
    refine_args: Sequence[str] = (),
    timeout: float = 1800.0,
    books: Sequence[str] = (),
) -> dict[str, Outcome]:
    """Copy the repository, plant `m` (None: the unmutated control), run the layers."""
    with tempfile.TemporaryDirectory(prefix="arbitro-mutant-") as tmp:
        COPIES.add(tmp)
        try:
            return _run_layers(
                m, family, layers, Path(tmp), root, tests, refine_args, timeout, books
            )
        finally:
            COPIES.discard(tmp)


def _run_layers(
    m: Mutant | None, family: str, layers: Sequence[str], tmp: Path, root: Path,
    tests: Sequence[str], refine_args: Sequence[str], timeout: float, books: Sequence[str],
) -> dict[str, Outcome]:  # fmt: skip
    copy = copy_tree(root, tmp / "repo")
    if m is not None:
        apply_mutant(copy, m)
    line = engine_line(copy)
    if "pure-Python" not in line:
        return {x: Outcome("error", 0.0, f"the copy does not run from source: {line}") for x in layers}  # fmt: skip
    out: dict[str, Outcome] = {}
    for layer in layers:
        if layer == "refine":
            out[layer] = run_refine(copy, family, refine_args, timeout, books)
        else:
            out[layer] = run_suite(copy, suite_order(tests, family), timeout)
    return out


def _rate(rows: Sequence[Row], layer: str | None) -> str:
    if layer is None:
        killed = sum(any(o.status == "killed" for o in r.outcomes.values()) for r in rows)
    else:
        killed = sum(r.outcomes[layer].status == "killed" for r in rows if layer in r.outcomes)
    return f"{killed}/{len(rows)} ({100.0 * killed / max(len(rows), 1):.0f}%)"


def render(rows: Sequence[Row], layers: Sequence[str]) -> str:
    head = f"{'mutant':36} " + " ".join(f"{x:>16}" for x in layers)
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = " ".join(
            f"{r.outcomes[x].status + f' {r.outcomes[x].seconds:5.0f}s':>16}" for x in layers
        )
        lines.append(f"{r.mutant.name:36} {cells}")
    lines.append("")
    for x in layers:
        lines.append(f"killed by {x} alone: {_rate(rows, x)}")
    if len(layers) > 1:
        lines.append(f"killed by either: {_rate(rows, None)}")
    survivors = [r for r in rows if not any(o.status == "killed" for o in r.outcomes.values())]
    for r in survivors:
        lines.append(f"survived every layer: {r.mutant.name}: {r.mutant.about}")
    for r in rows:
        for x, o in r.outcomes.items():
            if o.status == "error":
                lines.append(f"error: {r.mutant.name} {x}: {o.detail}")
    return "\n".join(lines)


def _cell(o: dict[str, Any] | None, usual: str = "") -> str:
    """A layer's outcome for the table; for a refine kill, the row that caught it (its kind, the
    walk's target and pass); the run it comes from when that is not the `usual` one."""
    if o is None:
        return "not run"
    how = str(o["status"])
    last = str(o.get("detail", "")).split(" | ")[-1]
    parts = last.split(": ")
    if how == "killed" and len(parts) >= 4 and parts[0] in ("first pass", "whole walk"):
        how += f" ({parts[3]}: {parts[1]}, {parts[0]})"
    failed = re.search(r"(test_\w+\.py::[\w\[\]\-]+)", str(o.get("detail", "")))
    if how == "killed" and failed:
        how += f" (`{failed.group(1)}`)"
    if o.get("run") and o["run"] != usual:
        how += f" [{o['run']}]"
    return how


def summary(engine: Sequence[dict[str, Any]], spec: Sequence[dict[str, Any]]) -> list[str]:
    """The kill rates of the recorded rows as markdown bullets: per layer of the rows it ran on,
    its survivors and the mutants it did not run on; then the spec mutants caught."""

    def names(rows: Iterable[dict[str, Any]]) -> str:
        return ", ".join(f"`{r['name']}`" for r in rows) or "none"

    out: list[str] = []
    for x, target in (("refine", 95), ("suite", 100)) if engine else ():
        ran = [r for r in engine if x in r and r[x]["status"] != "error"]
        killed = [r for r in ran if r[x]["status"] == "killed"]
        pct = 100.0 * len(killed) / max(len(ran), 1)
        out.append(
            f"- killed by `{x}`{' alone' if x == 'refine' else ''}: **{len(killed)} of "
            f"{len(ran)}** run ({pct:.0f}%; target {target}%); survived: "
            + names(r for r in ran if r[x]["status"] != "killed")
        )
        errors = [r for r in engine if x in r and r[x]["status"] == "error"]
        if errors:
            out.append(f"- an error of the run in `{x}` (not counted): {names(errors)}")
        missing = [r for r in engine if x not in r]
        if missing:
            out.append(f"- **not run** against `{x}`: {names(missing)}")
    both = [r for r in engine if all(x in r for x in LAYERS)]
    either = [r for r in engine if any(r[x]["status"] == "killed" for x in LAYERS if x in r)]
    out += (
        []
        if not engine
        else [
            f"- killed by either layer: {len(either)} of the {len(engine)} mutants; both layers run "
            f"on {len(both)} of them; survived both: "
            + names(r for r in both if all(r[x]["status"] == "survived" for x in LAYERS))
        ]
    )
    if spec:
        caught = [r for r in spec if r["status"] == "killed"]
        proved = [r for r in spec if r["status"] != "error"]
        out.append(
            f"- spec mutants caught (a check REFUTED with a witness that the baseline does not "
            f"refute): **{len(caught)} of {len(proved)}** run: {names(caught)}"
        )
        refused = [r for r in spec if r["status"] == "error"]
        if refused:
            out.append(
                "- spec mutants refused before any property is proved (an error of the run, not "
                "counted): " + ", ".join(f"`{r['name']}` ({_refusal(r)})" for r in refused)
            )
        ran = {r["name"] for r in spec}
        unrun = [m for m in SPEC_MUTANTS if m.name not in ran]
        if unrun:
            out.append("- spec mutants **not run**: " + ", ".join(f"`{m.name}`" for m in unrun))
    return [*out, ""] if out else out


def _refusal(row: dict[str, Any]) -> str:
    """Why a spec mutant's run ended in error: its last message, without the file's path."""
    detail = str(row.get("detail", "")).split(" | ")[-1]
    return detail.split(".toml: ", 1)[-1].removeprefix("arbitro: error: ") or "no detail"


def markdown(engine: Sequence[dict[str, Any]], spec: Sequence[dict[str, Any]]) -> str:
    """The recorded runs as the tables of docs/proofs.md's mutation section (a table per
    non-empty run)."""
    lines: list[str] = []
    runs = Counter(r[x]["run"] for r in engine for x in LAYERS if x in r and r[x].get("run"))
    usual = runs.most_common(1)[0][0] if runs else ""
    lines += summary(engine, spec)
    if engine:
        lines += ["| mutant | what it breaks | `refine` | suite | CPU s (refine + suite) |",
                  "|---|---|---|---|---|"]  # fmt: skip
    for r in engine:
        cpu = " + ".join(f"{r[x]['cpu_seconds']:.0f}" if x in r else "-" for x in LAYERS)
        lines.append(f"| `{r['name']}` | {r['about']} | {_cell(r.get('refine'), usual)} | "
                     f"{_cell(r.get('suite'), usual)} | {cpu} |")  # fmt: skip
    if engine and spec:
        lines.append("")
    if spec:
        lines += [
            "| spec mutant | the change | checks turned REFUTED | CPU s |",
            "|---|---|---|---|",
        ]
        spec_runs = Counter(s["run"] for s in spec if s.get("run"))
        spec_usual = spec_runs.most_common(1)[0][0] if spec_runs else ""
        for s in spec:
            got = ", ".join(f"`{x}`" for x in s["refuted"]) or (
                "none" if s["status"] == "survived" else s["status"]
            )
            if s.get("unfinished"):
                got += "; " + ", ".join(
                    f"`{x}` unfinished in {s.get('property_cpu', PROPERTY_CPU)} s of CPU"
                    for x in s["unfinished"]
                )
            if s.get("run") and s["run"] != spec_usual:
                got += f" [{s['run']}]"
            lines.append(f"| `{s['name']}` | {s['about']} | {got} | {s['cpu_seconds']:.0f} |")
    return "\n".join(lines)


def spec_main(args: argparse.Namespace) -> int:
    chosen = [m for m in SPEC_MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name:44} {m.about}")
        return 0
    for m in chosen:
        try:
            spec_text(m.book, m.key, m.value, "x")
        except MutantError as e:
            print(f"mutants.py: {e}", file=sys.stderr)
            return 2
    if args.json and Path(args.json).exists() and not args.force:
        print(f"mutants.py: {args.json} exists; --force overwrites it", file=sys.stderr)
        return 2
    started = time.time()

    def write(rows: list[dict[str, Any]]) -> None:
        if args.json:
            from arbitro.safe_write import write_text

            write_text(args.json, json.dumps(rows, indent=2) + "\n", force=True)

    rows = run_spec_mutants(chosen, args.timeout, args.jobs, write, args.property_cpu)
    killed = sum(r["status"] == "killed" for r in rows)
    print(f"\nspec mutants turning a property REFUTED with a witness: {killed}/{len(rows)} "
          f"({100.0 * killed / max(len(rows), 1):.0f}%) in {time.time() - started:.0f} s of wall time")  # fmt: skip
    for r in rows:
        if r["status"] != "killed":
            print(f"{r['status']}: {r['name']}: {r['about']}")
    write(rows)
    return 0


def join_runs(files: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of several recorded runs (`FILE` or `FILE#LABEL`), joined by mutant: each layer's
    outcome from the last file that has it, stamped with the file's label as `run` (unless it
    has one), in the order of MUTANTS."""
    rows: dict[str, dict[str, Any]] = {}
    for item in files:
        path, _, label = item.partition("#")
        for r in json.loads(Path(path).read_text(encoding="utf-8")):
            if "refuted" in r:  # a spec mutant's row: the whole row is the later run's
                rows[r["name"]] = {**r, **({"run": label} if label and "run" not in r else {})}
                continue
            row = rows.setdefault(r["name"], {k: v for k, v in r.items() if k not in LAYERS})
            for x in LAYERS:
                if x in r:
                    row[x] = {**r[x], **({"run": label} if label and "run" not in r[x] else {})}
    order = {m.name: i for i, m in enumerate((*MUTANTS, *SPEC_MUTANTS))}
    return sorted(rows.values(), key=lambda r: order.get(r["name"], len(order)))


def row_json(r: Row) -> dict[str, Any]:
    m = r.mutant
    return {
        "name": m.name, "family": m.family, "file": m.file, "about": m.about,
        **{x: {"status": o.status, "cpu_seconds": round(o.seconds, 1), "detail": o.detail}
           for x, o in r.outcomes.items()},
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--list", action="store_true", help="list the mutants and stop")
    p.add_argument("--only", action="append", metavar="NAME", help="only these mutants")
    p.add_argument("--family", choices=sorted(FAMILY_BOOKS), help="only this family's mutants")
    p.add_argument("--layer", action="append", choices=LAYERS, help="only these layers")
    p.add_argument("--refine-arg", action="append", default=[], metavar="ARG",
                   help="an extra argument for `arbitro prove --refine` (repeatable)")  # fmt: skip
    p.add_argument("--book", action="append", metavar="RULEBOOK",
                   help="the refine layer walks only these of the family's rulebooks")  # fmt: skip
    p.add_argument("--test", action="append", metavar="PATH", help=f"suite paths (default {SUITE})")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per layer run")
    p.add_argument("--property-cpu", type=int, default=PROPERTY_CPU,
                   help=f"with --spec-mutants: CPU seconds for each of {', '.join(LAST_PROPERTIES)}, "
                        "proved alone after the other properties (default %(default)s)")  # fmt: skip
    p.add_argument("--jobs", type=int, default=1, help="mutants run side by side (default 1)")
    p.add_argument("--no-control", action="store_true", help="skip the unmutated control run")
    p.add_argument("--json", metavar="FILE",
                   help="also write the rows as JSON here, rewritten as each mutant ends")  # fmt: skip
    p.add_argument("--force", action="store_true", help="overwrite the --json file")
    p.add_argument("--spec-mutants", action="store_true",
                   help="the spec mutants instead: each changed rule proved as a spec of its own")  # fmt: skip
    p.add_argument("--markdown", nargs=2, metavar=("ENGINE_JSON", "SPEC_JSON"),
                   help="print recorded runs as markdown tables (no mutant is run)")  # fmt: skip
    p.add_argument("--join", nargs="+", metavar="FILE[#LABEL]",
                   help="join recorded runs by mutant (the last file's outcome of each layer wins) "
                        "into the --json file (no mutant is run)")  # fmt: skip
    args = p.parse_args(argv)
    if args.join:
        if not args.json:
            print("mutants.py: --join needs --json FILE", file=sys.stderr)
            return 2
        from arbitro.safe_write import write_text

        try:
            joined = join_runs(args.join)
            write_text(args.json, json.dumps(joined, indent=2) + "\n", force=args.force)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"mutants.py: cannot join {' '.join(args.join)}: {e}", file=sys.stderr)
            return 2
        return 0
    if args.markdown:
        got = [json.loads(Path(f).read_text(encoding="utf-8")) if Path(f).is_file() else []
               for f in args.markdown]  # fmt: skip
        print(markdown(got[0], got[1]))
        return 0
    signal.signal(signal.SIGTERM, _stop_live)
    signal.signal(signal.SIGINT, _stop_live)
    if args.spec_mutants:
        return spec_main(args)

    problems = snippet_problems()
    chosen = [
        m
        for m in MUTANTS
        if (not args.only or m.name in args.only) and (not args.family or m.family == args.family)
    ]
    if args.list:
        for m in chosen:
            print(f"{m.name:36} {m.file:28} {m.about}")
        return 0
    if problems:
        for x in problems:
            print(f"mutants.py: {x}", file=sys.stderr)
        return 2
    if args.only and len(chosen) != len(set(args.only)):
        known = {m.name for m in MUTANTS}
        print(f"mutants.py: unknown mutants {sorted(set(args.only) - known)}", file=sys.stderr)
        return 2
    from arbitro.safe_write import write_text

    if args.json and Path(args.json).exists() and not args.force:
        print(f"mutants.py: {args.json} exists; --force overwrites it", file=sys.stderr)
        return 2
    layers = tuple(args.layer or LAYERS)
    tests = tuple(args.test or SUITE)
    started = time.time()
    rows: list[Row] = []

    def one(m: Mutant | None, family: str) -> dict[str, Outcome]:
        return run_one(m, family, layers, tests=tests, refine_args=args.refine_arg,
                       timeout=args.timeout, books=args.book or ())  # fmt: skip

    families = [] if args.no_control else sorted({m.family for m in chosen})
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        controls = {pool.submit(one, None, f): f for f in families}
        pending = {pool.submit(one, m, m.family): m for m in chosen}
        for fut in as_completed([*controls, *pending]):
            if fut in controls:
                control = fut.result()
                print(f"control ({controls[fut]}, unmutated): " + ", ".join(
                    f"{x} {o.status} in {o.seconds:.0f}s" for x, o in control.items()), flush=True)  # fmt: skip
                bad = {x: o for x, o in control.items() if o.status != "survived"}
                if bad:
                    for x, o in bad.items():
                        print(
                            f"  {x} does not pass on the real engine: {o.detail}", file=sys.stderr
                        )
                    for f in pending:
                        f.cancel()
                    return 1
                continue
            m = pending[fut]
            got = fut.result()
            rows.append(Row(m, got))
            print(f"{m.name:36} " + ", ".join(f"{x} {o.status} ({o.seconds:.0f}s)"
                                              for x, o in got.items()), flush=True)  # fmt: skip
            if args.json:
                order = {x.name: i for i, x in enumerate(MUTANTS)}
                data = [row_json(r) for r in sorted(rows, key=lambda r: order[r.mutant.name])]
                write_text(args.json, json.dumps(data, indent=2) + "\n", force=True)
    order = {x.name: i for i, x in enumerate(MUTANTS)}
    rows.sort(key=lambda r: order[r.mutant.name])
    print()
    print(render(rows, layers))
    print(f"\n{len(rows)} mutants in {time.time() - started:.0f} s of wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
