"""Property `table-rest`: which amounts can be left on the table when an Escoba hand ends.

An inductive invariant over the guarded relation (`relation.step`, which `prove --refine` ties
to the engine), VALUE: the captured cards are always worth a multiple of *:capture-sum — the
deal's sweep takes cards worth a sweep total (*:opening-sweeps), each capture step takes a card
and a group worth the capture sum together, and laying or dealing captures nothing. When the last card
is played every other card is captured, so what is left on the table is worth the pack's total
(*:capture-values) less a multiple of the capture sum: with the book's values, 220 = 14 x 15 + 10,
so 10, 25, 40 … And it is at most the greatest total of a table in which no group worth the
capture sum holds a card laid during play (the last one laid would have been forced to capture
the others, *:capture-forced): a proved optimum over the cards' values.

Which amounts in between actually happen is shown by hands found by
`arbitro.proofs.escoba.search` and replayed through the model; amounts neither excluded nor shown
are reported as unknown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from arbitro.model.schema import EscobaRules
from arbitro.proofs import smt
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.escoba import invariants as I
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.escoba.search import ReplayError, replay, stored
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import (
    BoolTerm,
    Int,
    IntTerm,
    Value,
    all_of,
    any_of,
    implies,
    ite,
    total,
    values_of,
    weighted,
)
from arbitro.proofs.vectors import Vec
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, prove

NAME = "table-rest"


def groups_worth(rules: EscobaRules) -> list[dict[int, int]]:
    """Every multiset of card values (within the pack's copies) worth the capture sum."""
    copies: dict[int, int] = {}
    for v in E.values(rules):
        copies[v] = copies.get(v, 0) + 1
    vals = sorted(copies)
    out: list[dict[int, int]] = []

    def walk(i: int, left: int, cur: dict[int, int]) -> None:
        if left == 0:
            out.append(dict(cur))
            return
        if i == len(vals):
            return
        v = vals[i]
        for k in range(min(copies[v], left // v) + 1):
            if k:
                cur[v] = k
            walk(i + 1, left - k * v, cur)
            cur.pop(v, None)

    walk(0, rules.capture_sum, {})
    return out


def captured_worth(rules: EscobaRules, st: R.State) -> IntTerm:
    """What the sides have captured is worth (*:capture-values)."""
    vals = R.values(rules)
    return total(p.points(vals) for p in st.piles)


MULTIPLE = Int("captured worth / capture sum")
"""How many times the capture sum the sides' captures are worth before a step (VALUE's witness)."""


def value(rules: EscobaRules, st: R.State) -> BoolTerm:
    """VALUE: the sides' captured cards are worth a multiple of *:capture-sum, stated with an
    unknown multiple (linear: a remainder of a sum of forty terms is far harder for the solver)."""
    return (MULTIPLE >= 0) & captured_worth(rules, st).eq(rules.capture_sum * MULTIPLE)


def _rest_worth(rules: EscobaRules, rel: R.Relation) -> IntTerm:
    """What the table holds once the last card is played, before the rest is handed out: the
    table before the step with the card laid, or less the cards taken."""
    mid = rel.pre.table + rel.card if rel.play == "lay" else rel.pre.table - rel.taken
    return mid.points(R.values(rules))


def _step_decode(rules: EscobaRules, rel: R.Relation) -> Callable[[Mapping[str, Value]], Witness]:
    vals = R.values(rules)
    cs = rules.capture_sum

    def decode(v: Mapping[str, Value]) -> Witness:
        def names(prefix: str) -> list[str]:
            return [I.R_name(k) for k in range(R.KINDS) if int(v.get(f"{prefix}[{k}]", 0))]

        card, taken, table = names("card"), names("taken"), names("table")
        worth = sum(vals[k] for k in range(R.KINDS) for p in ("card", "taken")
                    if int(v.get(f"{p}[{k}]", 0)))  # fmt: skip
        move = f"{' '.join(card)} takes {' '.join(taken)}" if taken else f"{' '.join(card)} laid"
        text = f"{rel.name}: {move} on a table of {' '.join(table) or 'nothing'}"
        if taken:
            text += f": worth {worth}, not a multiple of {cs}"
        data: dict[str, object] = {"card": card, "taken": taken, "table": table, "worth": worth}
        return Witness(text, data)

    return decode


def step_check(
    rules: EscobaRules, inst: I.Instance, timeout: float, guard: EscobaRules | None = None
) -> Check:
    """One step of the guarded relation (built from `guard` when given: a test breaks one rule of
    the relation alone) keeps VALUE; the step that ends the hand leaves on the table, before the
    rest is handed out, the pack's total less a multiple of the capture sum. The end step's claim
    needs CARDS before it too (every other card is captured: the hands and the stock are empty),
    the invariant `conservation` proves."""
    rel = R.step(
        guard or rules,
        inst.seating,
        inst.dealer,
        inst.mover,
        inst.play,
        inst.follow,
        domain=False,
    )
    g = inst.seating
    cs = rules.capture_sum
    label = f"{rel.play}/{rel.follow}/{g.players}p{g.sides}s"
    started = time.perf_counter()
    premise = value(rules, rel.pre)
    gain = cs if rel.play == "capture" else 0
    if rel.follow == "end":
        want = sum(R.values(rules)) % cs
        claim = _rest_worth(rules, rel).eq(sum(R.values(rules)) - cs * MULTIPLE - gain)
        statement = (
            f"the hand's last play leaves the pack's total less a multiple of {cs} on the table "
            f"({want} more than a multiple of {cs})"
        )
    else:
        claim = captured_worth(rules, rel.post).eq(captured_worth(rules, rel.pre) + gain)
        statement = f"{rel.name} adds {gain} to what the sides have captured"
    defs = I.definitions(rel.effects, I._after)
    premises = Facts()
    premises.given(premise, "VALUE holds before the step")
    if rel.follow == "end":
        premises.extend(I._lean_before(rules, g, rel, "cards"))
    facts = Facts([*rel.guards, *rel.follow_guards, *defs.rest, *premises])
    (ask,) = defs([claim])
    out = smt.check(facts.items, [~ask], timeout=timeout, minimise=False, values=False)
    if out.status == "unsat":
        # whether the step can happen under the premises the proof used: a play of the engine on
        # which they hold (VALUE's multiple read off its captures), else the solver
        def played(can: Facts) -> bool:
            env = I.play_values(rules, inst, rel)
            if env is not None:
                worth = values_of([captured_worth(rules, rel.pre)], env)[0]
                env[MULTIPLE.name] = int(worth) // cs
            return I.holds_on(can, env)

        return I.proved_step(
            label,
            statement,
            started,
            (*out.core, *(c for c in defs.used([claim]) if c not in out.core)),
            Facts([*rel.guards, *rel.follow_guards, *premises]),
            played,
            timeout,
        )
    before = I._before(rules, rel, "cards")
    before.given(premise, "VALUE holds before the step")
    full = Facts([*rel.guards, *rel.follow_guards, *rel.effects, *before])
    can = Facts([*rel.guards, *rel.follow_guards, *before])
    return prove(
        label, statement, full.items, claim, _step_decode(rules, rel), timeout, premises=can.items
    )


def deal_check(rules: EscobaRules, g: R.Seating, timeout: float) -> Check:
    """The opening deal (from any deck order) leaves the captured cards worth a multiple of the
    capture sum: nothing, or a sweep (*:opening-sweeps)."""
    f, st, _ = I.deal_state(rules, g, 0)
    cs = rules.capture_sum
    vals = R.values(rules)

    def decode(v: Mapping[str, Value]) -> Witness:
        taken = [
            I.R_name(k) for i in range(len(st.piles)) for k in range(R.KINDS)
            if int(v.get(f"pile{i}[{k}]", 0))
        ]  # fmt: skip
        worth = sum(vals[k] for i in range(len(st.piles)) for k in range(R.KINDS)
                    if int(v.get(f"pile{i}[{k}]", 0)))  # fmt: skip
        return Witness(
            f"the opening sweep takes {' '.join(taken)}, worth {worth}, not a multiple of {cs}",
            {"taken": taken, "worth": worth},
        )

    label = f"deal/{g.players}p{g.sides}s"
    statement = f"after the deal the captured cards are worth a multiple of {cs}"
    started = time.perf_counter()
    multiples = range(sum(vals) // cs + 1)
    claim = any_of(captured_worth(rules, st).eq(cs * m) for m in multiples)
    # asked of the deck order's facts with the state the deal leaves put in (as `conservation`
    # asks the deal); whether a deal can happen at all is `conservation`'s deal check
    defs = I.definitions(f, I.dealt)
    out = smt.check(defs.rest.items, defs([~claim]), timeout=timeout, minimise=False, values=False)
    if out.status == "unsat":
        core = (*out.core, *(c for c in defs.used([claim]) if c not in out.core))
        return Check(label, statement, Verdict.PROVED, time.perf_counter() - started, core=core)
    return prove(label, statement, f.items, claim, decode, timeout, minimise=False)


def invariant_checks(
    rules: EscobaRules, timeout: float, guard: EscobaRules | None = None
) -> list[Check]:
    """VALUE proved inductive over the guarded relation, for every seating (the deal, and seat 0's
    steps under dealer 0: the claim reads the captured cards and the table, which neither who
    deals nor seats renumbered by rotation change), and what it leaves at the hand's end. The
    relation is built from `guard` when given (a test breaks one move's rule alone)."""
    out: list[Check] = []
    for g in I.seatings(rules):
        out.append(deal_check(guard or rules, g, timeout))
        for play in R.PLAYS:
            for follow in R.FOLLOWS:
                inst = I.Instance(g, 0, 0, play, follow)
                out.append(step_check(rules, inst, timeout, guard))
    return out


def bound(rules: EscobaRules, timeout: float) -> tuple[Check, int | None]:
    """The most the table can hold when the hand ends, under forced capture: no group worth the
    capture sum holds a card laid in play (all four opening cards may stay together)."""
    started = time.perf_counter()
    vals = E.values(rules)
    copies: dict[int, int] = {}
    for v in vals:
        copies[v] = copies.get(v, 0) + 1
    t = {v: Int(f"left worth {v}") for v in copies}
    o = {v: Int(f"opening cards worth {v}") for v in copies}
    f = Facts()
    for v in copies:
        f.given(all_of((o[v] >= 0, o[v] <= t[v])), "counts")
        f.add(rules.cid("capture_values"), t[v] <= copies[v], f"{copies[v]} cards worth {v}")
    f.add(
        rules.cid("table_initial"),
        total(o.values()) <= rules.table_initial,
        "the opening cards left are among the table's first cards",
    )
    if rules.capture_forced:
        for g in groups_worth(rules):
            fits = all_of(t[v] >= k for v, k in g.items())
            f.add(
                rules.cid("capture_forced"),
                implies(fits, all_of(t[v].eq(o[v]) for v in g)),
                "a group worth the capture sum holds only opening cards",
            )
    worth = weighted((v, t[v]) for v in copies)
    cs = rules.capture_sum
    f.given((worth % cs).eq(sum(vals) % cs), "the invariant proved above")
    opt = smt.optimum(f.items, worth, maximise=True, timeout=timeout)
    seconds = time.perf_counter() - started
    if opt.status != "proved" or opt.value is None:
        return (
            Check(
                "bound",
                "what is left is at most the largest table forced capture allows",
                Verdict.UNKNOWN,
                seconds,
                reason=opt.reason or opt.status,
            ),
            None,
        )
    example = {v: int(opt.values.get(f"left worth {v}", 0)) for v in copies}
    shown = ", ".join(f"{k} worth {v}" for v, k in sorted(example.items()) if k)
    return (
        Check(
            "bound",
            f"what is left is at most {opt.value}: no group worth {cs} on the final table holds "
            "a card laid during play",
            Verdict.PROVED,
            seconds,
            witness=Witness(f"the largest such table: {shown}", {"counts_by_value": example}),
            values={"bound": opt.value},
        ),
        opt.value,
    )


def run(rules: EscobaRules, timeout: float, ceiling: bool = False) -> Result:
    """Property `table-rest`; with `ceiling`, `table-ceiling`: the most left at the end proved
    unsat above on the guarded relation too (`ceiling_checks`), not only over the cards'
    values."""
    started = time.perf_counter()
    checks = invariant_checks(rules, timeout)
    bound_check, top = bound(rules, timeout)
    checks.append(bound_check)
    if ceiling and top is not None:
        checks += ceiling_checks(rules, top, timeout)
    cs = rules.capture_sum
    first = sum(E.values(rules)) % cs
    amounts = list(range(first, (top if top is not None else first) + 1, cs))
    seen: dict[int, dict[str, object]] = {}
    problems: list[str] = []
    for hand in stored():
        try:
            left = replay(rules, hand)
        except ReplayError as e:
            problems.append(str(e))
            continue
        except (ValueError, KeyError) as e:  # a hand written for another rule set
            problems.append(f"not a hand of these rules: {e}")
            continue
        seen.setdefault(left, hand.to_json())
    shown = [a for a in amounts if a in seen]
    open_ = [a for a in amounts if a not in seen]
    values = {
        "step": cs,
        "least": first,
        "bound": top,
        "shown": shown,
        "unknown": open_,
        "hands": {str(k): v for k, v in sorted(seen.items())},
        "replay_problems": problems,
    }
    if top is None:
        summary = (
            f"left ≡ {first} (mod {cs}); the most that can be left is not proved; hands leave "
            f"{', '.join(map(str, sorted(seen))) or 'no amount yet'}"
        )
    elif open_:
        summary = (
            f"left ≡ {first} (mod {cs}), ≤ {top}; hands leave {', '.join(map(str, shown))}; "
            f"{', '.join(map(str, open_))} unknown"
        )
    else:
        summary = (
            f"left at the end: exactly {', '.join(map(str, shown))} (≡ {first} mod {cs}, "
            f"at most {top}"
            + (", unsat above on the guarded relation" if ceiling else "")
            + ", each left by a hand)"
        )
    return Result(
        "table-ceiling" if ceiling else NAME,
        rules.rulebook,
        {},
        "what is left on the table when a hand ends is worth the pack's total less a multiple of "
        "the capture sum, and at most what forced capture allows",
        tuple(checks),
        summary,
        time.perf_counter() - started,
        values=values,
    )


__all__ = ["NAME", "bound", "groups_worth", "invariant_checks", "run"]


# ---------------------------------------------------------------- the ceiling, on the relation


GHOST = "opening cards worth"
"""The unknowns of FREE's witness: how many of the table's cards of each value may be opening
cards (a history variable: the relation's state does not say which cards were laid in play)."""


def _by_value(rules: EscobaRules, vec: Vec) -> dict[int, IntTerm]:
    vals = R.values(rules)
    have = R.present(rules)
    return {
        v: vec.over(k for k in range(R.KINDS) if have[k] and vals[k] == v)
        for v in sorted({vals[k] for k in range(R.KINDS) if have[k]})
    }


def free(rules: EscobaRules, table: Vec, ghost: Mapping[int, IntTerm]) -> BoolTerm:
    """FREE: at most *:table-initial of the table's cards are set apart (`ghost`, by value), and
    every group of table cards worth *:capture-sum is made of those alone: no such group holds a
    card laid during play (the last of them laid would have been forced to capture the others,
    *:capture-forced)."""
    t = _by_value(rules, table)
    parts: list[BoolTerm] = [(ghost[v] >= 0) & (ghost[v] <= t[v]) for v in t]
    parts.append(total(ghost.values()) <= rules.table_initial)
    for grp in groups_worth(rules):
        fits = all_of(t[v] >= n for v, n in grp.items())
        parts.append(implies(fits, all_of(t[v].eq(ghost[v]) for v in grp)))
    return all_of(parts)


def ceiling_checks(
    rules: EscobaRules, top: int, timeout: float, guard: EscobaRules | None = None
) -> list[Check]:
    """FREE proved inductive over the guarded relation (built from `guard` when given) for every
    seating — the deal (the opening table set apart whole) and seat 0's steps under dealer 0, the
    set-apart cards after a step being those before it still on the table — and the step that
    ends the hand leaving at most `top` on the table, from FREE, VALUE and CARDS before it:
    "more than `top`" unsat."""
    out: list[Check] = []
    vals = R.values(rules)
    values_ = sorted({v for v, h in zip(vals, R.present(rules), strict=True) if h})
    ghost: dict[int, IntTerm] = {v: Int(f"{GHOST} {v}") for v in values_}
    for g in I.seatings(rules):
        started = time.perf_counter()
        f, st, _ = I.deal_state(guard or rules, g, 0)
        claim = free(rules, st.table, _by_value(rules, st.table))
        defs = I.definitions(f, I.dealt)
        got = smt.check(defs.rest.items, defs([~claim]), timeout=timeout, minimise=False,
                        values=False)  # fmt: skip
        label = f"free/{g.players}p{g.sides}s/deal"
        said = "the opening deal establishes FREE"
        if got.status == "sat":  # again with every fact, for a witness (the table dealt)
            table = st.table

            def decode(v: Mapping[str, Value], table: Vec = table) -> Witness:
                names = [I.R_name(k) for k in range(R.KINDS) if int(v.get(table[k].name, 0))]  # type: ignore[attr-defined]
                return Witness(f"the deal leaves {' '.join(names)} on the table", {"table": names})

            out.append(prove(label, said, f.items, claim, decode, timeout, minimise=False))
        else:
            out.append(
                Check(
                    label,
                    said,
                    _verdict(got.status),
                    time.perf_counter() - started,
                    reason=got.reason,
                )
            )
        for play in R.PLAYS:
            for follow in R.FOLLOWS:
                out += ceiling_step(rules, g, play, follow, top, ghost, vals, timeout, guard)
    return out


def _verdict(status: str) -> Verdict:
    return {"unsat": Verdict.PROVED, "sat": Verdict.REFUTED}.get(status, Verdict.UNKNOWN)


def ceiling_step(
    rules: EscobaRules, g: R.Seating, play: str, follow: str, top: int,
    ghost: Mapping[int, IntTerm], vals: tuple[int, ...], timeout: float,
    guard: EscobaRules | None,
) -> list[Check]:  # fmt: skip
    rel = R.step(guard or rules, g, 0, 0, play, follow, domain=False)
    mid = rel.pre.table - rel.taken if play == "capture" else rel.pre.table + rel.card
    after = mid if follow == "end" else rel.post.table
    t = _by_value(rules, after)
    kept = {v: ite(ghost[v] <= t[v], ghost[v], t[v]) for v in ghost}
    claim = free(rules, after, kept)
    defs = I.definitions(rel.effects, I._after)
    premises = Facts()
    premises.given(free(rules, rel.pre.table, ghost), "FREE holds before the step")
    premises.given(rel.pre.table.nonneg() & rel.card.nonneg() & rel.taken.nonneg(), "counts")
    facts = Facts([*rel.guards, *rel.follow_guards, *defs.rest, *premises])
    label = f"free/{g.players}p{g.sides}s/{rel.name}"
    started = time.perf_counter()
    (ask,) = defs([claim])
    got = smt.check(facts.items, [~ask], timeout=timeout, minimise=False, values=False)
    if got.status == "sat":
        full = Facts([*rel.guards, *rel.follow_guards, *rel.effects, *premises])
        checks = [prove(label, f"{rel.name} keeps FREE", full.items, claim,
                        _step_decode(rules, rel), timeout)]  # fmt: skip
    else:
        checks = [Check(label, f"{rel.name} keeps FREE", _verdict(got.status),
                        time.perf_counter() - started, reason=got.reason)]  # fmt: skip
    if follow != "end" or checks[0].verdict is not Verdict.PROVED:
        return checks
    # the ceiling: FREE after the last play (just proved), VALUE and CARDS before it
    started = time.perf_counter()
    premises.given(value(rules, rel.pre), "VALUE holds before the step")
    premises.extend(I._lean_before(rules, g, rel, "cards"))
    premises.given(all_of(p.nonneg() for p in rel.pre.piles), "counts")
    premises.given(claim, "FREE holds after the last play")
    facts = Facts([*rel.guards, *rel.follow_guards, *defs.rest, *premises])
    (ask,) = defs([mid.points(vals) <= top])
    got = smt.check(facts.items, [~ask], timeout=timeout, minimise=False, values=False)
    checks.append(
        Check(f"ceiling/{g.players}p{g.sides}s/{rel.name}",
              f"{rel.name} leaves at most {top} on the table",
              Verdict.PROVED if got.status == "unsat" else Verdict.UNKNOWN,
              time.perf_counter() - started,
              reason=got.reason or ("" if got.status == "unsat" else
                                    f"FREE, VALUE and CARDS do not exclude more than {top}")),
    )  # fmt: skip
    return checks
