"""The one-pass soundness check answers exactly as the listing of violated clauses, on broken states.

`checks.violations` asks `checks.sound` first and lists clauses only when it says no, so `sound`
must be False exactly when `listed_violations` names a clause. Every state of a few random hands,
and many deliberate breakages of each (a card moved or doubled, a wrong seat, deal, stock, escoba
count, score or phase), are judged by both; a `sound` that skipped one of its checks is caught.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from arbitro.model.escoba import ESCOBA, EscobaState
from arbitro.model.escoba.checks import listed_violations, sound
from arbitro.model.schema import EscobaRules
from tests.support.escoba_helpers import DECK, TEAMS, THREE, TWO, rules

R = rules()
R_DEALER = rules({"rest_without_capturer": "dealer", "variant_cards_double": True})


def _states(r: EscobaRules, seed: int) -> Iterator[EscobaState]:
    """Every state of two random hands of each seating, the end of each hand included."""
    rng = random.Random(seed)
    for seating in (TWO, THREE, TEAMS):
        s = ESCOBA.new_game(r, seating)
        for _ in range(2):
            order = list(DECK)
            rng.shuffle(order)
            s = ESCOBA.deal(r, s, order)
            while s.phase == "play":
                yield s
                acts = ESCOBA.legal_actions(r, s)
                s = ESCOBA.apply(r, s, acts[rng.randrange(len(acts))])
            yield s
            if s.phase == "over":
                break


def _broken(s: EscobaState, rng: random.Random) -> Iterator[EscobaState]:
    """Deliberately broken copies of ``s``, one field or one card at a time."""
    n = len(s.hands)
    some = max(s.hands) or s.table or max(s.piles)
    low = some & -some
    if low:
        # a card doubled onto the table, and a card moved from where it is to the table
        yield s._replace(table=s.table | low)
        seat = next((i for i, h in enumerate(s.hands) if h & low), None)
        if seat is not None:
            hands = list(s.hands)
            hands[seat] ^= low
            yield s._replace(hands=tuple(hands), table=s.table | low)
        side = next((i for i, p in enumerate(s.piles) if p & low), None)
        if side is not None:
            piles = list(s.piles)
            piles[side] ^= low
            yield s._replace(piles=tuple(piles), table=s.table | low)
    yield s._replace(to_move=(s.to_move + 1) % n)
    yield s._replace(to_move=-1)
    yield s._replace(deal_number=s.deal_number + 1)
    yield s._replace(deal_number=0)
    yield s._replace(stock=s.stock[1:], table=s.table | (1 << s.stock[0] if s.stock else 0))
    yield s._replace(escobas=tuple(e + 1 + rng.randrange(20) for e in s.escobas))
    yield s._replace(last_capturer=-1)
    yield s._replace(scores=tuple(x + 1 for x in s.scores))
    yield s._replace(scores=tuple(x + 30 for x in s.scores))
    for phase in ("play", "deal", "over"):
        yield s._replace(phase=phase)
    if s.last_points is not None:
        first = s.last_points[0]
        yield s._replace(last_points=((first[0] + 1, *first[1:]), *s.last_points[1:]))
    else:
        yield s._replace(last_points=tuple((0,) * 5 for _ in s.scores))


def disagreements(check: Callable[[EscobaRules, EscobaState], bool]) -> list[EscobaState]:
    """The states, whole and broken, on which ``check`` and `listed_violations` disagree."""
    rng = random.Random(7)
    out = []
    for r, seed in ((R, 1), (R_DEALER, 2)):
        for s in _states(r, seed):
            for x in (s, *_broken(s, rng)):
                if check(r, x) != (listed_violations(r, x) == []):
                    out.append(x)
    return out


def test_sound_agrees_with_the_listed_violations() -> None:
    """Every invariant clause (escoba-es:suits, escoba-es:hand-size, escoba-es:play-direction,
    escoba-es:deals-per-hand, escoba-es:escoba-points, escoba-es:last-capturer-takes-rest, the
    scoring clauses, escoba-es:target-score, escoba-es:target-tie) — the fast check and the list
    agree on whole and broken states, and the breakages do break each of those clauses."""
    assert disagreements(sound) == []
    named: set[str] = set()
    rng = random.Random(3)
    for s in _states(R, 4):
        for x in _broken(s, rng):
            named.update(listed_violations(R, x))
    for key in ("suits", "hand_size", "play_direction", "deals_per_hand", "escoba_points",
                "last_capturer_takes_rest", "cards_points", "target_score", "target_tie"):  # fmt: skip
        assert R.cid(key) in named, key


def test_a_check_that_skips_the_escobas_is_caught() -> None:
    """escoba-es:escoba-points — a fast check blind to the escoba counts disagrees somewhere."""

    def blind(r: EscobaRules, s: EscobaState) -> bool:
        return sound(r, s._replace(escobas=(0,) * len(s.escobas)))

    assert disagreements(blind)


def test_a_check_that_skips_the_turn_is_caught() -> None:
    """escoba-es:play-direction — a fast check blind to whose turn it is disagrees somewhere."""

    def blind(r: EscobaRules, s: EscobaState) -> bool:
        if s.phase != "play":
            return sound(r, s)
        return any(sound(r, s._replace(to_move=seat)) for seat in range(len(s.hands)))

    assert disagreements(blind)
