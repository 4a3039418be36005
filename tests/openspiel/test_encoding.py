"""Action ids: a bijection with the engine's actions, both ways, of a size counted independently."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here")

from arbitro.model.errors import MalformedInput
from arbitro.openspiel import EscobaCodec, RummyCodec, variant
from arbitro.openspiel.encoding import ActionCodec
from tests.support.openspiel_cases import seating_id, seatings, shuffled


def _variant(rb: str, players: int = 0, layout: str = "", options: str = "{}") -> Any:
    return variant(rb, options, players, layout, 0, 0, "")


def id_problems(codec: ActionCodec, seats: Iterable[int]) -> list[str]:
    """Every id that does not decode to an action encoding back to it, for each seat."""
    out = []
    for seat in seats:
        for i in range(codec.size):
            a = codec.decode(i, seat)
            if getattr(a, "seat", None) != seat:
                out.append(f"id {i} decodes to an action of another seat: {a!r}")
            elif codec.encode(a) != i:
                out.append(f"id {i} decodes to {a!r}, which encodes to {codec.encode(a)}")
    return out


def legal_problems(v: Any, hands: int, seed: int) -> tuple[int, list[str]]:
    """Play random hands with the engine; every legal action must have an id decoding back to
    it, distinct actions distinct ids. Returns how many actions were checked and the problems."""
    rng = random.Random(seed)
    model, rules = v.model, v.rules
    state = model.new_game(rules, v.seating)
    checked, out = 0, []
    for h in range(hands):
        state = model.deal(rules, state, shuffled(v.deck, seed * 100 + h))
        while model.phase(state) == "play":
            actions = model.legal_actions(rules, state)
            if not actions:
                break
            ids = []
            for a in actions:
                try:
                    i = v.codec.encode(a)
                except MalformedInput as e:
                    out.append(str(e))
                    continue
                ids.append(i)
                if v.codec.decode(i, a.seat) != a:
                    out.append(f"{a!r} encodes to {i}, which decodes to another action")
            if len(set(ids)) != len(ids):
                out.append(f"two legal actions share an id: {sorted(ids)}")
            checked += len(actions)
            state = model.apply(rules, state, actions[rng.randrange(len(actions))])
        if model.phase(state) == "over":
            break
    return checked, out


@pytest.mark.parametrize(
    ("rb", "layout"),
    [
        ("escoba-es", ""),
        ("samba-es", ""),
        ("samba-en", ""),
        ("samba-fr", "6-pairs"),
        ("canasta-es", "two-pairs"),
        ("canasta-es", "three-pairs"),
    ],
)
def test_every_id_decodes_to_an_action_that_encodes_back(rb: str, layout: str) -> None:
    v = _variant(rb, layout=layout)
    assert id_problems(v.codec, [0, v.seating.players - 1]) == []


@pytest.mark.parametrize("case", seatings(), ids=seating_id)
def test_every_legal_action_of_random_play_encodes_and_decodes_back(case: Any) -> None:
    rb, s = case
    v = _variant(rb, s.players, s.layout)
    checked, problems = legal_problems(v, hands=2 if rb == "escoba-es" else 1, seed=7)
    assert problems == []
    assert checked > 100


def test_the_checks_catch_an_action_left_out_and_an_id_given_twice() -> None:
    v = _variant("samba-en")
    codec = RummyCodec(v.rules, v.deck, v.seating.players, v.seating.sides)
    # leave out every discard: the first discard of play has no id
    codec._ids = {a: i for a, i in codec._ids.items() if type(a).__name__ != "Discard"}
    broken = type(v)(**{**v.__dict__, "codec": codec})
    _, problems = legal_problems(broken, hands=1, seed=7)
    assert any("no action id" in p for p in problems)
    # two ids standing for one action
    codec = RummyCodec(v.rules, v.deck, v.seating.players, v.seating.sides)
    codec._actions[1] = codec._actions[0]
    assert any(p.startswith("id 1 ") for p in id_problems(codec, [0]))


def test_out_of_range_ids_and_foreign_actions_are_malformed() -> None:
    v = _variant("escoba-es")
    for bad in (-1, v.codec.size, True, "3"):
        with pytest.raises(MalformedInput, match="action id"):
            v.codec.decode(bad, 0)
    with pytest.raises(MalformedInput, match="not an escoba play"):
        v.codec.encode(("7o", ()))
    r = _variant("samba-en")
    with pytest.raises(MalformedInput, match="not a rummy action"):
        r.codec.encode(v.codec.decode(0, 0))


def _subset_count(values: list[int], total: int) -> int:
    """Subsets of distinct cards with these values worth `total` (a counting recurrence)."""
    ways = [1] + [0] * total
    for x in values:
        for s in range(total, x - 1, -1):
            ways[s] += ways[s - x]
    return ways[total]


def test_escoba_has_one_id_per_card_laid_and_per_group_it_could_take() -> None:
    v = _variant("escoba-es")
    r = v.rules
    # escoba-es:suits and escoba-es:capture-values: four suits of ten ranks; escoba-es:capture-sum
    values = [x for _ in r.suits for x in r.capture_values]
    expected = 0
    for i, x in enumerate(values):
        expected += 1 + _subset_count(values[:i] + values[i + 1 :], r.capture_sum - x)
    assert v.codec.size == expected
    assert isinstance(v.codec, EscobaCodec)
    assert v.codec.blocks()[0] == ("card 0", 0, 1 + _subset_count(values[1:], 15 - values[0]))


def _multisets(copies: list[int], size: int) -> int:
    """Multisets of `size` from kinds with these many copies each."""
    ways = [1] + [0] * size
    for n in copies:
        ways = [sum(ways[s - k] for k in range(min(n, s) + 1)) for s in range(size + 1)]
    return ways[size]


def test_samba_en_action_space_counted_from_the_book() -> None:
    v = _variant("samba-en")
    r = v.rules
    # samba-en:packs 3 and samba-en:jokers-per-pack 2: 3 copies of each card, 6 jokers
    assert (r.packs, r.jokers_per_pack) == (3, 2)
    deck = 52 * 3 + 6
    suit, wild = [3] * 4, [3, 3, 3, 3, 6]  # a rank's four suits; the four twos and the joker
    ranks = 11  # naturals: 4 to ace
    lay = max(r.set_min, r.set_start_min_naturals)  # 3
    slots = deck // lay  # a side's melds each hold at least 3 cards: 54
    takes = ranks * (_multisets(suit, 2) + 4 * 5)  # samba-en:pile-new-set-naturals 2, or 1 + a wild
    sets = ranks * sum(_multisets(suit, n) * _multisets(wild, lay - n) for n in range(1, lay + 1))
    escaleras = 4 * (len(r.sequence_ranks) - r.sequence_min + 1)  # samba-en:sequence-min 3
    # samba-en:black-threes-meld with wilds (samba-en:black-three-meld-wilds), at most wild_cap 2
    blacks = (4 * 4 - 1) * sum(_multisets(wild, w) for w in range(r.wild_cap + 1))
    expected = (
        r.draw_count  # draw
        + takes
        + slots  # take the pile onto a meld
        + sets
        + escaleras
        + blacks  # lay
        + slots * 53  # add a card to a meld
        + slots * (slots - 1) // 2  # samba-en:merge-sets
        + 1  # finish the opening
        + 53  # discard
        + 1
        + 2  # samba-en:ask-partner, and the answer
        + 1  # stop after the last red three
    )
    assert v.codec.size == expected


def test_canasta_es_two_players_action_space_counted_from_the_book() -> None:
    v = _variant("canasta-es", layout="two-players")
    r = v.rules
    assert (r.packs, r.jokers_per_pack) == (2, 2)  # canasta-es:packs, canasta-es:jokers-per-pack
    deck = 52 * 2 + 4
    suit, wild = [2] * 4, [2, 2, 2, 2, 4]
    ranks = 11
    lay = max(r.set_min, r.set_start_min_naturals)  # 3
    slots = deck // min(lay, r.wild_meld_min_start)  # 36
    takes = ranks * (_multisets(suit, 2) + 4 * 5)
    sets = ranks * sum(_multisets(suit, n) * _multisets(wild, lay - n) for n in range(1, lay + 1))
    wild_melds = _multisets(wild, r.wild_meld_min_start)  # canasta-es:wild-canasta
    blacks = (3 * 3 - 1) * sum(_multisets(wild, w) for w in range(r.wild_cap + 1))
    expected = (
        r.draw_count
        + takes
        + slots
        + sets
        + wild_melds
        + blacks
        + slots * 53
        + slots * 44 * 5  # canasta-es:clean-by-replacing-wilds: meld, natural, wild
        + 1
        + 53
        + 1  # stop; two players alone have no partner to ask or answer
    )
    assert not r.merge_sets and r.clean_by_replacing_wilds
    assert v.codec.size == expected
