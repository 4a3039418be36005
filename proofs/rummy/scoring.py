"""Properties `score-bounds` and `score-step` of Samba and Canasta, over the score encoding.

`score-bounds`: every category keeps its sign — what the book pays (melds, canastas, canastón,
going out) is never negative and what it charges (cards held, penalties) never positive — and the
least and greatest value of every category and of a side's hand score, each proved optimal, with
the configuration that reaches it decoded into melds and hands.

`score-step`: every hand score is a multiple of the unit in which the book counts cards (the
greatest common divisor of the card values, 5 in all four books), and the step between scores is
exactly that unit (witnesses whose scores have that greatest common divisor).

Both are about configurations the meld, deck and scoring rules admit at the end of a hand; they
do not claim that play reaches every such configuration (see docs/proofs.md).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arbitro.model.schema import RummyRules
from arbitro.proofs import smt
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.score import CATEGORIES, Config, config
from arbitro.proofs.terms import Evaluator, IntTerm, IVar, Value, divisible, divisible_parts
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, end_text, prove

CREDITS = ("melds", "canastas", "canaston", "going-out")
DEBITS = ("hand", "penalties")


# ---------------------------------------------------------------- decoding a configuration


def decode(cfg: Config, values: Mapping[str, Value]) -> dict[str, Any]:
    """A configuration as concrete melds and hands: runs dealt into suits, set naturals and
    hand cards taken from what is left of each rank, jokers used before twos."""
    v = dict(values)
    seating = cfg.seatings[int(v.get("seating", 0))]
    d = seating.deck
    left = list(d.counts())
    melds: list[list[str]] = []
    pos = cfg.shapes.positions
    # escaleras: deal the stretches into 4 x packs colours, each a set of disjoint stretches
    spans: list[tuple[int, int]] = []
    for span, x in cfg.runs.items():
        spans += [span] * int(v.get(_name(x), 0))
    colours: list[int] = []  # the last position each colour covers
    for lo, hi in sorted(spans):
        c = next((i for i, end in enumerate(colours) if end < lo), None)
        if c is None:
            colours.append(hi)
            c = len(colours) - 1
        else:
            colours[c] = hi
        suit = c % 4
        cards = [C.kind(pos[p], suit) for p in range(lo, hi + 1)]
        for k in cards:
            left[k] -= 1
        melds.append([C.name(k) for k in cards])
    jokers = int(v.get(_name(cfg.melded_jokers), 0))
    wild_pool = ["JK"] * jokers
    twos = int(v.get(_name(cfg.melded_twos), 0))
    wild_pool += [C.name(C.TWOS[i % 4]) for i in range(twos)]

    def take_wilds(n: int) -> list[str]:
        out = wild_pool[:n]
        del wild_pool[:n]
        return out

    def take_naturals(rank: int, n: int) -> list[str]:
        out: list[str] = []
        for suit in [3, 2, 1, 0] * (n + 1):
            if len(out) == n:
                break
            k = C.kind(rank, suit)
            if left[k] > 0:
                left[k] -= 1
                out.append(C.name(k))
        return out

    for (rank, (n, w)), x in cfg.sets.items():
        for _ in range(int(v.get(_name(x), 0))):
            melds.append(take_naturals(rank, n) + take_wilds(w))
    for size, x in cfg.wilds.items():
        for _ in range(int(v.get(_name(x), 0))):
            melds.append(take_wilds(size))
    for (b, w), x in cfg.blacks.items():
        for _ in range(int(v.get(_name(x), 0))):
            melds.append([C.name(C.BLACK_THREES[i % 2]) for i in range(b)] + take_wilds(w))
    hand: list[str] = []
    for rank, x in cfg.hand_rank.items():
        hand += take_naturals(rank, int(v.get(_name(x), 0)))
    hand += ["JK"] * int(v.get(_name(cfg.hand_jokers), 0))
    hand += [C.name(C.TWOS[i % 4]) for i in range(int(v.get(_name(cfg.hand_twos), 0)))]
    hand += [C.name(C.BLACK_THREES[i % 2]) for i in range(int(v.get(_name(cfg.hand_blacks), 0)))]
    hand += [C.name(C.RED_THREES[i % 2]) for i in range(int(v.get(_name(cfg.hand_reds), 0)))]
    went = bool(v.get("went", False))
    other = bool(v.get("other_went", False))
    ended = "went out" if went else "another side went out" if other else "nobody went out"
    if not went and not other and bool(v.get("ended_play", False)):
        ended += " (its player ended play on the exhausted stock)"
    names = cfg.unknowns()  # a walk of every term of the configuration: once
    ev = Evaluator(list(cfg.categories.values()), names)
    cats = dict(zip(cfg.categories, ev([v.get(n, 0) for n in names]), strict=True))
    return {
        "layouts": list(seating.names),
        "melds": melds,
        "hand": hand,
        "red_threes_laid_out": int(v.get(_name(cfg.reds), 0)),
        "ended": ended,
        "categories": {k: int(x) for k, x in cats.items()},
        "total": int(sum(int(x) for x in cats.values())),
    }


def _name(t: IntTerm) -> str:
    return t.name if isinstance(t, IVar) else ""


def describe(data: Mapping[str, Any]) -> str:
    """A one-line summary of a decoded configuration."""
    melds = data["melds"]
    canastas = sum(1 for m in melds if len(m) >= 7)
    held = len(data["hand"])
    parts = [
        f"{len(melds)} melds ({canastas} of 7+ cards)" if melds else "no melds",
        f"holds {held} cards" if held else "holds nothing",
        f"{data['red_threes_laid_out']} red threes",
        data["ended"],
    ]
    return ", ".join(parts)


# ---------------------------------------------------------------- score-bounds


def signs(
    rules: RummyRules, timeout: float, cfg: Config | None = None, problem: smt.Problem | None = None
) -> list[Check]:
    """Credits never negative, debits never positive: one check per category (`problem`: the
    configuration's facts already written, as `bounds` has them)."""
    cfg = cfg if cfg is not None else config(rules)
    facts = cfg.facts.items
    checks: list[Check] = []
    cats = CREDITS + DEBITS
    # every sign asked of one solver first (no core, no witness); only a sign that can break is
    # asked again, on its own, for its witness
    claims = [cfg.categories[c] >= 0 if c in CREDITS else cfg.categories[c] <= 0 for c in cats]
    if problem is None:
        problem = smt.Problem(facts, list(cfg.categories.values()))
    first = problem.satisfiable_each([~c for c in claims], timeout)
    for cat, claim, status in zip(cats, claims, first, strict=True):
        word = "never negative" if cat in CREDITS else "never positive"
        if status == "unsat":
            checks.append(
                Check(f"sign/{cat}", f"the {cat} category is {word}", Verdict.PROVED, 0.0)
            )
            continue

        def dec(v: Mapping[str, Value], cat: str = cat, cfg: Config = cfg) -> Witness:
            data = decode(cfg, v)
            return Witness(f"{cat} is {data['categories'][cat]}: {describe(data)}", data)

        checks.append(
            prove(f"sign/{cat}", f"the {cat} category is {word}", facts, claim, dec, timeout)
        )
    return checks


def _ceiling(
    problem: smt.Problem, term: IntTerm, maximise: bool, best: int, unit: int, timeout: float
) -> int | None:
    """A bound proved on the far side of `best` (nothing reaches past it), when the optimum
    itself was left open: targets farther and farther out, in steps of the card unit, until one
    is unsat. None when none is proved within a dozen tries."""
    step = max(unit, abs(best) // 64 // unit * unit)
    for _ in range(12):
        target = best + step if maximise else best - step
        goal = term >= target + 1 if maximise else term <= target - 1
        if problem.satisfiable([goal], timeout) == "unsat":
            return target
        step *= 2
    return None


def _end(reached: int | None, bound: int | None, exact: bool) -> str:
    """One end of a range: the number when reached and proved optimal; the value reached and the
    proved bound past it when they differ (the gap stated); no bound when none is proved."""
    if exact and reached is not None:
        return str(reached)
    if bound is not None and reached is not None:
        return f"{reached} reached, none past {bound}"
    return end_text(reached, False)


SEARCH_SHARE = 50
"""The searches for the ends of `score-bounds` give each solver call 1/SEARCH_SHARE of the
resource limit (5,000,000 units by default; `--rlimit 0`: no limit): an optimum the solver
cannot close within it is reported as the best configuration found and a bound proved past it,
the gap stated, instead of spending the whole limit on the last step of a hard integer search
(samba-fr's six-pack layouts)."""


def bounds(rules: RummyRules, timeout: float) -> Result:
    """`score-bounds`: the signs, then each end of every category and of the hand score — the
    optimum when the solver proves it; else the best configuration found and a bound proved past
    it (`_ceiling`), the gap between them stated. PROVED when every end has a proved bound. The
    searches run with 1/SEARCH_SHARE of the resource limit per call."""
    limit = smt.rlimit()
    with smt.use_rlimit(max(1, limit // SEARCH_SHARE) if limit else 0):
        return _bounds(rules, timeout)


def _bounds(rules: RummyRules, timeout: float) -> Result:
    started = time.perf_counter()
    cfg = config(rules)
    facts = cfg.facts.items
    unit = card_unit(rules)
    problem = smt.Problem(facts, [*cfg.categories.values(), cfg.score])
    checks = signs(rules, timeout, cfg, problem)
    # the bounds
    values: dict[str, Any] = {}
    reached: dict[str, list[int | None]] = {}
    reasons: list[str] = []
    gaps: list[str] = []
    verdict = Verdict.PROVED
    t0 = time.perf_counter()
    extremes: dict[str, Any] = {}
    signed = {c.name.removeprefix("sign/"): c.verdict is Verdict.PROVED for c in checks}
    proved: dict[tuple[str, bool], int] = {}
    settled: dict[str, list[bool]] = {}
    for cat, term in [*cfg.categories.items(), ("total", cfg.score)]:
        pair: list[int | None] = []
        reached[cat] = []
        settled[cat] = []
        for maximise in (False, True):
            # a proved sign bounds that end by 0; the hand score's ends by the categories' sums
            at = None
            if (cat in CREDITS and not maximise and signed.get(cat)) or (
                cat in DEBITS and maximise and signed.get(cat)
            ):
                at = 0
            elif cat == "total" and all((c, maximise) in proved for c in cfg.categories):
                at = sum(proved[(c, maximise)] for c in cfg.categories)
            opt = problem.optimum(term, maximise=maximise, timeout=timeout, beyond=at)
            exact = opt.status == "proved" and opt.value is not None
            bound = opt.value if exact else None
            if not exact and opt.value is not None:
                bound = _ceiling(problem, term, maximise, opt.value, unit, timeout)
                if at is not None:
                    bound = at if bound is None else min(bound, at) if maximise else max(bound, at)
            if bound is not None:
                proved[(cat, maximise)] = bound
            settled[cat].append(exact)
            reached[cat].append(opt.value)
            pair.append(bound)
            end = "max" if maximise else "min"
            if bound is None:
                verdict = Verdict.UNKNOWN
                reasons.append(f"{cat} {end}: {opt.reason or opt.status}")
            elif not exact:
                gaps.append(f"{cat} {end}: {opt.value} reached, none past {bound}")
            if cat == "total" and opt.values:
                data = decode(cfg, opt.values)
                extremes[end] = data
        values[cat] = pair

    def text_of(cat: str, sep: str) -> str:
        lo, hi = reached[cat]
        return (
            _end(lo, values[cat][0], settled[cat][0])
            + sep
            + _end(hi, values[cat][1], settled[cat][1])
        )

    text = ", ".join(f"{k} {text_of(k, '..')}" for k in values if k != "total")
    play = _played(rules, values["total"], reached["total"])
    if play.beyond is not None:
        verdict = Verdict.REFUTED
        reasons.append(play.beyond)
    statement = (
        "each category and the hand score lie between a least and a greatest value, each reached "
        "by a configuration and proved optimal, or proved a bound with the gap to the best "
        "configuration found stated"
    )
    checks.append(
        Check(
            "bounds",
            statement,
            verdict,
            time.perf_counter() - t0,
            witness=Witness(
                f"hand score {text_of('total', ' to ')} ({text}); {play.text}",
                {"extremes": extremes, "gaps": gaps, "played": play.data},
            ),
            reason="; ".join(reasons),
            values=values,
        )
    )
    return Result(
        "score-bounds",
        rules.rulebook,
        {},
        "every category keeps its sign, and each category and a side's hand score have proved "
        "least and greatest values (the gap stated where a bound is not reached)",
        tuple(checks),
        f"a side's hand score: {text_of('total', ' to ')}; {play.text}",
        time.perf_counter() - started,
        values={
            "played": play.data,
            "bounds": values,
            "reached": reached,
            "proved": settled,
            "extremes": extremes,
            "gaps": gaps,
        },
    )


@dataclass(frozen=True)
class PlayedEnds:
    """The hands played toward the ends of the hand score, against the configurations' ends."""

    text: str
    data: dict[str, Any]
    beyond: str | None
    """A hand the engine scores past a proved bound (the encoding misses a play), if any."""


def _played(
    rules: RummyRules, bound: list[int | None], reached: list[int | None]
) -> PlayedEnds:  # fmt: skip
    """Each end of the hand score against the best hand played toward it
    (`arbitro.proofs.rummy.score_hands`): reached by a hand when the hand scores the bound, else
    the gap between them stated; a hand past a proved bound refutes it."""
    from arbitro.proofs.rummy import score_hands

    got = score_hands.played(rules)
    parts: list[str] = []
    data: dict[str, Any] = {}
    beyond: str | None = None
    for i, end in enumerate(("min", "max")):
        word = "least" if end == "min" else "greatest"
        for hand in got.hands.get(end, {}).values():
            b = bound[i]
            past = b is not None and (hand.score < b if end == "min" else hand.score > b)
            if past and beyond is None:
                beyond = (
                    f"a hand of {hand.layout} (dealer {hand.dealer}) scores {hand.score} for side "
                    f"{hand.side}, past the proved {word} {b}"
                )
        best = got.best(end)
        if best is None:
            parts.append(f"{word} no hand played")
            data[end] = None
            continue
        b = bound[i]
        gap = None if b is None else abs(best.score - b)
        entry = {
            "score": best.score,
            "layout": best.layout,
            "dealer": best.dealer,
            "side": best.side,
            "chooser": best.chooser,
            "bound": b,
            "configuration": reached[i],
            "gap": gap,
        }
        data[end] = entry
        if gap == 0:
            parts.append(f"{word} {best.score} reached by a hand ({best.layout})")
        elif b is not None:
            parts.append(f"{word} played {best.score} ({best.layout}), {gap} short of {b}")
        else:
            parts.append(f"{word} played {best.score} ({best.layout})")
    if got.problems:
        data["problems"] = got.problems
    return PlayedEnds("hands: " + ", ".join(parts), data, beyond)


# ---------------------------------------------------------------- score-step


def card_unit(rules: RummyRules) -> int:
    """The unit in which the book counts cards: the gcd of the card values."""
    return math.gcd(*(p for p in C.points(rules) if p))


def step(rules: RummyRules, timeout: float) -> Result:
    started = time.perf_counter()
    cfg = config(rules)
    facts = cfg.facts.items
    unit = card_unit(rules)
    score = cfg.score

    def dec(v: Mapping[str, Value]) -> Witness:
        data = decode(cfg, v)
        return Witness(
            f"a hand scoring {data['total']}, not a multiple of {unit}: {describe(data)}", data
        )

    # the step is exactly the unit when some scores have the unit as greatest common divisor:
    # found by asking for a score the gcd so far does not divide (witnesses, not a proof)
    seen: list[int] = []
    g = 0
    goal = score.ne(0)
    names = cfg.unknowns()
    ev = Evaluator([score], names)
    for _ in range(8):
        out = smt.check(facts, [goal], timeout=timeout, minimise=False)
        if out.status != "sat":
            break
        value = int(ev([out.values.get(n, 0) for n in names])[0])
        seen.append(value)
        g = math.gcd(g, value)
        if g == unit:
            break
        goal = (score % g).ne(0)
    found_step = g if g and g == unit else None
    statement = f"every hand score is a multiple of {unit}, the unit cards are counted in"
    values = {"unit": unit, "step": found_step, "scores with that gcd": seen}
    # each summand of the score a multiple is stronger and far easier; it proves the claim, but
    # only the claim itself may refute it
    claim = prove("multiple", statement, facts, divisible_parts(score, unit), dec, timeout, values)
    if claim.verdict is not Verdict.PROVED:
        claim = prove("multiple", statement, facts, divisible(score, unit), dec, timeout, values)
    checks = [claim]
    return Result(
        "score-step",
        rules.rulebook,
        {},
        f"every hand score is a multiple of the card unit ({unit}), and the step is exactly that",
        tuple(checks),
        (
            f"hand scores are multiples of {unit}"
            + (f"; step {found_step} (scores {', '.join(map(str, seen))})" if found_step else "")
        )
        if claim.verdict is Verdict.PROVED
        else f"not every hand score is a multiple of {unit}",
        time.perf_counter() - started,
        values={"unit": unit, "step": found_step},
    )


__all__ = [
    "CATEGORIES",
    "SEARCH_SHARE",
    "bounds",
    "card_unit",
    "decode",
    "describe",
    "signs",
    "step",
]
