"""Replay a transcript from another implementation and say where, if anywhere, it breaks the rules.

`check_lines` replays one transcript and returns a Verdict: `valid`, the first `illegal-action`
(with every clause that refuses it), a `score-mismatch` (each claimed number that differs, with
the category's clause and the real breakdown), a `legal-mismatch` (the producer's own list of
legal actions differs from arbitro's: an engine too strict or too lax), or `incomplete`; what is
not well formed raises TranscriptError (line, field, what was expected). The game's end is
judged like any rule: an action after the game is over is illegal, and a result line while the
game goes on is a mismatch, both with the target-score clause.

`arbitro check FILE...` checks one transcript or many (one verdict each; `--batch` also splits a
stream at every header line), as text or one JSON line per transcript with `--json`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from arbitro.model.errors import ArbitroError, IllegalAction, MalformedInput
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import Rules
from arbitro.oracle.core import Oracle, refusal_json
from arbitro.oracle.jsonio import clean_text
from arbitro.oracle.transcript import (
    ActionLine,
    HandLine,
    Header,
    ResultLine,
    TranscriptError,
    canonical_line,
    read,
)
from arbitro.oracle.variants import describe as describe_overrides

CATEGORY_CLAUSES: dict[str, dict[str, str]] = {
    "escoba": {
        "cards": "cards_points",
        "oros": "oros_points",
        "velo": "velo_points",
        "setenta": "setenta_points",
        "escobas": "escoba_points",
    },
    "rummy": {
        "melds": "card_points",
        "hand": "card_points",
        "canastas": "bonus_clean_canasta",
        "canaston": "canaston_bonus",
        "red-threes": "red_three_each",
        "black-threes": "black_three_hand_penalty",
        "going-out": "bonus_going_out",
        "penalties": "red_three_undeclared_penalty",
    },
}
"""The clause behind each scoring category (for a category several clauses price, such as a
canasta clean or dirty, the first of them): a mismatch names it."""


@dataclass
class Verdict:
    """The outcome of checking a transcript."""

    status: str  # "valid", "illegal-action", "score-mismatch", "legal-mismatch", "incomplete"
    actions: int = 0
    hands: int = 0
    step: int | None = None
    line: int | None = None
    seat: int | None = None
    clause: str | None = None
    reason: str | None = None
    penalty: int | None = None
    refusals: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] | None = None
    action: dict[str, Any] | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    missing: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "valid"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "actions": self.actions, "hands": self.hands}
        for key in ("step", "line", "seat", "clause", "reason", "penalty", "action", "state"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        for key in ("refusals", "mismatches", "missing", "extra"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.overrides:
            out["overrides"] = self.overrides
            out["note"] = describe_overrides(self.overrides)
        return out


def _oracle(header: Header) -> Oracle:
    """The oracle for the header's rulebook, options, overrides and seating."""
    if header.config is not None:
        try:
            small = Oracle(header.rulebook, header.options, config=header.config)
        except ArbitroError as e:
            raise TranscriptError(1, "config", str(e)) from None
        s = small.seating
        if (s.players, s.sides, s.layout) != (header.players, header.sides, header.layout):
            raise TranscriptError(
                1,
                "players/sides/layout",
                f"configuration {header.config!r} seats {s.players} players in {s.sides} sides"
                + (f" ({s.layout})" if s.layout else ""),
            )
        return small
    try:
        book = Oracle(header.rulebook, header.options, overrides=header.overrides)
    except ArbitroError as e:
        field_name = (
            "overrides" if header.overrides and "override" in str(e) else "rulebook/options"
        )
        raise TranscriptError(1, field_name, str(e)) from None
    s = _seating(book.model, book.rules, header.players, header.sides, header.layout)
    if s == book.seating:
        return book
    return Oracle(
        header.rulebook,
        header.options,
        players=s.players,
        layout=s.layout or None,
        overrides=header.overrides,
    )


def _seating(model: GameModel, rules: Rules, players: int, sides: int, layout: str) -> Seating:
    for s in model.seatings(rules):
        if s.players == players and s.sides == sides and (not layout or s.layout == layout):
            return s
    known = ", ".join(
        f"{s.players} players / {s.sides} sides / {s.layout!r}" for s in model.seatings(rules)
    )
    raise TranscriptError(1, "players", f"a seating of {rules.rulebook}; known: {known}")


def _canon(action: Any) -> str:
    return json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_lines(lines: Iterable[str]) -> Verdict:
    """Replay the transcript; TranscriptError for what is malformed, a Verdict for the rest."""
    header, body = read(lines)
    oracle = _oracle(header)
    model, rules = oracle.model, oracle.rules
    if header.dealer >= oracle.seating.players:
        raise TranscriptError(1, "dealer", f"a seat from 0 to {oracle.seating.players - 1}")
    deck = sorted(model.deck(rules, oracle.seating))
    orders: list[list[int] | None] = []
    for i, deal in enumerate(header.deals):
        if not isinstance(deal, tuple):
            orders.append(None)  # the cards as dealt: turned into an order when its hand comes
            continue
        try:
            order = [model.parse_card(nm) for nm in deal]
        except MalformedInput as e:
            raise TranscriptError(1, f"deals[{i}]", str(e)) from None
        if sorted(order) != deck:
            raise TranscriptError(
                1, f"deals[{i}]", f"a permutation of the {len(deck)}-card deck of {header.rulebook}"
            )
        orders.append(order)

    try:
        if header.scores is None and header.hand == 0:
            state: Hashable = model.new_game(rules, oracle.seating, header.dealer)
        else:
            state = oracle.read_state(oracle.new_game(header.dealer, header.scores, header.hand))
    except ArbitroError as e:
        where = "scores" if header.scores is not None else "hand"
        raise TranscriptError(1, where, str(e)) from None
    verdict = Verdict("valid", overrides=dict(oracle.overrides))
    first = header.hand
    hand = first  # the number of the hand being played
    step = 0
    results: list[Any] = []
    claimed_result = False

    def next_deal(line: int) -> None:
        nonlocal state
        k = hand - first
        if k >= len(orders):
            raise TranscriptError(
                line, "deals", f"the cards of hand {hand}; the header has {len(orders)} deals"
            )
        order = orders[k]
        if order is None:
            try:
                names = oracle.deck_order(model.state_to_json(state), header.deals[k])  # type: ignore[arg-type]
                order = oracle.parse_order(names)
                got = oracle.deal(model.state_to_json(state), dealt=header.deals[k])  # type: ignore[arg-type]
            except MalformedInput as e:
                raise TranscriptError(1, f"deals[{k}]", str(e)) from None
            orders[k] = order
            state = oracle.read_state(got)
            return
        state = model.deal(rules, state, order)

    # bound once: this loop runs once per action of the transcript
    phase_of, to_move_of, last_hand = model.phase, model.to_move, model.last_hand
    apply, action_from_json = model.apply, model.action_from_json
    # actions are immutable values parsed by a pure function: once per distinct action text
    parsed: dict[str, Hashable] = {}
    for item in body:
        if claimed_result:
            raise TranscriptError(item.line, "type", "nothing after the result line")
        if type(item) is ActionLine:
            step += 1
            if item.step != step:
                raise TranscriptError(
                    item.line, "step", f"{step} (steps count from 1 without gaps), got {item.step}"
                )
            phase = phase_of(state)
            if phase == "deal" and results and item.hand == hand - 1:
                # the producer plays on in a hand that arbitro saw end with the last action
                last = results[-1]
                _refuse(
                    verdict,
                    oracle,
                    state,
                    item,
                    step,
                    IllegalAction(
                        item.action,
                        _hand_end_clause(oracle, state, last),
                        f"hand {hand - 1} is over ({last.reason}): no action is played in it",
                    ),
                )
                return verdict
            if phase == "deal":
                next_deal(item.line)
                phase = phase_of(state)
            if phase == "over":
                # the game ended before this action: playing on breaks the rule that ended it
                _refuse(
                    verdict,
                    oracle,
                    state,
                    item,
                    step,
                    IllegalAction(
                        item.action,
                        rules.cid("target_score"),
                        f"the game is over: {oracle._ended(state)}",
                    ),
                )
                return verdict
            if item.hand == hand + 1:
                # the producer ended the hand that arbitro sees still being played
                verdict.mismatches.append(_hand_goes_on(oracle, state, item.line, hand))
                verdict.status = "score-mismatch"
                return verdict
            if item.hand != hand:
                raise TranscriptError(
                    item.line, "hand", f"{hand}, the hand being played, got {item.hand}"
                )
            text = item.text
            action = parsed.get(text)
            if action is None:
                try:
                    action = action_from_json(
                        oracle.game.resolve_action(model.state_to_json(state), dict(item.action))
                        if _names_melds(item.action)
                        else item.action
                    )
                except MalformedInput as e:
                    raise TranscriptError(item.line, "action", str(e)) from None
                if text:
                    parsed[text] = action
            to_move = to_move_of(state)
            if item.legal is not None and _legal_differs(verdict, oracle, state, item, step):
                return verdict
            try:
                if item.seat != to_move:
                    raise IllegalAction(
                        item.action,
                        clause=rules.cid("play_direction"),
                        reason=f"seat {item.seat} acted but it is seat {to_move}'s turn",
                        penalty=None,
                    )
                state = apply(rules, state, action)
            except IllegalAction as e:
                _refuse(verdict, oracle, state, item, step, e, action)
                return verdict
            except MalformedInput as e:
                raise TranscriptError(item.line, "action", str(e)) from None
            verdict.actions += 1
            if phase_of(state) != "play":
                # every action is played in a hand: leaving play means this one ended it
                result = last_hand(state)
                if result is None:
                    raise AssertionError("a hand ended without a result")  # pragma: no cover
                results.append(result)
                hand += 1
                verdict.hands = hand - first
        elif isinstance(item, HandLine):
            _hand_line(verdict, oracle, state, item, results, first)
        elif isinstance(item, ResultLine):
            claimed_result = True
            _result_line(verdict, oracle, state, item, results)
    if verdict.mismatches:
        verdict.status = "score-mismatch"
    elif not claimed_result:
        verdict.status = "incomplete"
        verdict.reason = "the transcript ends without a result line"
        model = oracle.model
        if model.phase(state) == "play" and not model.legal_actions(oracle.rules, state):
            # how the explorer's deadlock witnesses end: say what they show
            verdict.reason += (
                f"; the position it reaches has no legal action for seat "
                f"{model.to_move(state)} (a deadlock)"
            )
            if oracle.config is not None:
                verdict.reason += f" in configuration {oracle.config}, not the book's game"
    return verdict


def _names_melds(action: Any) -> bool:
    return isinstance(action, dict) and any(
        isinstance(action.get(k), list) for k in ("meld", "other")
    )


def _refuse(
    verdict: Verdict,
    oracle: Oracle,
    state: Hashable,
    item: ActionLine,
    step: int,
    e: IllegalAction,
    action: Hashable | None = None,
) -> None:
    verdict.status = "illegal-action"
    verdict.step, verdict.line, verdict.seat = step, item.line, item.seat
    verdict.clause, verdict.reason, verdict.penalty = e.clause, e.reason, e.penalty
    refusals: list[IllegalAction] = [e]
    if action is not None:
        try:
            more = oracle.model.refusals(oracle.rules, state, action)
        except ArbitroError:
            more = ()
        refusals += [r for r in more if r.clause != e.clause]
    verdict.refusals = [refusal_json(r) for r in refusals]
    verdict.action = dict(item.action)
    verdict.state = oracle.model.state_to_json(state)


def _legal_differs(
    verdict: Verdict, oracle: Oracle, state: Hashable, item: ActionLine, step: int
) -> bool:
    """Compare the producer's legal actions with arbitro's; record the first difference."""
    model, rules = oracle.model, oracle.rules
    ours = {_canon(model.action_to_json(a)): a for a in model.legal_actions(rules, state)}
    theirs: dict[str, Any] = {}
    as_json = model.state_to_json(state)
    assert item.legal is not None
    for a in item.legal:
        resolved = a
        if _names_melds(a):
            try:
                resolved = oracle.game.resolve_action(as_json, dict(a))
            except MalformedInput:
                resolved = a
        theirs.setdefault(_canon(resolved), a)
    if ours.keys() == theirs.keys():
        return False
    verdict.status = "legal-mismatch"
    verdict.step, verdict.line, verdict.seat = step, item.line, item.seat
    verdict.reason = (
        "the producer's list of legal actions differs from arbitro's: "
        f"{len(ours.keys() - theirs.keys())} missing (too strict), "
        f"{len(theirs.keys() - ours.keys())} listed but illegal (too lax)"
    )
    verdict.missing = [json.loads(k) for k in sorted(ours.keys() - theirs.keys())]
    for key in sorted(theirs.keys() - ours.keys()):
        entry: dict[str, Any] = {"action": theirs[key]}
        try:
            refused = model.action_from_json(json.loads(key))
            found = model.refusals(rules, state, refused)
        except MalformedInput as e:
            entry["malformed"] = str(e)
            found = ()
        if found:
            entry.update(refusal_json(found[0]))
        verdict.extra.append(entry)
    verdict.state = as_json
    return True


def _clause_of(oracle: Oracle, category: str) -> str | None:
    key = CATEGORY_CLAUSES.get(oracle.game.name, {}).get(category)
    return None if key is None else str(oracle.rules.cid(key))


def _hand_end_clause(oracle: Oracle, state: Hashable, result: Any) -> str:
    """The clause behind the way a hand ended: going out, the stock running out, a dead end
    (the first clause its result names), every card played."""
    rules = oracle.rules
    if result.reason == "went-out":
        return str(rules.cid("go_out_min_completed"))
    if result.reason == "stock-out":
        return str(rules.cid("stock_out"))
    if result.reason == "cards-played":
        return str(rules.cid("deals_per_hand"))
    finding = (oracle.model.state_to_json(state).get("result") or {}).get("finding") or []
    return str(finding[0]) if finding else str(rules.cid("go_out_min_completed"))


def _hand_goes_on(oracle: Oracle, state: Hashable, line: int, hand: int) -> dict[str, Any]:
    """The mismatch of a producer that ends hand `hand` while arbitro sees it go on."""
    rules = oracle.rules
    key, why = oracle.game.goes_on(oracle.model.state_to_json(state))
    clause = rules.cid(key)
    return {
        "line": line,
        "hand": hand,
        "category": "hand-over",
        "claimed": "over",
        "actual": "not over",
        "clause": clause,
        "reason": f"hand {hand} is still being played: {why}",
    }


def _hand_line(
    verdict: Verdict,
    oracle: Oracle,
    state: Hashable,
    item: HandLine,
    results: list[Any],
    first: int,
) -> None:
    k = item.hand - first
    if k == len(results) and oracle.model.phase(state) == "play":
        # scores claimed for the hand being played: the producer ended it, arbitro did not
        verdict.mismatches.append(_hand_goes_on(oracle, state, item.line, item.hand))
        return
    if not 0 <= k < len(results):
        raise TranscriptError(
            item.line,
            "hand",
            f"a hand that has ended; hands {first} to {first + len(results) - 1} have"
            if results
            else "a hand that has ended; none has yet",
        )
    actual = results[k]
    if len(item.scores) != len(actual.scores):
        raise TranscriptError(item.line, "scores", f"{len(actual.scores)} numbers, one per side")
    for side, (claimed, real) in enumerate(zip(item.scores, actual.scores, strict=True)):
        if claimed != real:
            wrong = [
                c
                for c, v in actual.categories[side].items()
                if side < len(item.categories) and item.categories[side].get(c, v) != v
            ]
            entry: dict[str, Any] = {
                "line": item.line,
                "hand": item.hand,
                "side": side,
                "category": "total",
                "claimed": claimed,
                "actual": real,
                "categories": dict(actual.categories[side]),
            }
            if wrong:
                entry["clause"] = _clause_of(oracle, wrong[0])
            verdict.mismatches.append(entry)
    for side, cats in enumerate(item.categories):
        if side >= len(actual.categories):
            raise TranscriptError(
                item.line, "categories", f"{len(actual.categories)} objects, one per side"
            )
        for cat, claimed in cats.items():
            real = actual.categories[side].get(cat)
            if real is None:
                known = ", ".join(actual.categories[side])
                raise TranscriptError(
                    item.line, f"categories[{side}].{cat}", f"a category of this game: {known}"
                )
            if claimed != real:
                verdict.mismatches.append(
                    {
                        "line": item.line,
                        "hand": item.hand,
                        "side": side,
                        "category": cat,
                        "claimed": claimed,
                        "actual": real,
                        "clause": _clause_of(oracle, cat),
                    }
                )


def _result_line(
    verdict: Verdict, oracle: Oracle, state: Hashable, item: ResultLine, results: list[Any]
) -> None:
    model, rules = oracle.model, oracle.rules
    totals = model.game_scores(state)
    target = rules.cid("target_score")
    if len(item.scores) != len(totals):
        raise TranscriptError(item.line, "scores", f"{len(totals)} numbers, one per side")
    if model.phase(state) != "over":
        # a game that has not ended cannot have a result: the producer ended it too soon
        verdict.mismatches.append(
            {
                "line": item.line,
                "category": "game-over",
                "claimed": "over",
                "actual": "not over",
                "clause": target,
                "reason": f"the game is not over: no side has won with totals {list(totals)}"
                f" (target {rules.target_score})",
            }
        )
    for side, (claimed, real) in enumerate(zip(item.scores, totals, strict=True)):
        if claimed != real:
            verdict.mismatches.append(
                {
                    "line": item.line,
                    "side": side,
                    "category": "game-total",
                    "claimed": claimed,
                    "actual": real,
                    "hands": [r.scores[side] for r in results],
                }
            )
    winner = model.winner(state)
    if item.winner != winner and model.phase(state) == "over":
        verdict.mismatches.append(
            {
                "line": item.line,
                "category": "winner",
                "claimed": item.winner,
                "actual": winner,
                "clause": target,
            }
        )


# ---------------------------------------------------------------- reading files, batches


MAX_LINE = 16 * 1024 * 1024
"""The longest line read, in bytes (the server's bound too); a longer line ends the reading."""
MAX_TRANSCRIPT_LINES = 4_000_000
"""The most lines one transcript may hold (a 2,000-hand game of Samba holds about 300,000)."""
MAX_BATCH_TRANSCRIPT_BYTES = 64 * 1024 * 1024
"""The most bytes of one transcript inside a --batch stream, which holds it whole to check it."""
MAX_BATCH_TRANSCRIPTS = 10_000_000
"""The most transcripts one --batch stream may hold; the reading stops after them."""


@dataclass(frozen=True)
class _Unread:
    """A line that could not be read as text: its problem, raised when the replay reaches it."""

    field: str
    expected: str
    stop: bool = False  # no line after it is read


def _raw_lines(stream: BinaryIO) -> Iterator[str | _Unread]:
    """The lines of a byte stream, each as text or as the reason it is not text; bounded in the
    bytes a line may hold (MAX_LINE), so an endless line ends the reading instead of memory."""
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            yield _Unread(
                "<line>",
                f"a line of at most {MAX_LINE:,} bytes; this one is longer, so the reading stops",
                stop=True,
            )
            return
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield _Unread(
                "<utf-8>",
                f"UTF-8 text; the line is not UTF-8 (byte 0x{raw[e.start]:02x} at column"
                f" {e.start + 1})",
            )


def _replay(items: Iterable[str | _Unread], first_line: int = 1) -> Iterator[str]:
    """Text lines for `check_lines`; TranscriptError at the first line that is not text (its
    number counted from `first_line`) or past MAX_TRANSCRIPT_LINES."""
    for n, item in enumerate(items, start=first_line):
        if n - first_line >= MAX_TRANSCRIPT_LINES:
            raise TranscriptError(
                n, "<file>", f"a transcript of at most {MAX_TRANSCRIPT_LINES:,} lines"
            )
        if isinstance(item, _Unread):
            raise TranscriptError(n, item.field, item.expected)
        yield item


def utf8_lines(stream: BinaryIO, first_line: int = 1) -> Iterator[str]:
    """The lines of a byte stream as text; TranscriptError names the first line that is not
    UTF-8 (and the byte in it), or a line longer than MAX_LINE bytes."""
    return _replay(_raw_lines(stream), first_line)


def malformed_json(e: TranscriptError) -> dict[str, Any]:
    return {"status": "malformed", "line": e.line, "field": e.field, "expected": e.expected}


def check_stream(lines: Iterable[str]) -> dict[str, Any]:
    """One transcript's verdict as JSON, `malformed` included (never raises for bad input)."""
    try:
        return check_lines(lines).to_json()
    except TranscriptError as e:
        return malformed_json(e)


def split_transcripts(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """The transcripts of a stream, each starting at a header line: (first line number, lines).

    A line is a header line when it is a JSON object whose "type" is "header"; the check is by
    text first (`"type":"header"` in a canonical line), then by reading the line."""
    current: list[str] = []
    start = 1
    for n, line in enumerate(lines, start=1):
        if current and _is_header(line):
            yield start, current
            current = []
            start = n
        current.append(line)
    if current:
        yield start, current


def _is_header(line: str) -> bool:
    if '"header"' not in line:
        return False
    try:
        from arbitro.oracle.jsonio import loads

        obj = loads(line)
    except MalformedInput:
        return False
    return isinstance(obj, dict) and obj.get("type") == "header"


def _renumber(verdict: dict[str, Any], offset: int) -> dict[str, Any]:
    """Line numbers of a transcript found inside a longer stream, counted in that stream."""
    if offset:
        if "line" in verdict:
            verdict["line"] += offset
        for m in verdict.get("mismatches", []):
            m["line"] += offset
    return verdict


def _file_problem(name: str, what: str) -> dict[str, Any]:
    return {"file": name, "status": "malformed", "line": 0, "field": "<file>", "expected": what}


def _verdicts(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    from arbitro.model.inputs import input_problem

    for name in args.files:
        if name == "-":
            source = sys.stdin.buffer
            yield from _verdicts_of(source, "-", args.batch)
            continue
        problem = input_problem(name)
        if problem is not None:
            yield _file_problem(name, problem)
            continue
        try:
            with open(name, "rb") as f:
                yield from _verdicts_of(f, name, args.batch)
        except OSError as e:
            yield _file_problem(name, f"a readable file ({(e.strerror or '').lower()})")


def _verdicts_of(stream: BinaryIO, name: str, batch: bool) -> Iterator[dict[str, Any]]:
    """The verdicts of one stream, each given as soon as its transcript ends (the stream is
    read as it comes: a batch on stdin gets its verdicts while the producer still writes)."""
    if not batch:
        yield {"file": name, **check_stream(utf8_lines(stream))}
        return
    index = 0
    current: list[str | _Unread] = []
    start = 1
    size = 0

    def verdict() -> dict[str, Any]:
        if size > MAX_BATCH_TRANSCRIPT_BYTES:
            got = malformed_json(
                TranscriptError(
                    1,
                    "<file>",
                    f"a transcript of at most {MAX_BATCH_TRANSCRIPT_BYTES:,} bytes in a batch;"
                    " check a longer one alone (without --batch)",
                )
            )
        else:
            got = check_stream(_replay(current))
        return {"file": name, "index": index, **_renumber(got, start - 1)}

    for n, item in enumerate(_raw_lines(stream), start=1):
        if current and isinstance(item, str) and _is_header(item):
            yield verdict()
            index += 1
            current, start, size = [], n, 0
            if index >= MAX_BATCH_TRANSCRIPTS:
                yield {
                    "file": name,
                    "index": index,
                    **malformed_json(
                        TranscriptError(
                            n,
                            "<file>",
                            f"a batch of at most {MAX_BATCH_TRANSCRIPTS:,} transcripts;"
                            " the reading stops here (split the stream)",
                        )
                    ),
                }
                return
        size += len(item) if isinstance(item, str) else 0
        if size <= MAX_BATCH_TRANSCRIPT_BYTES:
            current.append(item)
        if isinstance(item, _Unread) and item.stop:
            break
    if current:
        yield verdict()


EXIT = {"valid": 0, "malformed": 2}


def cmd_check(args: argparse.Namespace) -> int:
    if getattr(args, "spec", None):
        from arbitro.model.spec import use_spec_file

        use_spec_file(args.spec)
    many = len(args.files) > 1 or args.batch
    worst = 0
    for verdict in _verdicts(args):
        status = verdict["status"]
        worst = max(worst, EXIT.get(status, 1))
        if args.json:
            out = verdict if many else {k: v for k, v in verdict.items() if k != "file"}
            sys.stdout.write(clean_text(json.dumps(out, ensure_ascii=False)) + "\n")
        elif status == "malformed" and not many:
            # a single transcript that cannot be read is an input error, said on stderr
            sys.stderr.write(f"arbitro: {_text(verdict, many)}")
        else:
            sys.stdout.write(_text(verdict, many))
        sys.stdout.flush()
    return worst


def _text(v: dict[str, Any], many: bool) -> str:
    where = ""
    if many:
        where = f"{v['file']}" + (f" #{v['index']}" if "index" in v else "") + ": "
    status = v["status"]
    note = f"\n  {v['note']}" if v.get("note") else ""
    if status == "valid":
        return (
            f"{where}valid: {v['actions']} actions in {v['hands']} hands, every score as claimed"
            f"{note}\n"
        )
    if status == "malformed":
        at = f"line {v['line']}: " if v["line"] else ""
        what = v["field"]
        if what == "<file>":
            from arbitro.model.inputs import shown

            if v["line"]:  # a problem of the whole transcript at a line: no field to name
                return f"{where}malformed transcript: {at}{v['expected']}\n"
            what = shown(v["file"]) if v.get("file") else "the input"
            where = ""
        return f"{where}malformed transcript: {at}{what}: {v['expected']}\n"
    if status == "illegal-action":
        priced = (
            f"; the book prices it at {v['penalty']} points" if v.get("penalty") is not None else ""
        )
        others = [r for r in v.get("refusals", [])[1:]]
        also = "".join(f"\n  also refused by {r['clause']}: {r['reason']}" for r in others)
        detail = ""
        if not many:
            detail = (
                f"\n  action: {json.dumps(v['action'], ensure_ascii=False)}"
                f"\n  state:  {json.dumps(v['state'], ensure_ascii=False)}"
            )
        return (
            f"{where}illegal action at step {v['step']} (line {v['line']}), seat {v['seat']}: "
            f"{v['reason']} ({v['clause']}){priced}{also}{detail}{note}\n"
        )
    if status == "score-mismatch":
        out = [f"{where}scores differ from the claims ({len(v['mismatches'])}):"]
        for m in v["mismatches"]:
            hand = f"hand {m['hand']}, " if "hand" in m else ""
            side = f"side {m['side']}, " if "side" in m else ""
            clause = f" ({m['clause']})" if m.get("clause") else ""
            why = f": {m['reason']}" if m.get("reason") else ""
            out.append(
                f"  line {m['line']}: {hand}{side}{m['category']}: claimed {m['claimed']}, "
                f"arbitro says {m['actual']}{clause}{why}"
            )
        return "\n".join(out) + note + "\n"
    if status == "legal-mismatch":
        out = [
            f"{where}legal actions differ at step {v['step']} (line {v['line']}), seat "
            f"{v['seat']}: {v['reason']}"
        ]
        for a in v.get("missing", [])[:10]:
            out.append(f"  missing (legal): {json.dumps(a, ensure_ascii=False)}")
        for e in v.get("extra", [])[:10]:
            why = f" — {e['reason']} ({e['clause']})" if "clause" in e else ""
            why = why or (f" — {e['malformed']}" if "malformed" in e else "")
            out.append(f"  listed but illegal: {json.dumps(e['action'], ensure_ascii=False)}{why}")
        return "\n".join(out) + note + "\n"
    return f"{where}{status}: {v.get('reason', '')}{note}\n"


def register(sub: Any) -> None:
    """Add `arbitro check` to the command line's subparsers."""
    p = sub.add_parser(
        "check",
        help="replay transcripts: the first illegal action, a score that differs, or valid",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="transcripts (JSON Lines); - for stdin")
    p.add_argument(
        "--batch",
        action="store_true",
        help="a file may hold several transcripts, each starting at its header line",
    )
    p.add_argument("--json", action="store_true", help="one JSON verdict per transcript")
    p.add_argument("--spec", metavar="FILE", help="the spec file a transcript names by id")
    p.set_defaults(func=cmd_check)


__all__ = [
    "CATEGORY_CLAUSES",
    "Verdict",
    "canonical_line",
    "check_lines",
    "check_stream",
    "cmd_check",
    "register",
    "split_transcripts",
    "utf8_lines",
]
