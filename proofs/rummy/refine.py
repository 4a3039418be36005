"""Refinement of the Samba/Canasta engine by its guarded relation, one concrete state at a time.

`refiner(rules, seating)` is the rummy family's state check for `arbitro prove --refine`: given a
state, the engine's legal actions there and the state each leads to (`legal_actions`, `apply`),
it returns the first place where the engine and the relations of `arbitro.proofs.rummy.moves`
(built from the rules object; their facts compiled to Python by `terms.Evaluator`) part, or None:

1. **The invariant.** Every card of the seating's deck is in exactly one place (stock, pile, a
   hand, a pile held aside, a freed wild, a meld, a row of red threes): the count of each kind
   over every zone is the deck's (`cards.deck`). Checked on the state and on every successor —
   it is the inductive invariant that conservation needs (the moves' effects keep it, which the
   `conservation` property proves; this checks that the engine's states satisfy it).
2. **Successors.** Every legal action, read with its successor through the protocol's JSON, is a
   step of the relation: every effect and guard of the relations it goes through holds
   (`abstract.step_checks`), zones it should leave alone unchanged.
3. **Enabled actions, where the relation decides them.** In a *decided* state — the play step of
   a side that has opened, no pile held aside, no freed wild, no question asked of the partner,
   play not stopped by a last red three — every addition of a held card to a meld of the side
   (when at least three cards are held), every new meld of its laying size
   (`max(set_min, set_start_min_naturals)` for a set, `sequence_min` for an escalera,
   `wild_meld_min_start` for a wild meld; when two cards stay in hand), every merge of two of the
   side's melds, and every discard that keeps a card, is enabled by the relation exactly when the
   engine lists it. Elsewhere (the draw, the pile, an opening under way, going out) the engine
   also searches arrangements of the hand (can the player still end the turn, reach the
   minimum, go out) which the relation does not encode: there only the successor direction is
   checked (docs/proofs.md, *Refinement*, says so).
4. **Refusals.** In a decided state the engine must also refuse, when asked (`apply`), what it
   does not list: every new meld of another size than its kind's laying size (`off_size_lays`:
   shorter ones, which the relation's guards refuse, as illegal under a clause the guards name,
   *:sequence-min, *:set-min…), and every addition the relation refuses of a wild or of a card
   of the meld's rank or suit (as illegal under a clause the guards name: an eighth card on an
   escalera of seven, *:sequence-max). A bug in the meld rules that `legal_actions` hides
   behind its own enumeration (which lays at the laying size, and reads a meld's open ends
   from its size) still shows in what the oracle answers.
5. **The hand's score.** When an action ends the hand, the final position read into the score
   encoding (`score.config`) satisfies its facts and gives the engine's points, category by
   category, for every side.
6. **The game's end.** At the same actions, the running totals are the ones before plus those
   points, and the game is over exactly when the game-end encoding (`game_end.over`, from
   *:target-score, *:target-rule, *:target-tie) says so; the engine is asked the same action
   again with the totals moved so that a side lands exactly on the target (`start` begins
   every other sampled game near it, so that such totals keep the hand's opening minimums).

Implements, as checks, *:layouts, *:packs, *:jokers-per-pack and, through the relations, every
clause those encode.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.game import Seating
from arbitro.model.rummy.model import RUMMY
from arbitro.model.rummy.scoring import score_hand
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import RummyRules
from arbitro.proofs.facts import Fact, FactChecker, Facts
from arbitro.proofs.refine import Disagreement
from arbitro.proofs.rummy import abstract
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.moves import in_classes
from arbitro.proofs.terms import Evaluator, variables

_plus = abstract.plus
_minus = abstract.minus


def _near(card: str, meld: Mapping[str, Any]) -> bool:
    """Whether `card` is a wild or shares the rank (a set) or the suit (an escalera) of the
    meld's cards: the additions whose refusal turns on the meld's size and caps."""
    if card == "JK" or card[0] == "2":
        return True
    return any(c[:-1] == card[:-1] or c[-1] == card[-1] for c in meld["cards"])


def _key(action: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """An action as a key: equal for equal actions, whatever the order of their fields (a list
    of cards read as a tuple, in its order)."""
    return tuple(sorted([(k, tuple(v) if type(v) is list else v) for k, v in action.items()]))


DECIDED = ("add", "lay", "merge", "discard")
LOCAL = {
    "lay": ("param:laid", "post:new"),
    "add": ("pre:a", "post:a2", "param:card"),
    "merge": ("pre:a", "pre:b", "post:new"),
}
"""Per relation, the unknowns that describe the meld alone: the facts over only these (the meld
clauses) are evaluated once per meld and remembered, the rest per state."""


class _Split:
    """A relation's facts in two parts, whose conjunction is all of them: those over the meld's
    unknowns alone (`local`, remembered by the meld's counts) and the others (checked by
    `rest`, an `abstract.Checker` whose relation keeps only them)."""

    def __init__(self, ck: abstract.Checker, rest: abstract.Checker, move: str) -> None:
        rel = ck.relations[move]
        prefixes = LOCAL[move]
        local: list[Fact] = []
        others: dict[str, list[Fact]] = {"domain": [], "guards": [], "effects": []}
        for part in others:
            for f in getattr(rel, part):
                names = [v.name for v in variables([f.term])]
                if names and all(n.startswith(prefixes) for n in names):
                    local.append(f)
                else:
                    others[part].append(f)
        self.names = [f"{p}[{k}]" for p in prefixes for k in range(C.KINDS)]
        self.local = FactChecker(local, self.names)
        rest.relations[move] = dataclasses.replace(
            rel,
            domain=Facts(others["domain"]),
            guards=Facts(others["guards"]),
            effects=Facts(others["effects"]),
        )
        self.memo: dict[tuple[int, ...], bool] = {}
        # by the vectors' identities first, each entry keeping its vectors alive (so an identity
        # found here is of the same object); a mutable vector is never remembered so
        self.byid: dict[tuple[int, ...], tuple[tuple[Sequence[int], ...], bool]] = {}

    def local_ok(self, *vectors: Sequence[int]) -> bool:
        mutable = list in map(type, vectors)
        ident = tuple(map(id, vectors))
        if not mutable:
            hit = self.byid.get(ident)
            if hit is not None:
                return hit[1]
        key = tuple(itertools.chain.from_iterable(vectors))
        got = self.memo.get(key)
        if got is None:
            if len(self.memo) >= 1 << 16:
                self.memo.clear()
            got = self.memo[key] = self.local.holds(list(key))
        if not mutable:
            if len(self.byid) >= 1 << 16:
                self.byid.clear()
            self.byid[ident] = (vectors, got)
        return got


"""The action types whose enabled set is compared in a decided state."""


class _Shared:
    """What the refiners of one rules object share, whatever the seating: the relations, their
    compiled facts and the score encoding (built once: building and compiling them is most of a
    short run)."""

    def __init__(self, rules: RummyRules) -> None:
        self.rules = rules
        self.ck = abstract.Checker(rules)
        self.rest = copy.copy(self.ck)  # the same relations, some of whose facts `_Split` moves
        self.rest.relations = dict(self.ck.relations)
        self.rest.compiled = {}
        self.rest.slots = {}
        self.rest.plans = {}
        self.split = {move: _Split(self.ck, self.rest, move) for move in LOCAL}
        self.score: tuple[Any, FactChecker, Evaluator, list[str]] | None = None


_SHARED: dict[int, _Shared] = {}
"""By the id of a rules object (the entry keeps it alive)."""


class Refiner:
    """The state check of one rules object and seating (see the module's docstring)."""

    def __init__(self, rules: RummyRules, seating: Seating) -> None:
        self.rules = rules
        self.seating = seating
        shared = _SHARED.get(id(rules))
        if shared is None or shared.rules is not rules:
            shared = _SHARED[id(rules)] = _Shared(rules)
        self.ck, self.rest, self.split = shared.ck, shared.rest, shared.split
        self.shared = shared
        layout = next(x for x in rules.layouts if x.name == seating.layout)
        self.deck = list(C.deck(rules, layout).counts())
        self.players = layout.players
        self.cover = {k for k in range(C.KINDS) if in_classes(k, rules.upcard_cover)}
        self._score: tuple[Any, FactChecker, Evaluator, list[str], int] | None = None
        self.set_size = max(rules.set_min, rules.set_start_min_naturals)
        self.run_size = rules.sequence_min if rules.sequences else 0
        self.wild_size = rules.wild_meld_min_start if rules.wild_canasta else 0
        self.lay_sizes = tuple(sorted({self.set_size, self.run_size, self.wild_size} - {0}))
        self.sets: dict[str, int] = {}
        self.refused: list[dict[str, Any]] = []

    # ------------------------------------------------------------ the invariant

    def invariant(self, s: Mapping[str, Any]) -> str | None:
        """How the state's cards differ from the deck's (None: they do not)."""
        zones: list[str] = [*s["stock"], *s["pile"], *s["held"]]
        if s.get("freed"):
            zones.append(s["freed"])
        for h in s["hands"]:
            zones += h
        for side in s["table"]:
            zones += side["red_threes"]
            for m in side["melds"]:
                zones += m["cards"]
        got = C.counts_of(zones)
        diff = [
            f"{C.name(k)} {self.deck[k]} in the deck, {got[k]} in play"
            for k in range(C.KINDS)
            if got[k] != self.deck[k]
        ]
        return "; ".join(diff) if diff else None

    def upcards(self, s: Mapping[str, Any]) -> str | None:
        """The deal relation's upcard guard on a pile nobody has taken or discarded to yet (every
        card below the top of a covered class, *:upcard-cover): its top is not of a covered class
        unless the stock ran out covering. None when it holds or the pile is past the deal."""
        pile = s["pile"]
        if s["pile_taken"] or not pile:
            return None
        kinds = [C.kind_of(c) for c in pile]
        if not all(k in self.cover for k in kinds[:-1]):
            return None
        if kinds[-1] in self.cover and s["stock"]:
            return f"the upcard {pile[-1]} is of a covered class and was not covered"
        return None

    # ------------------------------------------------------------ enabled actions

    def decided(self, s: Mapping[str, Any]) -> bool:
        """Whether the relation decides the enabled set of the DECIDED types here."""
        side = s["table"][int(s["seat"]) % int(s["sides"])]
        return bool(
            s["phase"] == "play"
            and s["step"] == "play"
            and side["opened"]
            and not s["held"]
            and not s.get("freed")
            and not s["answer"]
            and not s["asked"]
            and not s["no_discard"]
        )

    def enables(self, pre: Mapping[str, Any], action: dict[str, Any]) -> bool:
        """Whether the relation allows `action` from `pre`: every fact of its relation holds on
        the zones the action's effects lead to (the turn kept by the mover)."""
        seat = int(pre["seat"])
        melds = abstract.melds_of(pre, seat % int(pre["sides"]))
        self.sets = abstract.set_counts(pre, seat % int(pre["sides"]))
        return not self._facts_broken(abstract.zones(pre, seat), melds, action)

    def _facts_broken(
        self,
        zp: Mapping[str, Sequence[int]],
        melds: Sequence[Sequence[int]],
        action: dict[str, Any],
    ) -> bool:
        """As `abstract.step_checks` reads a step, with the state after built from the action's
        effects on the zones `zp` of the state before (seen from the mover, whose side's melds
        are `melds`)."""
        kind = action["type"]
        seat = int(action["seat"])
        nxt = (seat + 1) % self.players if kind == "discard" else seat
        turn = abstract.turn_scalars({"players": self.players}, seat, nxt, kind == "discard")
        post = dict(zp)
        touched: dict[str, Sequence[int]] = {}
        params: dict[str, Sequence[int]] = {}
        if kind in ("discard", "add"):
            card = abstract.counts([action["card"]])
            params["card"] = card
            post["hand"] = _minus(zp["hand"], card)
            if kind == "discard":
                post["pile"] = _plus(zp["pile"], card)
                move = "discard"
            else:
                m = melds[action["meld"]]
                pre_z = dict(zp, melds=_minus(zp["melds"], m))
                post["melds"] = pre_z["melds"]
                touched = {"a": m, "a2": _plus(m, card)}
                if not self.split["add"].local_ok(m, touched["a2"], card):
                    return True
                return bool(self.rest.check("add", pre_z, post, touched, params, turn))
        elif kind == "lay":
            laid = abstract.counts(action["cards"])
            params["laid"] = laid
            post["hand"] = _minus(zp["hand"], laid)
            touched = {"new": laid}
            if not self.split["lay"].local_ok(laid, laid):
                return True
            move = "lay"
        else:  # merge
            a, b = melds[action["meld"]], melds[action["other"]]
            base = _minus(_minus(zp["melds"], a), b)
            pre_z = dict(zp, melds=base)
            post["melds"] = base
            touched = {"a": a, "b": b, "new": _plus(a, b)}
            if not self.split["merge"].local_ok(a, b, touched["new"]):
                return True
            return bool(self.rest.check("merge", pre_z, post, touched, params, turn))
        if min(post["hand"]) < 0:
            return True
        if move == "lay":
            return bool(self.rest.check(move, zp, post, touched, params, {**self.sets, **turn}))
        return bool(self.ck.check(move, zp, post, touched, params, turn))

    def lays(self, hand: Sequence[str]) -> list[list[str]]:
        """Every new meld at its laying size that leaves two cards in the hand, of the shapes
        a meld can have under any book: a set (naturals of one rank, wilds), an escalera (one
        suit, no wild, no card twice) or a wild meld; a black-three meld is laid only to go out
        (the relation's guard), so never with two cards left."""
        order = RUMMY.parse_card
        wilds, by_rank, by_suit = _hand_groups(hand)
        room = len(hand) - 2
        found: set[tuple[str, ...]] = set()
        if self.set_size <= room:
            for naturals in by_rank.values():
                pool = sorted(naturals + wilds, key=order)
                for combo in itertools.combinations(pool, self.set_size):
                    if any(c in naturals for c in combo):
                        found.add(combo)
        if 0 < self.run_size <= room:
            for suited in by_suit.values():
                found.update(itertools.combinations(sorted(suited, key=order), self.run_size))
        if 0 < self.wild_size <= room:
            found.update(itertools.combinations(wilds, self.wild_size))
        return [list(c) for c in sorted(found, key=lambda c: [order(x) for x in c])]

    def candidates(self, s: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The DECIDED actions the mover could name here, enabled or not."""
        seat = int(s["seat"])
        hand: list[str] = s["hands"][seat]
        melds = s["table"][seat % int(s["sides"])]["melds"]
        order = sorted(set(hand), key=RUMMY.parse_card)
        out: list[dict[str, Any]] = []
        if len(hand) >= 2:
            out += [{"type": "discard", "seat": seat, "card": c} for c in order]
        if len(hand) >= 3:
            out += [
                {"type": "add", "seat": seat, "meld": i, "card": c}
                for i in range(len(melds))
                for c in order
            ]
        if len(hand) >= 2 + min(self.lay_sizes):
            out += [{"type": "lay", "seat": seat, "cards": c} for c in self.lays(hand)]
        pairs = itertools.combinations(range(len(melds)), 2) if len(hand) >= 2 else ()
        for i, j in pairs:  # the earlier meld first
            out.append({"type": "merge", "seat": seat, "meld": i, "other": j})
        return out

    def enabled_difference(
        self, pre: Mapping[str, Any], legal: Sequence[dict[str, Any]]
    ) -> Disagreement | None:
        if not self.decided(pre):
            return None
        listed = {_key(a): a for a in legal if a["type"] in DECIDED}
        hand = pre["hands"][int(pre["seat"])]
        # the engine's own decided actions, compared within the candidates' reach
        reach = {"lay": 2, "add": 3, "discard": 2, "merge": 2}  # cards held, for the candidates
        for k, a in list(listed.items()):
            laid = len(a["cards"]) if a["type"] == "lay" else 0
            if len(hand) < laid + reach.get(a["type"], 0):
                del listed[k]
        seat = int(pre["seat"])
        zp = abstract.zones(pre, seat)
        melds = abstract.melds_of(pre, seat % int(pre["sides"]))
        self.sets = abstract.set_counts(pre, seat % int(pre["sides"]))
        ours: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
        self.refused = []
        for a in self.candidates(pre):
            if not self._facts_broken(zp, melds, a):
                ours[_key(a)] = a
            elif a["type"] == "add" and _near(
                a["card"], pre["table"][seat % int(pre["sides"])]["melds"][a["meld"]]
            ):
                self.refused.append(a)
        missing = tuple(a for k, a in ours.items() if k not in listed)
        extra = tuple(a for k, a in listed.items() if k not in ours)
        if not missing and not extra:
            return None
        words = []
        if missing:
            words.append(f"the relation allows {len(missing)} the engine does not list")
        if extra:
            words.append(f"the engine lists {len(extra)} the relation does not allow")
        first = (missing or extra)[0]
        return Disagreement(
            "enabled", "; ".join(words) + f" (first: {json.dumps(first)})", missing, extra
        )

    def off_size_lays(self, hand: Sequence[str]) -> list[list[str]]:
        """New melds of every size but the laying sizes that `lays` lists, leaving two cards in
        the hand: per rank held, its first n naturals with the first w wilds (the suits of a
        set's cards change nothing the relation reads); per suit, every window of its distinct
        naturals in order (consecutive or not); the first w wilds alone. Each is a candidate the
        engine must refuse (`refusal_difference`)."""
        order = RUMMY.parse_card
        wilds, by_rank, by_suit = _hand_groups(hand)
        room = len(hand) - 2
        found: set[tuple[str, ...]] = set()
        for naturals in by_rank.values():
            naturals.sort(key=order)
            for n in range(1, len(naturals) + 1):
                for w in range(len(wilds) + 1):
                    if n + w <= room and n + w != self.set_size:
                        found.add(tuple(sorted([*naturals[:n], *wilds[:w]], key=order)))
        for suited in by_suit.values():
            row = sorted(suited, key=order)
            for size in range(2, min(len(row), room) + 1):
                if size != self.run_size:
                    found.update(tuple(row[i : i + size]) for i in range(len(row) - size + 1))
        for w in range(1, min(len(wilds), room) + 1):
            if w != self.wild_size:
                found.add(tuple(wilds[:w]))
        return [list(c) for c in sorted(found, key=lambda c: [order(x) for x in c])]

    def refusal_difference(
        self, state: Any, pre: Mapping[str, Any], legal: Sequence[dict[str, Any]]
    ) -> Disagreement | None:
        """In a decided state, the actions the engine must refuse when asked (the oracle's
        `apply`), not only leave out of `legal_actions`: a new meld of any size but its kind's
        laying size, and an addition the relation refuses of a card of the meld's rank or suit,
        or a wild. An addition, or a meld shorter than every laying size, that the relation's
        guards refuse, the engine refuses as illegal under one of the clauses those guards name
        (*:sequence-min, *:sequence-max, *:set-min…); a longer meld the guards refuse it
        refuses in any way (as malformed first, where its size is not the laying size); where
        they allow it (a meld larger than its laying size), the engine refuses it all the
        same (melds are laid at their laying size and grown by additions)."""
        if not self.decided(pre):
            return None
        seat = int(pre["seat"])
        listed = {_key(a) for a in legal}
        zp = abstract.zones(pre, seat)
        turn = abstract.turn_scalars({"players": self.players}, seat, seat, False)
        sets = abstract.set_counts(pre, seat % int(pre["sides"]))
        short = min(self.lay_sizes)

        def lay_clauses(cards: list[str]) -> list[str]:
            laid = abstract.counts(cards)
            post = dict(zp, hand=_minus(zp["hand"], laid))
            broken = self.ck.check("lay", zp, post, {"new": laid}, {"laid": laid}, {**sets, **turn})
            return sorted({b.clause for b in broken})

        melds = abstract.melds_of(pre, seat % int(pre["sides"]))

        def add_clauses(add: dict[str, Any]) -> list[str]:
            card = abstract.counts([add["card"]])
            m = melds[add["meld"]]
            pre_z = dict(zp, melds=_minus(zp["melds"], m))
            post = dict(pre_z, hand=_minus(zp["hand"], card))
            touched = {"a": m, "a2": _plus(m, card)}
            broken = self.ck.check("add", pre_z, post, touched, {"card": card}, turn)
            return sorted({b.clause for b in broken})

        # (the action, the clauses the relation refuses it under, whether only a refusal as
        # illegal under one of them will do). A meld shorter than every laying size, and an
        # addition, must be refused as illegal under a clause the relation's guards name: their
        # clauses are read first. A longer meld must be refused in any way: its clauses only
        # word the difference, and are read when the engine accepts it.
        asks: list[tuple[dict[str, Any], list[str] | None, bool]] = []
        for cards in self.off_size_lays(pre["hands"][seat]):
            act: dict[str, Any] = {"type": "lay", "seat": seat, "cards": cards}
            if len(cards) < short:
                clauses = lay_clauses(cards)
                asks.append((act, clauses, bool(clauses)))
            else:
                asks.append((act, None, False))
        for add in self.refused:
            clauses = add_clauses(add)
            asks.append((add, clauses, bool(clauses)))
        for act, known, illegal in asks:
            if _key(act) in listed:
                continue  # the enabled-set comparison speaks of listed actions
            try:
                RUMMY.apply(self.rules, state, RUMMY.action_from_json(act))
            except IllegalAction as e:
                if not illegal or e.clause in (known or ()):
                    continue
                under = ", ".join(known or ()) or "its guards"
                why = f"the engine refuses it under {e.clause}, the relation under {under}"
            except MalformedInput as e:
                if not illegal:
                    continue
                under = ", ".join(known or ()) or "its guards"
                why = f"the relation refuses it under {under}; the engine calls it malformed ({e})"
            else:
                clauses = known if known is not None else lay_clauses(act["cards"])
                under = ", ".join(clauses) or "its guards"
                why = f"the engine accepts it, the relation refuses it under {under}"
                if not clauses and act["type"] == "lay":
                    why = "the engine accepts a meld laid at other than its laying size"
            text = f"{json.dumps(act)}: {why} (and does not list it)"
            return Disagreement("enabled", text, (), (act,))
        return None

    def decided_opening(self, pre: Mapping[str, Any]) -> bool:
        """Whether `opening_difference` compares the enabled set here."""
        seat = int(pre["seat"])
        mine = pre["table"][seat % int(pre["sides"])]
        left = len(pre["hands"][seat]) + len(pre["held"])
        return bool(
            pre["phase"] == "play"
            and pre["step"] == "play"
            and not mine["opened"]
            and mine["melds"]
            and not pre.get("freed")
            and not pre["answer"]
            and not pre["asked"]
            and not pre["no_discard"]
            and left >= 2
        )

    def opening_difference(
        self, pre: Mapping[str, Any], legal: Sequence[dict[str, Any]]
    ) -> Disagreement | None:
        """Where an opening is under way (the mover's side has melds and has not opened), the
        play step with no freed wild, no question asked or answered and at least two cards to
        keep: finishing the opening is legal exactly when the relation's guards allow it (the
        melds' card points reach the side's minimum)."""
        if not self.decided_opening(pre):
            return None
        seat = int(pre["seat"])
        side = seat % int(pre["sides"])
        zp = abstract.zones(pre, seat)
        post = dict(zp, hand=_plus(zp["hand"], zp["held"]), held=[0] * C.KINDS)
        scalars = {
            **abstract.opening_scalars(pre, side),
            **abstract.turn_scalars(pre, seat, seat, False),
        }
        ours = not self.ck.check("finish-opening", zp, post, {}, {}, scalars)
        listed = any(a["type"] == "finish-opening" for a in legal)
        if ours == listed:
            return None
        act = {"type": "finish-opening", "seat": seat}
        if ours:
            text = "the relation allows finishing the opening, the engine does not list it"
            return Disagreement("enabled", f"{text} ({json.dumps(act)})", (act,), ())
        text = "the engine lists finishing the opening, the relation does not allow it"
        return Disagreement("enabled", f"{text} ({json.dumps(act)})", (), (act,))

    # ------------------------------------------------------------ black threes and wilds

    def black_three_difference(
        self, state: Any, pre: Mapping[str, Any], legal: Sequence[dict[str, Any]]
    ) -> Disagreement | None:
        """Where the mover holds black threes and wilds and nothing else but a card to discard
        (so a meld of them would go out), the engine is asked to lay every black three held with
        one wild, two… (the oracle's `apply`) when it does not list it: `legal_actions` builds
        black-three melds from the book's clauses, so a meld rule that only `apply` reads would
        not show in the listed moves. A lay the engine accepts must be a step of the lay
        relation (*:black-three-meld-wilds, *:black-threes-meld and the meld's caps)."""
        if pre["phase"] != "play" or pre["step"] != "play":
            return None
        seat = int(pre["seat"])
        hand = pre["hands"][seat]
        names = {C.name(k) for k in C.BLACK_THREES}
        blacks = [c for c in hand if c in names]
        wilds = sorted((c for c in hand if c == "JK" or c[0] == "2"), key=RUMMY.parse_card)
        if not blacks or not wilds or len(hand) > len(blacks) + len(wilds) + 1:
            return None
        listed = {_key(a) for a in legal}
        for w in range(1, len(wilds) + 1):
            if len(hand) - len(blacks) - w > 1:
                continue
            cards = sorted([*blacks, *wilds[:w]], key=RUMMY.parse_card)
            act: dict[str, Any] = {"type": "lay", "seat": seat, "cards": cards}
            if _key(act) in listed:
                continue  # the successor rows check it
            try:
                nxt = RUMMY.apply(self.rules, state, RUMMY.action_from_json(act))
            except (IllegalAction, MalformedInput):
                continue
            broken = abstract.step_checks(self.ck, pre, act, RUMMY.state_to_json(nxt))
            if broken:
                why = "; ".join(str(b) for b in broken[:3])
                text = f"{json.dumps(act)}: the engine accepts it (and does not list it): {why}"
                return Disagreement("enabled", text, (), (act,))
        return None

    # ------------------------------------------------------------ the hand's score

    def score_difference(self, end: Mapping[str, Any], result: Any) -> str | None:
        from arbitro.proofs.rummy import score

        if self._score is None:
            if self.shared.score is None:
                cfg = score.config(self.rules)
                names = cfg.unknowns()
                self.shared.score = (
                    cfg,
                    FactChecker(cfg.facts.items, names),
                    Evaluator(list(cfg.categories.values()), names),
                    names,
                )
            cfg = self.shared.score[0]
            index = next(i for i, g in enumerate(cfg.seatings) if self.seating.layout in g.names)
            self._score = (*self.shared.score, index)
        cfg, fc, ev, names, index = self._score
        for side in range(int(end["sides"])):
            v = abstract.config_values(cfg, end, side, index, names)
            values = [v.get(n, 0) for n in names]
            broken = fc.failing(values)
            if broken:
                return f"side {side}'s final position breaks {broken[0].clause}: {broken[0].note}"
            mine = dict(zip(cfg.categories, (int(x) for x in ev(values)), strict=True))
            theirs = dict(result.categories[side])
            if mine != theirs:
                diff = {
                    k: (mine.get(k), theirs.get(k)) for k in mine if mine.get(k) != theirs.get(k)
                }
                return f"side {side} scores differently (relation, engine): {diff}"
        return None

    def position_difference(self, state: Any, pre: Mapping[str, Any]) -> str | None:
        """The position as the hand's score would count it if play stopped now (no one out):
        the engine's scoring (`model.rummy.scoring.score_hand`) against the score encoding, so
        that every category but going out is compared on every state, not only at the rare ends
        of random play."""
        if pre["phase"] != "play":
            return None
        blacks = {C.name(k) for k in C.BLACK_THREES}
        if any(c in blacks for side in pre["table"] for m in side["melds"] for c in m["cards"]):
            # black threes are melded only by a player going out, within the turn that ends the
            # hand: no position of play stops with them on the table (the hand's end is checked)
            return None
        if any(c in blacks for c in pre["held"]):
            # a pile held aside waits for the opening within the turn, so no hand ends with one;
            # the all-in-hand penalty reads the hand alone, the encoding every card held
            return None
        res = score_hand(tables(self.rules), state, "stock-out", -1)
        return self.score_difference({**pre, "result": {"reason": "stock-out"}}, res)

    # ------------------------------------------------------------ the game's end

    def hand_points(self, end: Mapping[str, Any]) -> list[int]:
        """Each side's points for the finished hand `end`, by the score encoding (built by
        `score_difference`, which runs first)."""
        assert self._score is not None
        cfg, _, ev, names, index = self._score
        out = []
        for side in range(int(end["sides"])):
            v = abstract.config_values(cfg, end, side, index, names)
            out.append(sum(int(x) for x in ev([v.get(n, 0) for n in names])))
        return out

    def game_end_difference(
        self, state: Any, pre: Mapping[str, Any], action: Any, post: Mapping[str, Any], k: int
    ) -> Disagreement | None:
        """At an action that ends a hand: the running totals are the ones before plus the hand's
        points by the score encoding, and the game is over exactly when the game-end encoding
        (`game_end.over`: *:target-score, *:target-rule, *:target-tie) says so. Then the same
        action is asked of the engine from the same position with the totals moved so that each
        side in turn lands exactly on the target (one past it too where the book asks to exceed
        it) and the others short of it, and every side at once (a tie on the target): a game
        started at those totals whose
        opening minimums are the same deals the same hand (`game_end.minimum`), so the walk's
        transcript, started there, replays."""
        from arbitro.proofs.rummy import game_end

        points = self.hand_points(post)
        before = [int(x) for x in pre["scores"]]
        what = json.dumps(RUMMY.action_to_json(action))
        text = self._game_end(before, points, [int(x) for x in post["scores"]], post["phase"])
        if text is not None:
            return Disagreement("successor", f"{what}: {text}", action=k)
        top = self.rules.target_score
        lands = (top, top + 1) if self.rules.target_rule == "exceed" else (top,)
        # each side in turn on the target, the others where they were but short of it
        below = [min(b, top - 1 - p) for b, p in zip(before, points, strict=True)]
        probes = [
            [*below[:s], x - points[s], *below[s + 1 :]] for s in range(len(before)) for x in lands
        ]
        probes.append([top - p for p in points])
        mins = [int(x) for x in pre["minimums"]]
        seen = {tuple(before)}
        for starts in probes:
            if tuple(starts) in seen or [game_end.minimum(self.rules, x) for x in starts] != mins:
                continue
            seen.add(tuple(starts))
            moved = RUMMY.state_from_json(self.rules, {**pre, "scores": starts})
            nxt = RUMMY.apply(self.rules, moved, action)
            got = [int(x) for x in RUMMY.game_scores(nxt)]
            text = self._game_end(starts, points, got, RUMMY.phase(nxt))
            if text is not None:
                head = f"{what}, the game started at {starts}"
                return Disagreement("successor", f"{head}: {text}", action=k, scores=tuple(starts))
        return None

    def _game_end(
        self, before: Sequence[int], points: Sequence[int], got: Sequence[int], phase: str
    ) -> str | None:
        from arbitro.proofs.rummy import game_end

        want = [b + p for b, p in zip(before, points, strict=True)]
        if list(got) != want:
            return (
                f"the running totals are {list(got)}, not {want} (before, plus the hand's points)"
            )
        over = bool(game_end.evaluator(self.rules, len(want))(want)[0])
        if (phase == "over") != over:
            r = self.rules
            return (
                f"the game is {'over' if phase == 'over' else 'not over'} at {want}, target "
                f"{r.target_score} ({r.cid('target_score')}, {r.cid('target_rule')} "
                f"{r.target_rule}, {r.cid('target_tie')} {r.target_tie})"
            )
        return None

    # ------------------------------------------------------------ the check

    def __call__(
        self, state: Any, actions: Sequence[Any], successors: Sequence[Any]
    ) -> Disagreement | None:
        pre = RUMMY.state_to_json(state)
        bad = self.invariant(pre)
        if bad is not None:
            return Disagreement("invariant", f"the deck invariant breaks in the state: {bad}")
        bad = self.upcards(pre)
        if bad is not None:
            return Disagreement("invariant", f"the deal breaks upcard-cover: {bad}")
        bad = self.position_difference(state, pre)
        if bad is not None:
            return Disagreement("invariant", f"the position scored now: {bad}")
        legal = [RUMMY.action_to_json(a) for a in actions]
        d = (
            self.enabled_difference(pre, legal)
            or self.refusal_difference(state, pre, legal)
            or self.opening_difference(pre, legal)
            or self.black_three_difference(state, pre, legal)
        )
        if d is not None:
            return d
        read: dict[Any, Any] = {}  # what the steps read from `pre`, read once
        for k, (act, nxt) in enumerate(zip(legal, successors, strict=True)):
            post = RUMMY.state_to_json(nxt)
            broken = abstract.step_checks(self.ck, pre, act, post, read)
            if broken:
                text = "; ".join(str(b) for b in broken[:3])
                return Disagreement("successor", f"{json.dumps(act)}: {text}", action=k)
            bad = self.invariant(post)
            if bad is not None:
                text = f"{json.dumps(act)}: the deck invariant breaks after it: {bad}"
                return Disagreement("successor", text, action=k)
            if post["phase"] != "play":
                result = RUMMY.last_hand(nxt)
                if result is not None:
                    bad = self.score_difference(post, result)
                    if bad is not None:
                        return Disagreement("successor", f"{json.dumps(act)}: {bad}", action=k)
                    d = self.game_end_difference(state, pre, actions[k], post, k)
                    if d is not None:
                        return d
        return None


NEAR_END = 1000
"""How many points short of *:target-score a sampled game near its end starts each side: about
what a hand of random play gives a side, so that sampled hands end games, and a game that ends a
hand with a side exactly on the target is near (the game-end row moves the totals there)."""


def start(rules: RummyRules, seating: Seating, rng: random.Random) -> list[int] | None:
    """Where a sampled hand's game starts (see `proofs.refine.STARTS`): every other hand at 0
    points, the others near the game's end, each side's total drawn from the `NEAR_END` points
    below *:target-score, so that the game-end row checks the game's end (*:target-score,
    *:target-rule, *:target-tie), also with the totals moved onto the target."""
    if rng.random() < 0.5:
        return None
    top = rules.target_score
    return [rng.randrange(max(0, top - NEAR_END), top) for _ in range(seating.sides)]


def refiner(rules: Any, seating: Seating) -> Callable[[Any, Sequence[Any], Sequence[Any]], Disagreement | None]:  # fmt: skip
    """The rummy family's refiner (`arbitro.proofs.refine.REFINERS`)."""
    if not isinstance(rules, RummyRules):
        raise TypeError(f"not Samba/Canasta rules: {type(rules).__name__}")
    return Refiner(rules, seating)


__all__ = ["DECIDED", "NEAR_END", "Refiner", "refiner", "start"]


def _hand_groups(
    hand: Sequence[str],
) -> tuple[list[str], dict[str, list[str]], dict[str, set[str]]]:
    """A hand's wilds (in card order), and its naturals but threes by rank and by suit: what a
    new meld can be made of."""
    wilds = sorted((c for c in hand if c == "JK" or c[0] == "2"), key=RUMMY.parse_card)
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, set[str]] = {}
    for c in hand:
        if c in wilds or c[0] == "3":
            continue
        by_rank.setdefault(c[:-1], []).append(c)
        by_suit.setdefault(c[-1], set()).add(c)
    return wilds, by_rank, by_suit
