"""The fast playout against the reference: every action it plays is listed by `legal_actions`,
replaying its actions through `apply` reaches its final state and hand result, and it draws
every legal action, equally often."""

from __future__ import annotations

import random
import zlib
from collections import Counter
from typing import Any

import pytest
from rummy_helpers import BOOKS, R, dealt, make_state

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import RUMMY
from arbitro.model.rummy.playout import play_hand, random_step
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules

# Every book with its first two layouts, and readings that change what the playout must get
# right: merging and cleaning sets, several sets of a rank, the one-card rule, going out only
# by melding or only by discarding, a short stock ending the hand, forced pile takes.
READINGS: list[tuple[str, dict[str, Any]]] = [
    *[(b, {}) for b in BOOKS],
    ("samba-es", {"merge_sets": "merge", "several_sets_same_rank": "several"}),
    ("samba-es", {"clean_by_replacing_wilds": "replace-wilds"}),
    (
        "samba-en",
        {"pile_one_card_rule": "one-card-rule", "pile_rest_after_opening": "canasta-practice"},
    ),
    ("samba-fr", {"go_out_discard": "forbidden", "draw_short_stock": "hand-ends"}),
    ("samba-fr", {"go_out_discard": "required", "opening_concealed_exempt": "concealed-exempt"}),
    (
        "canasta-es",
        {"stock_out": "forced-take", "merge_sets": "merge", "several_sets_same_rank": "several"},
    ),
    ("canasta-es", {"last_red_three_ends_hand": "ends", "wild_meld_min_start": "trio"}),
]
CASES = [
    (book, options, seating.layout)
    for book, options in READINGS
    for seating in RUMMY.seatings(R(book, **options))[:2]
]


def replay(rules: RummyRules, start: State, actions: list[Any]) -> State:
    """The reference path: each action must be one `legal_actions` lists; `apply` plays it."""
    s = start
    for a in actions:
        assert RUMMY.phase(s) == "play"
        assert a in RUMMY.legal_actions(rules, s), (a, s)
        s = RUMMY.apply(rules, s, a)
    return s


@pytest.mark.parametrize(("book", "options", "layout"), CASES)
def test_play_hand_replays_through_the_reference(
    book: str, options: dict[str, Any], layout: str
) -> None:
    """A hand played by `play_hand`, replayed through `legal_actions` and `apply`, ends in the same
    state with the same hand result (scores and categories)."""
    rules = R(book, **options)
    seating = next(s for s in RUMMY.seatings(rules) if s.layout == layout)
    for k in range(2):
        seed = zlib.crc32(f"{book}:{sorted(options.items())}:{layout}:{k}".encode())
        start = dealt(rules, seating, seed)
        end, actions = play_hand(rules, start, random.Random(seed))
        assert RUMMY.phase(end) != "play"
        assert actions
        again = replay(rules, start, actions)
        assert again == end
        assert RUMMY.last_hand(again) == RUMMY.last_hand(end)
        assert RUMMY.state_to_json(again) == RUMMY.state_to_json(end)


def test_play_hand_is_deterministic_in_its_generator() -> None:
    """The same generator state plays the same hand."""
    rules = R("samba-en")
    start = dealt(rules, RUMMY.seatings(rules)[0], 11)
    a = play_hand(rules, start, random.Random(3))
    b = play_hand(rules, start, random.Random(3))
    assert a == b


def test_play_hand_needs_a_hand_in_play() -> None:
    rules = R("samba-es")
    s = RUMMY.new_game(rules, RUMMY.seatings(rules)[0])
    with pytest.raises(MalformedInput):
        play_hand(rules, s, random.Random(0))


@pytest.mark.parametrize(
    ("book", "hands", "melds"),
    [
        ("samba-en", {0: "KH KS KD 4C 9D 9H JK 2C"}, {0: ("QC QD QH", "5S 6S 7S")}),
        ("canasta-es", {0: "KH KS KD 4C 9D 9H JK 2C 3C"}, {0: ("QC QD QH QS 2H",)}),
    ],
)
def test_random_step_draws_every_legal_action_equally_often(
    book: str, hands: dict[int, str], melds: dict[int, tuple[str, ...]]
) -> None:
    """Over 400 draws per legal action, each one comes out between 300 and 500 times (a uniform
    draw leaves that band with probability below 1e-6 per action)."""
    rules = R(book)
    s = make_state(rules, hands=hands, melds=melds)
    legal = RUMMY.legal_actions(rules, s)
    assert len(legal) > 5
    rng = random.Random(7)
    counts = Counter(random_step(rules, s, rng)[0] for _ in range(400 * len(legal)))
    assert set(counts) == set(legal)
    assert all(300 < c < 500 for c in counts.values()), counts
