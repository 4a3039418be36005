"""`arbitro conform`: an engine under test and arbitro played in lockstep over seeded hands.

Each game is one hand dealt from a seeded deck order, with a seeded dealer and seeded totals
before it (so the opening minimums and the end of the game come into play). At every step the
engine's legal moves are compared with arbitro's (too lax: listed but refused, with the refusing
clause; too strict: legal but missing, with the clauses that allow it), one legal move is played
in both, and the engine's report of its state is compared with arbitro's; when the hand ends the
scores by category, the totals and the winner are compared. A game goes on after a disagreement
where the engine can be brought back in step (or stops there: `keep_going`). Each group of
disagreements is minimised (replayed from scratch with deals whose disagreement comes sooner,
then with the totals and the dealer made plain) and blamed by counterfactual: on the clause whose
change makes arbitro agree with the engine, else left unattributed. The compliance profile counts
the decisions compared per clause (docs/conformance.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arbitro.conformance.conform_adapter import (
    PROTOCOL,
    PROTOCOLS,
    Adapter,
    AdapterFailure,
    Deadline,
    EngineError,
    position_of,
    report_of,
    score_report,
)
from arbitro.model.errors import ArbitroError, MalformedInput, OptionError
from arbitro.model.spec import Clause
from arbitro.oracle.check import CATEGORY_CLAUSES
from arbitro.oracle.core import Oracle
from arbitro.oracle.jsonio import clean_text, shorten
from arbitro.oracle.notation import is_position_line, move_text, position_line, read_position_line
from arbitro.oracle.protocol import validate
from arbitro.proofs.cluster import cluster, run_tasks

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
    "red-threes": (
        "red_three_all",
        "red_three_negative_all",
        "red_three_negative_below_completed",
        "red_three_positive_min_completed",
    ),
    "black-threes": ("black_threes_all_in_hand_penalty", "card_points"),
    "canastas": ("bonus_dirty_canasta", "wild_canasta_bonus"),
    "going-out": ("going_out_bonus_on_stock_out",),
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
    """One place where a game's engine and arbitro part, with the clause it is blamed on."""

    kind: str  # legal, refused, state, score, hand-end, game-end
    clause: str  # the clause blamed; until blame is settled, the likeliest candidate
    clauses: list[str]  # the candidates, likeliest first
    step: int
    detail: dict[str, Any]
    start: Start
    actions: list[dict[str, Any]]
    game: int = 0
    replays: int = 0
    agrees_under: list[dict[str, Any]] = field(default_factory=list)
    tried: list[dict[str, Any]] = field(default_factory=list)
    blamed: bool = False  # a change to `clause` made arbitro agree (the counterfactual)
    games: list[int] = field(default_factory=list)
    seen: int = 1
    resynced: bool = False  # the engine took arbitro's position before it (continue mode)
    position: str | None = None  # the position line of the step's position
    move: str | None = None  # the move the engine and arbitro part on, where there is one

    def key(self) -> tuple[str, str]:
        return self.kind, self.clause

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "clause": self.clause if self.blamed else None,
            "blame": "counterfactual" if self.blamed else "unattributed",
            "candidates": self.clauses,
            "game": self.game,
            "games": self.games or [self.game],
            "seen": self.seen,
            "step": self.step,
            "detail": self.detail,
            "reproducer": {
                **self.start.to_json(),
                "actions": self.actions,
                "position": self.position,
                "move": self.move,
            },
            "replays": self.replays,
            "agrees_under": self.agrees_under,
            "tried": self.tried,
        }


@dataclass
class Outcome:
    """One game played in lockstep: every disagreement found (only the first when not
    continuing), and the decisions compared that agreed, per clause they depend on."""

    found: list[Disagreement]
    actions: list[dict[str, Any]]
    used: set[str]
    agreed: set[str]
    steps: int
    evidence: Counter[str] = field(default_factory=Counter)
    game: int = 0

    @property
    def disagreement(self) -> Disagreement | None:
        return self.found[0] if self.found else None


Chooser = Callable[[int, list[str], set[str]], str]
"""(step, arbitro's legal actions as canonical text, the engine's) -> the action to play."""


def _the_move(detail: Mapping[str, Any]) -> str | None:
    """The move a disagreement turns on, in move notation: the action played (the atoms of a
    compound move, one after the other), else the first the engine lists too laxly or leaves
    out; None where there is none (a deal, a score) or it cannot be written."""
    action = detail.get("action")
    if action is None:
        wrong = [*detail.get("too_lax", ()), *detail.get("too_strict", ())]
        action = wrong[0].get("action") if wrong and not wrong[0].get("after") else None
    if action is None:
        return None
    atoms = action if isinstance(action, list) else [action]
    try:
        return " ".join(move_text(a) for a in atoms)
    except (KeyError, TypeError, AttributeError):
        return None  # an engine's action that is no action: the detail shows it as it came


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Lockstep:
    """An engine and one oracle, played side by side. `keep_going`: after a disagreement the
    game goes on (a legal list that differs: with a move both list; a state that differs: from
    arbitro's position, sent to an engine that takes one) instead of stopping there."""

    def __init__(
        self,
        adapter: Adapter,
        oracle: Oracle,
        announce: Mapping[str, Any],
        keep_going: bool = False,
        positions: bool = False,
    ) -> None:
        self.adapter = adapter
        self.oracle = oracle
        self.announce = dict(announce)
        self.game = oracle.game.name
        self.hooks = HOOKS[self.game]
        self.suspect_free: set[str] = set()
        self.exercised: set[str] = set()
        self.keep_going = keep_going
        self.positions = positions
        self.read: set[str] = set()  # the clauses the last move played depends on

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
        self.read = set(named)
        return self.hooks.used(self, named, action, after)

    def _rummy_used(
        self, named: frozenset[str], action: Hashable, after: Mapping[str, Any]
    ) -> list[str]:
        model = self.oracle.model
        went_out = (after.get("result") or {}).get("reason") == "went-out"
        if not went_out:  # read by every discard, decided only by one that goes out
            self.read -= {c for c in map(self.cid, GOING_OUT) if c}
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
        """The likeliest clause of a disagreement, before any counterfactual is tried: a
        refusal or a score names its clause; for a move that went wrong, the first of the
        clauses it turned on that no agreeing move turned on, where there is one."""
        if kind == "score" or (kind == "legal" and detail.get("too_lax")):
            return clauses[0]
        return next((c for c in clauses if c not in self.suspect_free), clauses[0])

    def hand_end_clause(self, state: Mapping[str, Any]) -> str:
        """The clause of how a hand ends: every card played, going out, the stock running out."""
        reason = (state.get("result") or state.get("last_hand") or {}).get("reason")
        key = {"went-out": "go_out_min_completed", "stock-out": "stock_out"}.get(str(reason))
        return (self.cid(key) if key else None) or self.end_clause()

    def end_clause(self) -> str:
        key = self.hooks.end_key
        return self.cid(key) or next(iter(self.oracle.rules.clause_ids.values()))

    # ---------------------------------------------------------------- one game

    def resync(self, state: Mapping[str, Any]) -> bool:
        """Give the engine arbitro's position (when it takes one); whether it now agrees."""
        if not self.positions or state["phase"] != "play":
            return False
        report = self.adapter.ask("position", position=position_of(self.oracle, state))
        return self.compare(report, state, "position") is None

    def play(self, start: Start, choose: Chooser, game: int = 0) -> Outcome:
        """Play one hand from `start` in both: to its first disagreement, or (`keep_going`)
        through the whole hand where the engine can be brought back in step."""
        o = self.oracle
        actions: list[dict[str, Any]] = []
        used: set[str] = set()
        agreed: set[str] = set()
        found: list[Disagreement] = []
        evidence: Counter[str] = Counter()
        resynced = False
        step = 0

        def part(kind: str, clauses: list[str], step: int, detail: dict[str, Any]) -> None:
            clauses = list(dict.fromkeys(clauses or [self.end_clause()]))
            # the clauses no agreeing move has turned on first: the likelier culprits
            clauses.sort(key=lambda c: c in self.suspect_free and kind not in ("legal", "score"))
            primary = self.blame(kind, clauses, detail)
            detail = {"before": self.glance(state), **detail}
            d = Disagreement(kind, primary, clauses, step, detail, start, list(actions), game)
            d.resynced = resynced
            d.position, d.move = position_line(state), _the_move(detail)
            found.append(d)

        def done() -> Outcome:
            return Outcome(found, actions, used, agreed, step, evidence)

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
            part("hand-end", dealing, 0, {"after": "the deal", **differs})
            return done()
        if differs:
            part("state", dealing, 0, {"after": "the deal", **differs})
            if not (self.keep_going and self.resync(state)):
                return done()
            resynced = True
        else:
            evidence.update(dealing)
        while state["phase"] == "play":
            step += 1
            s = o.read_state(state)
            mine = {_canon(a): a for a in o.legal_actions(state)}
            theirs_raw = self.adapter.ask("legal")
            if not isinstance(theirs_raw, list):
                raise AdapterFailure("garbage", "its answer to 'legal' is not an array of actions")
            if any(isinstance(a, list) for a in theirs_raw):
                # compound moves: matched and played as units (docs/conformance.md)
                moves, lax, strict = self.compound(state, theirs_raw)
                if lax or strict:
                    blamed = [c for x in lax for c in x.get("refusals", [])]
                    blamed += [c for x in strict for c in x["clauses"]]
                    detail: dict[str, Any] = {
                        "to_move": o.game.to_move(dict(state)),
                        "too_lax": lax,
                        "too_strict": strict,
                        "legal": len(mine),
                    }
                    part("legal", blamed, step, detail)
                    if not self.keep_going or not moves:
                        return done()
                else:
                    evidence.update(self.list_evidence(s, state, mine))
                if not moves:
                    break
                pick = choose(step, list(moves), set(moves))
                atoms, sent = moves[pick]
                after, clauses, self.read = state, [], set()
                for atom in atoms:
                    here = o.read_state(after)
                    nxt = o.apply(after, atom)
                    read = self.read
                    clauses += self.used(here, o.read_action(here, atom), nxt)
                    self.read |= read
                    after = nxt
                clauses = list(dict.fromkeys(clauses))
                action: Any = atoms
            else:
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
                    self._legal_part(part, s, state, step, mine, theirs, extra, missing, unreadable)
                    if not self.keep_going:
                        return done()
                    if mine and not any(k in theirs for k in mine):
                        # no move both list: arbitro plays one, the engine is given the position
                        action = mine[choose(step, list(mine), set())]
                        after = o.apply(state, action)
                        actions.append(action)
                        if not self.resync(after):
                            return done()
                        resynced = True
                        state = after
                        continue
                else:
                    evidence.update(self.list_evidence(s, state, mine))
                if not mine:
                    break  # both agree nobody can move: the hand stops here, unscored
                options = (
                    [k for k in mine if k in theirs] if found and self.keep_going else list(mine)
                )
                pick = choose(step, options or list(mine), set(theirs))
                action = sent = mine[pick]
                after = o.apply(state, action)
                clauses = self.used(s, o.read_action(s, action), after)
            used.update(clauses)
            self.exercised.update(clauses)
            actions.append(action)
            try:
                report = self.adapter.ask("apply", refusable=True, action=sent)
            except EngineError as e:
                detail = {"action": action, "engine": shorten(clean_text(str(e)), 300)}
                part("refused", clauses, step, detail)
                if not (self.keep_going and self.resync(after)):
                    return done()
                resynced = True
                state = after
                continue
            differs = self.compare(report, after, f"apply at step {step}")
            if differs and differs.get("kind") == "hand-end":
                ends = [self.hand_end_clause(after), *clauses]
                part("hand-end", ends, step, {"action": action, **differs})
                return done()
            if differs and after["phase"] != "play" and _only_totals(differs):
                # totals in a position at the hand's end: the score categories say why (a
                # score is reported at the position it is of, the hand's end)
                before_end, state = state, after
                break_out = self._scores(part, after, step, agreed, evidence)
                state = before_end
                if break_out:
                    return done()
                part("state", clauses, step, {"action": action, **differs})
                return done()
            if differs:
                part("state", clauses, step, {"action": action, **differs})
                if not (self.keep_going and self.resync(after)):
                    return done()
                resynced = True
            else:
                evidence.update(self.read)  # the state it changes, compared
            agreed.update(clauses)
            state = after
        if state["phase"] == "play":
            return done()
        # the hand is over in arbitro; the engine said so too (its report has `ended`)
        self._scores(part, state, step, agreed, evidence)
        return done()

    def compound(
        self, state: Mapping[str, Any], listed: Sequence[Any]
    ) -> tuple[dict[str, tuple[list[Any], Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """An engine's legal moves, some of them compound (arrays of atomic actions played as
        one), matched against arbitro's atomic ones as a tree: at each point a move passes
        through, every next action the engine lists must be legal there (too lax otherwise),
        and where no listed move ends, every legal action must begin some listed continuation
        (too strict otherwise). Returns the moves that are legal throughout (their canonical
        atoms as a key -> (the atoms, the move as the engine listed it)), and what is too lax
        and too strict, each with the actions before it in the move (`after`)."""
        o = self.oracle
        moves: dict[str, tuple[list[Any], Any]] = {}
        lax: list[dict[str, Any]] = []
        strict: list[dict[str, Any]] = []

        def walk(
            st: Mapping[str, Any], prefix: list[Any], seqs: list[tuple[list[Any], Any]]
        ) -> None:
            mine = {_canon(a): a for a in o.legal_actions(st)} if st["phase"] == "play" else {}
            here = o.read_state(st)
            children: dict[str, list[tuple[list[Any], Any]]] = {}
            ends = False
            for rest, raw in seqs:
                if not rest:
                    ends = True
                    continue
                text = _canon(rest[0])
                if text not in mine:
                    try:
                        text = _canon(o.model.action_to_json(o.read_action(here, rest[0])))
                    except ArbitroError as e:
                        lax.append({"action": rest[0], "after": prefix, "clause": None,
                                    "reason": str(e), "refusals": []})  # fmt: skip
                        continue
                children.setdefault(text, []).append((rest[1:], raw))
            if ends:
                moves[_canon(prefix)] = (prefix, next(raw for rest, raw in seqs if not rest))
            for text, group in children.items():
                if text not in mine:
                    why = o.explain(st, json.loads(text))
                    refusals = [r["clause"] for r in why.get("refusals", []) if r.get("clause")]
                    lax.append({"action": json.loads(text), "after": prefix,
                                "clause": why.get("clause"), "reason": why.get("reason"),
                                "refusals": refusals})  # fmt: skip
                    continue
                nxt = o.apply(st, mine[text])
                if any(rest for rest, _ in group):
                    walk(nxt, [*prefix, mine[text]], group)
                else:
                    moves[_canon([*prefix, mine[text]])] = ([*prefix, mine[text]], group[0][1])
            if not ends:
                for text, a in mine.items():
                    if text not in children:
                        after = o.apply(st, a)
                        strict.append({"action": a, "after": prefix,
                                       "clauses": self.used(here, o.read_action(here, a), after)})  # fmt: skip

        walk(state, [], [(list(m) if isinstance(m, list) else [m], m) for m in listed])
        return moves, lax, strict

    def list_evidence(
        self, s: Hashable, state: Mapping[str, Any], mine: Mapping[str, Any]
    ) -> set[str]:
        """The clauses a legal list that both sides gave alike depends on: those that allow one
        of its moves, and those that refuse the plays nearest to legal ones (in Escoba, a card
        of the mover's hand laid on the table)."""
        return self.hooks.list_evidence(self, s, state, mine)

    def _escoba_list_evidence(
        self, s: Hashable, state: Mapping[str, Any], mine: Mapping[str, Any]
    ) -> set[str]:
        o = self.oracle
        out: set[str] = set()
        for a in mine.values():
            out |= o.model.clauses_used(o.rules, s, o.read_action(s, a))
        seat = state.get("to_move")
        if seat is not None:
            for card in state["hands"][seat]:
                lay = {"capture": [], "card": card, "seat": seat}
                if _canon(lay) not in mine:
                    why = o.explain(state, lay)
                    refused = {r["clause"] for r in why.get("refusals", [])}
                    self.exercised.update(refused)
                    out |= refused
        return out

    def _rummy_list_evidence(
        self, s: Hashable, state: Mapping[str, Any], mine: Mapping[str, Any]
    ) -> set[str]:
        # for each move listed, the clauses of its type that the engine read deciding it (its
        # reads over-approximate: a discard reads the going-out clauses)
        o = self.oracle
        out: set[str] = set()
        by_type: dict[str, set[str]] = {}
        for a in mine.values():
            kind = str(a.get("type")) if isinstance(a, dict) else ""
            if kind not in by_type:
                by_type[kind] = {c for c in map(self.cid, RUMMY_CLAUSES.get(kind, ())) if c}
            if by_type[kind] - out:
                read: frozenset[str] = o.model.clauses_used(o.rules, s, o.read_action(s, a))
                out |= read & by_type[kind]
        return out

    def deal_clauses(self, before: Mapping[str, Any], order: Sequence[str]) -> list[str]:
        """The clauses a deal turns on: Escoba names them (`clauses_used` on the deck order);
        for Samba and Canasta, the deal's own clauses."""
        return self.hooks.deal_clauses(self, before, order)

    def _escoba_deal_clauses(self, before: Mapping[str, Any], order: Sequence[str]) -> list[str]:
        o = self.oracle
        named = getattr(o.model, "clauses_used", None)
        if named is not None:
            cards = [o.model.parse_card(c) for c in order]
            return sorted(named(o.rules, o.read_state(before), cards))
        return self._rummy_deal_clauses(before, order)

    def _rummy_deal_clauses(self, before: Mapping[str, Any], order: Sequence[str]) -> list[str]:
        keys = ("layouts", "red_three_initial_replacement", "upcard_cover")
        return [c for c in map(self.cid, keys) if c]

    def glance(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """What a reader of a disagreement wants to see of the position before it: the hand of
        the player to move and the face-up cards."""
        seat = self.oracle.game.to_move(dict(state))
        out: dict[str, Any] = {"to_move": seat}
        if seat is not None:
            out["hand"] = state["hands"][seat]
        return out | self.hooks.face_up(state)

    def _legal_part(
        self,
        part: Callable[[str, list[str], int, dict[str, Any]], None],
        s: Hashable,
        state: Mapping[str, Any],
        step: int,
        mine: Mapping[str, Any],
        theirs: Mapping[str, Any],
        extra: list[str],
        missing: list[str],
        unreadable: list[dict[str, Any]],
    ) -> None:
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
        part("legal", list(dict.fromkeys(clauses)), step, detail)

    def _scores(
        self,
        part: Callable[[str, list[str], int, dict[str, Any]], None],
        state: Mapping[str, Any],
        step: int,
        agreed: set[str],
        evidence: Counter[str],
    ) -> bool:
        """Compare the hand's scores, category by category, then the totals and the winner;
        whether they differed."""
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
        right: set[str] = set()
        their_cats = theirs.get("categories")
        for side, row in enumerate(mine["categories"]):
            for cat, value in row.items():
                got = None
                if isinstance(their_cats, list) and side < len(their_cats):
                    entry = their_cats[side]
                    got = entry.get(cat) if isinstance(entry, dict) else None
                if got != value:
                    wrong.append({"side": side, "category": cat, "engine": got, "arbitro": value})
                else:
                    right.add(cat)
        if wrong:
            first = self.category_clause(wrong[0]["category"])
            clauses = [self.category_clause(w["category"]) for w in wrong]
            for w in wrong:
                clauses += [c for c in map(self.cid, CATEGORY_MORE.get(w["category"], ())) if c]
            clauses = list(dict.fromkeys(clauses))
            part("score", [first, *clauses], step, {"categories": wrong})
            wrong_cats = {w["category"] for w in wrong}
            evidence.update(self.category_clause(c) for c in right - wrong_cats)
            return True
        evidence.update({self.category_clause(c) for c in cats})
        ends = {
            k: {"engine": theirs.get(k), "arbitro": mine[k]}
            for k in ("totals", "winner", "scores")
            if theirs.get(k) != mine[k]
        }
        if ends:
            # the totals as the engine has them, where they agree too: a target they suggest
            ends.setdefault("totals", {"engine": theirs.get("totals"), "arbitro": mine["totals"]})
            part("game-end", [target or self.end_clause()], step, ends)
            return True
        if target:
            evidence[target] += 1
        agreed.update(self.category_clause(c) for c in cats)
        return False

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
        if key == "table" and not self.hooks.melds_on_table:
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


def _only_totals(differs: Mapping[str, Any]) -> bool:
    return bool(differs.get("fields")) and all(f["field"] == "scores" for f in differs["fields"])


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


def _escoba_used(
    ls: Lockstep, named: frozenset[str], action: Hashable, after: Mapping[str, Any]
) -> list[str]:
    return sorted(named)


@dataclass(frozen=True)
class FamilyHooks:
    """What lockstep play does its own way for one game family."""

    used: Callable[[Lockstep, frozenset[str], Hashable, Mapping[str, Any]], list[str]]
    """The clauses a legal action turns on, most specific first (`Lockstep.used`)."""
    end_key: str
    """The clause key of a hand's end, when nothing more precise names it."""
    list_evidence: Callable[[Lockstep, Hashable, Mapping[str, Any], Mapping[str, Any]], set[str]]
    """The clauses a legal list both sides gave alike depends on (`Lockstep.list_evidence`)."""
    deal_clauses: Callable[[Lockstep, Mapping[str, Any], Sequence[str]], list[str]]
    """The clauses a deal turns on."""
    face_up: Callable[[Mapping[str, Any]], dict[str, Any]]
    """What lies face up in a position, for a reader of a disagreement."""
    melds_on_table: bool
    """The table is each side's melds (else a list of cards)."""


HOOKS = {
    "escoba": FamilyHooks(
        used=_escoba_used,
        end_key="deals_per_hand",
        list_evidence=Lockstep._escoba_list_evidence,
        deal_clauses=Lockstep._escoba_deal_clauses,
        face_up=lambda state: {"table": state["table"]},
        melds_on_table=False,
    ),
    "rummy": FamilyHooks(
        used=Lockstep._rummy_used,
        end_key="go_out_min_completed",
        list_evidence=Lockstep._rummy_list_evidence,
        deal_clauses=Lockstep._rummy_deal_clauses,
        face_up=lambda state: {
            "pile_top": state["pile"][-1] if state["pile"] else None,
            "pile_size": len(state["pile"]),
        },
        melds_on_table=True,
    ),
}
"""Each game family's (`GameFamily.name`) hooks."""


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
    profile: list[dict[str, Any]] = field(default_factory=list)
    failure: dict[str, Any] | None = None
    per_game: list[int] = field(default_factory=list)
    ignored: list[Disagreement] = field(default_factory=list)
    declared: dict[str, Any] = field(default_factory=dict)
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
            "disagreements": [d.to_json() for d in self.disagreements],
            "ignored": [d.to_json() for d in self.ignored],
            "per_game": self.per_game,
            "declared": self.declared,
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
        found = ls.play(start, following(path, "shrink"), d.game).found
        got = next((x for x in found if x.kind == d.kind and d.clause in x.clauses), None)
        if got is not None:
            got.clause = d.clause
        return got

    def smaller(a: Start, b: Start) -> bool:
        return (sum(map(abs, a.scores)), a.dealer) < (sum(map(abs, b.scores)), b.dealer)

    improved = best.step > 0  # nothing comes sooner than the deal
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


# ------------------------------------------------------------------ blame


def alternatives(
    oracle: Oracle, clause_ids: Sequence[str], hints: Hints | None = None
) -> list[dict[str, Any]]:
    """Every other way of reading these clauses, as options or overrides: the recorded
    readings, an optional rule turned the other way, a stated yes/no rule reversed, a list of
    cases emptied (a guard dropped), and a number changed to one the disagreement suggests
    (`hints`: the engine's own values; for a score, arbitro's number scaled to the engine's, or
    one price among several moved by the difference shared among 1 to 4 cards)."""
    hints = hints or Hints()
    by_id = {c.id: c for c in oracle.book.clauses}
    out: list[dict[str, Any]] = []
    for cid in clause_ids:
        c: Clause | None = by_id.get(cid)
        if c is None:
            continue
        current = oracle.options.get(c.key)
        value = oracle.overrides.get(cid, c.value)
        for label in c.labels():
            if label != current and label != c.default:
                out.append({"clause": cid, "options": {c.key: label}})
        if isinstance(value, bool):
            if c.optional:
                now = bool(current) if current is not None else bool(value)
                out.append({"clause": cid, "options": {c.key: not now}})
            else:
                out.append({"clause": cid, "overrides": {cid: not value}})
        elif isinstance(value, int):
            for n in [*hints.scaled(value), *hints.numbers, 0]:
                if n != value and n >= 0:
                    out.append({"clause": cid, "overrides": {cid: n}})
        elif isinstance(value, list) and value:
            out.append({"clause": cid, "overrides": {cid: []}})
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    for n in hints.shifted(v):
                        out.append({"clause": cid, "overrides": {cid: {**value, k: n}}})
    seen: set[str] = set()
    unique = []
    for alt in out:
        k = _canon(alt)
        if k not in seen:
            seen.add(k)
            unique.append(alt)
    return unique


@dataclass
class Hints:
    """What a disagreement suggests a number of the rules might be instead: `numbers` the
    engine's own values (a count in an action, the size of what it reports, a total), `pairs`
    (engine, arbitro) the values of each score category that differs."""

    numbers: list[int] = field(default_factory=list)
    pairs: list[tuple[int, int]] = field(default_factory=list)

    def scaled(self, v: int) -> list[int]:
        """`v` times the engine's value over arbitro's, where that is a whole number."""
        return [v * e // a for e, a in self.pairs if a and (v * e) % a == 0]

    def shifted(self, v: int) -> list[int]:
        """`v` moved by a category's difference shared among 1 to 4 cards, either way."""
        out = []
        for e, a in self.pairs:
            for k in range(1, 5):
                if (e - a) % k == 0:
                    out += [v - (e - a) // k, v + (e - a) // k]
        return [n for n in dict.fromkeys(out) if n >= 0 and n != v]


def hints_of(d: Disagreement) -> Hints:
    """The numbers a disagreement suggests (see Hints)."""
    found: list[int] = []

    def walk(v: Any, depth: int = 0) -> None:
        if isinstance(v, bool) or depth > 4:
            return
        if isinstance(v, int):
            found.append(v)
        elif isinstance(v, list):
            found.append(len(v))
            for x in v[:40]:
                walk(x, depth + 1)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x, depth + 1)

    det = d.detail
    for f in det.get("fields", []):
        walk(f.get("engine"))
    for x in det.get("too_lax", []):
        walk(x.get("action"))
    for k in ("totals", "scores"):
        if isinstance(det.get(k), dict):
            walk(det[k].get("engine"))
    pairs = []
    for w in det.get("categories", []):
        e, a = w.get("engine"), w.get("arbitro")
        if type(e) is int and type(a) is int:
            found.append(e)
            pairs.append((e, a))
    numbers = [n for n in dict.fromkeys(found) if 0 <= n <= 100_000]
    return Hints(numbers[:12], pairs[:4])


def _signature(found: Sequence[Disagreement]) -> set[tuple[str, int]]:
    return {(x.kind, x.step) for x in found}


def counterfactual(ls: Lockstep, d: Disagreement, budget: int) -> None:
    """Blame `d` on the first clause (likeliest first) one of whose changes makes arbitro agree
    with the engine on its reproducer and the rest of that game: `d` is gone, and nothing shows
    that did not show unchanged. Otherwise `d` stays unattributed, its candidates ranked by
    how far their best change got, with everything tried in `d.tried`."""
    base = ls.oracle
    path = following(d.actions, "blame")
    before = ls.play(d.start, path, d.game).found
    d.replays += 1
    target = (d.kind, d.step)
    if target not in _signature(before):
        d.tried.append({"result": "does not show again when replayed: nothing to blame"})
        return
    rest = _signature(before) - {target}
    hints = hints_of(d)
    others = [c.id for c in base.book.clauses if c.id not in d.clauses]
    reach: dict[str, int] = {}
    spent = 0
    for cid in [*d.clauses, *others]:
        for alt in alternatives(base, [cid], hints):
            if spent >= budget:
                break
            spent += 1
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
            except (ArbitroError, ValueError, TypeError, KeyError) as e:
                d.tried.append({**alt, "result": f"not playable: {shorten(str(e), 120)}"})
                continue
            other = Lockstep(ls.adapter, oracle, ls.announce, ls.keep_going, ls.positions)
            try:
                got = other.play(d.start, following(d.actions, "blame"), d.game).found
            except AdapterFailure:
                raise  # the engine failed, not the change: its channel is out of step from here
            except (ArbitroError, ValueError, TypeError, KeyError) as e:
                d.tried.append({**alt, "result": f"not playable: {shorten(str(e), 120)}"})
                continue
            d.replays += 1
            sig = _signature(got)
            if target not in sig and sig <= rest:
                d.tried.append({**alt, "result": "agrees"})
                d.agrees_under.append(alt)
                d.clause, d.blamed = cid, True
                return
            first = min((x.step for x in got), default=10**9)
            reach[cid] = max(reach.get(cid, -1), first)
            what = ", ".join(f"{k} at step {s}" for k, s in sorted(sig - rest)[:3])
            d.tried.append({**alt, "result": f"still differs: {what or 'elsewhere'}"})
    # unattributed: the candidates whose changes got furthest first, the likeliest among equals
    rank = {c: i for i, c in enumerate(d.clauses)}
    d.clauses = sorted(d.clauses, key=lambda c: (-reach.get(c, -1), rank[c]))
    d.clause = d.clauses[0]


def profile(
    oracle: Oracle,
    evidence: Mapping[str, int],
    disagreements: Sequence[Disagreement],
    ignored: Sequence[Disagreement] = (),
) -> list[dict[str, Any]]:
    """Per clause of the rulebook: `disagree` (a disagreement is blamed on it by a
    counterfactual), `unsettled` (the likeliest candidate of a disagreement nothing could be
    blamed for), `agree` (with `compared`: the decisions depending on it that were compared and
    agreed, at least one), or `untested` (no decision depending on it was compared)."""
    blamed: dict[str, list[Disagreement]] = {}
    suspects: dict[str, list[Disagreement]] = {}
    for d in [*disagreements, *ignored]:
        (blamed if d.blamed else suspects).setdefault(d.clause, []).append(d)
    rows = []
    for c in oracle.book.clauses:
        row: dict[str, Any] = {
            "clause": c.id,
            "section": c.section,
            "status": c.status,
            "compared": int(evidence.get(c.id, 0)),
        }
        if c.id in blamed:
            row["verdict"] = "disagree"
            row["kinds"] = sorted({d.kind for d in blamed[c.id]})
            row["agrees_under"] = [a for d in blamed[c.id] for a in d.agrees_under]
            row["ignored"] = all(d in ignored for d in blamed[c.id])
        elif c.id in suspects:
            row["verdict"] = "unsettled"
            row["kinds"] = sorted({d.kind for d in suspects[c.id]})
        else:
            row["verdict"] = "agree" if row["compared"] else "untested"
        rows.append(row)
    return rows


VERDICTS = ("agree", "disagree", "unsettled", "untested")


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
    keep_going: bool = True,
    ignore: Sequence[str] = (),
    blame_budget: int = 40,
    workers: int = 0,
    scheduler: str | None = None,
) -> Run:
    """Play `games` seeded hands in lockstep with the engine behind `command`; every
    disagreement minimised and blamed by counterfactual (`blame_budget` changes tried at most;
    `readings=False`: not tried). `keep_going`: a game goes on after a disagreement where it
    can; `ignore`: disagreements blamed on these clauses are set aside. `deadline` (in
    seconds) bounds the whole run: when it comes, as on Ctrl-C, the run stops with the results
    so far (`Run.stopped`), and the adapter is ended either way.

    With `workers` (a local Dask cluster) or `scheduler` (a running one) the games are played
    in batches of consecutive games, and each group of disagreements minimised and blamed, on
    the workers, each task with an engine process of its own; the run is counted here in game
    and group order, so that it is the run of one process."""
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
    ls = Lockstep(adapter, oracle, announce, keep_going=keep_going)
    unknown = [c for c in ignore if c not in {x.id for x in oracle.book.clauses}]
    if unknown:
        adapter.close()
        raise OptionError(f"--ignore {unknown[0]!r}: no such clause of {desc['rulebook']}")
    game = 0
    found: list[Disagreement] = []
    groups: dict[tuple[str, str], list[Disagreement]] = {}
    evidence: Counter[str] = Counter()
    elsewhere = 0  # requests answered by the engines the workers started
    stack = contextlib.ExitStack()
    client = None
    try:
        client = stack.enter_context(cluster(scheduler, workers))
        hello = adapter.ask("hello")
        try:
            validate(hello, "adapter-hello", "hello")
        except MalformedInput as e:
            raise AdapterFailure(
                "garbage",
                f"its answer to 'hello' is not {' or '.join(PROTOCOLS)}'s: {shorten(str(e), 200)}",
            ) from None
        if isinstance(hello.get("engine"), str):
            run.engine = shorten(clean_text(hello["engine"]), 80)
        run.declared = declared(hello)
        refuse_seating(run.declared, desc)
        engine_options = run.declared.get("options") or {}
        if any(k not in (options or {}) for k in engine_options):
            # the readings the engine declares it plays, where the command line says none
            options = {**engine_options, **(options or {})}
            oracle = Oracle(rulebook, options, players=players, layout=layout, overrides=overrides)
            announce["options"] = run.options = oracle.describe()["options"]
            ls = Lockstep(adapter, oracle, announce, keep_going=keep_going)
        ls.positions = bool(run.declared.get("positions"))

        def engine() -> Lockstep | _Engine:
            """What a task plays against: this process's lockstep, or how a worker starts its
            own (with the clauses found suspect-free so far, which order the candidates)."""
            if client is None:
                return ls
            left = None if until is None else until - time.monotonic()
            return _Engine(
                tuple(command), timeout, left, rulebook, dict(options or {}), players, layout,
                dict(overrides or {}), dict(announce), keep_going, ls.positions,
                frozenset(ls.suspect_free),
            )  # fmt: skip

        starts = list(enumerate(_starts(oracle, games, seed)))
        size = 1 if client is None else _batch_size(client, games)
        batches = [starts[a : a + size] for a in range(0, games, size)]
        tasks = [(engine(), _play_one, [(g, st, seed) for g, st in b]) for b in batches]
        for b, done in run_tasks(client, _in_lockstep, tasks):
            for out in done.got:
                game = out.game
                _count(run, ls, out, evidence)
                found += out.found
                if progress is not None:
                    progress(game + 1, games)
            elsewhere += done.requests
            game = batches[b][0][0] + len(done.got)
            done.stop()
        game = games - 1
        for d in found:
            # grouped by their likeliest clause until the counterfactual settles the blame
            d.clause = ls.blame(d.kind, d.clauses, d.detail)
            groups.setdefault(d.key(), []).append(d)
        keys = list(groups)
        settle = engine()
        settling = [
            (settle, _settle_one, [(ds[0], budget, blame_budget, readings)])
            for ds in groups.values()
        ]
        for k, done in run_tasks(client, _in_lockstep, settling):
            elsewhere += done.requests
            done.stop()
            ds = groups[keys[k]]
            small = done.got[0]
            small.games = sorted({x.game for x in ds})
            small.seen = len(ds)
            _merge(run, small, ignore)
            del groups[keys[k]]
    except AdapterFailure as e:
        run.failure = {"kind": e.kind, "message": str(e), "game": game}
    except Deadline:
        run.stopped = "deadline"
    except KeyboardInterrupt:
        run.stopped = "interrupted"
    finally:
        adapter.close()
        run.requests = adapter.requests + elsewhere
        if client is not None and run.stopped is not None:
            with contextlib.suppress(Exception):
                client.run(_end_engines)  # the tasks still running end with their engines
        stack.close()
    if run.stopped:
        # what was found before the run stopped, as it was found (neither minimised nor blamed)
        if not groups and not run.disagreements:
            for d in found:
                d.clause = ls.blame(d.kind, d.clauses, d.detail)
                groups.setdefault(d.key(), []).append(d)
        for ds in groups.values():
            ds[0].games = sorted({x.game for x in ds})
            ds[0].seen = len(ds)
            _merge(run, ds[0], ignore)
    run.profile = profile(oracle, evidence, run.disagreements, run.ignored)
    return run


def _count(run: Run, ls: Lockstep, out: Outcome, evidence: Counter[str]) -> None:
    """Count one game played in lockstep, in game order: its disagreements' candidates ordered
    by the clauses no agreeing move of an earlier game turned on (as they were when it was
    played here; a worker, which saw no earlier game, left them in the order they came)."""
    for d in out.found:
        d.clauses.sort(key=lambda c: c in ls.suspect_free and d.kind not in ("legal", "score"))
        d.clause = ls.blame(d.kind, d.clauses, d.detail)
    run.played += 1
    run.steps += out.steps
    run.per_game.append(len(out.found))
    evidence.update(out.evidence)
    ls.suspect_free |= out.agreed
    if not out.found:
        run.agreeing += 1


@dataclass(frozen=True)
class _Engine:
    """How a worker starts its own engine under test, and arbitro's side of the lockstep, as
    this process has them."""

    command: tuple[str, ...]
    timeout: float
    seconds_left: float | None  # of the run's deadline
    rulebook: str
    options: dict[str, Any]
    players: int | None
    layout: str | None
    overrides: dict[str, Any]
    announce: dict[str, Any]
    keep_going: bool
    positions: bool
    suspect_free: frozenset[str]


@dataclass
class _Done:
    """What a task gives back: what it produced, in order (those before a failure too), the
    requests its own engine answered, and why it stopped early, if it did."""

    got: list[Any]
    requests: int = 0
    failure: tuple[str, str] | None = None  # AdapterFailure's kind and message
    deadline: bool = False

    def stop(self) -> None:
        """Raise here what stopped the task there."""
        if self.failure is not None:
            raise AdapterFailure(*self.failure)
        if self.deadline:
            raise Deadline("the run's deadline came")


def _in_lockstep(
    engine: Lockstep | _Engine, step: Callable[[Lockstep, Any], Any], items: Sequence[Any]
) -> _Done:
    """`step(lockstep, item)` for each item, against this process's lockstep or (in a worker)
    one of the engine's own, ended afterwards whatever happened."""
    done = _Done([])
    own: Adapter | None = None
    try:
        if isinstance(engine, Lockstep):
            ls = engine
        else:
            until = None if engine.seconds_left is None else time.monotonic() + engine.seconds_left
            own = Adapter(engine.command, engine.timeout, until)
            _ENGINES.add(own)
            oracle = Oracle(
                engine.rulebook, engine.options, players=engine.players, layout=engine.layout,
                overrides=engine.overrides,
            )  # fmt: skip
            ls = Lockstep(own, oracle, engine.announce, engine.keep_going, engine.positions)
            ls.suspect_free = set(engine.suspect_free)
            own.ask("hello")
        for item in items:
            done.got.append(step(ls, item))
    except AdapterFailure as e:
        done.failure = (e.kind, str(e))
    except Deadline:
        done.deadline = True
    finally:
        if own is not None:
            own.close()
            _ENGINES.discard(own)
            done.requests = own.requests - 1  # its hello: this process asked the run's
    return done


_ENGINES: set[Adapter] = set()
"""The engines the tasks running in this (worker) process started."""


def _end_engines() -> None:
    """End every engine a task of this worker is playing, so that a run stopped by Ctrl-C or
    its deadline leaves none (an engine runs in a session of its own, which Ctrl-C at the
    terminal does not reach, and may not end when its input closes)."""
    for engine in list(_ENGINES):
        engine.close()


def _play_one(ls: Lockstep, item: tuple[int, Start, int]) -> Outcome:
    """Game `g` from its start, its moves chosen by the run's seed."""
    g, start, seed = item
    out = ls.play(start, following([], f"{seed}:{g}"), g)
    out.game = g
    return out


def _settle_one(ls: Lockstep, item: tuple[Disagreement, int, int, bool]) -> Disagreement:
    """A group's disagreement minimised, then blamed by counterfactual (`readings`)."""
    d, budget, blame_budget, readings = item
    small = minimise(ls, d, budget)
    if readings:
        counterfactual(ls, small, blame_budget)
    return small


def _batch_size(client: Any, games: int) -> int:
    """Games per task on a cluster: about two tasks per worker, at most 50 games each (each
    task starts an engine of its own, which may take a second)."""
    n = len(client.scheduler_info(n_workers=-1)["workers"]) or 1
    return max(1, min(50, -(-games // (2 * n))))


def _merge(run: Run, d: Disagreement, ignore: Sequence[str]) -> None:
    """Add `d` to the run's groups, one per (blamed clause, kind): a group keeps its smallest
    reproducer and every game it was seen in."""
    into = run.ignored if d.blamed and d.clause in ignore else run.disagreements
    for i, g in enumerate(into):
        if (g.kind, g.clause, g.blamed) == (d.kind, d.clause, d.blamed):
            small = g if (g.step, len(g.actions)) <= (d.step, len(d.actions)) else d
            small.games = sorted({*g.games, *d.games})
            small.seen = g.seen + d.seen
            small.replays = g.replays + d.replays
            into[i] = small
            return
    into.append(d)


def declared(hello: Mapping[str, Any]) -> dict[str, Any]:
    """What an `arbitro-adapter/2` engine declares in its `hello` (nothing for /1)."""
    keys = ("seatings", "rulebooks", "options", "positions", "moves")
    return {k: hello[k] for k in keys if k in hello}


def refuse_seating(decl: Mapping[str, Any], desc: Mapping[str, Any]) -> None:
    """An engine that declares its rulebooks or seatings is not played outside them."""
    books = decl.get("rulebooks")
    if isinstance(books, list) and desc["rulebook"] not in books:
        raise Unsupported(
            f"the engine plays only {', '.join(map(str, books))}, not {desc['rulebook']}"
        )
    seatings = decl.get("seatings")
    if isinstance(seatings, list):
        for s in seatings:
            if s.get("players") == desc["players"] and s.get("layout", "") in ("", desc["layout"]):
                return
        said = ", ".join(
            f"{s.get('players')} players" + (f" ({s['layout']})" if s.get("layout") else "")
            for s in seatings
        )
        raise Unsupported(f"the engine declares it seats only {said}: choose with --players")


class Unsupported(OptionError):
    """The engine declares it does not play the rulebook or seating asked for (exit 2)."""


# ------------------------------------------------------------------ output


def _act(a: Any) -> str:
    if isinstance(a, list) and a and all(isinstance(x, Mapping) for x in a):
        return " then ".join(_act(x) for x in a)
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
        after = f" after {_act(x['after'])}" if x.get("after") else ""
        lines.append(f"too lax: {_act(x.get('action'))}{after} (refused by {why})")
    for x in det.get("too_strict", []):
        after = f" after {_act(x['after'])}" if x.get("after") else ""
        lines.append(f"too strict: leaves out {_act(x.get('action'))}{after}")
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


def _heading(d: Mapping[str, Any]) -> str:
    """`kind · clause` of a disagreement: the clause blamed, or `unattributed` and the
    likeliest candidate."""
    if d["blame"] == "counterfactual":
        return f"{d['kind']} · {d['clause']}"
    return f"{d['kind']} · unattributed (likeliest {d['candidates'][0]})"


def _blame_lines(d: Mapping[str, Any]) -> list[str]:
    if d["agrees_under"]:
        return ["agrees under: " + "; ".join(_alt(a) for a in d["agrees_under"])]
    names = [c.split(":", 1)[-1] for c in d["candidates"][:5]]
    cands = ", ".join(names) + (" …" if len(d["candidates"]) > 5 else "")
    if not d["tried"]:
        return [f"not tried; candidates, likeliest first: {cands}"]
    tried = [t for t in d["tried"] if "clause" in t]
    if not tried:
        notes = [str(t.get("result")) for t in d["tried"]]
        return [f"not blamed: {shorten('; '.join(notes), 80)}", f"candidates: {cands}"]
    return [
        f"no change tried makes arbitro agree ({len(tried)} tried)",
        f"candidates, likeliest first: {cands}",
        *[f"  tried {_alt(t)}: {shorten(t['result'], 40)}" for t in tried[:3]],
    ]


def _verdict(row: Mapping[str, Any]) -> str:
    if row["verdict"] == "agree":
        return f"agree ({row['compared']})"
    return str(row["verdict"])


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
    if run.per_game:
        with_any = sum(1 for n in run.per_game if n)
        out.append(
            f"disagreements per game: {sum(run.per_game)} in {with_any} of {run.played} games, "
            f"at most {max(run.per_game)} in one"
        )
    if run.stopped:
        why = "at the --deadline" if run.stopped == "deadline" else "by Ctrl-C"
        out.append(
            f"stopped {why} after {run.played} of {run.games} games: the results so far, "
            "neither minimised nor blamed"
        )
    data = run.to_json()
    for d in data["disagreements"]:
        rep = d["reproducer"]
        out.append("")
        out.append(f"{_heading(d)} · seen {d['seen']}x in {len(d['games'])} game(s)")
        out.append(
            f"  minimal: step {d['step']} (dealer {rep['dealer']}, totals {rep['scores']}), "
            f"{d['replays']} replays"
        )
        out += ["  " + x for x in describe(d)]
        out += ["  " + x for x in _blame_lines(d)]
        out += _reproduce(rep)
    for d in data["ignored"]:
        out.append("")
        out.append(f"ignored (--ignore): {_heading(d)} · seen {d['seen']} time(s)")
    counts: dict[str, int] = {}
    for row in run.profile:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    out.append("")
    out.append(
        "compliance: "
        + ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS)
        + f" of {len(run.profile)} clauses (agree: decisions compared)"
    )
    for row in run.profile:
        out.append(f"  {_verdict(row):<14} {row['clause']} ({shorten(row['section'], 40)})")
    # a position line is written whole, whatever its length: it is meant to be copied
    return "\n".join(x if is_position_line(x) else shorten(x, 100) for x in out) + "\n"


def _reproduce(rep: Mapping[str, Any]) -> list[str]:
    """The reproducer as a bug report: the position line, then the move (if any)."""
    if not rep.get("position"):
        return []
    head = "  reproduce: the position, then the move" if rep.get("move") else "  the position:"
    return [head, rep["position"], *(["  " + rep["move"]] if rep.get("move") else [])]


def html(run: Run) -> str:
    """The verdict and the compliance profile as one self-contained HTML page."""
    from html import escape

    from arbitro.oracle.show import board_text
    from arbitro.reports.html import page

    data = run.to_json()
    parts = [
        f"<h1>Conformance of {escape(run.engine)} to {escape(run.rulebook)}</h1>",
        f"<p>{run.played} games, {run.steps} steps, seed {run.seed}: "
        f"<strong>{escape(run.status)}</strong></p>",
    ]
    if run.failure is not None:
        parts.append(f"<p>{escape(run.failure['message'])}</p>")
    if run.per_game:
        parts.append(f"<p>Disagreements per game: {escape(', '.join(map(str, run.per_game)))}</p>")
    if data["disagreements"]:
        parts.append("<h2>Disagreements</h2>")
    for d in data["disagreements"]:
        parts.append(f"<h3>{escape(_heading(d))}</h3>")
        parts.append(
            f"<p>seen {d['seen']} time(s), in games {escape(', '.join(map(str, d['games'])))}</p>"
        )
        lines = describe(d) + _blame_lines(d)
        parts.append("<ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines) + "</ul>")
        if d["reproducer"].get("position"):
            line, move = d["reproducer"]["position"], d["reproducer"].get("move")
            board = board_text(read_position_line(line))
            parts.append(
                f"<p>position <code>{escape(line)}</code>"
                + (f", move <code>{escape(move)}</code>" if move else "")
                + f"</p><pre class='board'>{escape(board)}</pre>"
            )
        rep = _canon(d["reproducer"])
        parts.append(f"<details><summary>reproducer</summary><pre>{escape(rep)}</pre></details>")
    parts.append("<style>tr.disagree td { background: #fdecea; } "
                 "tr.unsettled td { background: #fff8e1; } "
                 "tr.agree td:last-child { color: #1b5e20; }</style>")  # fmt: skip
    parts.append("<h2>Compliance profile</h2><table><tr><th>clause</th><th>section</th>"
                 "<th>book</th><th>verdict</th><th>decisions compared</th></tr>")  # fmt: skip
    for row in run.profile:
        parts.append(
            f"<tr class='{escape(row['verdict'])}'><td>{escape(row['clause'])}"
            f"</td><td>{escape(row['section'])}</td><td>{escape(row['status'])}</td>"
            f"<td>{escape(row['verdict'])}</td><td>{row['compared']}</td></tr>"
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
        keep_going=not args.stop_at_first,
        ignore=args.ignore or (),
        blame_budget=args.blame_budget,
        workers=args.workers or 0,
        scheduler=args.scheduler,
    )


def register(sub: Any) -> None:
    """Add `arbitro conform` and `arbitro adapter` to the command line's subparsers."""
    from arbitro.conformance import conform_adapter
    from arbitro.fan_out import add_fan_out

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
    p.add_argument(
        "--blame-budget", type=int, default=40, help="changes tried per disagreement to blame it"
    )
    p.add_argument(
        "--ignore",
        action="append",
        metavar="CLAUSE",
        help="set aside disagreements blamed on this clause (a known bug), to measure the rest",
    )
    p.add_argument(
        "--continue",
        dest="stop_at_first",
        action="store_false",
        help="play each game through after a disagreement (the default)",
    )
    p.add_argument(
        "--stop-at-first",
        dest="stop_at_first",
        action="store_true",
        help="end each game at its first disagreement",
    )
    add_fan_out(p, "games and blame, each task with its own engine process,")
    p.add_argument("--json", action="store_true", help="the whole result as one JSON object")
    p.add_argument("--html", metavar="FILE", help="also write the compliance profile as HTML")
    p.add_argument("--force", action="store_true", help="overwrite the HTML file")
    p.set_defaults(func=cmd_conform, command=[], stop_at_first=False)
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
