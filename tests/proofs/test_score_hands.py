"""Hands the engine plays toward the ends of a Samba or Canasta side's hand score.

The expected numbers come from the book's scoring clauses, not from the hands: canasta-es counts
a joker 50 against a side that holds it, a two or an ace 20, a black three 100 (its 5 and 95
more), 500 more when one player holds every black three of the deck, and its red threes 100 each
against a side with no canasta, all of them 800 (canasta-es, *Puntuación*). Three packs and six
jokers (the three-pairs layout, 13 cards a player) hold 6 black threes, 6 jokers, 12 twos and 12
aces. A side of two players who never meld, draw one and discard one, ends with 26 cards: at
most the six black threes with one player, the six jokers, the twelve twos and two aces, so

    -(6 x 100 + 500 + 6 x 50 + 12 x 20 + 2 x 20) - 800 = -2480.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from arbitro.model.game import HandResult
from arbitro.model.rummy.model import RUMMY
from arbitro.model.schema import RummyRules, rules_for
from arbitro.model.spec import load_rulebook, rulebook_ids
from arbitro.oracle.check import check_lines
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy import score_hands as S
from arbitro.proofs.rummy import scoring
from arbitro.proofs.verdict import Verdict

BOOK = rules_for("canasta-es")
assert isinstance(BOOK, RummyRules)
WORST_HELD = -(6 * 100 + 500 + 6 * 50 + 12 * 20 + 2 * 20) - 800
BOOK_COST = {"JK": 50, "2": 20, "A": 20, "3": 100}
"""canasta-es's cost of a card held (*Puntuación*): 10 for K to 8, 5 for 7 to 4."""


def _book_cost(name: str) -> int:
    rank = "JK" if name == "JK" else name[:-1]
    if rank in BOOK_COST:
        return BOOK_COST[rank]
    return 10 if rank in ("K", "Q", "J", "10", "9", "8") else 5


def _book_score(state: Any, side: int) -> int:
    """A canasta-es side's hand score from a final position, by the book's *Puntuación* and
    *Honores y premios*: the cards melded count for it and those held against it, a black three
    held 100 against, every black three with one player 500 more, a canasta of 7 cards 500 clean
    and 300 with wilds, 2000 of wilds alone, 500 more with 5 canastas and 2000 instead with 7, a
    red three 100 (for it with a canasta, else against; all of the deck 800), going out 100."""
    seats = range(side, state.players, state.sides)
    held = [RUMMY.card_name(c) for s in seats for c in state.hands[s]]
    melds = [[RUMMY.card_name(c) for c in m.cards] for m in state.table[side].melds]
    total = sum(_book_cost(c) if c[:-1] != "3" else 5 for m in melds for c in m)
    total -= sum(_book_cost(c) for c in held)
    blacks = sum(1 for c in RUMMY.deck(BOOK, _seating(state)) if RUMMY.card_name(c) in ("3C", "3S"))
    if any(
        sum(RUMMY.card_name(c) in ("3C", "3S") for c in state.hands[s]) == blacks for s in seats
    ):
        total -= 500
    canastas = 0
    for m in melds:
        if len(m) < 7 or m[0][:-1] == "3":
            continue
        canastas += 1
        wilds = sum(1 for c in m if c == "JK" or c.startswith("2"))
        total += 2000 if wilds == len(m) else 300 if wilds else 500
    total += 2000 if canastas >= 7 else 500 if canastas >= 5 else 0
    reds = len(state.table[side].red_threes)
    all_reds = sum(
        1 for c in RUMMY.deck(BOOK, _seating(state)) if RUMMY.card_name(c) in ("3D", "3H")
    )
    worth = 800 if reds == all_reds else 100 * reds
    total += worth if canastas else -worth
    result = RUMMY.last_hand(state)
    went = (
        result is not None
        and result.reason == "went-out"
        and any(not state.hands[s] for s in seats)
    )
    if went:
        total += 100
        melded_blacks = sum(1 for m in melds for c in m if c in ("3C", "3S"))
        total += 500 if melded_blacks == blacks else 0
    return total


def _seating(state: Any) -> Any:
    return S.seating_of(BOOK, state.layout)


def _final(rules: RummyRules, hand: S.Hand) -> Any:
    seating = S.seating_of(rules, hand.layout)
    state: Any = RUMMY.deal(rules, RUMMY.new_game(rules, seating, hand.dealer), list(hand.order))
    for act in hand.actions:
        state = RUMMY.apply(rules, state, RUMMY.action_from_json(act))
    return state


def test_the_whole_hand_caught_scores_the_book_s_worst_held_hand() -> None:
    seating = S.seating_of(BOOK, "three-pairs")
    hand = S.low(BOOK, seating)
    assert hand is not None and hand.reason == "stock-out"
    assert hand.score == WORST_HELD
    # read off the final position with the book's values, not the engine's scoring
    state = _final(BOOK, hand)
    held = [RUMMY.card_name(c) for s in range(0, 6, 3) for c in state.hands[s]]
    assert len(held) == 26
    blacks = [
        s for s in (0, 3) if sum(RUMMY.card_name(c) in ("3C", "3S") for c in state.hands[s]) == 6
    ]
    assert blacks, "one player holds every black three"
    reds = len(state.table[0].red_threes)
    assert reds == 6 and not state.table[0].melds
    assert -sum(_book_cost(x) for x in held) - 500 - 800 == WORST_HELD


def _best_kept(end: str) -> dict[str, Any]:
    kept = [e for e in S.stored("canasta-es") if e["end"] == end]
    assert {e["layout"] for e in kept} == {s.layout for s in RUMMY.seatings(BOOK)}
    pick = min if end == "min" else max
    return pick(kept, key=lambda e: int(e["score"]))


@pytest.mark.parametrize("end", ["min", "max"])
def test_the_kept_hands_score_what_the_book_counts_in_their_final_positions(end: str) -> None:
    entry = _best_kept(end)
    hand = S.replay_kept(BOOK, entry)
    assert hand.score == entry["score"] == _book_score(_final(BOOK, hand), hand.side)


def test_the_kept_hand_s_transcript_passes_arbitro_check() -> None:
    hand = S.replay_kept(BOOK, _best_kept("min"))
    lines = S.transcript(BOOK, hand)
    # one hand of a game: every action legal, the hand line's scores the referee's own
    report = check_lines([json.dumps(x) for x in lines])
    assert (report.status, report.hands, report.mismatches) == ("incomplete", 1, []), report
    # a claimed score changed by 5 is caught by the referee
    lines[-1]["scores"][0] += 5
    assert check_lines([json.dumps(x) for x in lines]).status == "score-mismatch"


def test_a_changed_penalty_moves_the_least_hand_by_the_book_s_difference() -> None:
    """A spec mutant (the all-in-one-hand penalty 500 -> 400): the kept hand, replayed, scores
    100 more for each side whose player holds every black three, and its transcript written under
    the mutant no longer passes the book's referee."""
    entry = _best_kept("min")
    book = S.replay_kept(BOOK, entry)
    state = _final(BOOK, book)
    one = any(
        sum(RUMMY.card_name(c) in ("3C", "3S") for c in state.hands[s]) == 6
        for s in range(book.side, state.players, state.sides)
    )
    assert one
    mutant = dataclasses.replace(BOOK, black_threes_all_in_hand_penalty=400)
    hand = S.replay_kept(mutant, entry)
    assert hand.score == book.score + 100
    report = check_lines([json.dumps(x) for x in S.transcript(mutant, hand)])
    assert report.status == "score-mismatch"


def test_a_changed_bonus_moves_the_greatest_hand_by_the_book_s_difference() -> None:
    """A spec mutant (a clean canasta 500 -> 450): the kept hand scores 50 less for each clean
    canasta its side holds at the end (counted in the final position)."""
    entry = _best_kept("max")
    book = S.replay_kept(BOOK, entry)
    state = _final(BOOK, book)
    clean = sum(
        1
        for m in state.table[book.side].melds
        if len(m.cards) >= 7
        and not any(
            RUMMY.card_name(c) == "JK" or RUMMY.card_name(c).startswith(("2", "3")) for c in m.cards
        )
    )
    assert clean >= 1
    mutant = dataclasses.replace(BOOK, bonus_clean_canasta=450)
    hand = S.replay_kept(mutant, entry)
    assert hand.score == book.score - 50 * clean


class _Rescored:
    """The Samba and Canasta engine with a bug planted in its scoring: each side's `category`
    moves by `change` for each thing `counted` finds in its final position."""

    category = ""
    change = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(RUMMY, name)

    def counted(self, state: Any, side: int) -> int:
        raise NotImplementedError

    def last_hand(self, state: Any) -> HandResult | None:
        real = RUMMY.last_hand(state)
        if real is None:
            return None
        cats = []
        for side in range(len(real.categories)):
            c = dict(real.categories[side])
            c[self.category] += self.change * self.counted(state, side)
            cats.append(c)
        return HandResult(real.reason, tuple(sum(c.values()) for c in cats), tuple(cats))


class JokersAtFiveHundred(_Rescored):
    """The Samba and Canasta engine with a bug planted: a joker held costs 500, not 50."""

    category, change = "hand", -450

    def counted(self, state: Any, side: int) -> int:
        held = [c for seat in range(side, state.players, state.sides) for c in state.hands[seat]]
        return sum(1 for c in held if C.kind_of(RUMMY.card_name(c)) == C.JOKER)


def test_score_bounds_reports_the_gap_to_the_hands_played() -> None:
    out = scoring.bounds(BOOK, 60.0)
    assert out.verdict is Verdict.PROVED
    low, high = out.values["played"]["min"], out.values["played"]["max"]
    assert low["score"] == _best_kept("min")["score"]
    assert high["score"] == _best_kept("max")["score"]
    assert low["gap"] == low["score"] - low["bound"] > 0
    assert high["gap"] == high["bound"] - high["score"] > 0
    assert f"{low['gap']} short of" in out.summary


def test_a_hand_the_engine_scores_past_a_proved_bound_refutes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(S, "_engine", JokersAtFiveHundred)
    out = scoring.bounds(BOOK, 60.0)
    assert out.verdict is Verdict.REFUTED
    bad = next(c for c in out.checks if c.name == "bounds")
    assert "past the proved least" in bad.reason


def test_the_command_prints_the_kept_hand_as_a_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert S.main(["canasta-es", "--transcript", "max"]) == 0
    lines = capsys.readouterr().out.splitlines()
    report = check_lines(lines)
    assert (report.status, report.hands, report.mismatches) == ("incomplete", 1, []), report
    assert json.loads(lines[-1])["scores"][0] == _best_kept("max")["score"]
    assert S.main(["canasta-es", "samba-es", "--transcript", "max"]) == 2
    assert "exactly one rulebook" in capsys.readouterr().err


def test_the_kept_orders_are_of_every_samba_and_canasta_book_and_no_other() -> None:
    """The books the regeneration searches by default are read from the specs' games, so the
    kept orders cover a Samba or Canasta spec added later once they are regenerated."""
    games = {b: load_rulebook(b).game for b in rulebook_ids()}
    assert S.books() == sorted(b for b, g in games.items() if g in ("samba", "canasta"))
    assert "escoba" in games.values()
    assert sorted(json.loads(S.ORDERS.read_text(encoding="utf-8"))["rulebooks"]) == S.books()


def _kept(book: str, every: bool) -> list[dict[str, Any]]:
    kept = S.stored(book)
    if every:
        return kept
    return [
        (min if end == "min" else max)(
            (e for e in kept if e["end"] == end), key=lambda e: int(e["score"])
        )
        for end in ("min", "max")
    ]


@pytest.mark.parametrize("book", S.books())
def test_the_best_kept_hands_of_every_book_replay_to_their_kept_scores(book: str) -> None:
    """The kept scores were the engine's when the hands were found: an engine that plays or
    scores otherwise (a change meant to be internal) moves them."""
    rules = rules_for(book)
    assert isinstance(rules, RummyRules)
    for entry in _kept(book, every=False):
        assert S.replay_kept(rules, entry).score == entry["score"], (entry["end"], entry["layout"])


@pytest.mark.slow
@pytest.mark.parametrize("book", S.books())
def test_every_kept_hand_replays_and_passes_arbitro_check(book: str) -> None:
    rules = rules_for(book)
    assert isinstance(rules, RummyRules)
    layouts = {s.layout for s in RUMMY.seatings(rules)}
    kept = _kept(book, every=True)
    assert {(e["end"], e["layout"]) for e in kept} == {
        (e, x) for e in ("min", "max") for x in layouts
    }
    for entry in kept:
        hand = S.replay_kept(rules, entry)
        assert hand.score == entry["score"], (entry["end"], entry["layout"])
        report = check_lines([json.dumps(x) for x in S.transcript(rules, hand)])
        assert (report.status, report.mismatches) == ("incomplete", []), (entry["layout"], report)


SAMBA_ES = rules_for("samba-es")
SAMBA_ES_CARD = {"JK": 50, "2": 20, "A": 20, "3": 5}
"""samba-es, *Orden y valor de las cartas*: K to 8 10, 7 to 4 5."""


def _samba_es_score(state: Any, side: int) -> int:
    """A samba-es side's hand score from a final position (*Tanteo del juego*, *Premios y
    honores*; a hand ended by the stock is counted normally, without the 200 for ending it):
    melded cards for it, held ones against, a samba (an escalera of 7) 1500, a canasta of 7 or
    more 500 clean and 300 with wilds, the red threes 100 each (all six 1000) once the side has two
    canastas or sambas, against it otherwise, 200 for going out."""

    def value(name: str) -> int:
        rank = "JK" if name == "JK" else name[:-1]
        return SAMBA_ES_CARD.get(rank, 10 if rank in ("K", "Q", "J", "10", "9", "8") else 5)

    seats = range(side, state.players, state.sides)
    melds = [[RUMMY.card_name(c) for c in m.cards] for m in state.table[side].melds]
    total = sum(value(c) for m in melds for c in m)
    total -= sum(value(RUMMY.card_name(c)) for s in seats for c in state.hands[s])
    done = 0
    for m in melds:
        if len(m) < 7 or m[0][:-1] == "3":
            continue
        done += 1
        wilds = sum(1 for c in m if c == "JK" or c.startswith("2"))
        naturals = [c for c in m if c != "JK" and not c.startswith("2")]
        run = len({c[:-1] for c in naturals}) > 1
        total += 1500 if run else 300 if wilds else 500
    reds = len(state.table[side].red_threes)
    worth = 1000 if reds == 6 else 100 * reds
    total += worth if done >= 2 else -worth
    result = RUMMY.last_hand(state)
    if (
        result is not None
        and result.reason == "went-out"
        and any(not state.hands[s] for s in seats)
    ):
        total += 200
    return total


def test_the_kept_samba_hand_scores_what_the_book_counts_in_its_final_position() -> None:
    assert isinstance(SAMBA_ES, RummyRules)
    kept = [e for e in S.stored("samba-es") if e["end"] == "max"]
    entry = max(kept, key=lambda e: int(e["score"]))
    hand = S.replay_kept(SAMBA_ES, entry)
    state = _final(SAMBA_ES, hand)
    assert hand.score == entry["score"] == _samba_es_score(state, hand.side)
    sambas = [
        m
        for m in state.table[hand.side].melds
        if len(m.cards) == 7 and len({RUMMY.card_name(c)[:-1] for c in m.cards}) == 7
    ]
    if entry["chooser"] == "meld-runs":
        assert len(sambas) >= 2, "the escaleras dealt are laid as sambas"


@pytest.mark.slow
def test_the_gaps_per_seating_set_each_group_s_best_hand_against_its_own_bounds() -> None:
    """canasta-es's layouts fall in three groups (its first paragraphs): two packs with sides of
    one player (two or three players), two packs with partners (two pairs, two teams of three),
    three packs (three pairs). Each group's best hands are held to its own configurations' ends,
    which lie within the book's; the three packs' group holds the book's."""
    rows = S.seating_gaps(BOOK)
    assert [set(r["layouts"]) for r in rows] == [
        {"two-players", "three-players"},
        {"two-pairs", "two-teams-of-three"},
        {"three-pairs"},
    ]
    whole = scoring.bounds(BOOK, 60.0).values["bounds"]["total"]
    for row in rows:
        low, high = row["min"], row["max"]
        assert whole[0] <= low["bound"] <= low["played"]
        assert high["played"] <= high["bound"] <= whole[1]
        assert low["gap"] == low["played"] - low["bound"]
        assert high["gap"] == high["bound"] - high["played"]
    # the three packs' group is where the book's ends lie
    assert (rows[2]["min"]["bound"], rows[2]["max"]["bound"]) == tuple(whole)


def _sambas(state: Any, side: int) -> int:
    """The side's melds of seven cards of seven ranks: its sambas (samba-es, *Samba*)."""
    return sum(
        1
        for m in state.table[side].melds
        if len(m.cards) == 7 and len({RUMMY.card_name(c)[:-1] for c in m.cards}) == 7
    )


class SambasAtTwoThousand(_Rescored):
    """The Samba and Canasta engine with a bug planted: a samba earns 2000, not the book's 1500
    (samba-es, *Premios y honores*)."""

    category, change = "canastas", 500

    def counted(self, state: Any, side: int) -> int:
        return _sambas(state, side)


@pytest.mark.slow
def test_a_samba_scored_wrong_plays_a_kept_hand_past_the_proved_greatest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pile gathered lays a samba for most escaleras of the top positions the deck holds, so
    a samba counted 500 too many carries the kept hand past the greatest the score encoding
    proves from the book's 1500 (it could not while the hands played fell 15,000 short)."""
    assert isinstance(SAMBA_ES, RummyRules)
    entry = max(
        (e for e in S.stored("samba-es") if e["end"] == "max"), key=lambda e: int(e["score"])
    )
    assert entry["chooser"].startswith("gather-")
    hand = S.replay_kept(SAMBA_ES, entry)
    state = _final(SAMBA_ES, hand)
    assert _sambas(state, hand.side) >= 8
    assert scoring.bounds(SAMBA_ES, 60.0).verdict is Verdict.PROVED
    monkeypatch.setattr(S, "_engine", SambasAtTwoThousand)
    out = scoring.bounds(SAMBA_ES, 60.0)
    assert out.verdict is Verdict.REFUTED
    bad = next(c for c in out.checks if c.name == "bounds")
    assert "past the proved greatest" in bad.reason
