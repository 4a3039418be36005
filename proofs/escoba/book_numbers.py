"""Property `book-numbers`: the numbers the book's text states, proved over what the rules build.

The other properties are stated from the rules' fields, the very fields the engine and the
relation are built from: a spec whose capture sum or score value is changed moves the engine, the
relation and the statement together, and they keep holding. Here the statement's numbers come from
the book's own claims (`[[claim]]` of the spec, each quoting the sentence that says it, checked
against the rulebook's text when the spec is loaded), and the question is put to the encodings
built from the rules:

- `capture_total` ("suman 15 puntos"): every capture step of the guarded relation
  (`relation.step`, capture) takes a card and table cards worth the book's total together;
- `category_points` ("Hay cuatro puntos fijos"): each listed category of the score encoding
  (`scoring.config`) is worth nothing or the book's points (a variant the options turn on, which
  the book itself says pays more, leaves its category out);
- `escoba_points` ("un punto por cada escoba"): the escobas category is the book's points for
  every escoba;
- `game_target` (Ganar el juego: "21 o más puntos"): in the game-end encoding
  (`game_end.over`, which the refiner's hand-end row evaluates on every hand the engine ends), for
  every number of sides the book seats and all running totals, a side alone in front with the
  book's points or more has won, and no game is over while every side has fewer.

A rules object whose capture sum, score value or target differs from what the book says is
REFUTED, with the capture, the hand's captures or the totals as witness.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from arbitro.model.schema import EscobaRules
from arbitro.model.spec import Claim, load_rulebook
from arbitro.proofs.escoba import game_end, scoring
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.escoba.invariants import R_name
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import Bool, IntTerm, Value, all_of, any_of, implies, one_of
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, combine, prove

NAME = "book-numbers"
STATEMENT = (
    "the numbers the book's text states (a capture's total, each category's and each escoba's "
    "points, the target score) hold of the guarded relation, the score encoding and the game-end "
    "encoding built from the rules"
)
KINDS = ("capture_total", "category_points", "escoba_points", "game_target")
VARIANT = {
    "cards": "variant_cards_double",
    "oros": "variant_oros_all",
    "setenta": "variant_sevens_all",
}
"""The book's variants that pay a category more than its fixed point, by category."""


def book_claims(rules: EscobaRules) -> list[Claim]:
    """The claims of the rules' book this property proves (none for a spec without them)."""
    try:
        book = load_rulebook(rules.rulebook)
    except ValueError:
        return []
    return [c for c in book.claims if c.kind in KINDS]


def replay_capture(rules: EscobaRules, card: str, taken: list[str]) -> list[str] | None:
    """A deck order after whose opening deal (two players, dealer 0) the engine lists `card`
    taking `taken` among the first mover's legal plays: the first mover holds the card, the table
    the cards taken and fillers. None when the cards do not fit the deal or no filler order of
    those tried makes the engine list it."""
    from arbitro.proofs.escoba.hand_scores import _engine, seating_of

    model = _engine()
    h, up = rules.hand_size, rules.table_initial
    if len(taken) > up:
        return None
    seats = R.turn_order(rules, 2, 0)
    pack = [R_name(k) for k, n in enumerate(R.present(rules)) if n]
    rest = [c for c in pack if c != card and c not in taken]
    for shift in range(len(rest)):
        pool = rest[shift:] + rest[:shift]
        hands = {seats[0]: [card, *pool[: h - 1]], seats[1]: pool[h - 1 : 2 * h - 1]}
        table = [*taken, *pool[2 * h - 1 : 2 * h - 1 + up - len(taken)]]
        deck = [hands[s][j] for j in range(h) for s in seats] + table
        deck += [c for c in pool if c not in deck]
        state: Any = model.new_game(rules, seating_of(rules, 2, 2), 0)
        state = model.deal(rules, state, [model.parse_card(x) for x in deck])
        if model.phase(state) != "play":
            continue
        action = model.action_from_json(
            {"seat": model.to_move(state), "card": card, "capture": taken}
        )
        if action in model.legal_actions(rules, state):
            return deck
    return None


def capture_total(rules: EscobaRules, claim: Claim, timeout: float) -> Check:
    """Every capture of the guarded relation (two seats, seat 0 moving, passing the turn: the
    guard of a capture is the same for every seat and what follows) is worth the claim's total."""
    want = int(claim.fields["total"])
    rel = R.step(rules, R.Seating(2, 2), 0, 0, "capture", "pass")
    vals = R.values(rules)
    facts = Facts([*rel.domain, *rel.guards])
    worth = rel.card.points(vals) + rel.taken.points(vals)

    def decode(v: Mapping[str, Value]) -> Witness:
        names = [R_name(k) for k in range(R.KINDS)]
        card = [names[k] for k in range(R.KINDS) if int(v.get(f"card[{k}]", 0))]
        taken = [names[k] for k in range(R.KINDS) if int(v.get(f"taken[{k}]", 0))]
        got = sum(vals[k] for k in range(R.KINDS) if int(v.get(f"card[{k}]", 0)))
        got += sum(vals[k] for k in range(R.KINDS) if int(v.get(f"taken[{k}]", 0)))
        text = f"{' '.join(card)} takes {' '.join(taken)}: worth {got}, the book says {want}"
        data: dict[str, object] = {"card": card, "taken": taken, "worth": got, "book": want}
        deck = replay_capture(rules, card[0], taken) if len(card) == 1 else None
        if deck is not None:
            data["deck"] = deck
            text += " (the engine lists it first thing after the deal from " + " ".join(deck) + ")"
        return Witness(text, data)

    return prove(
        f"{claim.name}/capture",
        f"every capture is worth {want} ({claim.anchor!r})",
        facts.items,
        worth.eq(want),
        decode,
        timeout,
        minimise=False,
    )


def _score_checks(rules: EscobaRules, claim: Claim, timeout: float) -> list[Check]:
    cfg = scoring.config(rules)
    want = int(claim.fields["points"])
    out: list[Check] = []
    if claim.kind == "escoba_points":
        cats = ["escobas"]
    else:
        cats = [str(c) for c in claim.fields["categories"]]
        cats = [c for c in cats if not getattr(rules, VARIANT.get(c, ""), False)]
    for cat in cats:
        term = cfg.categories[cat]
        claim_term = term.eq(want * cfg.escobas) if cat == "escobas" else one_of(term, (0, want))

        def dec(v: Mapping[str, Value], cat: str = cat) -> Witness:
            data = scoring.decode(cfg, v)
            return Witness(
                f"{cat} scores {data['categories'][cat]} (the book: {want}"
                + (" per escoba" if cat == "escobas" else "")
                + f"): {scoring.describe(data)}",
                data,
            )

        said = "per escoba" if cat == "escobas" else "or nothing"
        out.append(
            prove(
                f"{claim.name}/{cat}",
                f"{cat} scores {want} {said} ({claim.anchor!r})",
                cfg.facts.items,
                claim_term,
                dec,
                timeout,
                minimise=False,
            )
        )
    return out


def game_target(rules: EscobaRules, claim: Claim, timeout: float) -> list[Check]:
    """For each number of sides the rules seat: with any running totals at a hand's end (none
    negative), the game-end encoding ends the game when a side alone in front has the claim's
    points or more, and only when some side has that many. A witness is the totals, with the
    engine's own verdict on them (`model.escoba.game_end.game_winner`)."""
    from arbitro.model.escoba.game_end import game_winner

    want = int(claim.fields["points"])
    sides = sorted({*rules.player_counts, *(2 for _ in rules.team_player_counts)})
    out: list[Check] = []
    for n in sides:
        xs = game_end.totals(n)
        over = Bool("the game is over")
        ends = game_end.over(rules, xs)
        facts = Facts()
        facts.given(all_of(x >= 0 for x in xs), "a running total is not negative")
        facts.add(
            rules.cid("target_score"),
            implies(over, ends) & implies(ends, over),
            "the game is over when a side alone in front reaches the target",
        )
        alone = [
            (x >= want) & all_of(x > y for j, y in enumerate(xs) if j != i)
            for i, x in enumerate(xs)
        ]
        said = all_of(implies(a, over) for a in alone) & implies(
            over, any_of(x >= want for x in xs)
        )

        def decode(v: Mapping[str, Value], xs: list[IntTerm] = xs) -> Witness:
            got = tuple(int(v.get(x.name, 0)) for x in xs)  # type: ignore[attr-defined]
            winner = game_winner(rules, got)
            verb = "ends" if winner is not None else "goes on"
            text = (
                f"the game {verb} at {'-'.join(map(str, got))} (the engine: "
                + ("no winner yet" if winner is None else f"side {winner} wins")
                + f"), the book: a side alone in front with {want} or more wins"
            )
            return Witness(text, {"totals": list(got), "winner": winner, "book": want})

        out.append(
            prove(
                f"{claim.name}/{n}-sides",
                f"with {n} sides, a side alone in front with {want} or more wins, and no side "
                f"with fewer ({claim.anchor!r})",
                facts.items,
                said,
                decode,
                timeout,
                minimise=False,
            )
        )
    return out


def check(rules: EscobaRules, claim: Claim, timeout: float) -> list[Check]:
    """The checks of one claim of a kind in `KINDS`."""
    if claim.kind == "capture_total":
        return [capture_total(rules, claim, timeout)]
    if claim.kind == "game_target":
        return game_target(rules, claim, timeout)
    return _score_checks(rules, claim, timeout)


def run(rules: EscobaRules, timeout: float) -> Result:
    started = time.perf_counter()
    claims = book_claims(rules)
    checks = [c for claim in claims for c in check(rules, claim, timeout)]
    if not checks:
        summary = "the book states none of these numbers"
        return Result(NAME, rules.rulebook, {}, STATEMENT, (), summary,
                      time.perf_counter() - started)  # fmt: skip
    verdict = combine([c.verdict for c in checks])
    if verdict is Verdict.PROVED:
        summary = (
            f"the book's numbers hold: {len(checks)} checks "
            f"({', '.join(sorted({c.name.split('/')[0] for c in checks}))})"
        )
    else:
        bad = next(c for c in checks if c.verdict is verdict)
        why = bad.witness.text if bad.witness is not None else bad.reason
        summary = f"{bad.name}: {why}"
    return Result(NAME, rules.rulebook, {}, STATEMENT, tuple(checks), summary,
                  time.perf_counter() - started)  # fmt: skip


__all__ = [
    "KINDS", "NAME", "STATEMENT", "book_claims", "capture_total", "check", "game_target", "run"
]  # fmt: skip
