"""The books' own claims, checked against the book's rules: PROVED, REFUTED with a witness, or UNKNOWN.

Each `[[claim]]` of a spec is a typed statement (`Claim.kind`, see `arbitro.model.spec.CLAIM_KINDS`).
A claim about what the meld or scoring rules allow is put to the solver over the encodings the
proofs use (`proofs/rummy/melds.py`, `proofs/rummy/score.py`, `proofs/escoba/table_rest.py`), and
its cores name the book's clauses. A claim about a finite table of the book (how many cards of a
kind, what a concrete hand scores, which groups a card takes) is decided by exhaustive computation
over the model's own data — its deck, its point table, its capture and setenta functions — and the
result says so (`method`). A check that cannot decide says UNKNOWN with the reason, never PROVED.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbitro.model.family import family_of_rules
from arbitro.model.schema import EscobaRules, Options, Rules, RummyRules, rules_for
from arbitro.model.spec import (
    RUMMY_RANKS,
    Claim,
    Rulebook,
    load_rulebook,
    stated_clause_value,
    stated_reading_applies,
    stated_value_holds,
)
from arbitro.proofs import smt
from arbitro.proofs.facts import Facts
from arbitro.proofs.verdict import Check, Verdict, Witness

SOLVER = "solver"
COMPUTATION = "computation"


@dataclass(frozen=True)
class ClaimCheck:
    """One claim checked under one reading of the book: the verdict and how it was reached."""

    claim: Claim
    options: Mapping[str, str | bool]
    check: Check
    method: str  # SOLVER or COMPUTATION

    @property
    def verdict(self) -> Verdict:
        return self.check.verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim.id,
            "statement": self.claim.statement(),
            "options": dict(self.options),
            "method": self.method,
            **self.check.to_json(),
        }


def _done(
    claim: Claim,
    holds: bool,
    started: float,
    text: str,
    data: Mapping[str, Any] | None = None,
    core: tuple[str, ...] = (),
) -> Check:
    """A computed verdict: PROVED when the computation found the claim true, else REFUTED."""
    seconds = time.perf_counter() - started
    if holds:
        return Check(
            claim.id,
            claim.statement(),
            Verdict.PROVED,
            seconds,
            witness=Witness(text, data or {}),
            core=core,
        )
    return Check(
        claim.id,
        claim.statement(),
        Verdict.REFUTED,
        seconds,
        witness=Witness(text, data or {}),
        core=core,
    )


def _unknown(claim: Claim, started: float, reason: str) -> Check:
    return Check(
        claim.id, claim.statement(), Verdict.UNKNOWN, time.perf_counter() - started, reason=reason
    )


# ---------------------------------------------------------------- Samba and Canasta

_RUMMY_RANK_INDEX = {name: i + 2 for i, name in enumerate(RUMMY_RANKS)}
"""A claim's natural rank name -> the model's rank index (4 is 2 ... ace is 12)."""


def _rummy_selected(selector: str, k: int) -> bool:
    from arbitro.model.rummy import cards as M

    if selector == "all":
        return True
    if selector == "natural":
        return M.is_natural(k)
    if selector.startswith("rank:"):
        return k != M.JOKER and k >> 2 == _RUMMY_RANK_INDEX[selector[5:]]
    return M.in_class(k, selector)


def _rummy_card_count(claim: Claim, r: RummyRules, started: float) -> Check:
    from arbitro.proofs.rummy import cards as C

    f = claim.fields
    layout = next((x for x in r.layouts if x.name == f.get("layout")), None)
    d = C.deck(r, layout)
    packs, jokers = (1, r.jokers_per_pack) if f.get("per_pack") else (d.packs, d.jokers)
    copies = C.Deck(packs, jokers).counts()
    got = sum(n for k, n in enumerate(copies) if _rummy_selected(str(f["cards"]), k))
    where = "one pack" if f.get("per_pack") else f"the deck of {packs} packs and {jokers} jokers"
    return _done(
        claim,
        got == f["count"],
        started,
        f"{where} holds {got} cards of {f['cards']}",
        {"count": got},
        (r.cid("packs"), r.cid("jokers_per_pack")),
    )


def _meld_setup(r: RummyRules) -> tuple[Any, Any, Facts]:
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy.melds import MeldTerms, deck_facts
    from arbitro.proofs.vectors import unknowns

    m = unknowns("m", C.KINDS)
    t = MeldTerms(m, r)
    f = Facts()
    deck_facts(f, r, m, C.largest_deck(r), "the meld")
    return m, t, f


def _meld_names(values: Mapping[str, Any]) -> list[str]:
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.vectors import read

    return C.names(read(values, "m", C.KINDS))


def _min_meld_points(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy.melds import lay_facts

    m, t, f = _meld_setup(r)
    f.extend(lay_facts(r, t))
    best = smt.optimum(f.items, m.points(C.points(r)), maximise=False, timeout=timeout)
    if best.status != "proved" or best.value is None:
        return _unknown(claim, started, best.reason or "no least meld found")
    meld = _meld_names(best.values)
    return _done(
        claim,
        best.value == claim.fields["points"],
        started,
        f"the least meld the book allows is worth {best.value}: {' '.join(meld)}",
        {"least": best.value, "meld": meld},
    )


def _meld_example(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.rummy.melds import lay_facts

    f = claim.fields
    n, w, legal = int(f["naturals"]), int(f["wilds"]), bool(f["legal"])
    ranks = [str(f["rank"])] if "rank" in f else list(RUMMY_RANKS)
    for rank in ranks:
        ri = _RUMMY_RANK_INDEX[rank]
        _, t, facts = _meld_setup(r)
        facts.extend(lay_facts(r, t))
        goals = [t.nat[ri].eq(n), t.naturals.eq(n), t.wilds.eq(w), t.size.eq(n + w)]
        out = smt.check(facts.items, goals, timeout=timeout)
        if out.status == "unknown":
            return _unknown(claim, started, out.reason)
        if (out.status == "sat") != legal:
            if out.status == "sat":
                meld = _meld_names(out.values)
                return _done(claim, False, started, f"{' '.join(meld)} may be laid", {"meld": meld})
            return _done(
                claim,
                False,
                started,
                f"{n} natural {rank}s and {w} wild card{'s' if w != 1 else ''} may not be laid",
                {"rank": rank},
                out.core,
            )
    said = "may" if legal else "may not"
    return _done(
        claim,
        True,
        started,
        f"{n} natural{'s' if n != 1 else ''} of {'rank ' + ranks[0] if len(ranks) == 1 else 'every rank'}"
        f" and {w} wild card{'s' if w != 1 else ''} {said} be laid",
    )


def _wild_limits(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.rummy.melds import cap_facts

    table = claim.fields["by_size"]
    assert isinstance(table, dict)
    for size, most in sorted((int(k), int(v)) for k, v in table.items()):
        _, t, facts = _meld_setup(r)
        facts.extend(cap_facts(r, t))
        out = smt.check(facts.items, [t.is_set, t.size.eq(size), t.wilds > most], timeout=timeout)
        if out.status == "unknown":
            return _unknown(claim, started, out.reason)
        if out.status == "sat":
            meld = _meld_names(out.values)
            return _done(
                claim,
                False,
                started,
                f"a set of {size} may hold more than {most} wild cards: {' '.join(meld)}",
                {"meld": meld, "size": size},
            )
    return _done(claim, True, started, "no set on the table goes beyond these wild cards", core=())


def _meld_possible(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    """Whether a meld of `size` cards of the class can be on the table: a shape the moves reach."""
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy.shapes import reachable_shapes

    f = claim.fields
    size, selector, possible = int(f["size"]), str(f["cards"]), bool(f["possible"])
    deck = C.largest_deck(r)
    shapes = reachable_shapes(r, deck)
    found: list[str] | None = None
    if selector == "wild":
        if (size,) in shapes.wilds:
            found = shapes.path(shapes.wilds, (size,))  # type: ignore[arg-type]
    elif selector == "black_three":
        # a canasta of black threes: the black threes of the deck, with wild cards where allowed
        hit = min((s for s in shapes.blacks if sum(s) == size), default=None)
        if hit is not None:
            found = shapes.path(shapes.blacks, hit)  # type: ignore[arg-type]
    else:
        return _unknown(claim, started, f"not encoded: a meld of {selector} only")
    text = (
        f"a meld of {size} {selector.replace('_', ' ')} cards is reached: " + "; ".join(found)
        if found
        else f"no sequence of lays and additions reaches a meld of {size}"
        f" {selector.replace('_', ' ')} cards"
    )
    return _done(claim, (found is not None) == possible, started, text, {"steps": found or []})


def _score_config(r: RummyRules) -> Any:
    from arbitro.proofs.rummy import score

    return score.config(r)


def _config_witness(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A decoded end-of-hand configuration in one line: its score, melds and how the hand ended."""
    cats = data.get("categories", {})
    score = sum(int(x) for x in cats.values())
    shown = ", ".join(f"{k} {v}" for k, v in cats.items() if v)
    return (
        f"{score} ({shown}; {len(data.get('melds', []))} melds, {data.get('ended', '')})",
        {**data, "score": score},
    )


def _score_step(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.rummy.scoring import decode

    cfg = _score_config(r)
    step = int(claim.fields["step"])
    out = smt.check(cfg.facts.items, [(cfg.score % step).ne(0)], timeout=timeout)
    if out.status == "unknown":
        return _unknown(claim, started, out.reason)
    if out.status == "sat":
        text, data = _config_witness(decode(cfg, out.values))
        return _done(claim, False, started, f"a hand scores a side {text}", data)
    return _done(claim, True, started, f"no hand score is off a multiple of {step}", core=out.core)


def _hand_score_reaches(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.rummy.scoring import decode

    cfg = _score_config(r)
    pts = int(claim.fields["points"])
    out = smt.check(cfg.facts.items, [cfg.score >= pts], timeout=timeout)
    if out.status == "unknown":
        return _unknown(claim, started, out.reason)
    if out.status == "sat":
        text, data = _config_witness(decode(cfg, out.values))
        return _done(claim, True, started, f"one hand scores a side {text}", data)
    return _done(claim, False, started, f"no hand gives a side {pts}", core=out.core)


def _game_score_below(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    """The running total that can still be played on from, plus the greatest hand score."""
    cfg = _score_config(r)
    best = smt.optimum(cfg.facts.items, cfg.score, maximise=True, timeout=timeout)
    if best.status != "proved" or best.value is None:
        return _unknown(claim, started, best.reason or "no greatest hand score")
    limit = int(claim.fields["points"])
    if r.target_tie == "play_on":
        # sides level at or past the target play on, so a total is bounded only if no tied hand
        # can be repeated: with every side scoring the same each hand, totals grow without bound
        return _unknown(
            claim,
            started,
            f"sides level past {r.target_score} play on ({r.cid('target_tie')}); a run of tied"
            " hands has no bound the encoding can give",
        )
    top = r.target_score - 1 + best.value
    return _done(
        claim,
        top < limit,
        started,
        f"a game ends once a side reaches {r.target_score}; the last hand adds at most"
        f" {best.value}, so no total passes {top}",
        {"greatest_hand": best.value, "greatest_total": top},
    )


def _score_example(claim: Claim, r: RummyRules, started: float) -> Check:
    """The melds' card points and bonuses less the hand's card points, from the model's tables."""
    from arbitro.model.rummy.melds import SEQ, SET, WILDS, classify, is_clean
    from arbitro.model.rummy.tables import tables

    t = tables(r)
    f = claim.fields
    total = 0
    parts: list[str] = []
    for group in f["melds"]:
        cards = tuple(sorted(_claim_card(str(x)) for x in group))
        m = classify(t, cards)
        if isinstance(m, str):
            return _done(claim, False, started, f"{' '.join(map(str, group))} is no meld: {m}")
        pts = sum(t.points[c] for c in cards)
        bonus = 0
        if len(cards) >= t.completed:
            if m.kind == SET:
                bonus = r.bonus_clean_canasta if is_clean(m) else r.bonus_dirty_canasta
            elif m.kind == SEQ:
                bonus = r.bonus_samba
            elif m.kind == WILDS:
                bonus = r.wild_canasta_bonus
        total += pts + bonus
        parts.append(f"{len(cards)} cards {pts} + bonus {bonus}")
    held = [_claim_card(str(x)) for x in f["hand"]]
    in_hand = sum(t.points[c] for c in held)
    total -= in_hand
    parts.append(f"hand -{in_hand}")
    return _done(
        claim,
        total == f["points"],
        started,
        f"{'; '.join(parts)}: {total}",
        {"points": total},
        (r.cid("card_points"),),
    )


def _claim_card(name: str) -> int:
    """A card named as claims name them (rank only; suits do not matter but for the threes)."""
    from arbitro.model.rummy import cards as M

    if name == "joker":
        return M.JOKER
    if name == "3-red":
        return M.RED_THREES[0]
    if name == "3-black":
        return M.BLACK_THREES[0]
    return M.card(name, "S")


def _red_threes_score(claim: Claim, r: RummyRules, started: float) -> Check:
    from arbitro.model.rummy.red_threes import red_three_score
    from arbitro.proofs.rummy import cards as C

    f = claim.fields
    count = int(f["count"])
    favourable = bool(f.get("favourable", True))
    deck = C.largest_deck(r)
    done = max(r.red_three_positive_min_completed, 0) if favourable else 0
    if not favourable and not r.red_three_negative_below_completed:
        return _done(claim, False, started, "red threes never count against a side")
    got = red_three_score(r, count, done, deck.red_threes)
    want = int(f["points"]) if favourable else -abs(int(f["points"]))
    return _done(
        claim,
        got == want,
        started,
        f"{count} red threes of {deck.red_threes} with {done} completed melds score {got}",
        {"points": got},
        (r.cid("red_three_each"), r.cid("red_three_all")),
    )


def _sequences_per_suit(claim: Claim, r: RummyRules, started: float) -> Check:
    f = claim.fields
    length = int(f["length"])
    if not r.sequences:
        return _done(claim, False, started, "the book has no escaleras", core=(r.cid("sequences"),))
    ok = r.sequence_min <= length <= r.sequence_max
    got = max(len(r.sequence_ranks) - length + 1, 0) if ok else 0
    return _done(
        claim,
        got == f["count"],
        started,
        f"{got} runs of {length} among the escalera ranks {', '.join(r.sequence_ranks)}",
        {"count": got},
        (r.cid("sequence_ranks"),),
    )


def _canasta_reaches_minimum(claim: Claim, r: RummyRules, started: float) -> Check:
    from arbitro.model.rummy.tables import tables

    t = tables(r)
    f = claim.fields
    minimum = int(f["minimum"])
    reaching = [
        name
        for name, ri in _RUMMY_RANK_INDEX.items()
        if r.completed_size * t.points[ri * 4] >= minimum
    ]
    want = sorted(str(x) for x in f["ranks"])
    return _done(
        claim,
        sorted(reaching) == want,
        started,
        f"clean canastas worth {minimum} or more: {', '.join(reaching) or 'none'}",
        {"ranks": reaching},
        (r.cid("card_points"),),
    )


def _never(claim: Claim, r: RummyRules, timeout: float, started: float) -> Check:
    """By induction over every move: no red three is ever in a hand, so none reaches the pile.

    The relation lays every red three out as soon as it is received, whatever the book (no field
    of a spec keeps one in a hand), so this is a statement about the relation, which a change to
    a spec cannot break: a relation that let a drawn red three join the hand refutes it (tested),
    and the refiner ties the relation to the engine."""
    from arbitro.proofs.rummy.moves import red, relations
    from arbitro.proofs.terms import all_of

    if claim.fields["event"] != "red_three_enters_pile_after_deal":
        return _unknown(claim, started, f"not encoded: event {claim.fields['event']}")
    zones = ("hand", "others", "held", "freed")
    for name, rel in relations(r).items():
        inv_pre = all_of(red(rel.pre[z]).eq(0) for z in zones)
        goal = all_of(
            (
                *(red(rel.post[z]).eq(0) for z in zones),
                red(rel.post["pile"]) <= red(rel.pre["pile"]),
            )
        )
        facts = [*rel.facts.items]
        out = smt.check(facts, [inv_pre, ~goal], timeout=timeout)
        if out.status == "unknown":
            return _unknown(claim, started, out.reason)
        if out.status == "sat":
            return _done(
                claim,
                False,
                started,
                f"the move {name} can put a red three in a hand or on the pile",
                {"move": name},
            )
    return _done(
        claim,
        True,
        started,
        "no move puts a red three in a hand or onto the pile (induction over every move of the "
        "relation, which lays every red three out as it is received under every book: no spec "
        "change can break this; an engine that keeps or discards one parts from the relation "
        "at `prove --refine`)",
        core=(r.cid("red_three_initial_replacement"),),
    )


def _stated_value(claim: Claim, rules: Any, started: float) -> Check:
    """The book's own number at the anchor against the value its clause gives the rules."""
    from arbitro.model.errors import ArbitroError

    f = claim.fields
    key = str(f["key"])
    try:
        got = getattr(rules, key)
        core: tuple[str, ...] = (rules.cid(key),)
    except (ArbitroError, AttributeError, KeyError) as e:
        return _unknown(claim, started, f"cannot read {key}: {e}")
    if not stated_reading_applies(load_rulebook(claim.rulebook), claim, got):
        # the number of one reading of a clause the book states twice; these rules follow another
        return Check(
            claim.id,
            claim.statement(),
            Verdict.PROVED,
            time.perf_counter() - started,
            witness=Witness(
                f"the rules follow another reading of {key} ({got!r}) than {f['reading']!r}",
                {"value": got},
            ),
            core=core,
            vacuous=True,
        )
    holds = stated_value_holds(got, stated_clause_value(claim, rules))
    shown = got if not dataclasses.is_dataclass(got) else dataclasses.asdict(got)  # type: ignore[arg-type]
    return _done(claim, holds, started, f"the rules give {key} = {got!r}", {"value": shown}, core)


def _game_rule(claim: Claim, started: float) -> Check:
    from arbitro.model.errors import ArbitroError

    f = claim.fields
    try:
        other = rules_for(str(f["rulebook"]))
        got = getattr(other, str(f["key"]))
    except (ArbitroError, AttributeError) as e:
        return _unknown(claim, started, f"cannot read {f['rulebook']}:{f['key']}: {e}")
    return _done(
        claim,
        got == f["value"],
        started,
        f"{f['rulebook']} gives {f['key']} = {got!r}",
        {"value": got},
        (other.cid(str(f["key"])),),
    )


# ---------------------------------------------------------------- Escoba


def _escoba_selected(selector: str, c: int) -> bool:
    from arbitro.model.escoba import cards as E

    if selector == "all":
        return True
    kind, _, name = selector.partition(":")
    if kind == "suit":
        return E.SUIT_NAMES[E.suit_of(c)] == name
    if kind == "rank":
        return E.RANK_NAMES[E.rank_of(c)] == name
    raise ValueError(f"unknown selector {selector!r}")


def _escoba_card_count(claim: Claim, r: EscobaRules, started: float) -> Check:
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    got = sum(1 for c in t.deck if _escoba_selected(str(claim.fields["cards"]), c))
    return _done(
        claim,
        got == claim.fields["count"],
        started,
        f"the pack holds {got} cards of {claim.fields['cards']}",
        {"count": got},
        (r.cid("suits"), r.cid("ranks")),
    )


def _value_total(claim: Claim, r: EscobaRules, started: float) -> Check:
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    got = sum(t.values[c] for c in t.deck if _escoba_selected(str(claim.fields["cards"]), c))
    return _done(
        claim,
        got == claim.fields["total"],
        started,
        f"the capture values add up to {got}",
        {"total": got},
        (r.cid("capture_values"),),
    )


def _deals_per_hand(claim: Claim, r: EscobaRules, started: float) -> Check:
    """The deals a pack allows: the opening deal, then as many redeals as the rest fills."""
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    players = int(claim.fields["players"])
    rest = len(t.deck) - players * r.hand_size - r.table_initial
    per = players * r.redeal_size
    if rest < 0 or per <= 0 or rest % per:
        return _done(claim, False, started, f"{players} players do not use the pack up exactly")
    got = 1 + rest // per
    return _done(
        claim,
        got == claim.fields["deals"],
        started,
        f"{len(t.deck)} cards: {players} × {r.hand_size} and {r.table_initial} on the table, then"
        f" {rest // per} deals of {per}: {got} deals",
        {"deals": got},
        (r.cid("hand_size"), r.cid("table_initial")),
    )


def _cards_of_values(r: EscobaRules, values: Sequence[int]) -> list[int] | None:
    """Distinct cards of the pack with these capture values (the first free card of each value)."""
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    used: set[int] = set()
    out: list[int] = []
    for v in values:
        c = next((c for c in t.deck if t.values[c] == v and c not in used), None)
        if c is None:
            return None
        used.add(c)
        out.append(c)
    return out


def _capture_example(claim: Claim, r: EscobaRules, started: float) -> Check:
    from arbitro.model.escoba.capture import capture_groups
    from arbitro.model.escoba.cards import cards_of, mask_of, tables

    t = tables(r)
    f = claim.fields
    table_values = [int(x) for x in f["table"]]
    cards = _cards_of_values(r, [*table_values, int(f["play"])])
    if cards is None:
        return _done(claim, False, started, "the pack has no such cards")
    play = cards.pop()
    groups = capture_groups(r, mask_of(cards), play)
    got = sorted(sorted(t.values[c] for c in cards_of(g)) for g in groups)
    want = sorted(sorted(int(v) for v in g) for g in f["captures"])
    return _done(
        claim,
        got == want,
        started,
        f"a {f['play']} takes {', '.join('+'.join(map(str, g)) for g in got) or 'nothing'}",
        {"captures": got},
        (r.cid("capture_sum"),),
    )


def _setenta_pile(r: EscobaRules, ranks: Sequence[Any]) -> int:
    from arbitro.model.escoba import cards as E

    mask = 0
    for suit, rank in enumerate(ranks):
        name = "sota" if str(rank) == "figure" else str(rank)
        mask |= 1 << E.card(suit, E.RANK_NAMES.index(name))
    return mask


def _setenta_compare(claim: Claim, r: EscobaRules, started: float) -> Check:
    from arbitro.model.escoba.cards import tables
    from arbitro.model.escoba.setenta import setenta_leaders

    t = tables(r)
    f = claim.fields
    piles = (_setenta_pile(r, f["first"]), _setenta_pile(r, f["second"]))
    leaders = setenta_leaders(r, t, piles)
    got = "none" if len(leaders) != 1 else ("first", "second")[leaders[0]]
    return _done(
        claim,
        got == f["winner"],
        started,
        f"the setenta goes to {'nobody' if got == 'none' else 'the ' + got}",
        {"winner": got},
        (r.cid("setenta_order"),),
    )


def _sweepers(r: EscobaRules, value: int) -> list[int]:
    """The values of the single cards that take a lone card of `value`."""
    from arbitro.model.escoba.capture import capture_groups
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    lone = _cards_of_values(r, [value])
    if lone is None:
        return []
    out = []
    for v in sorted(set(t.values[c] for c in t.deck)):
        play = next((c for c in t.deck if t.values[c] == v and c != lone[0]), None)
        if play is not None and capture_groups(r, 1 << lone[0], play):
            out.append(v)
    return out


def _lone_card_sweep(claim: Claim, r: EscobaRules, started: float) -> Check:
    f = claim.fields
    got = _sweepers(r, int(f["value"]))
    want = sorted(int(x) for x in f["swept_by"]) if f["swept_by"] else []
    return _done(
        claim,
        got == want,
        started,
        f"a lone {f['value']} is taken by {', '.join(map(str, got)) or 'no card'}",
        {"swept_by": got},
        (r.cid("capture_sum"),),
    )


def _sweepable_lone_values(claim: Claim, r: EscobaRules, started: float) -> Check:
    from arbitro.model.escoba.cards import tables

    t = tables(r)
    got = [v for v in sorted(set(t.values[c] for c in t.deck)) if _sweepers(r, v)]
    want = sorted(int(x) for x in claim.fields["values"])
    return _done(
        claim,
        got == want,
        started,
        f"lone cards some single card takes: {', '.join(map(str, got))}",
        {"values": got},
        (r.cid("capture_sum"),),
    )


def _guaranteed_points(claim: Claim, r: EscobaRules, started: float) -> Check:
    """Each category against the strongest other side: one that captured every other card.

    Capturing more cards never lowers a side's setenta, oros or card count, so a side holding only
    `holding` that wins a category against every other card wins it whatever the others took.
    """
    from arbitro.model.escoba.cards import tables
    from arbitro.model.escoba.scoring import score_piles

    t = tables(r)
    f = claim.fields
    mine = 0
    for c in t.deck:
        if _escoba_selected(str(f["holding"]), c):
            mine |= 1 << c
    others = t.full & ~mine
    scores = score_piles(r, (mine, others), (0, 0))
    names = ("cards", "oros", "velo", "setenta")
    lost = [c for c in f["categories"] if scores[0][names.index(str(c))] == 0]
    return _done(
        claim,
        not lost,
        started,
        f"against every other card: {', '.join(f'{n} {p}' for n, p in zip(names, scores[0][:4], strict=True))}",
        {"lost": lost},
        (r.cid("setenta_order"), r.cid("velo_points")),
    )


def _table_remainder(claim: Claim, r: EscobaRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.escoba.table_rest import run

    res = run(r, timeout)
    if res.verdict is not Verdict.PROVED or res.values.get("unknown"):
        return _unknown(claim, started, res.summary)
    shown = [int(x) for x in res.values["shown"]]
    want = sorted(int(x) for x in claim.fields["values"])
    extra = [a for a in shown if a not in want]
    hands = res.values["hands"]
    if shown == want:
        return _done(claim, True, started, res.summary, {"amounts": shown})
    first = extra[0] if extra else next(a for a in want if a not in shown)
    data: dict[str, Any] = {"amounts": shown}
    if extra:
        data["hand"] = hands[str(first)]
    return _done(
        claim,
        False,
        started,
        f"{first} can be left on the table; the amounts are {', '.join(map(str, shown))}",
        data,
    )


def _book_number(claim: Claim, r: EscobaRules, timeout: float, started: float) -> Check:
    from arbitro.proofs.escoba.book_numbers import check

    checks = check(r, claim, timeout)
    bad = next((c for c in checks if c.verdict is not Verdict.PROVED), None)
    if bad is not None and bad.verdict is not Verdict.REFUTED:
        return _unknown(claim, started, bad.reason)
    data: dict[str, Any] = {} if bad is None or bad.witness is None else dict(bad.witness.data)
    text = "; ".join(c.statement for c in checks) if bad is None else bad.witness.text  # type: ignore[union-attr]
    return _done(claim, bad is None, started, text, data)


# ---------------------------------------------------------------- dispatch

_Computed = Callable[[Claim, Any, float], Check]
_Solved = Callable[[Claim, Any, float, float], Check]

COMPUTED: dict[str, _Computed] = {
    "score_example": _score_example,
    "red_threes_score": _red_threes_score,
    "sequences_per_suit": _sequences_per_suit,
    "canasta_reaches_minimum": _canasta_reaches_minimum,
    "value_total": _value_total,
    "deals_per_hand": _deals_per_hand,
    "capture_example": _capture_example,
    "setenta_compare": _setenta_compare,
    "lone_card_sweep": _lone_card_sweep,
    "sweepable_lone_values": _sweepable_lone_values,
    "guaranteed_points": _guaranteed_points,
}
"""Claim kinds decided by exhaustive computation over the model's own tables and functions."""

SOLVED: dict[str, _Solved] = {
    "min_meld_points": _min_meld_points,
    "meld_example": _meld_example,
    "wild_limits": _wild_limits,
    "meld_possible": _meld_possible,
    "score_step": _score_step,
    "hand_score_reaches": _hand_score_reaches,
    "game_score_below": _game_score_below,
    "never": _never,
    "table_remainder": _table_remainder,
    "capture_total": _book_number,
    "category_points": _book_number,
    "escoba_points": _book_number,
    "game_target": _book_number,
}
"""Claim kinds put to the solver (or to the proofs' closure of the meld rules, `meld_possible`)."""

CARD_COUNT: dict[str, _Computed] = {"escoba": _escoba_card_count, "rummy": _rummy_card_count}
"""How each game family (`GameFamily.name`) counts the cards a `card_count` claim names."""


def check_claim(claim: Claim, rules: Any, timeout: float = 30.0) -> ClaimCheck:
    """One claim under one rules object. Implements the claim kinds of spec.CLAIM_KINDS."""
    started = time.perf_counter()
    options: Mapping[str, str | bool] = {}
    if claim.kind == "game_rule":
        return ClaimCheck(claim, options, _game_rule(claim, started), COMPUTATION)
    if claim.kind == "stated_value":
        return ClaimCheck(claim, options, _stated_value(claim, rules, started), COMPUTATION)
    if claim.kind == "card_count":
        fn = CARD_COUNT[family_of_rules(rules).name]
        return ClaimCheck(claim, options, fn(claim, rules, started), COMPUTATION)
    if claim.kind in COMPUTED:
        return ClaimCheck(claim, options, COMPUTED[claim.kind](claim, rules, started), COMPUTATION)
    if claim.kind in SOLVED:
        return ClaimCheck(
            claim, options, SOLVED[claim.kind](claim, rules, timeout, started), SOLVER
        )
    return ClaimCheck(
        claim, options, _unknown(claim, started, f"no checker for {claim.kind}"), SOLVER
    )


def check_book(
    book: Rulebook | str,
    options: Options | None = None,
    timeout: float = 30.0,
    all_readings: bool = True,
) -> list[ClaimCheck]:
    """Every claim of the book under the given options and, with `all_readings`, under each other
    reading of a clause the book says twice or is silent on (one at a time)."""
    from arbitro.proofs.runner import readings

    rb = load_rulebook(book) if isinstance(book, str) else book
    chosen = readings(rb, options) if all_readings else [dict(options or {})]
    out: list[ClaimCheck] = []
    # per claim, the rule fields each earlier check read: a reading that gives them all the same
    # values gets the same answer without asking the solver again
    seen: dict[str, list[tuple[dict[str, Any], ClaimCheck]]] = {}
    for opts in chosen:
        rules = rules_for(rb, opts)
        for claim in rb.claims:
            got = next(
                (
                    c
                    for read, c in seen.get(claim.name, [])
                    if all(getattr(rules, k) == v for k, v in read.items())
                ),
                None,
            )
            if got is None:
                got, read = _recorded(claim, rules, timeout)
                seen.setdefault(claim.name, []).append((read, got))
            out.append(ClaimCheck(claim, dict(opts), got.check, got.method))
    return out


def _recorded(claim: Claim, rules: Rules, timeout: float) -> tuple[ClaimCheck, dict[str, Any]]:
    """Check a claim, recording the rule fields a solver check reads (computed checks are cheap:
    they are keyed on the whole rules value)."""
    from arbitro.proofs.recording import Recorder

    if claim.kind not in SOLVED:
        got = check_claim(claim, rules, timeout)
        return got, {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    rec = Recorder(rules)
    got = check_claim(claim, rec, timeout)
    return got, dict(object.__getattribute__(rec, "read"))


__all__ = ["COMPUTATION", "SOLVER", "ClaimCheck", "check_book", "check_claim"]
