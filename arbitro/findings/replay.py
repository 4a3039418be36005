"""Every witness replayed by the engine, under each rule set it names.

A witness records a case (a meld, a deck order and its moves, an end of a hand, running totals, a
transcript) and each rule set's result. `replay` rebuilds each named rule set from the witness's
`rule_sets` (a book, a book at one reading, or a book with one rule taken from another), asks the
engine again, and says:

- `agrees`: the engine gives every recorded result again (a witness that does not agree is wrong:
  `rules comparison --check` fails on it);
- `exhibits`: the two books (or readings) the witness is about give different results on the
  case itself — the defect as a player meets it;
- `supports`: weaker evidence — the difference shows only with one rule swapped into the other
  book, or the evidence is a clause that decides a move, or an unsat core (a proof, not a case);
- `shows`: one line saying what the replay showed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import Rules

EXHIBITS = "exhibits"
SUPPORTS = "supports"


@dataclass(frozen=True)
class Replay:
    """What replaying one witness showed."""

    agrees: bool
    evidence: str  # EXHIBITS or SUPPORTS
    shows: str


def rule_sets(
    key: str, first: tuple[str, Mapping[str, str]], second: tuple[str, Mapping[str, str]]
) -> dict[str, dict[str, Any]]:
    """The rule sets a witness of `key` between two members may name: each member, and each with
    `key` taken from the other (the searches swap one rule in, in either direction)."""
    from arbitro.findings.core import _name
    from arbitro.proofs.differences import mixed_name

    a, b = _name(first[0], dict(first[1])), _name(second[0], dict(second[1]))
    one = {"book": first[0], "options": dict(first[1])}
    two = {"book": second[0], "options": dict(second[1])}
    return {
        a: one,
        b: two,
        mixed_name(a, b, key): {**one, "with": {"key": key, **two}},
        mixed_name(b, a, key): {**two, "with": {"key": key, **one}},
    }


def _rules(spec: Mapping[str, Any], books: Mapping[str, Any], name: str) -> Any:
    import dataclasses

    from arbitro.model.schema import rules_for
    from arbitro.proofs.differences import hybrid

    def one(s: Mapping[str, Any]) -> Any:
        book = books.get(s["book"], s["book"])
        return rules_for(book, dict(s.get("options", {})))

    r = one(spec)
    if "with" in spec:
        r = hybrid(r, one(spec["with"]), spec["with"]["key"])
    if spec.get("unset"):
        # the book's own text: fields it gives no value are left without our default
        from arbitro.findings.core import BOOK_SILENT

        r = dataclasses.replace(r, **{k: BOOK_SILENT[k] for k in spec["unset"]})
    return dataclasses.replace(r, rulebook=name)


def _model(rules: object) -> GameModel:
    from arbitro.proofs.differences import _model as model_for

    return model_for(rules)


def _seating(model: GameModel, rules: Rules, layout: str) -> Seating:
    for s in model.seatings(rules):
        if (s.layout or f"{s.players} players") == layout:
            return s
    raise LookupError(f"no layout {layout!r}")


def _their_seating(model: GameModel, ra: Any, rb: Any, layout: str) -> Seating:
    """Book B's seating for A's layout: the one of that name, else the one seating as many
    players in as many sides (the books name their tables differently)."""
    try:
        return _seating(model, rb, layout)
    except LookupError:
        mine = _seating(model, ra, layout)
        for s in model.seatings(rb):
            if (s.players, s.sides) == (mine.players, mine.sides):
                return s
        raise


def _played(model: GameModel, rules: Rules, w: Mapping[str, Any], like: Any = None) -> Any:
    """The deal and moves of `w` replayed under `rules`: the state they reach (at the table of
    `like`'s layout when the layout is another book's)."""
    seating = (
        _seating(model, rules, w["layout"])
        if like is None
        else _their_seating(model, like, rules, w["layout"])
    )
    order = [model.parse_card(c) for c in w["deal"]]
    state = model.deal(rules, model.new_game(rules, seating), order)
    for m in w.get("moves", []):
        state = model.apply(rules, state, model.action_from_json(m))
    return state


def replay(w: Mapping[str, Any], books: Mapping[str, Any] | None = None) -> Replay:
    """Replay witness `w` (see the module's docstring); `books` maps ids to Rulebooks for specs
    not among the published ones (`--spec`)."""
    books = dict(books or {})
    how = w.get("how")
    if not w.get("found", True) or how in (None, "none"):
        return Replay(True, "", "no case: nothing to replay")
    if how in ("arises", "never-arises", "dead-rule", "solver"):
        what = {
            "arises": "a clause the book leaves open decides a move in play",
            "never-arises": "an unsat core: the case never arises",
            "dead-rule": "unsat cores: the rule never applies",
            "solver": "an unsat core",
        }[how]
        return Replay(True, SUPPORTS, what)
    if how == "play":
        return _play(w, {}, books)
    sets: Mapping[str, Any] = w.get("rule_sets", {})
    if not sets:
        return Replay(False, SUPPORTS, "the witness names no rule sets to replay it under")
    try:
        return _REPLAYS[how](w, sets, books)
    except (KeyError, LookupError, ValueError, IndexError, TypeError) as e:
        return Replay(False, SUPPORTS, f"the replay failed: {e}")


def _pair(w: Mapping[str, Any]) -> tuple[str, str]:
    a, b = w["books"]
    return str(a), str(b)


def _evidence(results: Mapping[str, Any], a: str, b: str) -> str:
    """Exhibits when both books have a result and the results differ."""
    if a in results and b in results and results[a] != results[b]:
        return EXHIBITS
    return SUPPORTS


def _meld(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    from arbitro.model.rummy.cards import parse_cards
    from arbitro.model.rummy.melds import classify
    from arbitro.model.rummy.tables import tables

    counts = parse_cards(" ".join(w["meld"]))
    got = {}
    for name in w["model"]:
        r = classify(tables(_rules(sets[name], books, name)), counts)
        got[name] = "legal" if not isinstance(r, str) else f"refused: {r}"
    agrees = got == dict(w["model"]) and len({v == "legal" for v in got.values()}) == 2
    a, b = _pair(w)
    legal = {n: v == "legal" for n, v in got.items()}
    return Replay(agrees, _evidence(legal, a, b), f"{' '.join(w['meld'])}: {got}")


def _opening(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    from arbitro.proofs.differences import opening_minimum, score_unit

    total = int(w["side_score"])
    got = {}
    reachable = True
    for name in w["minimums"]:
        r = _rules(sets[name], books, name)
        got[name] = opening_minimum(r, total)
        reachable = reachable and total % score_unit(r) == 0 and total < r.target_score
    agrees = got == dict(w["minimums"]) and len(set(got.values())) > 1 and reachable
    a, b = _pair(w)
    return Replay(agrees, _evidence(got, a, b), f"a side on {total}: minimums {got}")


def _target(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    from arbitro.model.rummy.scoring import game_over
    from arbitro.model.rummy.tables import tables

    totals = tuple(int(x) for x in w["totals"])
    got = {n: game_over(tables(_rules(sets[n], books, n)), totals) for n in w["over"]}
    agrees = got == dict(w["over"]) and len(set(got.values())) == 2
    a, b = _pair(w)
    return Replay(agrees, _evidence(got, a, b), f"totals {list(totals)}: game over {got}")


def _deal(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    if "states" not in w:
        return _deck(w, sets, books)
    got = {}
    for name in w["states"]:
        r = _rules(sets[name], books, name)
        model = _model(r)
        seating = _seating(model, r, w["layout"])
        order = [model.parse_card(c) for c in w["deal"]]
        got[name] = model.state_to_json(model.deal(r, model.new_game(r, seating), order))
    agrees = got == dict(w["states"]) and len({repr(v) for v in got.values()}) == 2
    a, b = _pair(w)
    parts = sorted(w["differs_in"])
    evidence = SUPPORTS
    if a in got and b in sets:
        # book B itself dealing the same deck order: it parts from A where the swapped rule does
        try:
            rb = _rules(sets[b], books, b)
            model = _model(rb)
            seating = _their_seating(model, _rules(sets[a], books, a), rb, w["layout"])
            order = [model.parse_card(c) for c in w["deal"]]
            if sorted(order) == sorted(model.deck(rb, seating)):
                jb = model.state_to_json(model.deal(rb, model.new_game(rb, seating), order))
                if all(jb.get(k) != got[a].get(k) for k in parts):
                    evidence = EXHIBITS
        except (ValueError, KeyError, LookupError, IndexError):
            pass
    return Replay(agrees, evidence, f"the deal differs in {parts}")


def _deck(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    from arbitro.proofs.rummy import cards as C

    a, b = _pair(w)
    got: dict[str, Any] = {}
    for name in (a, b):
        r = _rules(sets[name], books, name)
        lay = [x for x in r.layouts if x.players == w["players"]]
        if "sides" in w:
            lay = [x for x in lay if x.sides == w["sides"]]
        got[name] = (C.deck(r, lay[0]).size, lay[0].hand_size) if lay else None
    if "deck" in w:
        want = {n: (w["deck"][n], w["hand_size"][n]) for n in (a, b)}
        agrees = got == want and got[a] != got[b]
    else:
        agrees = (got[a] is None) != (got[b] is None)
    return Replay(agrees, EXHIBITS if agrees else SUPPORTS, f"{w['players']} players: {got}")


def _moves(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    a, b = _pair(w)
    if "ended" in w and isinstance(w["ended"], dict):
        return _parted(w, sets, books)
    names = [n for n in sets if n == a] + [n for n in _mixed(sets, a, b)]
    first = _rules(sets[a], books, a)
    model = _model(first)
    legal = {}
    for name in names[:2]:
        # each rule set plays the moves itself, as the search did: its own draws and turns
        r = _rules(sets[name], books, name)
        state = _played(model, r, w)
        legal[name] = {repr(model.action_to_json(x)) for x in model.legal_actions(r, state)}
    la, lh = legal[names[0]], legal[names[1]]
    agrees = [len(la), len(lh)] == list(w["legal_counts"]) and la != lh
    return Replay(
        agrees,
        _on_both(model, w, sets, books, a, b, (la - lh, lh - la)),
        f"after {len(w['moves'])} moves: {len(la - lh)} moves legal under {names[0]} only,"
        f" {len(lh - la)} under {names[1]} only",
    )


def _mixed(sets: Mapping[str, Any], a: str, b: str) -> list[str]:
    from arbitro.proofs.differences import mixed_name

    return [n for n in sets if n.startswith(mixed_name(a, b, ""))]


def _on_both(
    model: GameModel,
    w: Mapping[str, Any],
    sets: Mapping[str, Any],
    books: Mapping[str, Any],
    a: str,
    b: str,
    apart: tuple[set[str], set[str]] | None = None,
) -> str:
    """Exhibits when the deal and moves replay under both books themselves and leave them apart:
    different legal moves, or the hand over under one only. Where the moves do not replay under
    book B (its other rules differ), the position book A reached is asked of book B, when both
    deal the same deck: exhibits when B parts from A as the swapped rule does (`apart`: the
    moves legal under A only, and under the swapped rule only)."""
    ra, rb = _rules(sets[a], books, a), _rules(sets[b], books, b)
    try:
        sa = _played(model, ra, w)
    except (ValueError, KeyError, LookupError, IndexError):
        return SUPPORTS
    try:
        sb = _played(model, rb, w, like=ra)
    except (ValueError, KeyError, LookupError, IndexError):
        return _same_position(model, w, ra, rb, sa, apart)
    if model.phase(sa) != model.phase(sb):
        return EXHIBITS
    if model.phase(sa) != "play":
        da, db = model.last_hand(sa), model.last_hand(sb)
        same = da is not None and db is not None and tuple(da.scores) == tuple(db.scores)
        return SUPPORTS if same else EXHIBITS
    la = {repr(model.action_to_json(x)) for x in model.legal_actions(ra, sa)}
    lb = {repr(model.action_to_json(x)) for x in model.legal_actions(rb, sb)}
    return EXHIBITS if la != lb else SUPPORTS


def _same_position(
    model: GameModel,
    w: Mapping[str, Any],
    ra: Any,
    rb: Any,
    sa: Any,
    apart: tuple[set[str], set[str]] | None,
) -> str:
    """Book B asked about the position book A reached, when both deal the same deck to that
    layout (so the position is one B's game can hold)."""
    if apart is None or model.phase(sa) != "play":
        return SUPPORTS
    try:
        sa_seat = _seating(model, ra, w["layout"])
        sb_seat = next(
            x
            for x in model.seatings(rb)
            if (x.players, x.sides) == (sa_seat.players, sa_seat.sides)
        )
        da = sorted(model.deck(ra, sa_seat))
        db = sorted(model.deck(rb, sb_seat))
        if da != db:
            return SUPPORTS
        la = {repr(model.action_to_json(x)) for x in model.legal_actions(ra, sa)}
        lb = {repr(model.action_to_json(x)) for x in model.legal_actions(rb, sa)}
    except (ValueError, KeyError, LookupError, IndexError, StopIteration):
        return SUPPORTS
    only_a, only_h = apart
    if (only_a or only_h) and only_a <= la - lb and only_h <= lb - la:
        return EXHIBITS
    return SUPPORTS


def _parted(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    a, b = _pair(w)
    got = {}
    model = None
    for name in w["ended"]:
        r = _rules(sets[name], books, name)
        model = _model(r)
        state = _played(model, r, w)
        done = model.last_hand(state)
        got[name] = "in play" if model.phase(state) == "play" else (done.reason if done else "over")
    agrees = got == dict(w["ended"]) and len(set(got.values())) == 2
    evidence = _on_both(model, w, sets, books, a, b) if model is not None else SUPPORTS
    return Replay(agrees, evidence, f"after {len(w['moves'])} moves: {got}")


def _score(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    if "totals" in w:
        return _target(w, sets, books)
    if "deal" in w:
        return _played_scores(w, sets, books)
    return _end_of_hand(w, sets, books)


def _played_scores(
    w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]
) -> Replay:
    a, b = _pair(w)
    got = {}
    model = None
    for name in w["scores"]:
        r = _rules(sets[name], books, name)
        model = _model(r)
        done = model.last_hand(_played(model, r, w))
        got[name] = list(done.scores) if done is not None else None
    agrees = got == dict(w["scores"]) and len({repr(v) for v in got.values()}) == 2
    evidence = _on_both(model, w, sets, books, a, b) if model is not None else SUPPORTS
    return Replay(agrees, evidence, f"after {len(w['moves'])} moves the hand scores {got}")


def _end_of_hand(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    """The end of a hand the solver found, laid out as a position and scored by the engine."""
    a, b = _pair(w)
    got = {}
    for name in w["scores"]:
        r = _rules(sets[name], books, name)
        got[name] = _engine_score(r, w)
    want = {n: sum(int(x) for x in c.values()) for n, c in w["scores"].items()}
    agrees = got == want and len(set(got.values())) == 2
    # the same end of a hand scored by book B itself, when the witness names it
    both = dict(got)
    for name in (a, b):
        if name not in both and name in sets:
            both[name] = _engine_score(_rules(sets[name], books, name), w)
    return Replay(agrees, _evidence(both, a, b), f"the end of the hand scores {both}")


def _meld_of(cards: tuple[int, ...]) -> Any:
    """The meld these cards are on the table, by their shape (the rules that allowed laying them
    are not the scorer's business): wild cards only, black threes, one rank, or a run."""
    from arbitro.model.rummy.cards import is_black_three, is_wild, rank_of, suit_of
    from arbitro.model.rummy.melds import BLACK3, SEQ, SET, WILDS, Meld

    nat = [c for c in cards if not is_wild(c)]
    if not nat:
        return Meld(WILDS, -1, cards)
    if all(is_black_three(c) for c in nat):
        return Meld(BLACK3, -1, cards)
    if len({rank_of(c) for c in nat}) > 1:
        return Meld(SEQ, suit_of(nat[0]), cards)
    return Meld(SET, rank_of(nat[0]), cards)


def _engine_score(r: Any, w: Mapping[str, Any]) -> int:
    """Side 0's score for the witness's melds, hand and red threes, by the engine's score_hand."""
    from collections import Counter

    from arbitro.model.rummy.cards import parse_cards
    from arbitro.model.rummy.scoring import score_hand
    from arbitro.model.rummy.state import Side, new_state
    from arbitro.model.rummy.tables import tables
    from arbitro.proofs.rummy import cards as C

    melds = tuple(sorted(_meld_of(parse_cards(" ".join(m))) for m in w["melds"]))
    reds = parse_cards(" ".join((["3H", "3D"] * 6)[: int(w["red_threes"])]))
    held = parse_cards(" ".join(w["hand"]))
    # the layout of the smallest deck that holds every card of the case (the totals a score
    # counts, such as every black three of the deck, are that deck's)
    need = Counter([*held, *reds, *(c for m in melds for c in m.cards)])
    model = _model(r)
    fits = [
        x
        for x in sorted(r.layouts, key=lambda x: (C.deck(r, x).size, x.players))
        if x.sides >= 2
        and not need
        - Counter(model.deck(r, next(s for s in model.seatings(r) if s.layout == x.name)))
    ]
    lay = fits[0] if fits else next(x for x in r.layouts if x.sides >= 2)
    state = new_state(lay.players, lay.sides, lay.name, 0)
    t = tables(r)
    hands = [held] + [()] * (lay.players - 1)
    table = [Side(melds, reds, True)] + [Side((), (), False)] * (lay.sides - 1)
    state = state._replace(
        phase="play", hands=tuple(hands), table=tuple(table), seat=0, scores=(0,) * lay.sides
    )
    ended = str(w["ended"])
    out_seat = 0 if ended == "went out" else 1 if ended.startswith("another") else -1
    reason = "went-out" if out_seat >= 0 else "stock-out"
    return int(score_hand(t, state, reason, out_seat).scores[0])


def _refusal(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    a, b = _pair(w)
    got = {}
    for name in w["penalties"]:
        r = _rules(sets[name], books, name)
        model = _model(r)
        first = _rules(sets[a], books, a)
        state = _played(model, first, w)
        wrong = model.action_from_json(w["action"])
        got[name] = sorted(
            e.penalty for e in model.refusals(r, state, wrong) if e.penalty is not None
        )
    agrees = got == dict(w["penalties"]) and len({repr(v) for v in got.values()}) == 2
    return Replay(agrees, _evidence(got, a, b), f"penalties {got}")


def _play(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    """A dead end: the transcript's deal and moves, applied by the engine under the book it
    names, end the hand because the player to move has no legal action."""
    import json

    from arbitro.model.schema import rules_for
    from arbitro.simulation.simulate import DEAD_END, NO_LEGAL_ACTION

    lines = [json.loads(x) for x in str(w["transcript"]).splitlines() if x.strip()]
    head = lines[0]
    rules = rules_for(books.get(head["rulebook"], head["rulebook"]), dict(head.get("options", {})))
    model = _model(rules)
    seating = _seating(model, rules, head["layout"])
    state = model.new_game(rules, seating, int(head.get("dealer", 0)))
    state = model.deal(rules, state, [model.parse_card(c) for c in head["deals"][0]])
    moves = 0
    for x in lines[1:]:
        if x.get("type") == "action":
            state = model.apply(rules, state, model.action_from_json(x["action"]))
            moves += 1
    done = model.last_hand(state)
    stuck = model.phase(state) == "play" and not model.legal_actions(rules, state)
    ended = done is not None and done.reason in (DEAD_END, NO_LEGAL_ACTION)
    ok = stuck or ended
    why = done.reason if done is not None else model.phase(state)
    return Replay(
        ok, EXHIBITS if ok else SUPPORTS, f"{moves} moves under {head['rulebook']}: {why}"
    )


def _open_total(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    """Both sides level on a total: the engine says the game goes on, and the table gives that
    total no single minimum."""
    from arbitro.model.rummy.dealing import RuleGap
    from arbitro.model.rummy.dealing import opening_minimum as dealt_minimum
    from arbitro.model.rummy.scoring import game_over
    from arbitro.model.rummy.tables import tables
    from arbitro.proofs.differences import opening_minimum, score_unit

    (name,) = w["books"]
    r = _rules(sets[name], books, name)
    total = int(w["side_score"])
    over = game_over(tables(r), (total, total))
    minimum = opening_minimum(r, total)
    try:
        # the minimum the model deals the next hand with: a hole in the table is a RuleGap
        dealt: int | None = dealt_minimum(r, total)
    except RuleGap:
        dealt = None
    agrees = not over and minimum is None and dealt is None and total % score_unit(r) == 0
    return Replay(
        agrees,
        EXHIBITS if agrees else SUPPORTS,
        f"both sides on {total}: {'over' if over else 'play goes on'}, table minimum {minimum},"
        f" {'no hand can be dealt' if dealt is None else f'the hand is dealt with {dealt}'}",
    )


def _past(w: Mapping[str, Any], sets: Mapping[str, Any], books: Mapping[str, Any]) -> Replay:
    """Both sides level on a total at or past the target: each rule set ends the game, or deals
    the next hand with its minimum, or cannot deal it."""
    from arbitro.proofs.differences import past_table_result, score_unit

    total = int(w["side_score"])
    got = {}
    for name in w["results"]:
        r = _rules(sets[name], books, name)
        got[name] = past_table_result(r, total) if total % score_unit(r) == 0 else "off the step"
    a, b = _pair(w)
    for name in (a, b):
        if name not in got and name in sets:
            got[name] = past_table_result(_rules(sets[name], books, name), total)
    agrees = all(got[n] == w["results"][n] for n in w["results"]) and (
        len({repr(got[n]) for n in w["results"]}) == 2
    )
    return Replay(agrees, _evidence(got, a, b), f"both sides on {total}: {got}")


_REPLAYS = {
    "past-table": _past,
    "open-total": _open_total,
    "meld": _meld,
    "opening": _opening,
    "deal": _deal,
    "moves": _moves,
    "score": _score,
    "refusal": _refusal,
    "play": _play,
}


def replay_claim(f: Any, books: Mapping[str, Any]) -> Replay | None:
    """A refuted claim's witness replayed by the engine, where it is a case: an Escoba hand played
    to its end leaves an amount the book says cannot stay; another book's rule read from its
    rules; a deck counted. None when the witness is a solver's answer with no case to replay."""
    from arbitro.model.schema import rules_for

    w = f.witness or {}
    book = books.get(f.rulebooks[0])
    if book is None:
        return None
    claim = next((c for c in book.claims if c.id == f.clauses[0]), None)
    if claim is None:
        return None
    options = dict(f.details.get("options") or {})
    fields = claim.fields
    if claim.kind == "table_remainder" and isinstance(w.get("hand"), dict):
        from arbitro.proofs.escoba.search import Hand, ReplayError
        from arbitro.proofs.escoba.search import replay as play_hand

        hand = Hand.from_json(w["hand"])
        try:
            left = play_hand(rules_for(book, options), hand)  # type: ignore[arg-type]
        except ReplayError as e:
            return Replay(False, SUPPORTS, str(e))
        ok = left == hand.left and left not in fields["values"]
        return Replay(ok, EXHIBITS, f"the hand played by the engine leaves {left} on the table")
    if claim.kind == "game_rule":
        other = rules_for(books.get(fields["rulebook"], fields["rulebook"]))
        got = getattr(other, fields["key"])
        ok = got != fields["value"] and got == w.get("value")
        return Replay(ok, EXHIBITS, f"{fields['rulebook']} gives {fields['key']} = {got}")
    if claim.kind == "card_count" and "layout" not in fields:
        from arbitro.model.rummy.cards import in_class, is_natural
        from arbitro.model.rummy.family import FAMILY as RUMMY

        r = rules_for(book, options)
        if not RUMMY.owns(r):
            return None
        model = _model(r)
        deck = model.deck(r, model.seatings(r)[0])
        sel = fields["cards"]
        n = sum(
            1
            for c in deck
            if sel == "all" or (is_natural(c) if sel == "natural" else in_class(c, sel))
        )
        if fields.get("per_pack"):
            n //= max(1, r.packs)
        ok = n != fields["count"] and n == w.get("count")
        return Replay(ok, EXHIBITS, f"the deck holds {n} cards of {sel}")
    return None


def wrong_witnesses(
    witnesses: Iterable[Mapping[str, Any]], books: Mapping[str, Any] | None = None
) -> list[str]:
    """One line for each witness the engine does not reproduce: its books, its key and what the
    replay showed instead."""
    out = []
    for w in witnesses:
        got = replay(w, books)
        if not got.agrees:
            out.append(
                f"{' / '.join(map(str, w.get('books', [])))} on {w.get('key', '?')}:"
                f" {w.get('text', '')} — replayed: {got.shows}"
            )
    return out


__all__ = ["EXHIBITS", "SUPPORTS", "Replay", "replay", "rule_sets", "wrong_witnesses"]
