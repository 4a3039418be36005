"""`arbitro conform`: an engine under test and arbitro played in lockstep over seeded hands.

Each game is one hand dealt from a seeded deck order, with a seeded dealer and seeded totals
before it (so the opening minimums and the end of the game come into play). At every step the
engine's legal moves are compared with arbitro's (too lax: listed but refused, with the refusing
clause; too strict: legal but missing, with the clauses that allow it), one legal move is played
in both, and the engine's report of its state is compared with arbitro's; when the hand ends the
scores by category, the totals and the winner are compared. Each game stops at its first
disagreement; each kind of disagreement is then minimised (replayed from scratch with deals whose
disagreement comes sooner, then with the totals and the dealer made plain) and tried again under
every other reading of its clauses, which gives the compliance profile (docs/conformance.md).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbitro.conformance.conform_adapter import (
    PROTOCOL,
    Adapter,
    AdapterFailure,
    Deadline,
    EngineError,
    report_of,
    score_report,
)
from arbitro.model.errors import ArbitroError, MalformedInput, OptionError
from arbitro.model.spec import Clause
from arbitro.oracle.check import CATEGORY_CLAUSES
from arbitro.oracle.core import Oracle
from arbitro.oracle.jsonio import clean_text, shorten
from arbitro.oracle.protocol import validate

REPORT_FIELDS = {
    "escoba": ("hands", "table", "piles", "to_move"),
    "rummy": ("hands", "pile", "table", "seat"),
}
"""The fields every report must give; the others a position has are compared when given."""

RUMMY_CLAUSES: dict[str, tuple[str, ...]] = {
    "draw": ("draw_count", "draw_short_stock"),
    "take-pile": (
        "frozen_by",
        "pile_one_card_rule",
        "pile_to_own_set",
        "pile_new_set_naturals",
        "pile_new_sequence",
        "pile_to_own_sequence",
        "pile_to_completed_set",
        "pile_top_counts_for_opening",
        "blocked_by_top",
    ),
    "lay": (
        "set_min",
        "sequence_min",
        "set_start_min_naturals",
        "wild_meld_min_start",
        "black_threes_meld",
        "wild_cap",
        "wilds_at_most_naturals",
    ),
    "add": ("completed_set_growth", "sequence_max", "wild_cap", "wilds_at_most_naturals"),
    "merge": ("merge_sets",),
    "replace-wild": ("clean_by_replacing_wilds",),
    "finish-opening": ("opening_minimums", "opening_rule"),
    "discard": ("play_direction",),
    "ask-partner": ("ask_partner",),
    "answer": ("ask_partner",),
    "stop": ("last_red_three_ends_hand",),
}
"""The clauses a Samba/Canasta action of each type turns on, most specific first: those a
disagreement is blamed on (the engine's `clauses_used` says which clauses a move exercised)."""

CATEGORY_MORE = {
    "setenta": ("setenta_order", "setenta_missing_suit", "category_tie"),
    "cards": ("category_tie",),
    "oros": ("category_tie",),
}
"""Further clauses that decide a category (tried under their other readings on a mismatch)."""

GOING_OUT = ("go_out_discard", "go_out_min_completed", "go_out_min_clean", "go_out_min_dirty")


@dataclass(frozen=True)
class Start:
    """How a game starts: the deck order (top first), the dealer and the totals before it."""

    order: tuple[str, ...]
    dealer: int
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order), "dealer": self.dealer, "scores": list(self.scores)}


@dataclass
class Disagreement:
    """The first place one game's engine and arbitro part."""

    kind: str  # legal, refused, state, score, hand-end, game-end
    clause: str
    clauses: list[str]
    step: int
    detail: dict[str, Any]
    start: Start
    actions: list[dict[str, Any]]
    game: int = 0
    replays: int = 0
    agrees_under: list[dict[str, Any]] = field(default_factory=list)
    tried: list[dict[str, Any]] = field(default_factory=list)

    def key(self) -> tuple[str, str]:
        return self.kind, self.clause

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "clause": self.clause,
            "clauses": self.clauses,
            "game": self.game,
            "step": self.step,
            "detail": self.detail,
            "reproducer": {**self.start.to_json(), "actions": self.actions},
            "replays": self.replays,
            "agrees_under": self.agrees_under,
            "tried": self.tried,
        }


@dataclass
class Outcome:
    """One game played in lockstep."""

    disagreement: Disagreement | None
    actions: list[dict[str, Any]]
    used: set[str]
    agreed: set[str]
    steps: int


Chooser = Callable[[int, list[str], set[str]], str]
"""(step, arbitro's legal actions as canonical text, the engine's) -> the action to play."""


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Lockstep:
    """An engine and one oracle, played side by side."""

    def __init__(
        self,
        adapter: Adapter,
        oracle: Oracle,
        announce: Mapping[str, Any],
    ) -> None:
        self.adapter = adapter
        self.oracle = oracle
        self.announce = dict(announce)
        self.game = oracle.game.name
        self.suspect_free: set[str] = set()
        self.exercised: set[str] = set()

    # ---------------------------------------------------------------- clauses

    def cid(self, key: str) -> str | None:
        ids: Mapping[str, str] = self.oracle.rules.clause_ids
        return ids.get(key)

    def used(self, state: Hashable, action: Hashable, after: Mapping[str, Any]) -> list[str]:
        """The clauses a legal action turns on, most specific first."""
        model = self.oracle.model
        named: frozenset[str] = model.clauses_used(self.oracle.rules, state, action)
        # every clause whose value the engine read for the move was put to the test by it
        self.exercised.update(named)
        if self.game == "escoba":
            return sorted(named)
        # the rummy engine's reads over-approximate (every discard reads the going-out clauses),
        # so a disagreement is blamed among the clauses of the move's own type, most specific first
        kind = model.action_to_json(action).get("type", "")
        keys: list[str] = []
        if after["phase"] != "play" and (after.get("result") or {}).get("reason") == "went-out":
            keys += GOING_OUT
        keys += RUMMY_CLAUSES.get(str(kind), ())
        if after["phase"] != "play":
            keys += ["stock_out"] if after["result"]["reason"] == "stock-out" else []
        out = [c for c in (self.cid(k) for k in keys) if c is not None]
        return list(dict.fromkeys(out))

    def category_clause(self, category: str) -> str:
        key = CATEGORY_CLAUSES.get(self.game, {}).get(category)
        return (self.cid(key) if key else None) or self.end_clause()

    def blame(self, kind: str, clauses: list[str], detail: Mapping[str, Any]) -> str:
        """The clause a disagreement is put down to. A refusal or a score names its clause;
        for a move that went wrong, the first of the clauses it turned on that no agreeing move
        turned on, where there is one."""
        if kind == "score" or (kind == "legal" and detail.get("too_lax")):
            return clauses[0]
        return next((c for c in clauses if c not in self.suspect_free), clauses[0])

    def hand_end_clause(self, state: Mapping[str, Any]) -> str:
        """The clause of how a hand ends: every card played, going out, the stock running out."""
        reason = (state.get("result") or state.get("last_hand") or {}).get("reason")
        key = {"went-out": "go_out_min_completed", "stock-out": "stock_out"}.get(str(reason))
        return (self.cid(key) if key else None) or self.end_clause()

    def end_clause(self) -> str:
        key = "deals_per_hand" if self.game == "escoba" else "go_out_min_completed"
        return self.cid(key) or next(iter(self.oracle.rules.clause_ids.values()))

    # ---------------------------------------------------------------- one game

    def play(self, start: Start, choose: Chooser, game: int = 0) -> Outcome:
        """Play one hand from `start` in both, stopping at the first disagreement."""
        o = self.oracle
        actions: list[dict[str, Any]] = []
        used: set[str] = set()
        agreed: set[str] = set()

        def part(kind: str, clauses: list[str], step: int, detail: dict[str, Any]) -> Outcome:
            clauses = clauses or [self.end_clause()]
            primary = self.blame(kind, clauses, detail)
            detail = {"before": self.glance(state), **detail}
            d = Disagreement(kind, primary, clauses, step, detail, start, list(actions), game)
            return Outcome(d, actions, used, agreed, step)

        before = o.new_game(dealer=start.dealer, scores=list(start.scores))
        state = o.deal(before, order=list(start.order))
        dealing = self.deal_clauses(before, start.order)
        self.exercised.update(dealing)
        report = self.adapter.ask(
            "start",
            **self.announce,
            dealer=start.dealer,
            scores=list(start.scores),
            order=list(start.order),
            dealt={"hands": state["hands"]},
        )
        differs = self.compare(report, state, "start")
        if differs and differs.get("kind") == "hand-end":
            return part("hand-end", dealing, 0, {"after": "the deal", **differs})
        if differs:
            return part("state", dealing, 0, {"after": "the deal", **differs})
        step = 0
        while state["phase"] == "play":
            step += 1
            s = o.read_state(state)
            mine = {_canon(a): a for a in o.legal_actions(state)}
            theirs_raw = self.adapter.ask("legal")
            if not isinstance(theirs_raw, list):
                raise AdapterFailure("garbage", "its answer to 'legal' is not an array of actions")
            theirs: dict[str, Any] = {}
            unreadable: list[dict[str, Any]] = []
            for a in theirs_raw:
                text = _canon(a)
                if text in mine:  # already in canonical form: nothing to read
                    theirs[text] = a
                    continue
                try:
                    theirs[_canon(o.model.action_to_json(o.read_action(s, a)))] = a
                except ArbitroError as e:
                    unreadable.append({"action": a, "reason": str(e)})
            extra = [k for k in theirs if k not in mine]
            missing = [k for k in mine if k not in theirs]
            if extra or missing or unreadable:
                return self._legal_part(
                    part, s, state, step, mine, theirs, extra, missing, unreadable
                )
            self.near_misses(state, mine)
            if not mine:
                break  # both agree nobody can move: the hand stops here, unscored
            pick = choose(step, list(mine), set(theirs))
            action = mine[pick]
            after = o.apply(state, action)
            clauses = self.used(s, o.read_action(s, action), after)
            used.update(clauses)
            self.exercised.update(clauses)
            actions.append(action)
            try:
                report = self.adapter.ask("apply", refusable=True, action=action)
            except EngineError as e:
                return part(
                    "refused",
                    clauses,
                    step,
                    {"action": action, "engine": shorten(str(e), 300)},
                )
            differs = self.compare(report, after, f"apply at step {step}")
            if differs and differs.get("kind") == "hand-end":
                ends = [self.hand_end_clause(after), *clauses]
                return part("hand-end", ends, step, {"action": action, **differs})
            if differs:
                return part("state", clauses, step, {"action": action, **differs})
            agreed.update(clauses)
            state = after
        if state["phase"] == "play":
            return Outcome(None, actions, used, agreed, step)
        # the hand is over in arbitro; the engine said so too (its report has `ended`)
        return self._scores(part, state, step, actions, used, agreed)

    def deal_clauses(self, before: Mapping[str, Any], order: Sequence[str]) -> list[str]:
        """The clauses a deal turns on: Escoba names them (`clauses_used` on the deck order);
        for Samba and Canasta, the deal's own clauses."""
        o = self.oracle
        named = getattr(o.model, "clauses_used", None)
        if named is not None and self.game == "escoba":
            cards = [o.model.parse_card(c) for c in order]
            return sorted(named(o.rules, o.read_state(before), cards))
        keys = ("layouts", "red_three_initial_replacement", "upcard_cover", "opening_minimums")
        return [c for c in map(self.cid, keys) if c]

    def glance(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """What a reader of a disagreement wants to see of the position before it: the hand of
        the player to move and the face-up cards."""
        seat = self.oracle.game.to_move(dict(state))
        out: dict[str, Any] = {"to_move": seat}
        if seat is not None:
            out["hand"] = state["hands"][seat]
        if self.game == "escoba":
            out["table"] = state["table"]
        else:
            out["pile_top"] = state["pile"][-1] if state["pile"] else None
            out["pile_size"] = len(state["pile"])
        return out

    def near_misses(self, state: Mapping[str, Any], mine: Mapping[str, Any]) -> None:
        """The clauses that refuse the plays nearest to legal ones, which both sides agreed to
        leave out: in Escoba, each card of the mover's hand laid on the table."""
        if self.game != "escoba" or state.get("to_move") is None:
            return
        seat = state["to_move"]
        for card in state["hands"][seat]:
            lay = {"capture": [], "card": card, "seat": seat}
            if _canon(lay) not in mine:
                why = self.oracle.explain(state, lay)
                self.exercised.update(r["clause"] for r in why.get("refusals", []))

    def _legal_part(
        self,
        part: Callable[[str, list[str], int, dict[str, Any]], Outcome],
        s: Hashable,
        state: Mapping[str, Any],
        step: int,
        mine: Mapping[str, Any],
        theirs: Mapping[str, Any],
        extra: list[str],
        missing: list[str],
        unreadable: list[dict[str, Any]],
    ) -> Outcome:
        o = self.oracle
        lax = []
        clauses: list[str] = []
        for k in extra:
            why = o.explain(state, theirs[k])
            lax.append(
                {"action": theirs[k], "clause": why.get("clause"), "reason": why.get("reason")}
            )
            clauses += [r["clause"] for r in why.get("refusals", []) if r.get("clause")]
        strict = []
        for k in missing:
            a = mine[k]
            after = o.apply(state, a)
            allows = self.used(s, o.read_action(s, a), after)
            strict.append({"action": a, "clauses": allows})
            clauses += allows
        for u in unreadable:
            lax.append({**u, "clause": None})
        detail = {
            "to_move": o.game.to_move(dict(state)),
            "too_lax": lax,
            "too_strict": strict,
            "legal": len(mine),
        }
        return part("legal", list(dict.fromkeys(clauses)), step, detail)

    def _scores(
        self,
        part: Callable[[str, list[str], int, dict[str, Any]], Outcome],
        state: Mapping[str, Any],
        step: int,
        actions: list[dict[str, Any]],
        used: set[str],
        agreed: set[str],
    ) -> Outcome:
        mine = score_report(self.oracle, state)
        theirs = self.adapter.ask("score")
        try:
            validate(theirs, "adapter-score", "score")
        except MalformedInput as e:
            raise AdapterFailure(
                "garbage", f"its answer to 'score' is not a score: {shorten(str(e), 200)}"
            ) from None
        cats = [c for side in mine["categories"] for c in side]
        self.exercised.update(self.category_clause(c) for c in cats)
        target = self.cid("target_score")
        if target:
            self.exercised.add(target)
        wrong = []
        their_cats = theirs.get("categories")
        for side, row in enumerate(mine["categories"]):
            for cat, value in row.items():
                got = None
                if isinstance(their_cats, list) and side < len(their_cats):
                    entry = their_cats[side]
                    got = entry.get(cat) if isinstance(entry, dict) else None
                if got != value:
                    wrong.append({"side": side, "category": cat, "engine": got, "arbitro": value})
        if wrong:
            first = self.category_clause(wrong[0]["category"])
            clauses = [self.category_clause(w["category"]) for w in wrong]
            for w in wrong:
                clauses += [c for c in map(self.cid, CATEGORY_MORE.get(w["category"], ())) if c]
            clauses = list(dict.fromkeys(clauses))
            return part("score", [first, *clauses], step, {"categories": wrong})
        ends = {
            k: {"engine": theirs.get(k), "arbitro": mine[k]}
            for k in ("totals", "winner", "scores")
            if theirs.get(k) != mine[k]
        }
        if ends:
            return part("game-end", [target or self.end_clause()], step, ends)
        agreed.update(self.category_clause(c) for c in cats)
        return Outcome(None, actions, used, agreed, step)

    # ---------------------------------------------------------------- reports

    def compare(self, report: Any, state: Mapping[str, Any], where: str) -> dict[str, Any] | None:
        """The fields where the engine's report differs from arbitro's state, or None."""
        if not isinstance(report, dict):
            raise AdapterFailure("garbage", f"its answer to {where} is not a position object")
        try:
            validate(report, f"{self.game}-position", "report")
        except MalformedInput as e:
            raise AdapterFailure(
                "garbage", f"its answer to {where} is not a position: {shorten(str(e), 200)}"
            ) from None
        ended = report.get("ended") not in (None, False)
        need = [
            f
            for f in REPORT_FIELDS[self.game]
            if f not in report and not (ended and f == "to_move")
        ]
        if need:
            raise AdapterFailure(
                "garbage", f"its answer to {where} lacks {', '.join(need)} (docs/conformance.md)"
            )
        mine = report_of(self.oracle, state)
        fields = []
        over_mine = "ended" in mine
        over_theirs = "ended" in report and report["ended"] not in (None, False)
        if over_mine != over_theirs:
            return {
                "ended": {"engine": over_theirs, "arbitro": over_mine},
                "kind": "hand-end",
            }
        for key, theirs in report.items():
            if key not in mine and key != "ended":
                continue
            a, b = self._norm(key, theirs), self._norm(key, mine.get(key))
            if a != b:
                fields.append({"field": key, "engine": theirs, "arbitro": mine.get(key)})
        return {"fields": fields} if fields else None

    def _norm(self, key: str, value: Any) -> Any:
        """A report field in a form where equal situations are equal: multisets in card order."""
        k = self.oracle.card_key

        def cards(v: Any) -> Any:
            if isinstance(v, list) and all(isinstance(c, str) for c in v):
                return sorted(v, key=lambda c: (k(c), c))
            return v

        if key == "ended":
            return (value or {}).get("reason") if isinstance(value, dict) else bool(value)
        if key in ("hands", "piles"):
            return [cards(h) for h in value] if isinstance(value, list) else value
        if key == "table" and self.game == "escoba":
            return cards(value)
        if key == "table" and isinstance(value, list):
            out = []
            for side in value:
                if not isinstance(side, dict):
                    return value
                melds = [
                    cards(m["cards"] if isinstance(m, dict) else m) for m in side.get("melds", [])
                ]
                out.append(
                    {
                        "melds": sorted(_canon(m) for m in melds),
                        "red_threes": cards(side.get("red_threes", [])),
                    }
                )
            return out
        return value


def _involved(d: Disagreement) -> list[str]:
    """Cards a disagreement names, the ones whose place in the deal matters most."""
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str) and 2 <= len(v) <= 3:
            found.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for item in d.detail.get("too_lax", []) + d.detail.get("too_strict", []):
        walk(item.get("action"))
    before = d.detail.get("before") or {}
    walk(before.get("table"))  # what the move was played against
    walk(before.get("hand"))
    if "action" in d.detail:
        walk(d.detail["action"])
    for f in d.detail.get("fields", []):
        a, b = f.get("engine"), f.get("arbitro")
        if isinstance(a, list) and isinstance(b, list):
            flat_a = [c for c in _flat(a)]
            flat_b = [c for c in _flat(b)]
            found += [c for c in flat_a if c not in flat_b] + [c for c in flat_b if c not in flat_a]
    return list(dict.fromkeys(c for c in found if not c.isdigit()))


def _flat(v: Any) -> Iterable[str]:
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _flat(x)
    elif isinstance(v, list):
        for x in v:
            yield from _flat(x)


def following(path: Sequence[Mapping[str, Any]], seed: str) -> Chooser:
    """A chooser that replays `path` while its actions stay legal, then chooses by `seed`,
    preferring actions both sides list."""
    wanted = [_canon(a) for a in path]

    def choose(step: int, mine: list[str], theirs: set[str]) -> str:
        if step <= len(wanted) and wanted[step - 1] in mine:
            return wanted[step - 1]
        both = [a for a in mine if a in theirs] or mine
        return random.Random(f"{seed}:{step}").choice(both)

    return choose


@dataclass
class Run:
    """What `arbitro conform` found."""

    rulebook: str
    options: dict[str, Any]
    overrides: dict[str, Any]
    seating: dict[str, Any]
    games: int
    seed: int
    engine: str
    played: int = 0
    steps: int = 0
    requests: int = 0
    agreeing: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    profile: list[dict[str, Any]] = field(default_factory=list)
    failure: dict[str, Any] | None = None
    stopped: str | None = None  # "deadline" or "interrupted": the results are those so far

    @property
    def status(self) -> str:
        if self.failure is not None:
            return f"adapter-{self.failure['kind']}"
        return "conforms" if not self.disagreements else "disagrees"

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL,
            "status": self.status,
            "rulebook": self.rulebook,
            "options": self.options,
            "overrides": self.overrides,
            "seating": self.seating,
            "engine": self.engine,
            "games": self.games,
            "seed": self.seed,
            "played": self.played,
            "steps": self.steps,
            "requests": self.requests,
            "agreeing_games": self.agreeing,
            "failure": self.failure,
            "stopped": self.stopped,
            "disagreements": [
                {**d.to_json(), "seen": self.counts.get(f"{d.kind} {d.clause}", 1)}
                for d in self.disagreements
            ],
            "profile": self.profile,
        }


def _starts(oracle: Oracle, games: int, seed: int) -> list[Start]:
    """The seeded deals: a shuffled deck, a dealer, and (every other game) totals below the
    target, so that opening minimums and the end of the game are reached."""
    deck = [oracle.model.card_name(c) for c in oracle.deck_cards()]
    sides = oracle.seating.sides
    target = int(oracle.rules.target_score)
    out = []
    for g in range(games):
        rng = random.Random(f"arbitro-conform:{seed}:{g}")
        order = list(deck)
        rng.shuffle(order)
        dealer = rng.randrange(oracle.seating.players)
        if g % 2:
            step = 5 if target >= 1000 else 1
            scores = tuple(rng.randrange(0, target // step) * step for _ in range(sides))
        else:
            scores = (0,) * sides
        out.append(Start(tuple(order), dealer, scores))
    return out


def minimise(ls: Lockstep, d: Disagreement, budget: int) -> Disagreement:
    """The disagreement from a deal where it comes as soon as possible, then with the dealer
    and the totals as plain as they can be, each candidate replayed from scratch."""
    best = d
    replays = 0

    def shows(start: Start, path: Sequence[Mapping[str, Any]]) -> Disagreement | None:
        nonlocal replays
        replays += 1
        got = ls.play(start, following(path, "shrink"), d.game).disagreement
        if got is not None and got.kind == d.kind and d.clause in got.clauses:
            got.clause = d.clause
            return got
        return None

    def smaller(a: Start, b: Start) -> bool:
        return (sum(map(abs, a.scores)), a.dealer) < (sum(map(abs, b.scores)), b.dealer)

    improved = True
    while improved and replays < budget:
        improved = False
        order = list(best.start.order)
        cards = [c for c in _involved(best) if c in order]
        reach = min(len(order), 16)
        for card in cards:
            i = order.index(card)
            for j in range(reach):
                if replays >= budget:
                    break
                if j == i:
                    continue
                cand = list(order)
                cand[i], cand[j] = cand[j], cand[i]
                start = Start(tuple(cand), best.start.dealer, best.start.scores)
                got = shows(start, best.actions)
                if got is not None and got.step < best.step:
                    best, improved = got, True
                    break
            if improved:
                break
    for start in (
        Start(best.start.order, best.start.dealer, (0,) * len(best.start.scores)),
        Start(best.start.order, 0, best.start.scores),
        Start(best.start.order, 0, (0,) * len(best.start.scores)),
    ):
        if replays >= budget or not smaller(start, best.start):
            continue
        got = shows(start, best.actions)
        if got is not None and got.step <= best.step:
            best = got
    best.game = d.game
    best.replays = replays + d.replays
    return best


# ------------------------------------------------------------------ readings


def alternatives(oracle: Oracle, clause_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every other reading of these clauses: the recorded readings (options), an optional rule
    turned the other way, and for a stated yes/no rule its opposite (an override)."""
    by_id = {c.id: c for c in oracle.book.clauses}
    out: list[dict[str, Any]] = []
    for cid in clause_ids:
        c: Clause | None = by_id.get(cid)
        if c is None:
            continue
        current = oracle.options.get(c.key)
        for label in c.labels():
            if label != current and label != c.default:
                out.append({"clause": cid, "options": {c.key: label}})
        if isinstance(c.value, bool):
            if c.optional:
                now = bool(current) if current is not None else bool(c.value)
                out.append({"clause": cid, "options": {c.key: not now}})
            else:
                out.append({"clause": cid, "overrides": {cid: not c.value}})
    seen: set[str] = set()
    unique = []
    for alt in out:
        k = _canon(alt)
        if k not in seen:
            seen.add(k)
            unique.append(alt)
    return unique


def try_readings(
    adapter: Adapter, base: Oracle, announce: Mapping[str, Any], d: Disagreement
) -> None:
    """Replay the minimal reproducer under each other reading of its clauses; record those
    under which the engine agrees with arbitro through the step where they parted."""
    for alt in alternatives(base, d.clauses):
        options = {**base.options, **alt.get("options", {})}
        overrides = {**base.overrides, **alt.get("overrides", {})}
        try:
            oracle = Oracle(
                base.book.id,
                options,
                players=base.seating.players,
                layout=base.seating.layout or None,
                overrides=overrides,
            )
        except ArbitroError as e:
            d.tried.append({**alt, "result": f"not playable: {shorten(str(e), 120)}"})
            continue
        ls = Lockstep(adapter, oracle, announce)
        out = ls.play(d.start, following(d.actions, "reading"), d.game)
        if out.disagreement is None or out.disagreement.step > d.step:
            d.agrees_under.append(alt)
            d.tried.append({**alt, "result": "agrees"})
        else:
            other = out.disagreement
            d.tried.append({**alt, "result": f"still differs: {other.kind} at step {other.step}"})


def profile(
    oracle: Oracle, exercised: set[str], disagreements: Sequence[Disagreement]
) -> list[dict[str, Any]]:
    """Per clause of the rulebook: agree, disagree or not exercised."""
    blamed: dict[str, list[Disagreement]] = {}
    for d in disagreements:
        blamed.setdefault(d.clause, []).append(d)
    rows = []
    for c in oracle.book.clauses:
        if c.id in blamed:
            under = [a for d in blamed[c.id] for a in d.agrees_under]
            rows.append(
                {
                    "clause": c.id,
                    "section": c.section,
                    "status": c.status,
                    "verdict": "disagree",
                    "kinds": sorted({d.kind for d in blamed[c.id]}),
                    "agrees_under": under,
                }
            )
        else:
            verdict = "agree" if c.id in exercised else "not exercised"
            rows.append(
                {"clause": c.id, "section": c.section, "status": c.status, "verdict": verdict}
            )
    return rows


# ------------------------------------------------------------------ the command


def conform(
    rulebook: str,
    command: Sequence[str],
    games: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
    players: int | None = None,
    layout: str | None = None,
    timeout: float = 10.0,
    budget: int = 60,
    readings: bool = True,
    deadline: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Run:
    """Play `games` seeded hands in lockstep with the engine behind `command`; every
    disagreement minimised and tried under the other readings of its clauses. `deadline` (in
    seconds) bounds the whole run: when it comes, as on Ctrl-C, the run stops with the results
    so far (`Run.stopped`), and the adapter is ended either way."""
    oracle = Oracle(
        rulebook, dict(options or {}), players=players, layout=layout, overrides=overrides
    )
    desc = oracle.describe()
    announce = {
        "rulebook": desc["rulebook"],
        "options": desc["options"],
        "overrides": desc["overrides"],
        "players": desc["players"],
        "sides": desc["sides"],
        "layout": desc["layout"],
    }
    run = Run(
        rulebook=desc["rulebook"],
        options=desc["options"],
        overrides=desc["overrides"],
        seating={k: desc[k] for k in ("players", "sides", "layout")},
        games=games,
        seed=seed,
        engine=" ".join(command),
    )
    until = None if deadline is None else time.monotonic() + deadline
    adapter = Adapter(command, timeout, until)
    ls = Lockstep(adapter, oracle, announce)
    game = 0
    found: list[Disagreement] = []
    firsts: dict[tuple[str, str], Disagreement] = {}
    try:
        hello = adapter.ask("hello")
        try:
            validate(hello, "adapter-hello", "hello")
        except MalformedInput as e:
            raise AdapterFailure(
                "garbage", f"its answer to 'hello' is not {PROTOCOL}'s: {shorten(str(e), 200)}"
            ) from None
        if isinstance(hello.get("engine"), str):
            run.engine = shorten(clean_text(hello["engine"]), 80)
        for game, start in enumerate(_starts(oracle, games, seed)):
            out = ls.play(start, following([], f"{seed}:{game}"), game)
            run.played += 1
            run.steps += out.steps
            ls.suspect_free |= out.agreed
            if out.disagreement is None:
                run.agreeing += 1
            else:
                found.append(out.disagreement)
            if progress is not None:
                progress(game + 1, games)
        for d in found:
            # the clause blamed is one no agreeing move also used, where there is one
            d.clause = ls.blame(d.kind, d.clauses, d.detail)
            key = f"{d.kind} {d.clause}"
            run.counts[key] = run.counts.get(key, 0) + 1
            firsts.setdefault(d.key(), d)
        for k, d in list(firsts.items()):
            small = minimise(ls, d, budget)
            if readings:
                try_readings(adapter, oracle, announce, small)
            run.disagreements.append(small)
            del firsts[k]
    except AdapterFailure as e:
        run.failure = {"kind": e.kind, "message": str(e), "game": game}
    except Deadline:
        run.stopped = "deadline"
    except KeyboardInterrupt:
        run.stopped = "interrupted"
    finally:
        adapter.close()
        run.requests = adapter.requests
    if run.stopped:
        # what was found before the run stopped, as it was found (neither minimised nor tried)
        if not run.counts:
            for d in found:
                key = f"{d.kind} {d.clause}"
                run.counts[key] = run.counts.get(key, 0) + 1
                firsts.setdefault(d.key(), d)
        run.disagreements += firsts.values()
    run.profile = profile(oracle, ls.exercised, run.disagreements)
    return run


# ------------------------------------------------------------------ output


def _act(a: Any) -> str:
    if not isinstance(a, Mapping) or "seat" not in a:
        return _short(a)
    if "card" in a and "capture" in a:
        cap = " takes " + _show(a["capture"]) if a["capture"] else " to the table"
        return f"seat {a['seat']} plays {a['card']}{cap}"
    rest = {k: v for k, v in a.items() if k not in ("type", "seat")}
    more = " ".join(f"{k}={_show(v)}" for k, v in rest.items())
    return f"seat {a['seat']} {a.get('type', '?')} {more}".rstrip()


def _show(v: Any) -> str:
    if isinstance(v, list):
        return ",".join(_show(x) for x in v)
    return str(v)


def _alt(a: Mapping[str, Any]) -> str:
    if "options" in a:
        return " ".join(f"--option {k}={_show(v).lower()}" for k, v in a["options"].items())
    return " ".join(f"--override {k}={json.dumps(v)}" for k, v in a.get("overrides", {}).items())


def describe(d: Mapping[str, Any]) -> list[str]:
    """A disagreement in a few lines of at most 100 columns, whatever its kind: each part of its
    detail is shown when present, so no kind can lack what another has."""
    det = d.get("detail") or {}
    lines = []
    before = det.get("before") or {}
    if before.get("hand") is not None:
        shown = (
            f"table {' '.join(before['table']) or '(empty)'}"
            if "table" in before
            else (f"pile of {before.get('pile_size')}, top {before.get('pile_top')}")
        )
        moves = len((d.get("reproducer") or {}).get("actions") or [])
        lines.append(
            f"after {moves} moves: seat {before.get('to_move')} holds "
            f"{' '.join(map(str, before['hand']))}; {shown}"
        )
    if isinstance(det.get("after"), str):
        lines.append(f"after {det['after']}:")
    if "action" in det:
        lines.append(f"after {_act(det['action'])}:")
    for x in det.get("too_lax", []):
        why = x.get("clause") or "unreadable"
        lines.append(f"too lax: {_act(x.get('action'))} (refused by {why})")
    for x in det.get("too_strict", []):
        lines.append(f"too strict: leaves out {_act(x.get('action'))}")
    if isinstance(det.get("engine"), str):
        lines.append(f"the engine refused it: {det['engine']}")
    for f in det.get("fields", []):
        lines.append(f"{f.get('field')}: {_difference(f.get('engine'), f.get('arbitro'))}")
    if isinstance(det.get("ended"), Mapping):
        e = det["ended"]
        lines.append(f"hand over: engine {e.get('engine')}, arbitro {e.get('arbitro')}")
    for w in det.get("categories", []):
        lines.append(
            f"side {w.get('side')} {w.get('category')}: engine {w.get('engine')}, "
            f"arbitro {w.get('arbitro')}"
        )
    for k in ("scores", "totals", "winner"):
        v = det.get(k)
        if isinstance(v, Mapping):
            lines.append(
                f"{k}: engine {_short(v.get('engine'))}, arbitro {_short(v.get('arbitro'))}"
            )
    return [shorten(x, 96) for x in lines]


def _difference(engine: Any, arbitro: Any) -> str:
    """Two values of a field as a person compares them: for cards, what one has and not the
    other."""
    a, b = list(_flat(engine)), list(_flat(arbitro))
    if engine != arbitro and isinstance(engine, list) and isinstance(arbitro, list):
        lacks = [c for c in b if a.count(c) < b.count(c)]
        more = [c for c in a if a.count(c) > b.count(c)]
        said = []
        if lacks:
            said.append("the engine lacks " + " ".join(dict.fromkeys(lacks)))
        if more:
            said.append("the engine has more " + " ".join(dict.fromkeys(more)))
        if said:
            return "; ".join(said)
    return f"engine {_short(engine)}; arbitro {_short(arbitro)}"


def _short(v: Any) -> str:
    return shorten(_canon(v), 40)


def text(run: Run) -> str:
    """The verdict and the profile, fitting 100 columns."""
    if run.failure is not None:
        f = run.failure
        return f"conform: {run.engine}: {f['message']} (game {f['game']})\n"
    out = [
        f"conform {run.rulebook} ({run.seating['players']} players) against "
        f"{shorten(run.engine, 60)}",
        f"{run.played} games, {run.steps} steps, seed {run.seed}: {run.status}",
    ]
    if run.stopped:
        why = "at the --deadline" if run.stopped == "deadline" else "by Ctrl-C"
        out.append(
            f"stopped {why} after {run.played} of {run.games} games: the results so far, "
            "not minimised"
        )
    for d in run.to_json()["disagreements"]:
        rep = d["reproducer"]
        out.append("")
        out.append(
            f"{d['kind']} · {d['clause']} · seen in {d['seen']} game(s); "
            f"minimal: step {d['step']} (dealer {rep['dealer']}, totals {rep['scores']})"
        )
        out += ["  " + x for x in describe(d)]
        if d["agrees_under"]:
            out.append("  agrees under: " + "; ".join(_alt(a) for a in d["agrees_under"]))
        elif d["tried"]:
            out.append(f"  no other reading agrees ({len(d['tried'])} tried)")
        else:
            out.append("  the book records no other reading of these clauses")
    counts: dict[str, int] = {}
    for row in run.profile:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    out.append("")
    out.append(
        "compliance: "
        + ", ".join(f"{counts.get(v, 0)} {v}" for v in ("agree", "disagree", "not exercised"))
        + f" of {len(run.profile)} clauses"
    )
    for row in run.profile:
        if row["verdict"] == "disagree":
            out.append(f"  disagree  {row['clause']} ({shorten(row['section'], 40)})")
    return "\n".join(out) + "\n"


def html(run: Run) -> str:
    """The verdict and the compliance profile as one self-contained HTML page."""
    from html import escape

    from arbitro.reports.html import page

    data = run.to_json()
    parts = [
        f"<h1>Conformance of {escape(run.engine)} to {escape(run.rulebook)}</h1>",
        f"<p>{run.played} games, {run.steps} steps, seed {run.seed}: "
        f"<strong>{escape(run.status)}</strong></p>",
    ]
    if run.failure is not None:
        parts.append(f"<p>{escape(run.failure['message'])}</p>")
    if data["disagreements"]:
        parts.append("<h2>Disagreements</h2>")
    for d in data["disagreements"]:
        parts.append(f"<h3 id='{escape(d['kind'])}-{escape(d['clause'])}'>{escape(d['kind'])}: "
                     f"{escape(d['clause'])}</h3>")  # fmt: skip
        parts.append("<ul>" + "".join(f"<li>{escape(x)}</li>" for x in describe(d)) + "</ul>")
        under = "; ".join(_alt(a) for a in d["agrees_under"]) or "no other reading"
        parts.append(f"<p>Agrees under: {escape(under)}</p>")
        rep = _canon(d["reproducer"])
        parts.append(f"<details><summary>reproducer</summary><pre>{escape(rep)}</pre></details>")
    parts.append("<style>tr.disagree td { background: #fdecea; } "
                 "tr.agree td:last-child { color: #1b5e20; }</style>")  # fmt: skip
    parts.append("<h2>Compliance profile</h2><table><tr><th>clause</th><th>section</th>"
                 "<th>book</th><th>verdict</th></tr>")  # fmt: skip
    for row in run.profile:
        parts.append(
            f"<tr class='{escape(row['verdict'].replace(' ', '-'))}'><td>{escape(row['clause'])}"
            f"</td><td>{escape(row['section'])}</td><td>{escape(row['status'])}</td>"
            f"<td>{escape(row['verdict'])}</td></tr>"
        )
    parts.append("</table>")
    return page(f"arbitro conform: {run.rulebook}", "\n".join(parts))


def _pairs(items: Sequence[str] | None, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise OptionError(f"--{what} {item!r}: expected KEY=VALUE")
        if what == "option":
            out[key] = {"true": True, "false": False}.get(value.lower(), value)
        else:
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
    return out


EXIT = {"conforms": 0, "disagrees": 1}


def cmd_conform(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise OptionError("no engine to test: give its adapter command after --")
    if args.games < 1:
        raise OptionError(f"--games: a number of games from 1, got {args.games}")
    if not 0 < args.timeout < 1e6:
        raise OptionError(f"--timeout: seconds above 0 (and below 10^6), got {args.timeout}")
    if args.deadline is not None and not 0 < args.deadline < 1e9:
        raise OptionError(f"--deadline: seconds above 0, got {args.deadline}")
    if args.html:
        from arbitro.safe_write import check_target

        check_target(args.html, force=args.force)  # before the run, not after it
    from arbitro.reports.terminal import ProgressBar

    progress = ProgressBar("games")
    try:
        run = _run(args, command, progress)
    finally:
        progress.close()
    if args.html:
        from arbitro.safe_write import write_text

        write_text(args.html, html(run), force=args.force)
    if args.json:
        sys.stdout.write(json.dumps(run.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text(run))
    if run.stopped == "interrupted":
        return 130
    return EXIT.get(run.status, 3)


def _run(args: argparse.Namespace, command: list[str], progress: Callable[[int, int], None]) -> Run:
    return conform(
        args.rulebook,
        command,
        args.games,
        args.seed,
        options=_pairs(args.option, "option"),
        overrides=_pairs(args.override, "override"),
        players=args.players,
        layout=args.layout,
        timeout=args.timeout,
        budget=args.shrink_budget,
        deadline=args.deadline,
        progress=progress,
    )


def register(sub: Any) -> None:
    """Add `arbitro conform` and `arbitro adapter` to the command line's subparsers."""
    from arbitro.conformance import conform_adapter

    p = sub.add_parser(
        "conform",
        help="test another engine against arbitro in lockstep (its adapter command after --)",
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a reading or rule")
    p.add_argument("--override", action="append", metavar="CLAUSE=JSON", help="a house rule")
    p.add_argument("--players", type=int, help="the number of players")
    p.add_argument("--layout", help="a seating of the rulebook by name")
    p.add_argument("--games", type=int, default=20, help="hands to play (default 20)")
    p.add_argument("--seed", type=int, default=0, help="chooses the deals and the moves")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per request (10)")
    p.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="seconds for the whole run; the results so far when it comes (no limit)",
    )
    p.add_argument(
        "--shrink-budget", type=int, default=60, help="replays per disagreement when minimising"
    )
    p.add_argument("--json", action="store_true", help="the whole result as one JSON object")
    p.add_argument("--html", metavar="FILE", help="also write the compliance profile as HTML")
    p.add_argument("--force", action="store_true", help="overwrite the HTML file")
    p.set_defaults(func=cmd_conform, command=[])
    plain = p.parse_known_args

    def split_at_dashes(args: Any = None, namespace: Any = None) -> Any:
        # what follows the first -- is the adapter's command line, its own options included
        args = list(args or [])
        cut = args.index("--") if "--" in args else len(args)
        ns, rest = plain(args[:cut], namespace)
        ns.command = args[cut + 1 :]
        return ns, rest

    setattr(p, "parse_known_args", split_at_dashes)  # noqa: B010
    p.usage = "arbitro conform RULEBOOK [options] -- COMMAND…"
    conform_adapter.register(sub)


__all__ = ["Disagreement", "Lockstep", "Run", "Start", "conform", "html", "profile", "text"]
