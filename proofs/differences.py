"""Witnesses for differences between books: the smallest concrete case that tells two books apart on
one rule.

To tell the books apart on one rule and not on everything else they differ in, each case compares
book A's rules with the same rules where only that rule takes book B's value (`hybrid`). Then:

- a **meld** rule: the smallest meld (fewest cards) legal under one and not the other, found by the
  solver over the lay facts of both (`lay_facts`), then classified by the model under A, under the
  hybrid, and under book B itself;
- a **scoring** rule: the end-of-hand configuration of one side (`proofs/rummy/score.py`) with the
  fewest melds whose score differs, both scores shown;
- the **opening table**: the least running total for which the two tables ask different minimums;
- any other rule: a position from random play of book A (a seeded deck order and the moves that
  reach it) whose legal moves differ, each book's move list taken from the model's
  `legal_actions`; the first such position found, so the one fewest moves into the hand.

A rule no case separates within the search is reported as such (`found` false), never as equal.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from arbitro.model.family import family_of_rules
from arbitro.model.game import GameModel, Seating
from arbitro.model.rummy.family import FAMILY as RUMMY
from arbitro.model.schema import Rules, RummyRules
from arbitro.proofs import smt
from arbitro.proofs.facts import Facts

MELD_KEYS = frozenset(
    {
        "set_min",
        "set_start_min_naturals",
        "wild_cap",
        "wilds_at_most_naturals",
        "sequences",
        "sequence_min",
        "sequence_max",
        "sequence_ranks",
        "wild_canasta",
        "wild_meld_min_start",
        "black_threes_meld",
        "black_three_meld_wilds",
        "red_threes_meld",
    }
)
SCORE_KEYS = frozenset(
    {
        "card_points",
        "bonus_samba",
        "bonus_clean_canasta",
        "bonus_dirty_canasta",
        "bonus_going_out",
        "wild_canasta_bonus",
        "canaston_count",
        "canaston_bonus",
        "canasta_de_canastas_count",
        "canasta_de_canastas_bonus",
        "red_three_each",
        "red_three_all",
        "red_three_positive_min_completed",
        "red_three_negative_below_completed",
        "red_three_negative_all",
        "red_three_undeclared_penalty",
        "black_three_hand_penalty",
        "black_threes_all_melded_bonus",
        "black_threes_all_in_hand_penalty",
        "score_losing_melds",
        "go_out_min_completed",
        "go_out_min_clean",
        "go_out_min_dirty",
    }
)
"""Rules the end-of-hand score encoding reads."""
REFUSAL_KEYS = frozenset({"penalties"})
"""Rules that price a forbidden action: told apart by the penalty the model's refusal carries."""


@dataclass(frozen=True)
class DiffWitness:
    """A case telling book A from book B on one rule, or the search that found none."""

    key: str
    first: str
    second: str
    how: str  # "meld", "score", "opening", "moves"
    found: bool
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    checked: str = ""  # what checked it: the model's functions, or the solver

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "books": [self.first, self.second],
            "how": self.how,
            "found": self.found,
            "text": self.text,
            "checked": self.checked,
            **dict(self.data),
        }


RulesT = TypeVar("RulesT", bound=Rules)


def hybrid(a: RulesT, b: Rules, key: str) -> RulesT:
    """A's rules with `key` taking B's value (and B's clause id for it), named as such, so every
    result it gives is said of this rule set and never of book B."""
    ids = dict(a.clause_ids)
    if key in b.clause_ids:
        ids[key] = b.clause_ids[key]
    return dataclasses.replace(
        a,
        **{key: getattr(b, key)},
        clause_ids=ids,
        rulebook=mixed_name(a.rulebook, b.rulebook, key),
    )


def _meld(a: RummyRules, b: RummyRules, key: str, timeout: float) -> DiffWitness | None:
    from arbitro.model.rummy.cards import parse_cards
    from arbitro.model.rummy.melds import classify
    from arbitro.model.rummy.tables import tables
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy.melds import MeldTerms, deck_facts, lay_facts
    from arbitro.proofs.terms import all_of
    from arbitro.proofs.vectors import read, unknowns

    h = hybrid(a, b, key)
    m = unknowns("m", C.KINDS)
    ta, th = MeldTerms(m, a), MeldTerms(m, h)
    deck = min(C.largest_deck(a), C.largest_deck(b), key=lambda d: d.size)
    found: list[DiffWitness] = []
    for one, other in ((a, h), (h, a)):
        f = Facts()
        deck_facts(f, a, m, deck, "the meld")
        t1, t2 = (ta, th) if one is a else (th, ta)
        yes = lay_facts(one, t1)
        no = lay_facts(other, t2)
        f.extend(yes)
        goal = ~all_of(x.term for x in no)
        best = smt.optimum(f.items, m.size(), maximise=False, timeout=timeout, goals=[goal])
        if best.status != "proved":
            continue
        cards = C.names(read(best.values, "m", C.KINDS))
        shown = " ".join(cards)
        counts = parse_cards(shown)
        verdicts = {}
        for rules in (a, h, b):
            got = classify(tables(rules), counts)
            verdicts[rules.rulebook] = "legal" if not isinstance(got, str) else f"refused: {got}"
        found.append(
            DiffWitness(
                key,
                a.rulebook,
                b.rulebook,
                "meld",
                True,
                meld_text(shown, verdicts),
                {"meld": cards, "model": verdicts},
                "solver (least meld), then the model's classify under each rule set",
            )
        )
    # a meld the two books themselves answer differently first: it shows the difference as a
    # player meets it, not only with the rule swapped in
    return min(found, key=lambda w: _same_for_books(w), default=None)


def _same_for_books(w: DiffWitness) -> bool:
    v = w.data["model"]
    return bool(v[w.first] == "legal") == bool(v[w.second] == "legal")


def mixed_name(a: str, b: str, key: str) -> str:
    """How a witness names book A's rules with rule `key` taken from book B."""
    return f"{a} with {b}'s {key}"


def meld_text(shown: str, verdicts: Mapping[str, str]) -> str:
    """What the model answered for one meld under each rule set, naming each set: the legal ones,
    then the refusing ones with the rule that refused."""
    legal = [n for n, v in verdicts.items() if v == "legal"]
    refused = [
        f"{n} (by its {v.removeprefix('refused: ')})" for n, v in verdicts.items() if v != "legal"
    ]
    parts = []
    if legal:
        parts.append("is a legal new meld under " + " and ".join(legal))
    if refused:
        parts.append("is refused under " + " and ".join(refused))
    return f"{shown} " + "; it ".join(parts)


def _score(a: RummyRules, b: RummyRules, key: str, timeout: float) -> DiffWitness | None:
    from arbitro.proofs.rummy import score
    from arbitro.proofs.rummy.scoring import decode
    from arbitro.proofs.terms import total

    h = hybrid(a, b, key)
    ca, ch = score.config(a), score.config(h)
    names_a, names_h = set(ca.unknowns()), set(ch.unknowns())
    from arbitro.proofs.terms import Int

    only = [
        Int(n).eq(0)
        for n in sorted(names_a ^ names_h)
        if n.startswith(("set[", "run[", "wild[", "black["))
    ]
    facts = [*ca.facts.items, *ch.facts.items]
    melds = total(
        x for x in (*ca.sets.values(), *ca.runs.values(), *ca.wilds.values(), *ca.blacks.values())
    )
    best = smt.optimum(
        facts, melds, maximise=False, timeout=timeout, goals=[ca.score.ne(ch.score), *only]
    )
    if best.status != "proved":
        return None
    da, dh = decode(ca, best.values), decode(ch, best.values)
    return DiffWitness(
        key,
        a.rulebook,
        b.rulebook,
        "score",
        True,
        f"the same end of a hand scores {da['total']} under {a.rulebook} and"
        f" {dh['total']} under {mixed_name(a.rulebook, b.rulebook, key)}",
        {
            "melds": da["melds"],
            "hand": da["hand"],
            "red_threes": da["red_threes_laid_out"],
            "ended": da["ended"],
            "scores": {
                a.rulebook: da["categories"],
                mixed_name(a.rulebook, b.rulebook, key): dh["categories"],
            },
        },
        "solver over the score encoding of both rule sets (the fewest melds)",
    )


def score_unit(r: RummyRules) -> int:
    """The step in which a side's running total moves: the gcd of every card value and every
    bonus and penalty the rules price, so a total off the step is one no game can have."""
    import math

    values = [abs(v) for v in dataclasses.astuple(r.card_points)]
    for key in SCORE_KEYS | {"red_three_each", "red_three_all", "red_three_negative_all"}:
        v = getattr(r, key, None)
        if (
            isinstance(v, int)
            and not isinstance(v, bool)
            and not key.endswith(("_count", "_completed", "_clean", "_dirty"))
        ):
            values.append(abs(v))
    values += [abs(p.points) for p in r.penalties]
    return math.gcd(*values) or 1


def opening_minimum(r: RummyRules, total: int) -> int | None:
    """The minimum a side on `total` must open with, or None when no row, or two rows with
    different minimums, cover it."""
    hits = {
        x.minimum
        for x in r.opening_minimums
        if (x.low is None or total >= x.low) and (x.high is None or total <= x.high)
    }
    return hits.pop() if len(hits) == 1 else None


def past_table_result(r: RummyRules, total: int) -> int | str | None:
    """Both sides level on `total`: "over" when the game ends there, else the minimum the model
    deals the next hand with (None: no row and no minimum past the table, so no hand is dealt).
    *:target-score, *:target-rule, *:target-tie, *:opening-minimums, *:opening-minimum-past-table."""
    from arbitro.model.rummy.dealing import RuleGap
    from arbitro.model.rummy.dealing import opening_minimum as dealt
    from arbitro.model.rummy.scoring import game_over
    from arbitro.model.rummy.tables import tables

    if game_over(tables(r), (total, total)):
        return "over"
    try:
        return dealt(r, total)
    except RuleGap:
        return None


def _past_table(a: RummyRules, b: RummyRules) -> DiffWitness | None:
    """The least total at or past a target, both sides level on it, that the two rule sets answer
    differently: one deals the next hand with another minimum, or none, or ends the game. Random
    play never reaches such a total within a hand, so it is computed, not searched."""
    step = math.lcm(score_unit(a), score_unit(b))
    cands = sorted(
        {
            m
            for t in (a.target_score, b.target_score)
            for m in (-(-t // step) * step, -(-(t + 1) // step) * step)
        }
    )
    for total in cands:
        got = {a.rulebook: past_table_result(a, total), b.rulebook: past_table_result(b, total)}
        if got[a.rulebook] == got[b.rulebook]:
            continue

        def said(x: int | str | None) -> str:
            if x == "over":
                return "the game is over"
            return "no hand can be dealt (no minimum)" if x is None else f"the next hand needs {x}"

        return DiffWitness(
            "opening_minimum_past_table",
            a.rulebook,
            b.rulebook,
            "past-table",
            True,
            f"both sides level on {total}: under {a.rulebook} {said(got[a.rulebook])}, under"
            f" {b.rulebook} {said(got[b.rulebook])}",
            {"side_score": total, "totals": [total, total], "results": got},
            "the model's game_over and the minimum it deals the next hand with",
        )
    return None


def _opening(a: RummyRules, b: RummyRules) -> DiffWitness | None:
    minimum = opening_minimum
    # only totals a game can have: multiples of both books' score steps, below both targets
    step = math.lcm(score_unit(a), score_unit(b))
    edges = sorted(
        {e for r in (a, b) for x in r.opening_minimums for e in (x.low, x.high) if e is not None}
        | {0}
    )
    below = min(a.target_score, b.target_score)
    cands = sorted(
        {
            m
            for e in edges
            for m in ((e - 1) // step * step, e // step * step, -(-(e + 1) // step) * step)
        }
    )
    for total in (t for t in cands if t < below):
        ma, mb = minimum(a, total), minimum(b, total)
        if ma != mb:
            return DiffWitness(
                "opening_minimums",
                a.rulebook,
                b.rulebook,
                "opening",
                True,
                f"a side on {total} must open with {ma} under {a.rulebook} and {mb} under"
                f" {b.rulebook}",
                {"side_score": total, "minimums": {a.rulebook: ma, b.rulebook: mb}},
                "the two opening tables, evaluated",
            )
    return None


def _model(rules: object) -> GameModel:
    return family_of_rules(rules).engine


def _seatings(model: GameModel, a: Rules, b: Rules) -> list[Any]:
    """A's seatings, those B also has with the same deck first: a case found there is a position
    of both books' games, so book B itself can be asked about it (two books of different games
    share one only where their decks and tables agree: Canasta's three pairs and Samba's six
    players)."""

    def key(rules: Rules, s: Any) -> tuple[int, int, tuple[Any, ...]]:
        return (s.players, s.sides, tuple(sorted(model.deck(rules, s))))

    mine = list(model.seatings(a))
    try:
        theirs = {key(b, s) for s in model.seatings(b)}
    except (ValueError, KeyError, IndexError):
        return mine
    return sorted(mine, key=lambda s: key(a, s) not in theirs)


def _moves(a: Rules, b: Rules, key: str, hands: int, seed: int, budget: int) -> DiffWitness | None:
    """Random play of A: the first position whose legal moves differ under A and under A with B's
    rule, the first hand those moves end under one rule set only, or the first hand whose moves,
    replayed under both, score differently."""
    from arbitro.model.schema import problems

    model = _model(a)
    h = hybrid(a, b, key)
    if problems(h):
        return None
    rng = random.Random(f"{seed}:{a.rulebook}:{b.rulebook}:{key}")
    left = [budget]
    for seating in _seatings(model, a, b):
        for _ in range(hands):
            order = list(model.deck(a, seating))
            rng.shuffle(order)
            got = _play(model, a, b, h, key, seating, order, rng, None, left)
            if got is not False:
                return got
    return None


def _deals(a: Rules, b: Rules, key: str, seed: int, tries: int = 40) -> DiffWitness | None:
    """Many random deck orders, dealt only: the first that deals a different position under A and
    under A with B's rule (what covers the upcard, what is dealt; a deal is cheap)."""
    from arbitro.model.schema import problems

    model = _model(a)
    h = hybrid(a, b, key)
    if problems(h):
        return None
    rng = random.Random(f"deals:{seed}:{a.rulebook}:{b.rulebook}:{key}")
    for seating in _seatings(model, a, b):
        deck = list(model.deck(a, seating))
        for _ in range(tries):
            order = deck[:]
            rng.shuffle(order)
            got = _dealt_apart(model, a, b, h, key, seating, order)
            if got is not None:
                return got
    return None


def _dealt_apart(
    model: GameModel, a: Rules, b: Rules, h: Rules, key: str, seating: Seating, order: list[Any]
) -> DiffWitness | None:
    dealt = model.deal(a, model.new_game(a, seating), order)
    try:
        other = model.deal(h, model.new_game(h, seating), order)
    except (ValueError, KeyError, IndexError):
        return None
    if other == dealt:
        return None
    ja, jb = model.state_to_json(dealt), model.state_to_json(other)
    parts = sorted(k for k in ja.keys() | jb.keys() if ja.get(k) != jb.get(k))
    hn = mixed_name(a.rulebook, b.rulebook, key)
    return DiffWitness(
        key,
        a.rulebook,
        b.rulebook,
        "deal",
        True,
        f"the same deck order deals a different position under {a.rulebook} and"
        f" under {hn} (it differs in {', '.join(parts) or 'its representation'})",
        {
            "layout": seating.layout or f"{seating.players} players",
            "deal": [model.card_name(c) for c in order],
            "states": {a.rulebook: ja, hn: jb},
            "differs_in": {k: {a.rulebook: ja.get(k), hn: jb.get(k)} for k in parts},
        },
        "the model's deal under both rule sets",
    )


def _stock_end(a: Rules, b: Rules, key: str, seed: int, budget: int) -> DiffWitness | None:
    """Hands played to the end of the stock: one deck order per kind of card, with a card of that
    kind put last in the stock, played by drawing from the stock whenever a draw is legal (so the
    stock runs out fast) and otherwise at random. What the rules say about the stock's last card
    and an exhausted stock comes up only there, which random play rarely reaches."""
    from arbitro.model.schema import problems

    model = _model(a)
    h = hybrid(a, b, key)
    if problems(h) or not RUMMY.owns(a):
        return None  # the stock and its end are Samba's and Canasta's
    from typing import get_args

    from arbitro.model.rummy.cards import in_class
    from arbitro.model.schema import CardClass

    rng = random.Random(f"stock:{seed}:{a.rulebook}:{b.rulebook}:{key}")
    left = [budget]
    seating = _seatings(model, a, b)[0]
    base = list(model.deck(a, seating))
    rng.shuffle(base)
    # the cards the rules single out (wilds, threes) first: the stock's last card matters for them
    special = {c for c in base if any(in_class(c, k) for k in get_args(CardClass))}
    kinds = list(
        dict.fromkeys(model.card_name(c) for c in sorted(base, key=lambda c: c not in special))
    )
    for kind in kinds:
        order = base[:]
        at = next(i for i, c in enumerate(order) if model.card_name(c) == kind)
        order.append(order.pop(at))
        got = _play(model, a, b, h, key, seating, order, rng, "draw", left)
        if got is not False:
            return got
    return None


def _play(
    model: GameModel,
    a: Rules,
    b: Rules,
    h: Rules,
    key: str,
    seating: Seating,
    order: list[Any],
    rng: random.Random,
    prefer: str | None,
    left: list[int],
) -> DiffWitness | Literal[False] | None:
    """One hand dealt from `order` and played under A and under the hybrid H side by side: the
    witness where they part, None when the budget of moves (`left`, counted down) is spent,
    False when the hand does not tell them apart. `prefer` names a kind of move played whenever
    it is legal. The budget counts moves, not seconds, so that a search finds the same witness
    on any machine."""
    dealt = _dealt_apart(model, a, b, h, key, seating, order)
    if dealt is not None:
        return dealt
    state: Any = model.deal(a, model.new_game(a, seating), order)
    twin: Any = model.deal(h, model.new_game(h, seating), order)
    where = {
        "layout": seating.layout or f"{seating.players} players",
        "deal": [model.card_name(c) for c in order],
    }
    moves: list[dict[str, Any]] = []
    while model.phase(state) == "play":
        if left[0] <= 0:
            return None
        left[0] -= 1
        if model.phase(twin) != "play":
            return _parted(model, (a, h), key, where, moves, state, twin)
        la = set(model.legal_actions(a, state))
        try:
            lh = set(model.legal_actions(h, twin))
        except (ValueError, KeyError, IndexError, RecursionError):
            # a rule set made of two books' rules may be one the model cannot play
            return None
        if la != lh:
            return DiffWitness(
                key,
                a.rulebook,
                b.rulebook,
                "moves",
                True,
                f"after {len(moves)} moves of a {where['layout']} hand,"
                f" {_count(len(la - lh), 'move')} legal under {a.rulebook} only and"
                f" {len(lh - la)} under {mixed_name(a.rulebook, b.rulebook, key)} only",
                {
                    **where,
                    "moves": moves,
                    "state": model.state_to_json(state),
                    "only_first": [model.action_to_json(x) for x in sorted(la - lh, key=repr)][:5],
                    "only_second": [model.action_to_json(x) for x in sorted(lh - la, key=repr)][:5],
                    "legal_counts": [len(la), len(lh)],
                },
                "the model's legal_actions under both rule sets, on a position of play",
            )
        if not la:
            break
        acts = sorted(la, key=repr)
        pref = [x for x in acts if prefer and model.action_to_json(x).get("type") == prefer]
        action = pref[0] if pref else acts[rng.randrange(len(acts))]
        moves.append(model.action_to_json(action))
        state = model.apply(a, state, action)
        try:
            twin = model.apply(h, twin, action)
        except (ValueError, KeyError, IndexError, RecursionError):
            return False
    if model.phase(twin) == "play" and model.phase(state) != "play":
        return _parted(model, (h, a), key, where, moves, twin, state)
    ra, rh = model.last_hand(state), model.last_hand(twin)
    if ra is not None and rh is not None and tuple(ra.scores) != tuple(rh.scores):
        return DiffWitness(
            key,
            a.rulebook,
            b.rulebook,
            "score",
            True,
            f"the same {len(moves)} moves of a {where['layout']} hand score"
            f" {', '.join(map(str, ra.scores))} under {a.rulebook} and"
            f" {', '.join(map(str, rh.scores))} under {h.rulebook}",
            {
                **where,
                "moves": moves,
                "scores": {a.rulebook: list(ra.scores), h.rulebook: list(rh.scores)},
                "categories": {
                    a.rulebook: [dict(c) for c in ra.categories],
                    h.rulebook: [dict(c) for c in rh.categories],
                },
            },
            "the model's apply and hand result under both rule sets, on one played hand",
        )
    return False


def _refusals(a: Rules, b: Rules, key: str, seed: int, positions: int = 12) -> DiffWitness | None:
    """The same forbidden action refused with a different penalty: on the first positions of a
    random hand of A, every legal action played by each other seat (out of turn, or in the
    partner's turn), refused by the model under A and under A with B's rule."""
    from arbitro.model.schema import problems

    model = _model(a)
    h = hybrid(a, b, key)
    if problems(h) or not RUMMY.owns(a):
        return None  # plays out of turn are refused by Samba's and Canasta's clauses
    rng = random.Random(f"refusals:{seed}:{a.rulebook}:{b.rulebook}:{key}")
    for seating in model.seatings(a):
        order = list(model.deck(a, seating))
        rng.shuffle(order)
        state: Any = model.deal(a, model.new_game(a, seating), order)
        moves: list[dict[str, Any]] = []
        for _ in range(positions):
            if model.phase(state) != "play":
                break
            acts = sorted(model.legal_actions(a, state), key=repr)
            for x in acts:
                data = model.action_to_json(x)
                for seat in range(seating.players):
                    if seat == data.get("seat"):
                        continue
                    wrong = model.action_from_json({**data, "seat": seat})
                    pa = _penalties(model.refusals(a, state, wrong))
                    ph = _penalties(model.refusals(h, state, wrong))
                    if pa != ph:
                        return DiffWitness(
                            key,
                            a.rulebook,
                            b.rulebook,
                            "refusal",
                            True,
                            f"seat {seat} playing {data.get('type')} in seat {data.get('seat')}'s"
                            f" turn, after {len(moves)} moves of a"
                            f" {seating.layout or seating.players} hand, is refused with a"
                            f" penalty of {_points(pa)} under {a.rulebook} and"
                            f" {_points(ph)} under {h.rulebook}",
                            {
                                "layout": seating.layout or f"{seating.players} players",
                                "deal": [model.card_name(c) for c in order],
                                "moves": moves,
                                "action": model.action_to_json(wrong),
                                "penalties": {a.rulebook: pa, h.rulebook: ph},
                            },
                            "the model's refusals of one action under both rule sets",
                        )
            if not acts:
                break
            action = acts[rng.randrange(len(acts))]
            moves.append(model.action_to_json(action))
            state = model.apply(a, state, action)
    return None


def _count(n: int, noun: str) -> str:
    """`n` and the noun, plural unless n is one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _points(penalties: list[int]) -> str:
    return " and ".join(f"{p} points" for p in penalties) or "nothing"


def _penalties(refused: Any) -> list[int]:
    return sorted(e.penalty for e in refused if e.penalty is not None)


def _parted(
    model: GameModel,
    rules: tuple[Any, Any],
    key: str,
    where: dict[str, Any],
    moves: list[dict[str, Any]],
    going: Any,
    over: Any,
) -> DiffWitness:
    """The same moves leave the hand in play under the first rule set (`going`) and end it under
    the second (`over`); each is named as the rule set it is (a book, or a book with one rule
    taken from another)."""
    on, ended = rules[0].rulebook, rules[1].rulebook
    base = on if " with " not in on else ended
    mixed = ended if base == on else on
    done = model.last_hand(over)
    why = done.reason if done is not None else "over"
    return DiffWitness(
        key,
        base,
        mixed.split(" with ", 1)[1].split("'s ", 1)[0],
        "moves",
        True,
        f"the same {len(moves)} moves of a {where['layout']} hand end it under {ended}"
        f" ({why}) and leave it in play under {on}, with"
        f" {_count(len(model.legal_actions(rules[0], going)), 'legal move')}",
        {
            **where,
            "moves": moves,
            "ended": {ended: why, on: "in play"},
            "state": model.state_to_json(going),
        },
        "the model's apply under both rule sets, on one played hand",
    )


def arises(
    rules: Rules, key: str, hands: int = 2, seed: int = 0, budget: int = 2000
) -> dict[str, Any] | None:
    """A position of random play where the model consults the clause behind `key` to decide a
    legal move (`clauses_used`): evidence that what the book leaves open comes up in play."""
    model = _model(rules)
    if not hasattr(model, "clauses_used"):
        return None  # the model does not say which clauses decided a move
    cid = rules.cid(key)
    rng = random.Random(f"{seed}:{rules.rulebook}:{key}")
    left = budget
    for seating in model.seatings(rules):
        for _ in range(hands):
            state: Any = model.new_game(rules, seating)
            order = list(model.deck(rules, seating))
            rng.shuffle(order)
            deal = [model.card_name(c) for c in order]
            if cid in model.clauses_used(rules, state, tuple(order)):
                return {
                    "how": "arises",
                    "found": True,
                    "text": "the deal itself consults it",
                    "deal": deal,
                    "checked": "the model's clauses_used",
                }
            state = model.deal(rules, state, order)
            moves: list[dict[str, Any]] = []
            while model.phase(state) == "play":
                if left <= 0:
                    return None
                left -= 1
                acts = sorted(model.legal_actions(rules, state), key=repr)
                if not acts:
                    break
                for x in acts:
                    if cid in model.clauses_used(rules, state, x):
                        return {
                            "how": "arises",
                            "found": True,
                            "text": f"it decides a move after {len(moves)} moves of a"
                            f" {seating.layout or seating.players} hand",
                            "deal": deal,
                            "moves": moves,
                            "action": model.action_to_json(x),
                            "checked": "the model's clauses_used on a position of play",
                        }
                action = acts[rng.randrange(len(acts))]
                moves.append(model.action_to_json(action))
                state = model.apply(rules, state, action)
    return None


def _deck(a: RummyRules, b: RummyRules, key: str) -> DiffWitness | None:
    """Packs, jokers and layouts: what each book deals to the same number of players."""
    from arbitro.proofs.rummy import cards as C

    if key not in ("packs", "jokers_per_pack", "layouts"):
        return None
    seats_b = {(x.players, x.sides): x for x in b.layouts}
    for la in a.layouts:
        lb = seats_b.get((la.players, la.sides))
        da = C.deck(a, la)
        if lb is None:
            return DiffWitness(
                key,
                a.rulebook,
                b.rulebook,
                "deal",
                True,
                f"{la.players} players in {la.sides} sides may play under {a.rulebook} and not"
                f" under {b.rulebook}",
                {"players": la.players, "sides": la.sides},
                "the layouts of both books",
            )
        db = C.deck(b, lb)
        stock_a = da.size - la.players * la.hand_size - 1
        stock_b = db.size - lb.players * lb.hand_size - 1
        if (da.size, la.hand_size) != (db.size, lb.hand_size):
            return DiffWitness(
                key,
                a.rulebook,
                b.rulebook,
                "deal",
                True,
                f"{la.players} players in {la.sides} sides: {da.size} cards and hands of"
                f" {la.hand_size} under {a.rulebook} (stock {stock_a} after the deal), {db.size}"
                f" cards and hands of {lb.hand_size} under {b.rulebook} (stock {stock_b})",
                {
                    "players": la.players,
                    "deck": {a.rulebook: da.size, b.rulebook: db.size},
                    "hand_size": {a.rulebook: la.hand_size, b.rulebook: lb.hand_size},
                    "stock_after_deal": {a.rulebook: stock_a, b.rulebook: stock_b},
                },
                "the decks and layouts of both books, counted",
            )
    return None


def _target(a: RummyRules, b: RummyRules, key: str) -> DiffWitness | None:
    """The target rules: running totals after which one game is over and the other goes on."""
    from arbitro.model.rummy.scoring import game_over
    from arbitro.model.rummy.tables import tables

    if key not in ("target_score", "target_rule", "target_tie"):
        return None
    h = hybrid(a, b, key)
    marks = sorted({a.target_score, b.target_score})
    cands = sorted({v for m in marks for v in (m - 5, m, m + 5)})
    for x in cands:
        for scores in ((x, 0), (x, x)):
            oa, oh = game_over(tables(a), scores), game_over(tables(h), scores)
            if oa != oh:
                over, on = (a.rulebook, b.rulebook) if oa else (b.rulebook, a.rulebook)
                return DiffWitness(
                    key,
                    a.rulebook,
                    b.rulebook,
                    "score",
                    True,
                    f"with running totals {', '.join(map(str, scores))} the game is over under"
                    f" {over}'s rule and goes on under {on}'s",
                    {"totals": list(scores), "over": {a.rulebook: oa, b.rulebook: oh}},
                    "the model's game_over under both rule sets",
                )
    return None


def witness(
    a: Any,
    b: Any,
    key: str,
    timeout: float = 20.0,
    hands: int = 4,
    seed: int = 0,
    budget: int = 8000,
) -> DiffWitness:
    """The smallest case telling book A from book B on rule `key`, or a record that none was found."""
    got: DiffWitness | None = None
    tried: list[str] = []
    if not RUMMY.owns(a):  # the searches below read Samba's and Canasta's rules
        got = _moves(a, b, key, hands, seed, budget) or _moves(b, a, key, hands, seed, budget)
        if got is not None:
            return got
        return _none_found(a, b, key, [f"positions of {hands} random hands per layout"])
    if key == "opening_minimums":
        got = _opening(a, b) or _opening(b, a)
        if got is None:
            # every total both games can have is compared: nothing else can tell the tables apart
            return _none_found(a, b, key, ["the opening tables at every total both games can have"])
    if key == "opening_minimum_past_table":
        got = _past_table(a, b)
        if got is None:
            return _none_found(a, b, key, ["every total at or past the targets, sides level"])
    if got is None:
        got = _deck(a, b, key) or _deck(b, a, key)
    if got is None:
        got = _target(a, b, key)
    if got is None and key in MELD_KEYS:
        melds = [_meld(a, b, key, timeout)]
        if melds[0] is None or _same_for_books(melds[0]):
            melds.append(_meld(b, a, key, timeout))
        got = min((w for w in melds if w is not None), key=_same_for_books, default=None)
        tried.append("every meld of the smaller deck")
    if got is None and key in SCORE_KEYS:
        got = _score(a, b, key, timeout) or _score(b, a, key, timeout)
        tried.append("every end-of-hand configuration")
    if got is None:
        got = _moves(a, b, key, hands, seed, budget) or _moves(b, a, key, hands, seed, budget)
        tried.append(f"positions of {hands} random hands per layout")
    if got is None and key in REFUSAL_KEYS:
        got = _refusals(a, b, key, seed) or _refusals(b, a, key, seed)
        tried.append("every action out of turn on the first positions of a random hand")
    # the deal reads no meld or scoring rule, and the solver has searched every meld and every
    # end of a hand for those: the deals and the stock's end are searched for the other rules
    solved = key in MELD_KEYS or key in SCORE_KEYS
    if got is None and not solved:
        got = _deals(a, b, key, seed) or _deals(b, a, key, seed)
        tried.append("40 random deals per layout")
    if got is None and not solved:
        half = budget // 2
        got = _stock_end(a, b, key, seed, half) or _stock_end(b, a, key, seed, half)
        tried.append("hands played to the end of the stock, each kind of card last")
    if got is not None:
        return got
    return _none_found(a, b, key, tried)


def _none_found(a: Rules, b: Rules, key: str, tried: list[str]) -> DiffWitness:
    """The record that no search told books A and B apart on rule `key`, naming the searches."""
    return DiffWitness(
        key,
        a.rulebook,
        b.rulebook,
        "none",
        False,
        f"no case found that tells them apart on {key.replace('_', ' ')} (searched "
        + ", ".join(tried)
        + ")",
    )


__all__ = ["MELD_KEYS", "REFUSAL_KEYS", "SCORE_KEYS", "DiffWitness", "arises", "hybrid", "witness"]
