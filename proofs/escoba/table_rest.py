"""Property `table-rest`: which amounts can be left on the table when an Escoba hand ends.

An inductive invariant: the captured cards are always worth a multiple of *:capture-sum — the
deal's sweep takes cards worth a sweep total (*:opening-sweeps), each capture takes a card and a
group worth the capture sum together, and laying or dealing captures nothing. When the last card
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
from collections.abc import Mapping

from arbitro.model.schema import EscobaRules
from arbitro.proofs import smt
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.escoba import moves
from arbitro.proofs.escoba.search import ReplayError, replay, stored
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import Int, IntTerm, Value, all_of, any_of, implies, total, weighted
from arbitro.proofs.vectors import Vec, read, unknowns
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


def invariant_checks(
    rules: EscobaRules, timeout: float, guard: EscobaRules | None = None
) -> list[Check]:
    """The captured value stays a multiple of the capture sum, and what that leaves at the end.
    The moves are built from `guard` when given (a test breaks one move's rule alone)."""
    moving = guard or rules
    n = E.kinds(rules)
    vals = E.values(rules)
    cs = rules.capture_sum
    out: list[Check] = []

    def worth(v: Vec) -> IntTerm:
        return moves.value(v, vals)

    multiples = range(sum(vals) // cs + 1)

    def nothing(_: Mapping[str, Value]) -> Witness:
        return Witness("a counterexample to the invariant")

    players = min(rules.player_counts)
    d = moves.deal(moving, players, sweep=True)

    def dec_deal(v: Mapping[str, Value]) -> Witness:
        taken = E.names(read(v, "dealer_pile", n))
        worth = sum(vals[E.kind_of(x)] for x in taken)
        return Witness(
            f"the opening sweep takes {' '.join(taken)}, worth {worth}, not a multiple of {cs}",
            {"taken": taken, "worth": worth},
        )

    out.append(
        prove(
            "deal",
            f"after the deal the captured cards are worth a multiple of {cs}",
            d.facts.items,
            any_of(worth(d.pile).eq(cs * m) for m in multiples),
            dec_deal,
            timeout,
        )
    )
    rel = moves.capture(moving)
    before = rel.pre["pile"] + rel.pre["piles_other"]
    after = rel.post["pile"] + rel.post["piles_other"]
    f = Facts([*rel.facts])

    def dec_cap(v: Mapping[str, Value]) -> Witness:
        card = E.names(read(v, "param:card", n))
        taken = E.names(read(v, "param:taken", n))
        worth = sum(vals[E.kind_of(x)] for x in card + taken)
        return Witness(
            f"{' '.join(card)} takes {' '.join(taken)}: worth {worth}, not a multiple of {cs}",
            {"card": card, "taken": taken, "worth": worth},
        )

    out.append(
        prove(
            "capture",
            f"a capture adds exactly {cs} to what the sides have captured",
            f.items,
            worth(after).eq(worth(before) + cs),
            dec_cap,
            timeout,
        )
    )
    built = moves.relations(moving)
    for name in ("lay", *(k for k in built if k.startswith("redeal"))):
        r2 = built[name]
        b2 = r2.pre["pile"] + r2.pre["piles_other"]
        a2 = r2.post["pile"] + r2.post["piles_other"]
        out.append(
            prove(
                name,
                f"{name} adds nothing to what the sides have captured",
                r2.facts.items,
                worth(a2).eq(worth(b2)),
                nothing,
                timeout,
            )
        )
    # the end: every card captured but those on the table
    captured, table = unknowns("captured", n), unknowns("table", n)
    f = Facts()
    f.given(captured.nonneg() & table.nonneg(), "counts")
    f.add(
        rules.cid("suits"),
        all_of((captured[k] + table[k]).eq(1) for k in range(n)),
        "every card is captured or on the table",
    )
    f.given((worth(captured) % cs).eq(0), "the invariant: captured cards are worth a multiple")
    left = moves.value(table, vals)
    want = sum(vals) % cs

    def dec_end(v: Mapping[str, Value]) -> Witness:
        on = E.names(read(v, "table", n))
        worth = sum(vals[E.kind_of(x)] for x in on)
        return Witness(f"{' '.join(on)} left, worth {worth}", {"table": on, "worth": worth})

    out.append(
        prove(
            "end",
            f"what is left when the last card is played is worth {want} more than a multiple "
            f"of {cs}",
            f.items,
            (left % cs).eq(want),
            dec_end,
            timeout,
        )
    )
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


def run(rules: EscobaRules, timeout: float) -> Result:
    started = time.perf_counter()
    checks = invariant_checks(rules, timeout)
    bound_check, top = bound(rules, timeout)
    checks.append(bound_check)
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
            f"at most {top}, each left by a hand)"
        )
    return Result(
        NAME,
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
