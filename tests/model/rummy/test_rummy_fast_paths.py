"""The shortcuts agree with the slow, obvious definitions: the verdicts the listing of legal
actions reaches without playing a candidate with playing every one, `random_step` with
`legal_actions`, the cheap tests of going out with the exhaustive search, and the candidate lists
(pile takes, additions, new melds) with trying every card combination."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

import pytest

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import RUMMY, engine, melding
from arbitro.model.rummy import cards as cards_module
from arbitro.model.rummy import going_out as going_out_module
from arbitro.model.rummy import melds as melds_module
from arbitro.model.rummy import pile as pile_module
from arbitro.model.rummy import stock as stock_module
from arbitro.model.rummy import table as table_module
from arbitro.model.rummy import tables as tables_module
from arbitro.model.rummy import turn as turn_module
from arbitro.model.rummy.actions import Action, LayMeld, Merge, ReplaceWild, TakePile
from arbitro.model.rummy.arrange import Need, lost_cards, places_all, side_facts
from arbitro.model.rummy.cards import distinct, inserted_top, is_wild, remove
from arbitro.model.rummy.engine import random_step
from arbitro.model.rummy.going_out import can_go_out, can_go_out_listed, need
from arbitro.model.rummy.laying import shape
from arbitro.model.rummy.melds import SET, Meld
from arbitro.model.rummy.pile import candidate_fields
from arbitro.model.rummy.refusal import Refusal
from arbitro.model.rummy.state import (
    DRAW,
    FREED,
    PLAY,
    TURN_START,
    State,
    after_clean,
    after_draw,
    after_meld,
    after_opening,
    after_take,
    next_turn,
    replaced,
)
from arbitro.model.rummy.table import (
    SideView,
    going_out_counts,
    mover_side,
    opening_points,
    put,
)
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules, rules_for
from tests.support.rummy_helpers import BOOKS, SAMBAS, C, R, make_state


def walk(rules: RummyRules, seed: int, steps: int) -> list[State]:
    """States met along random play (several hands)."""
    rng = random.Random(seed)
    seating = RUMMY.seatings(rules)[0]
    s = RUMMY.new_game(rules, seating)
    deck = list(RUMMY.deck(rules, seating))
    out: list[State] = []
    while len(out) < steps and RUMMY.phase(s) != "over":
        if RUMMY.phase(s) == "deal":
            order = deck[:]
            rng.shuffle(order)
            s = RUMMY.deal(rules, s, order)
            continue
        out.append(s)
        step = random_step(rules, s, rng)
        assert step is not None
        s = step[1]
    return out


def test_state_builders_agree_with_replaced() -> None:
    """The engine's builders of the next state, which list every field of `State` in its order,
    give what `replaced` gives (the state's own field names), on states of random play with
    every field they set changed; the turn's fields of `next_turn` are `TURN_START`'s."""
    rules = R("samba-es")
    states = walk(rules, 5, 60)
    assert len(states) == 60
    for s in states:
        hands = ((99,), *s.hands[1:])
        other = (98,)
        assert next_turn(s, 3, hands, other, 7) == replaced(
            s, hands=hands, pile=other, seat=3, step=DRAW, **{**TURN_START, "clean_start": 7}
        )
        assert after_meld(s, hands, ()) == replaced(
            s, hands=hands, table=(), step=PLAY, melded=True, freed=-1, freed_meld=-1
        )
        assert after_draw(s, hands, other) == replaced(
            s, hands=hands, stock=other, step=PLAY, no_discard=False
        )
        assert after_draw(s, hands, other, (), True) == replaced(
            s, hands=hands, stock=other, table=(), step=PLAY, no_discard=True
        )
        assert after_take(s, hands, (), other, 11) == replaced(
            s,
            hands=hands,
            table=(),
            pile=(),
            pile_taken=True,
            took_pile=True,
            held=other,
            top_points=11,
            step=PLAY,
        )
        assert after_clean(s, hands, (), 5, 2) == replaced(
            s, hands=hands, table=(), step=FREED, melded=True, freed=5, freed_meld=2
        )
        assert after_opening(s, hands, ()) == replaced(
            s, hands=hands, table=(), held=(), top_points=0
        )
        assert type(next_turn(s, 3, hands, other, 7)) is State
        assert type(after_clean(s, hands, (), 5, 2)) is State


@pytest.mark.parametrize("book", BOOKS)
def test_quick_verdicts_agree_with_playing_every_candidate(book: str) -> None:
    """The legal actions listed with the verdicts reached without playing a candidate (plain
    moments, pending openings, cleanings, discards) are those listed by playing every candidate
    through its rule, in the same order."""
    rules = R(book)
    t = tables(rules)
    for s in walk(rules, 3, 400):
        quick = engine._Moment(t, s, {}).legal()
        slow = engine._Moment(t, s, {}, quick=False).legal()
        assert quick == slow, s


def test_quick_verdicts_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a quick test that forgets the opening minimum (here the
    pending opening's reach, *:opening-minimums) lets a lay through that playing it refuses.
    (Broken in a copy of the engine module run from source, which a patch reaches.)"""
    rules = R("samba-en")
    t = tables(rules)
    s = make_state(rules, hands={0: "5C 5D 5H 6C 7D 9S"}, opened={0: False}, minimums=(120, 120))
    copy = source_module("arbitro.model.rummy.engine")
    slow = copy._Moment(t, s, {}, quick=False).legal()
    assert not any(type(a).__name__ == "LayMeld" for a in slow)
    assert copy._Moment(t, s, {}).legal() == slow
    monkeypatch.setattr(copy._Moment, "_reaches", lambda self, rest, melds, placed: True)
    quick = copy._Moment(t, s, {}).legal()
    assert quick != slow


def _pile_takes(e: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the draw steps of random play of `book` with a new set from the pile among the
    candidates: how many by a side that has opened and keeps one set of the top card's rank
    (the cards shown join it, `pile.join_set`), how many by a side with no melds yet (a take
    to open, `pile.opens_by_reach`), and at how many the listing of `e` differs from playing
    every candidate through its rule."""
    rules = R(book)
    t = tables(rules)
    joins = opens = differ = 0
    for s in walk(rules, 31, 1500):
        if s.step != DRAW:
            continue
        fields = candidate_fields(t, s)
        if not any(use == "set" for use, _, _ in fields):
            continue
        sd = mover_side(s)
        top = s.pile[-1]
        own = any(m.kind == SET and m.key == top >> 2 for m in sd.melds)
        joins += sd.opened and own and not rules.several_sets_same_rank
        opens += not sd.opened and not sd.melds
        differ += e._Moment(t, s, {}).legal() != e._Moment(t, s, {}, quick=False).legal()
    return joins, opens, differ


@pytest.mark.parametrize("book", BOOKS)
def test_pile_takes_decided_without_playing_them_agree_with_playing_them(book: str) -> None:
    """The pile takes the listing decides without playing them (cards shown joining the side's
    one set of their rank, takes to open judged by the opening search on what the taker sees)
    are those found legal by playing every take through `pile.take_pile`."""
    joins, opens, differ = _pile_takes(engine, book)
    assert opens > 0
    assert joins > 0 or R(book).several_sets_same_rank
    assert differ == 0


def test_pile_takes_decided_without_playing_them_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparisons above can fail. samba-es keeps one set per rank and grows a finished
    canasta by naturals only (*:completed-set-growth): a two and a king shown with a king on
    the pile cannot join the side's canasta of kings, which a quick test that forgets the join
    lets through; and kings worth 30 points cannot open against a minimum of 120
    (*:opening-minimums), which a quick test that forgets the opening search lets through.
    (Broken in a copy of the engine module run from source, which a patch reaches.)"""
    rules = R("samba-es")
    t = tables(rules)
    copy = source_module("arbitro.model.rummy.engine")
    joining = make_state(
        rules,
        hands={0: "KH 2C 4C 5C 6D 9S"},
        melds={0: ("KC KC KD KD KH KH KS",)},
        pile="5S KD",
        step=DRAW,
    )
    opening = make_state(
        rules,
        hands={0: "KH KS 4C 5C 6D 9S"},
        opened={0: False},
        minimums=(120, 120),
        pile="5S KD",
        step=DRAW,
    )
    for s in (joining, opening):
        slow = copy._Moment(t, s, {}, quick=False).legal()
        assert not any(type(a).__name__ == "TakePile" and a.use == "set" for a in slow)
        assert copy._Moment(t, s, {}).legal() == slow
    monkeypatch.setattr(copy, "join_ok", lambda t, m, top, cards: True)
    assert copy._Moment(t, joining, {}).legal() != copy._Moment(t, joining, {}, quick=False).legal()
    monkeypatch.setattr(copy, "opens_by_reach", lambda t, s, m, cards: True)
    assert copy._Moment(t, opening, {}).legal() != copy._Moment(t, opening, {}, quick=False).legal()
    _, _, differ = _pile_takes(copy, "canasta-es")
    assert differ > 0


def _melding_verdicts(e: ModuleType, book: str) -> tuple[Counter[str], int]:
    """Over random play of `book`: the states where the listing decides a melding candidate
    without playing it, by kind (a pending opening's `FinishOpening`, its lays and additions
    that `_reaches` does not accept, a new meld holding a freed wild), and at how many the
    listing of `e` differs from playing every candidate through its rule."""
    rules = R(book)
    t = tables(rules)
    seen: Counter[str] = Counter()
    differ = 0
    for seed in (3, 17):
        for s in walk(rules, seed, 700):
            sd = mover_side(s)
            if s.step == FREED:
                if sd.opened:
                    seen["freed"] += 1
            elif s.step != PLAY or sd.opened:
                continue
            elif sd.melds:
                seen[
                    "finish-opening reached"
                    if opening_points(t, s) >= s.minimums[s.seat % s.sides]
                    else "finish-opening short"
                ] += 1
            else:
                seen["opening"] += 1
            differ += e._Moment(t, s, {}).legal() != e._Moment(t, s, {}, quick=False).legal()
    return seen, differ


@pytest.mark.parametrize("book", BOOKS)
def test_melding_decided_without_playing_it_agrees_with_playing_it(book: str) -> None:
    """The melding candidates the listing decides without playing them (a pending opening's
    `FinishOpening` by its points, its lays and additions refused when two cards of the hand
    have no home, a freed wild's new melds by the meld clauses) are those found legal by
    playing every candidate through its rule."""
    seen, differ = _melding_verdicts(engine, book)
    assert seen["finish-opening reached"] > 0, seen
    assert seen["finish-opening short"] > 0, seen
    assert seen["opening"] > 0, seen
    if R(book).clean_by_replacing_wilds:
        assert seen["freed"] > 0, seen
    assert differ == 0


def test_melding_decided_without_playing_it_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparisons above can fail: a `FinishOpening` listed whatever the opening's points
    (*:opening-minimums) makes the listing differ from playing every candidate in random play.
    A pending opening's lay or addition that `_reaches` refuses is legal when the player
    can go out with it instead: samba-es lets a side go out without opening
    (*:opening-concealed-exempt) on one canasta, so three kings laid, or a king added to them,
    from seven kings and a five, are legal against a minimum of 120 (the other four kings make
    the canasta, the five is the discard); a `_stuck` that says so without looking refuses
    them. (Broken in a copy of the engine module run from source, which a patch reaches.)"""
    copy = source_module("arbitro.model.rummy.engine")
    assert _melding_verdicts(copy, "canasta-es")[1] == 0
    with monkeypatch.context() as m:
        m.setattr(copy, "opening_reached", lambda t, s: True)
        assert _melding_verdicts(copy, "samba-es")[1] > 0
    rules = R("samba-es")
    t = tables(rules)
    laying = make_state(
        rules, hands={0: "KC KC KD KD KH KH KS 5C"}, opened={0: False}, minimums=(120, 120)
    )
    adding = make_state(
        rules,
        hands={0: "KC KD KH KS 5C"},
        melds={0: ("KC KD KH",)},
        opened={0: False},
        minimums=(120, 120),
    )
    for s, kind in ((laying, "LayMeld"), (adding, "AddToMeld")):
        slow = copy._Moment(t, s, {}, quick=False).legal()
        assert any(type(a).__name__ == kind for a in slow), slow
        assert copy._Moment(t, s, {}).legal() == slow
        with monkeypatch.context() as m:
            m.setattr(copy._Moment, "_stuck", lambda self, rest, melds: True)
            assert copy._Moment(t, s, {}).legal() != slow


def test_opening_reach_read_before_the_rest_is_built_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """A pending opening's lay whose points make up what the side lacks of its minimum is
    listed before the rest of the hand and the melds after it are built (`_Moment._reached`,
    `arrange.reaches`' first test); the comparison of the listing with playing every candidate
    in random play (above) catches a `_reached` that reads the moment's `short` before it is
    worked out (a sentinel far below zero) and so lists every lay of a side that has not
    opened. (Broken in a copy of the engine module run from source, which a patch reaches.)"""
    copy = source_module("arbitro.model.rummy.engine")

    def unset(self: Any, placed: tuple[int, ...]) -> bool:
        short: int = self.short
        for c in placed:
            short -= self.t.points[c]
        return short <= 0

    monkeypatch.setattr(copy._Moment, "_reached", unset)
    assert _melding_verdicts(copy, "samba-es")[1] > 0


def _last_card_adds(e: ModuleType, book: str) -> tuple[int, int, int]:
    """Over random play of `book`: the moments where an opened side's mover holds two cards, no
    pile and no "yes" to honour, so that the listing decides each addition by whether the card
    left could go out (`going_out.last_card_out` on the melds it leaves); how many additions it
    found legal and refused there by playing them through their rule, and at how many moments
    the listing of `e` differs from playing every candidate."""
    rules = R(book)
    t = tables(rules)
    legal = refused = differ = 0
    for seed in (5, 23, 41, 59):
        for s in walk(rules, seed, 1500):
            sd = mover_side(s)
            if (
                s.step != PLAY
                or not sd.opened
                or s.answer == "yes"
                or s.held
                or len(s.hands[s.seat]) != 2
            ):
                continue
            slow = e._Moment(t, s, {}, quick=False).legal()
            adds = [a for a in _candidates(t, s) if type(a).__name__ == "AddToMeld"]
            ok = sum(a in slow for a in adds)
            legal += ok
            refused += len(adds) - ok
            differ += e._Moment(t, s, {}).legal() != slow
    return legal, refused, differ


def _candidates(t: Tables, s: State) -> list[Action]:
    """Every addition of a card of the mover's hand to a meld of the side that the meld
    clauses accept (`add_problem`): what is left to decide them is the going out."""
    from arbitro.model.rummy.actions import AddToMeld

    melds = mover_side(s).melds
    return [
        AddToMeld(s.seat, i, c)
        for i in range(len(melds))
        for c in sorted(set(s.hands[s.seat]))
        if melds_module.add_problem(t, melds[i], c) is None
    ]


@pytest.mark.parametrize("book", BOOKS)
def test_additions_leaving_one_card_agree_with_playing_them(book: str) -> None:
    """An addition that leaves an opened side's mover one card, decided by whether that card can
    go out on the melds the addition leaves (no state built, no refusal raised), is legal
    exactly when playing it through `melding.add` says so."""
    legal, _, differ = _last_card_adds(engine, book)
    assert legal > 0
    assert differ == 0


def test_additions_leaving_one_card_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: samba-en's random play meets additions of both verdicts,
    and a listing that asks whether the last card goes out on the side's melds as they were
    before the addition (not with the card added) refuses the additions that finish the
    canasta going out needs, which playing them accepts. (Broken in a copy of the engine module
    run from source, which a patch reaches.)"""
    copy = source_module("arbitro.model.rummy.engine")
    legal, refused, differ = _last_card_adds(copy, "samba-en")
    assert legal > 0
    assert refused > 0
    assert differ == 0
    real = copy.last_card_out

    def before(t: Tables, s: State, melds: tuple[Meld, ...], c: int) -> bool:
        return bool(real(t, s, mover_side(s).melds, c))

    monkeypatch.setattr(copy, "last_card_out", before)
    assert _last_card_adds(copy, "samba-en")[2] > 0


def _merges_and_cleanings(e: ModuleType, book: str) -> tuple[int, int, int]:
    """Over random play of `book`: how many merges and cleanings the listing of `e` offers,
    and at how many moments they are not, in order, every Merge of two melds of the side and
    every ReplaceWild of a natural of the hand for a wild of a meld that playing them through
    their rule accepts (the listing hands out actions it built before: each must be the one
    asked for)."""
    rules = R(book)
    t = tables(rules)
    merges = cleanings = differ = 0
    for seed in (3, 17):
        for s in walk(rules, seed, 700):
            if s.step != PLAY:
                continue
            kinds = ("Merge", "ReplaceWild")
            listed = [a for a in e._Moment(t, s, {}).legal() if type(a).__name__ in kinds]
            merges += sum(type(a).__name__ == "Merge" for a in listed)
            cleanings += sum(type(a).__name__ == "ReplaceWild" for a in listed)
            melds = mover_side(s).melds
            hand = sorted(set(s.hands[s.seat]))
            every: list[Action] = [
                Merge(s.seat, i, k) for i in range(len(melds)) for k in range(i + 1, len(melds))
            ]
            every += [
                ReplaceWild(s.seat, i, n, w)
                for i in range(len(melds))
                for n in hand
                if not is_wild(n)
                for w in sorted(set(melds[i].cards))
                if is_wild(w)
            ]
            differ += listed != [a for a in every if not _refused(t, s, a)]
    return merges, cleanings, differ


@pytest.mark.parametrize("book", BOOKS)
def test_merges_and_cleanings_listed_are_every_legal_one(book: str) -> None:
    """The merges and cleanings listed, each action built once and handed out again at its next
    offer, are every merge and cleaning the rules accept, in canonical order; random play
    offers merges where the book merges sets and cleanings where it cleans them."""
    merges, cleanings, differ = _merges_and_cleanings(engine, book)
    assert merges > 0 or not R(book).merge_sets
    assert cleanings > 0 or not R(book).clean_by_replacing_wilds
    assert differ == 0


def test_freed_lays_decided_by_the_meld_clauses() -> None:
    """`melding.lays_plainly` says what `melding.lay` says of a new meld holding the freed wild
    (a side that has opened, keeping cards): a set of a rank the side has no set of is laid; a
    set beside the side's set of its rank (*:several-sets-same-rank), black threes with a wild
    (*:black-three-meld-wilds) and a meld without the freed wild are refused; and it fails when
    it forgets the side's sets."""
    rules = R("canasta-es")
    t = tables(rules)
    wild = C("2H")[0]
    s = make_state(
        rules,
        hands={0: "3C 3S 5C 5D 9C KC KD QH"},
        melds={0: ("KH KS KS", "7C 7D 7H 2C")},
        step=FREED,
        freed=wild,
        freed_meld=1,
    )
    melds = mover_side(s).melds
    tried = {"5C 5D 2H": True, "KC KD 2H": False, "3C 3S 2H": False, "5C 5D 9C": False}
    for names, legal in tried.items():
        cards = C(names)
        try:
            engine.transition(t, s, LayMeld(0, cards))
            played = True
        except Refusal:
            played = False
        assert played == legal, names
        assert melding.lays_plainly(t, cards, melds, wild) == legal, names
    assert melding.lays_plainly(t, C("KC KD 2H"), (), wild)


def _cleanings(e: ModuleType, book: str) -> tuple[int, int]:
    """Over random play of `book`: at how many states the listing has a cleaning to play
    through its steps (no other meld of the side takes the freed wild, or the moment is not
    plain), and at how many the listing of `e` differs from playing every candidate through
    `melding.replace_wild`."""
    rules = R(book)
    t = tables(rules)
    seen = differ = 0
    for seed in (3, 17, 29):
        for s in walk(rules, seed, 700):
            if s.step != PLAY:
                continue
            reached: dict[Action, State] = {}
            quick = e._Moment(t, s, reached).legal()
            cleanings = [a for a in reached if type(a).__name__ == "ReplaceWild"]
            seen += bool(cleanings)
            differ += quick != e._Moment(t, s, {}, quick=False).legal()
            for a in cleanings:
                # the state kept for `apply` is the one the rule reaches
                try:
                    differ += reached[a] != engine.transition(t, s, a)
                except Refusal:
                    differ += 1
    return seen, differ


def test_cleanings_played_by_their_steps_agree_with_the_rule() -> None:
    """canasta-es cleans sets (*:clean-by-replacing-wilds): a cleaning the listing plays by the
    steps of `melding.replace_wild` (`cleaned`, then `placeable`, a new meld of the freed wild
    decided by `lays_plainly`) is listed, and reaches the state, as the rule played whole."""
    seen, differ = _cleanings(engine, "canasta-es")
    assert seen > 0
    assert differ == 0


def test_cleanings_played_by_their_steps_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a `placeable` that finds a place for every freed wild
    lists cleanings the rule refuses. (Broken in a copy of the engine module run from source,
    which a patch reaches.)"""
    copy = source_module("arbitro.model.rummy.engine")
    assert _cleanings(copy, "canasta-es")[1] == 0
    monkeypatch.setattr(copy, "placeable", lambda t, s: True)
    assert _cleanings(copy, "canasta-es")[1] > 0


def _cleaned_runs(m: ModuleType) -> tuple[int, int]:
    """Over random play of canasta-es, every cleaning of a set of the mover's side by a natural
    in hand: how many, and at how many `cleaned` of module `m` differs from the state built from
    its definition (the set's wild swapped for the natural, the side's melds sorted, the freed
    wild's meld the first one equal to the cleaned set)."""
    rules = R("canasta-es")
    t = tables(rules)
    runs = differ = 0
    for seed in (3, 17):
        for s in walk(rules, seed, 700):
            if s.step != PLAY:
                continue
            hand = s.hands[s.seat]
            melds = mover_side(s).melds
            for i, meld in enumerate(melds):
                wilds = distinct(c for c in meld.cards if is_wild(c))
                for n in distinct(c for c in hand if c >> 2 == meld.key and not is_wild(c)):
                    for w in wilds:
                        rest = list(meld.cards)
                        rest.remove(w)
                        done = Meld(SET, meld.key, tuple(sorted((*rest, n))))
                        ordered = tuple(sorted((*melds[:i], done, *melds[i + 1 :])))
                        k = s.seat % s.sides
                        sd = s.table[k]
                        table = list(s.table)
                        table[k] = sd._replace(melds=ordered)
                        hands = list(s.hands)
                        left = list(hand)
                        left.remove(n)
                        hands[s.seat] = tuple(left)
                        want = replaced(
                            s,
                            hands=tuple(hands),
                            table=tuple(table),
                            step=FREED,
                            melded=True,
                            freed=w,
                            freed_meld=ordered.index(done),
                        )
                        runs += 1
                        differ += m.cleaned(t, s, ReplaceWild(s.seat, i, n, w)) != want
    return runs, differ


def test_cleaned_is_the_cleaning_by_its_definition() -> None:
    """`melding.cleaned`, which swaps the wild for the natural in one walk of the set's cards and
    lets the set keep its place among the side's melds where it still sorts there, reaches the
    state built from the definition of a cleaning."""
    runs, differ = _cleaned_runs(melding)
    assert runs > 0
    assert differ == 0


def test_cleaned_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a swap that puts the natural after every card of the set
    (a set holding a joker, the highest card, is left unsorted). (Broken in a copy of the
    melding module run from source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    assert _cleaned_runs(copy)[1] == 0

    def last(cards: tuple[int, ...], wild: int, natural: int) -> tuple[int, ...]:
        rest = list(cards)
        rest.remove(wild)
        return (*rest, natural)

    monkeypatch.setattr(copy, "_swapped", last)
    assert _cleaned_runs(copy)[1] > 0


def _settle_runs(m: ModuleType, book: str) -> tuple[Counter[bool], int]:
    """Over random play of `book`, every state met and the same with the mover's hand cut to
    its first cards (none, one, two): how often `settled` of module `m` says `melding.settle`
    lets the state stand, and at how many it differs from `settle` played (refusing or not)."""
    rules = R(book)
    t = tables(rules)
    seen: Counter[bool] = Counter()
    differ = 0
    for s in walk(rules, 7, 400):
        if s.step != PLAY:
            continue
        hand = s.hands[s.seat]
        for h in (hand, *(hand[:k] for k in range(min(len(hand), 3)))):
            s2 = replaced(s, hands=put(s.hands, s.seat, h))
            try:
                melding.settle(t, s2)
                want = True
            except Refusal:
                want = False
            got = m.settled(t, s2)
            seen[got] += 1
            differ += got != want
    return seen, differ


@pytest.mark.parametrize("book", BOOKS)
def test_settled_agrees_with_settle(book: str) -> None:
    """`melding.settled`, the verdict of `settle` without a refusal raised, is what playing
    `settle` says, on states with hands of every size down to none."""
    seen, differ = _settle_runs(melding, book)
    assert seen[True] > 0 and seen[False] > 0, seen
    assert differ == 0


def test_settled_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a `settled` that forgets the last card must be able to go
    out (`one_card_ok` says yes to every state). (Broken in a copy of the melding module run
    from source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    assert _settle_runs(copy, "canasta-es")[1] == 0
    monkeypatch.setattr(copy, "one_card_ok", lambda t, s: True)
    assert _settle_runs(copy, "canasta-es")[1] > 0


def test_placeable_plain_set_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """`_places` below can fail on the new set looked for among the hand's ranks: one that
    forgets the side's sets lays the wild beside a set of its rank (*:several-sets-same-rank).
    (Broken in a copy of the melding module run from source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    plain_set = copy._plain_set
    monkeypatch.setattr(
        copy, "_plain_set", lambda t, hand, melds, freed: plain_set(t, hand, (), freed)
    )
    assert _places(copy)[1] > 0


def _places(m: ModuleType) -> tuple[Counter[str], int]:
    """Over random play of canasta-es (the one book that cleans sets), every cleaning of a set
    of the mover's side by a natural in hand (`melding.cleaned`, whether or not the wild can be
    placed): where trying every place (`freed_options`) through its rule first finds one
    ("add", "lay keeping two", "lay keeping one", "lay going out") or finds none (`_place_of`),
    the cleaned state also tried with the hand cut to its first cards, and how often
    `placeable` of module `m` differs from it."""
    rules = R("canasta-es")
    t = tables(rules)
    seen: Counter[str] = Counter()
    differ = 0
    for seed in (3, 17):
        for s in walk(rules, seed, 700):
            if s.step != PLAY:
                continue
            hand = s.hands[s.seat]
            for i, meld in enumerate(mover_side(s).melds):
                wilds = distinct(c for c in meld.cards if is_wild(c))
                for n in distinct(c for c in hand if c >> 2 == meld.key and not is_wild(c)):
                    for w in wilds:
                        try:
                            s2 = melding.cleaned(t, s, ReplaceWild(s.seat, i, n, w))
                        except Refusal:
                            continue
                        # and the same with the hand cut to its first cards: hands too small
                        # for a new meld, and new melds that go out or keep one card
                        left = s2.hands[s2.seat]
                        cut = [left[:k] for k in range(min(len(left), 5))]
                        for h in (left, *cut):
                            s3 = replaced(s2, hands=put(s2.hands, s2.seat, h))
                            how = _place_of(t, s3)
                            seen[how] += 1
                            differ += m.placeable(t, s3) == how.startswith("none")
    # and a side whose canastas let it go out, the freed wild's one place a new meld that keeps
    # one card (completed sets take no card, *:completed-set-growth): a clean canasta made
    # before the turn lets that card go out (*:go-out-wait-after-clean), else none
    wild = C("2H")[0]
    # (a pair of queens too: a set of the side's rank, refused, *:several-sets-same-rank)
    for names in ("5C 5D 9H", "5C 9H", "5C 5D", "5C 5D 9H 9D", "5C 5D 5H", "QC QD 5C 9H JD"):
        for start in (0, 1):
            s3 = make_state(
                rules,
                hands={0: names},
                melds={0: ("KH KS KS KD KC KC KH", "QH QS QD QC 2C 2D JK", "8C 8D 8H 8S")},
                step=FREED,
                freed=wild,
                freed_meld=0,
                clean_start=start,
            )
            how = _place_of(t, s3)
            seen[how] += 1
            differ += m.placeable(t, s3) == how.startswith("none")
    # and one card kept after the wild joins a set: it goes out by the discard when the side
    # had its clean canasta at the turn's start
    for start in (0, 1):
        s3 = make_state(
            rules,
            hands={0: "9H"},
            melds={0: ("KH KS KS KD KC KC KH", "QH QS QD QC 2C 2D JK", "8C 8D 8H 8S", "5C 5D 5H")},
            step=FREED,
            freed=wild,
            freed_meld=0,
            clean_start=start,
        )
        how = _place_of(t, s3)
        seen[f"{how} of one card kept"] += 1
        differ += m.placeable(t, s3) == how.startswith("none")
    return seen, differ


def _place_of(t: Tables, s: State) -> str:
    """Where trying every place of the freed wild (`freed_options`) through its rule first finds
    one, or "none" ("none of a hand too small for a new meld": fewer than set_min cards with
    the wild)."""
    kept = len(s.hands[s.seat]) + len(s.held)
    for b in melding.freed_options(t, s):
        try:
            engine.transition(t, s, b)
        except Refusal:
            continue
        if type(b) is LayMeld:
            left = kept + 1 - len(b.cards)
            return ("lay going out", "lay keeping one")[left] if left < 2 else "lay keeping two"
        return "add"
    return "none of a small hand" if len(s.hands[s.seat]) + 1 < t.set_min else "none"


def test_placeable_agrees_with_trying_every_place() -> None:
    """`melding.placeable`, which decides an addition or a new meld of the freed wild that
    keeps two cards by the meld clauses (`add_problem`, `lays_plainly`), an addition that
    keeps one card by whether that card can go out (`last_card_out`), and a hand too small for
    a new meld without asking for the candidates, says what trying every place of the wild
    through its rule says."""
    seen, differ = _places(melding)
    kinds = ("add", "lay keeping two", "lay keeping one", "none", "add of one card kept")
    assert all(seen[k] > 0 for k in (*kinds, "none of a small hand")), seen
    assert differ == 0


def test_placeable_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a `lays_plainly` that refuses every new meld misses the
    freed wilds whose only place is a new meld. (Broken in a copy of the melding module run
    from source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    assert _places(copy)[1] == 0
    monkeypatch.setattr(copy, "lays_plainly", lambda t, cards, melds, freed: False)
    assert _places(copy)[1] > 0


def test_placeable_small_hand_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """It fails too when the hand and the wild are taken for too few cards for a new meld where
    they are enough: a test asking for the two cards a plain lay keeps besides its set_min
    misses the new meld that keeps one card. (Broken in a copy of the melding module run from
    source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    monkeypatch.setattr(copy, "_too_few", lambda t, n: n < t.set_min + 2)
    assert _places(copy)[1] > 0


def test_placeable_last_card_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """It fails too when the clean canastas a side must have had at the turn's start are asked
    one too many (*:go-out-wait-after-clean): the addition that keeps the one card that goes out
    is missed. (Broken in a copy of the melding module run from source.)"""
    copy = source_module("arbitro.model.rummy.melding")
    monkeypatch.setattr(
        copy,
        "_never_out",
        lambda t, s: t.go_out_wait_after_clean and s.clean_start <= t.go_out_min_clean,
    )
    assert _places(copy)[1] > 0


def test_pile_combos_are_the_distinct_sub_multisets() -> None:
    """`pile._combos` (the cards a new set from the pile shows), with its shortcuts for all the
    cards, one card and two, gives the distinct sub-multisets of every size of small multisets,
    sorted, as `itertools.combinations` through a set does."""
    from itertools import combinations, combinations_with_replacement

    from arbitro.model.rummy import pile

    seen = 0
    for n in range(6):
        for cards in combinations_with_replacement((8, 9, 11, 52), n):
            for k in range(n + 1):
                want = tuple(sorted(set(combinations(cards, k))))
                assert pile._combos(cards, k) == want, (cards, k)
                seen += 1
    # the multisets of n cards of four kinds number C(n + 3, 3): 1, 4, 10, 20, 35, 56 for
    # n = 0..5, each with n + 1 sizes of sub-multiset
    assert seen == 1 * 1 + 4 * 2 + 10 * 3 + 20 * 4 + 35 * 5 + 56 * 6


@pytest.mark.parametrize("book", BOOKS)
def test_random_step_draws_legal_actions(book: str) -> None:
    """random_step returns a legal action and the state apply gives for it."""
    rules = R(book)
    rng = random.Random(5)
    for s in walk(rules, 4, 150):
        step = random_step(rules, s, rng)
        assert step is not None
        a, nxt = step
        assert a in RUMMY.legal_actions(rules, s)
        assert nxt == RUMMY.apply(rules, s, a)


def test_random_step_is_uniform() -> None:
    """Every legal action comes out, about equally often (here 6 legal actions, 6,000 draws)."""
    rules = R("samba-en")
    s = make_state(rules, hands={0: "KH KS KD 4C 9D"}, melds={0: ("QC QD QH",)})
    legal = RUMMY.legal_actions(rules, s)
    rng = random.Random(1)
    n = 1000 * len(legal)
    counts: Counter[Action] = Counter()
    for _ in range(n):
        step = random_step(rules, s, rng)
        assert step is not None
        counts[step[0]] += 1
    assert set(counts) == set(legal)
    assert all(800 < c < 1200 for c in counts.values()), counts


def _exhaustive_can_go_out(rules: RummyRules, s: State) -> bool:
    t = tables(rules)
    sd = mover_side(s)
    hand = s.hands[s.seat]
    mode = "forbidden" if s.no_discard else rules.go_out_discard
    ds: list[int | None] = []
    if mode != "required":
        ds.append(None)
    if mode != "forbidden":
        ds.extend(distinct(hand))
    cur = opening_points(t, s) if not sd.opened else 0
    minimum = s.minimums[s.seat % s.sides]
    for d in ds:
        cards = hand if d is None else remove(hand, (d,))
        short = cur + sum(t.points[c] for c in cards) < minimum
        if not sd.opened and not rules.opening_concealed_exempt and short:
            continue
        if places_all(t, cards, sd.melds, need(t, s)):
            return True
    return False


@pytest.mark.parametrize("book", BOOKS)
def test_going_out_pre_tests_lose_nothing(book: str) -> None:
    """can_go_out (with its cheap necessary conditions) equals trying every discard."""
    rules = R(book)
    t = tables(rules)
    seen = 0
    for s in walk(rules, 9, 500):
        if s.step != "play" or s.held or s.answer == "no":
            continue
        got = can_go_out(t, s)
        assert got == _exhaustive_can_go_out(rules, s), s
        seen += got
    assert seen >= 0


def _going_out_runs(go: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the play steps met in random play of `book` and small random part-hands of their
    hands (where going out is often possible and the exhaustive search is cheap): how many
    times `go.can_go_out` says yes and no, and how many of its answers differ from trying every
    discard (`_exhaustive_can_go_out`)."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(43)
    yes = no = differ = 0
    states = [s for seed in range(51, 55) for s in walk(rules, seed, 3000)]
    for s in states:
        if s.step != PLAY or s.held or s.answer == "no" or not s.hands[s.seat]:
            continue
        hand = s.hands[s.seat]
        for _ in range(2):
            h = tuple(sorted(rng.sample(hand, rng.randint(1, min(5, len(hand))))))
            hands = tuple(h if i == s.seat else x for i, x in enumerate(s.hands))
            s_h = replaced(s, hands=hands)
            got = go.can_go_out(t, s_h)
            yes += got
            no += not got
            differ += got != _exhaustive_can_go_out(rules, s_h)
    return yes, no, differ


def test_going_out_on_part_hands_agrees_with_the_search() -> None:
    """`can_go_out` (its screens, `lost_cards_by` on the side's `SideView` fields first, then
    the `SideFacts` counts, `_added_out` and the search) equals trying every discard on small
    part-hands met in random play of every book, where it often says yes."""
    for book in BOOKS:
        yes, no, differ = _going_out_runs(going_out_module, book)
        assert yes > 50 and no > 50, (book, yes, no)
        assert differ == 0, book


def test_going_out_on_part_hands_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: `can_go_out` asking `lost_cards_by` without the side's
    escaleras (here no position of them held) finds homeless cards an escalera of the side
    takes. (Broken in a copy of the module run from source.)"""
    go = source_module("arbitro.model.rummy.going_out")
    real = go.lost_cards_by

    def blind(
        t: Tables, cards: tuple[int, ...], takes: int, seq_bits: int, freeable: int, spare: bool
    ) -> list[int] | None:
        got: list[int] | None = real(t, cards, takes, 0, freeable, spare)
        return got

    monkeypatch.setattr(go, "lost_cards_by", blind)
    assert _going_out_runs(go, "samba-fr")[2] > 0


def test_going_out_shortcut_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a going-out shortcut that loses the wild cards (here the
    new melds of `going_out._added_out` taking every card) says a player goes out who cannot.
    The side's clean canasta of fives is finished (samba-es grows it by naturals only), so the
    two can go nowhere and the nine must be the discard: two cards left over. (Broken in a copy
    of the module run from source, which a patch reaches.)"""
    going_out = source_module("arbitro.model.rummy.going_out")
    rules = R("samba-es")
    t = tables(rules)
    s = make_state(rules, hands={0: "2C 9D"}, melds={0: ("5C 5C 5D 5D 5H 5H 5S",)})
    assert not going_out.can_go_out(t, s)
    assert not _exhaustive_can_go_out(rules, s)
    monkeypatch.setattr(going_out, "_lay_naturals", lambda t, todo, ms, *rest: todo.clear())
    assert going_out.can_go_out(t, s) != _exhaustive_can_go_out(rules, s)


def test_going_out_with_a_set_started_by_wilds_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison of `test_going_out_pre_tests_lose_nothing` can fail on the new sets of
    wilds `_added_out` lays: one that forgets *:several-sets-same-rank (here the side's ranks
    not seen) starts a second set of queens beside the side's finished one. Canasta-es: the
    clean canasta of queens has grown by its one natural, the two queens and the two make a
    set the book refuses, so the nine cannot be the last card (three packs, for the ten
    queens). (Broken in a copy of the module run from source.)"""
    going_out = source_module("arbitro.model.rummy.going_out")
    rules = R("canasta-es")
    t = tables(rules)
    s = make_state(
        rules,
        layout="three-pairs",
        hands={0: "QD QS 2C 9H"},
        melds={0: ("QC QC QD QH QH QS QS", "KC KD KH KS KS KH 2D")},
        clean_start=1,
    )
    queens, kings = s.table[0].melds
    grown = Meld(SET, queens.key, C("QC QC QC QD QH QH QS QS"))
    s = replaced(s, table=(s.table[0]._replace(melds=(grown, kings)), *s.table[1:]))
    assert not going_out.can_go_out(t, s)
    assert not _exhaustive_can_go_out(rules, s)
    real = going_out._lay_with_wilds

    def blind(t: Tables, todo: list[int], wild: list[int], ms: list[Any]) -> None:
        others = [m for m in ms if m.kind != SET]
        n = len(others)
        real(t, todo, wild, others)
        ms.extend(others[n:])

    monkeypatch.setattr(going_out, "_lay_with_wilds", blind)
    assert going_out.can_go_out(t, s) != _exhaustive_can_go_out(rules, s)


def _runs_first(go: ModuleType, book: str) -> tuple[int, int, int, int]:
    """Over the play steps of an opened side met in random play of `book`, and random
    part-hands of their hands: how many times `go._added_out` tries its second pass (the
    escaleras laid before the sets: `_contested` says a natural may go to either, and the
    sets-first pass failed), how many times that pass says the player goes out, how many
    of those the exhaustive search (`_exhaustive_can_go_out`: `places_all` for every discard)
    contradicts, and at how many hands the screen `_contested` skips the pass would it have
    said the player goes out."""
    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(37)
    tried = found = differ = missed = 0
    states = [s for seed in range(41, 49) for s in walk(rules, seed, 3000)]
    for s in states:
        sd = mover_side(s)
        if s.step != PLAY or not sd.opened or s.held or s.answer == "no":
            continue
        hand = s.hands[s.seat]
        f = side_facts(t, sd.melds)
        nd = need(t, s)
        mode = "forbidden" if s.no_discard else rules.go_out_discard
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(4) if hand
        ]
        for h in hands:
            lost = lost_cards(t, h, f, mode != "forbidden")
            if lost is None or len(lost) > 1:
                continue
            if go._added_out_by(t, h, sd.melds, nd, mode, lost, False):
                continue
            if not go._contested(t, h):
                # the screen: both orders lay the same melds, the second pass adds nothing
                missed += go._added_out_by(t, h, sd.melds, nd, mode, lost, True)
                continue
            tried += 1
            if go._added_out_by(t, h, sd.melds, nd, mode, lost, True):
                found += 1
                hands_h = tuple(h if i == s.seat else x for i, x in enumerate(s.hands))
                differ += not _exhaustive_can_go_out(rules, replaced(s, hands=hands_h))
    return tried, found, differ, missed


def test_going_out_with_escaleras_first_agrees_with_the_search() -> None:
    """The second pass of `going_out._added_out` (new escaleras laid before new sets, where a
    natural could go to either) says a player goes out only where the exhaustive search finds
    a way, in every book; in the books with escaleras it settles hands the sets-first pass
    does not."""
    found = 0
    for book in BOOKS:
        tried, got, differ, missed = _runs_first(going_out_module, book)
        assert differ == 0 and missed == 0, (book, differ, missed)
        if R(book).sequences:
            assert tried > 50, (book, tried)
        else:
            assert tried == 0, book
        found += got
    assert found > 10, found


def test_going_out_with_escaleras_first_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: an escaleras-first pass that takes the naturals from the
    hand without laying them (here every natural dropped) says a player goes out who cannot,
    and a screen `_contested` that says no where a natural could go to either kind of meld
    skips hands the pass settles. (Broken in a copy of the module run from source.)"""
    go = source_module("arbitro.model.rummy.going_out")
    real = go._lay_naturals

    def dropped(t: Tables, todo: list[int], ms: list[Any], runs_first: bool = False) -> None:
        if runs_first:
            todo[:] = [c for c in todo if is_wild(c)]
        else:
            real(t, todo, ms)

    with monkeypatch.context() as m:
        m.setattr(go, "_lay_naturals", dropped)
        assert _runs_first(go, "samba-fr")[2] > 0
    # a screen that skips the pass where it settles hands (here always) misses them
    monkeypatch.setattr(go, "_contested", lambda t, hand: False)
    assert _runs_first(go, "samba-fr")[3] > 0


def _homeless_runs(go: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the play steps met in random play of `book`, and random part-hands of their hands:
    how many times `go.two_homeless` says yes and no, and how many of its answers differ from
    `arrange.lost_cards` listing two cards or more (with the side's `SideFacts` worked out
    whole, and a fresh `SideView`)."""
    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(31)
    yes = no = differ = 0
    for s in walk(rules, 13, 600):
        if s.step != PLAY:
            continue
        melds = mover_side(s).melds
        f = side_facts(t, melds)
        hand = s.hands[s.seat]
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(3) if hand
        ]
        for h in hands:
            lost = lost_cards(t, h, f, spare=True)
            want = lost is not None and len(lost) > 1
            got = go.two_homeless(t, h, SideView(melds))
            yes += got
            no += not got
            differ += got != want
    return yes, no, differ


@pytest.mark.parametrize("book", BOOKS)
def test_two_homeless_agrees_with_lost_cards(book: str) -> None:
    """The listing's screen for asking to go out (`going_out.two_homeless`) says two cards have
    no home exactly when `arrange.lost_cards` lists two or more, and the side's fields it reads
    (`SideView.homes`) are those of `arrange.side_facts`."""
    yes, no, differ = _homeless_runs(going_out_module, book)
    assert yes > 20 and no > 20, (yes, no)
    assert differ == 0
    rules = R(book)
    t = tables_module._build(rules)
    for s in walk(rules, 14, 300):
        melds = mover_side(s).melds
        f = side_facts(t, melds)
        view = SideView(melds)
        view.homes(t)
        assert view.takes == f.takes
        assert (view.seq_bits, view.freeable) == (f.seq_bits, f.freeable)


def test_two_homeless_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a screen that forgets the escaleras a card could join
    (here no position covered) finds homeless cards that `lost_cards` places. (Broken in a copy
    of the module run from source.)"""
    go = source_module("arbitro.model.rummy.going_out")
    monkeypatch.setattr(go, "run_cover", lambda bits, n_run, reach: 0)
    assert _homeless_runs(go, "samba-es")[2] > 0


@pytest.mark.parametrize("book", BOOKS)
def test_asking_listed_agrees_with_can_go_out(book: str) -> None:
    """The listing's test for `AskPartner` (`can_go_out_listed`) equals `can_go_out`, on both
    answers."""
    rules = R(book)
    t = tables(rules)
    seen: Counter[bool] = Counter()
    for s in walk(rules, 15, 800):
        if s.step != PLAY or s.held or s.asked or s.melded or len(s.hands[s.seat]) < 2:
            continue
        got = can_go_out_listed(t, s)
        assert got == can_go_out(t, s), s
        seen[got] += 1
    assert seen[False] > 20, seen


def _refused(t: Tables, s: State, a: Action) -> bool:
    try:
        engine.transition(t, s, a)
    except (Refusal, MalformedInput):
        return True
    return False


@pytest.mark.parametrize("book", BOOKS)
def test_pile_candidates_leave_out_only_refused_takes(book: str) -> None:
    """Every TakePile the transition accepts is a candidate: tried against every sub-multiset of
    up to three hand cards for a new set or escalera and every meld for an addition."""
    from itertools import combinations

    from arbitro.model.rummy.actions import TakePile

    rules = R(book)
    t = tables(rules)
    tried = 0
    for s in walk(rules, 21, 400):
        if s.step != "draw" or not s.pile:
            continue
        listed = {TakePile(s.seat, *f) for f in candidate_fields(t, s)}
        hand = s.hands[s.seat]
        everything: set[TakePile] = {
            TakePile(s.seat, "add", i, ()) for i in range(len(mover_side(s).melds))
        }
        for k in (1, 2, 3):
            for combo in set(combinations(hand, k)):
                everything.add(TakePile(s.seat, "set", -1, combo))
                if k == 2:
                    everything.add(TakePile(s.seat, "escalera", -1, combo))
        for a in everything - listed:
            assert _refused(t, s, a), (a, s)
        tried += 1
    assert tried > 20


@pytest.mark.parametrize("book", BOOKS)
def test_addition_candidates_leave_out_only_refused_additions(book: str) -> None:
    """Every AddToMeld the transition accepts in a play step is a candidate (`melds.takes` reads
    a meld's verdict off one card of each class)."""
    from arbitro.model.rummy.actions import AddToMeld

    merging = book in ("samba-es", "canasta-es")  # also list merges where the book allows them
    rules = R(book, merge_sets="merge") if merging else R(book)
    t = tables(rules)
    tried = 0
    for s in walk(rules, 22, 500):
        if s.step != "play" or not mover_side(s).melds:
            continue
        listed = {a for a in RUMMY.legal_actions(rules, s) if isinstance(a, AddToMeld)}
        for i in range(len(mover_side(s).melds)):
            for c in distinct(s.hands[s.seat]):
                a = AddToMeld(s.seat, i, c)
                if a not in listed:
                    assert _refused(t, s, a), (a, s)
        tried += 1
    assert tried > 20


@pytest.mark.parametrize("book", BOOKS)
def test_lay_candidates_miss_no_meld(book: str) -> None:
    """Every sub-multiset of a hand of a new meld's size that forms a set, an escalera or a wild
    meld (`classify`; one set per rank where *:several-sets-same-rank says so) is a candidate
    lay, and no candidate is listed twice or with its cards out of order."""
    from itertools import combinations

    from arbitro.model.rummy.laying import lay_candidates
    from arbitro.model.rummy.melds import SEQ, SET, WILDS, Meld, classify

    rules = R(book)
    t = tables(rules)
    # a new meld is laid at its kind's minimum size (`actions.LayMeld`)
    size = {SET: t.set_lay, SEQ: rules.sequence_min, WILDS: rules.wild_meld_min_start}
    seen = 0
    for s in walk(rules, 23, 300)[::5]:
        hand = s.hands[s.seat]
        melds = mover_side(s).melds
        got = lay_candidates(t, hand, melds)
        assert len(set(got)) == len(got)
        assert all(list(c) == sorted(c) for c in got)
        have = {m.key for m in melds if m.kind == SET}
        for k in set(size.values()):
            for cards in set(combinations(hand, k)):
                m = classify(t, cards)
                if not isinstance(m, Meld) or size.get(m.kind) != k:
                    continue
                if m.kind == SET and not rules.several_sets_same_rank and m.key in have:
                    continue
                assert cards in got, (cards, hand)
                seen += 1
    assert seen > 10


AT_MOST_NATURALS: Final = {"wilds_at_most_naturals": "at-most-naturals"}
"""A reading of samba-en whose new sets of one natural and two wilds `classify` refuses (the
four books' own readings refuse none of the new sets `laying` lists)."""


def _plainly_meld(t: Tables, cards: tuple[int, ...]) -> int:
    """1 when `classify` makes a set or an escalera of `cards`, else 0: the mark of their code
    in `laying.lay_codes`, worked out by the rule."""
    from arbitro.model.rummy.melds import SEQ, classify

    got = classify(t, cards)
    return int(isinstance(got, Meld) and got.kind in (SET, SEQ))


def _lay_code_runs(m: ModuleType, book: str, **options: str) -> tuple[int, int]:
    """Over the hands met in random play of `book` (under `options`) and random part-hands of
    them: how many candidates `m.lay_codes` lists, and at how many hands its codes, read back
    into cards, are not `laying.lay_candidates` in the same order, or do not sort as those
    cards do, or are marked where `classify` makes no set or escalera of them, or the other
    way round."""
    from arbitro.model.rummy.laying import lay_candidates

    rules = R(book, **options)
    t = tables_module._build(rules)
    rng = random.Random(43)
    listed = differ = 0
    for s in walk(rules, 19, 500):
        hand = s.hands[s.seat]
        melds = mover_side(s).melds
        set_ranks = frozenset(x.key for x in melds if x.kind == SET)
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(2) if hand
        ]
        for h in hands:
            want = lay_candidates(t, h, melds)
            got = m.lay_codes(t, h, m.shape(t, h), set_ranks)
            assert got is not None  # no candidate of these books holds more than 5 cards
            listed += len(got)
            # a marked code is twice the card code, plus the mark
            read = [m.code_cards(c >> 1) for c in got]
            differ += read != want or [m.code_cards(c >> 1) for c in sorted(got)] != sorted(want)
            differ += [c & 1 for c in got] != [_plainly_meld(t, c) for c in want]
    return listed, differ


@pytest.mark.parametrize("book", BOOKS)
def test_lay_codes_are_the_lay_candidates(book: str) -> None:
    """The listing's candidate melds as codes (`laying.lay_codes`: the new sets of a rank read
    off a template kept for its counts alone, each candidate an int that sorts as its cards
    do) are `lay_candidates`, in the same order, and sort as their cards do."""
    from arbitro.model.rummy import laying

    listed, differ = _lay_code_runs(laying, book)
    assert listed > 100, listed
    assert differ == 0


def test_lay_codes_mark_the_sets_classify_refuses() -> None:
    """The same under a reading whose new sets of one natural and two wilds `classify` refuses
    (*:wilds-at-most-naturals): those sets are listed unmarked, the others marked."""
    from arbitro.model.rummy import laying

    listed, differ = _lay_code_runs(laying, "samba-en", **AT_MOST_NATURALS)
    assert listed > 100, listed
    assert differ == 0
    t = tables_module._build(R("samba-en", **AT_MOST_NATURALS))
    # the reading's own refusal, asked of the rule: a set of one natural and two wilds
    assert _plainly_meld(t, C("2C 2D KH")) == 0
    assert _plainly_meld(t, C("2C KH KS")) == 1


def test_lay_code_marks_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: every new set with wilds marked, whatever the Tables'
    limits on its counts (`_plain_sets` blind to the wild limits), marks sets `classify`
    refuses. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    monkeypatch.setattr(copy, "_plain_sets", lambda t: (1 << t.set_lay + 1) - 1)
    assert _lay_code_runs(copy, "samba-en", **AT_MOST_NATURALS)[1] > 0


def test_lay_codes_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the naturals of a rank's new sets kept under a key blind
    to the fewest naturals a new set holds (a rank's sets taken from a hand with other wilds)
    list sets of too few naturals, or miss some. (Broken in a copy of the module run from
    source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    right = copy._group_rest
    monkeypatch.setattr(copy, "_group_rest", lambda lay, lo: right(lay, 1))
    assert _lay_code_runs(copy, "samba-en")[1] > 0


def test_lay_codes_are_checked_with_wilds(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the wilds that fill a set read for the first count of
    naturals a hand needs and kept for every count (`_wild_parts` asked once per hand) list
    sets of too many or too few cards. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    right = copy._wild_parts
    first: dict[int, Any] = {}
    monkeypatch.setattr(
        copy, "_wild_parts", lambda sh, w, n: first.setdefault(id(sh), right(sh, w, n))
    )
    assert _lay_code_runs(copy, "samba-en")[1] > 0


def test_lay_codes_are_checked_with_twos(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the naturals of a set with twos put in the first slots,
    as in a set without wilds (`_wild_parts` giving the weight of slot n - 1, the twos before
    them forgotten), make codes of other cards. (Broken in a copy of the module run from
    source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    right = copy._wild_parts
    monkeypatch.setattr(
        copy, "_wild_parts", lambda sh, w, n: [(p, copy._SLOT[n - 1]) for p, _ in right(sh, w, n)]
    )
    assert _lay_code_runs(copy, "samba-en")[1] > 0


def _coded_lay_runs(e: ModuleType, ref: ModuleType, book: str, **options: str) -> tuple[int, int]:
    """Over the play steps of random play of `book` (under `options`): how many new melds the
    listing of `e` offers, and at how many steps its legal actions differ from those of `ref`,
    an engine whose candidate melds are the cards' tuples (`laying.lay_candidates`, sorted,
    each action found by its tuple, none marked), as the listing has them when a candidate has
    no code."""
    rules = R(book, **options)
    t = tables(rules)
    offered = differ = 0
    for s in walk(rules, 37, 600):
        if s.step != PLAY:
            continue
        got = e._Moment(t, s, {}).legal()
        offered += sum(type(a) is LayMeld for a in got)
        differ += got != ref._Moment(t, s, {}).legal()
    return offered, differ


@pytest.mark.parametrize("book", [*BOOKS, "samba-en at-most-naturals"])
def test_coded_lays_are_the_tuple_lays(
    book: str, monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The listing's new melds from the candidates' marked codes (`laying.lay_codes`, sorted as
    ints, each code's LayMeld the seat's, `engine._lays_coded`, a marked one listed by an
    opened side keeping two cards without reading its cards) are those from the candidates'
    tuples, each read, in the same order, and so is every other action listed; also under a
    reading whose new sets of one natural and two wilds `classify` refuses."""
    ref = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(ref, "lay_codes", lambda t, pool, sh, set_ranks: None)
    options = AT_MOST_NATURALS if book.endswith("at-most-naturals") else {}
    offered, differ = _coded_lay_runs(engine, ref, book.split()[0], **options)
    assert offered > 50, offered
    assert differ == 0


def test_coded_lay_marks_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: every new set with wilds marked whatever the Tables'
    limits on its counts (`laying._plain_sets` blind to them) lists, under a reading whose new
    sets of one natural and two wilds `classify` refuses, sets that `melding.lay_meld` refuses.
    (Broken in copies of both modules run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    monkeypatch.setattr(copy, "_plain_sets", lambda t: (1 << t.set_lay + 1) - 1)
    broken = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(broken, "lay_codes", copy.lay_codes)
    ref = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(ref, "lay_codes", lambda t, pool, sh, set_ranks: None)
    assert _coded_lay_runs(broken, ref, "samba-en", **AT_MOST_NATURALS)[1] > 0


def test_coded_lays_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the actions of one seat's codes kept for every seat
    (`_lays_coded` blind to the seat) offer the player to move another's melds. (Broken in a
    copy of the engine module run from source, which a patch reaches.)"""
    broken = source_module("arbitro.model.rummy.engine")
    right = broken._lays_coded
    monkeypatch.setattr(broken, "_lays_coded", lambda seat, codes: right(0, codes))
    ref = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(ref, "lay_codes", lambda t, pool, sh, set_ranks: None)
    assert _coded_lay_runs(broken, ref, "samba-en")[1] > 0


def _card_code_runs(m: ModuleType) -> tuple[int, int]:
    """Over random sorted tuples of one to `m.CODE_SLOTS` cards (copies and the joker included)
    and the extreme ones: how many tuples, and how many ways `m.card_code` fails them: a code
    not read back (`m.code_cards`) into its tuple, two tuples of one code, codes that do not
    order as their tuples do, a code of more than one 30-bit digit."""
    rng = random.Random(47)
    tuples = {
        tuple(sorted(rng.choices(range(53), k=rng.randint(1, m.CODE_SLOTS)))) for _ in range(3000)
    }
    tuples |= {(52,) * k for k in range(1, m.CODE_SLOTS + 1)} | {(0,) * k for k in range(1, 6)}
    cards = sorted(tuples)
    codes = [m.card_code(c) for c in cards]
    differ = sum(m.code_cards(k) != c for k, c in zip(codes, cards, strict=True))
    differ += len(set(codes)) != len(codes)
    differ += codes != sorted(codes)
    differ += max(codes) >= 1 << 30
    return len(cards), differ


def test_card_codes_order_as_their_cards() -> None:
    """A candidate's code (`laying.card_code`, base 55 digits) reads back into its cards and
    orders as its cards do, a tuple before the longer ones it starts."""
    from arbitro.model.rummy import laying

    n, differ = _card_code_runs(laying)
    assert n > 2000, n
    assert differ == 0


def test_card_codes_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: digits of base 53, one too few for a slot holding the
    joker (52 + 1) or nothing, carry into the slot before. (Broken in a copy of the module run
    from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    monkeypatch.setattr(copy, "CODE_BASE", 53)
    assert _card_code_runs(copy)[1] > 0


def test_lay_codes_leave_long_melds_to_lay_candidates() -> None:
    """A candidate of more than `laying.CODE_SLOTS` cards (a black-three meld of six) has no
    code: `lay_codes` says so (None), and the listing falls back on `lay_candidates`, which
    lists it (the legal actions then hold it)."""
    from arbitro.model.rummy.laying import CODE_SLOTS, lay_candidates, lay_codes, shape

    rules = R("canasta-es")
    t = tables(rules)
    hand = (4, 4, 4, 7, 7, 7, 30)
    got = lay_candidates(t, hand, ())
    assert any(len(c) > CODE_SLOTS for c in got), got
    assert lay_codes(t, hand, shape(t, hand), frozenset()) is None


def _naturals_runs(m: ModuleType, book: str) -> tuple[int, int]:
    """Over the hands met in random play of `book` and every rank: how many ranks had a natural
    held, and at how many the naturals read off the hand's bits (`Shape.naturals` and the
    listing's `NATURALS[rank << 4 | nats >> 4 * rank & 15]`) are not the distinct naturals of
    that rank in the hand."""
    rules = R(book)
    t = tables_module._build(rules)
    held = differ = 0
    for s in walk(rules, 29, 300):
        hand = s.hands[s.seat]
        sh = m.shape(t, hand)
        for rank in range(13):
            want = tuple(sorted({c for c in hand if c >> 2 == rank and 8 <= c < 52}))
            held += bool(want)
            bits = m.NATURALS[rank << 4 | sh.nats >> (rank << 2) & 15]
            differ += sh.naturals(rank) != want or bits != want
    return held, differ


@pytest.mark.parametrize("book", BOOKS)
def test_naturals_read_off_bits_are_the_hands(book: str) -> None:
    """The naturals of a rank that the listing reads off a hand's shape (one bit per natural
    held, `Shape.nats`) are the hand's own."""
    from arbitro.model.rummy import laying

    held, differ = _naturals_runs(laying, book)
    assert held > 100, held
    assert differ == 0


def test_naturals_read_off_bits_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: bits set one card too high (each natural read as the
    next suit's) give other naturals. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    right = copy._shape

    def broken(t: Tables, pool: tuple[int, ...]) -> Any:
        sh = right(t, pool)
        sh.nats = sh.nats << 1
        return sh

    monkeypatch.setattr(copy, "_shape", broken)
    assert _naturals_runs(copy, "samba-es")[1] > 0


def _entry_put_last(e: ModuleType) -> Callable[..., Any]:
    """`e._slots_inserted` broken: the laid meld's addition entry put after the others'."""
    right = e._slots_inserted

    def broken(t: Tables, melds: tuple[Any, ...], i: int, last: Any) -> Any:
        got = right(t, melds, i, last)
        adds = list(got[0])
        adds.append(adds.pop(i))
        return (tuple(adds), *got[1:])

    return broken


def _slot_runs(e: ModuleType, book: str, steps: int = 600) -> tuple[int, int, int, int]:
    """Over the moments met in random play of `book`, in order: how many times a side's melds
    differ from its melds at its last moment in one meld of the same kind and key, how many
    times they are those melds with one more, and how many times in several melds of the same
    kind and key (a cleaning and the freed wild placed: in each case `e._slots` works from the
    last answer), and how many answers of `e._slots` differ from `e._slots_whole`'s (with
    tables of their own: no answer remembered from elsewhere)."""
    rules = R(book)
    t = tables_module._build(rules)
    last: dict[int, tuple[Any, ...]] = {}
    grown = inserted = several = differ = 0
    for s in walk(rules, 5, steps):
        if s.step != PLAY:
            continue
        side = s.seat % s.sides
        melds = s.table[side].melds
        was = last.get(side)
        if was is not None and was is not melds and len(was) == len(melds):
            moved = [k for k in range(len(melds)) if was[k] is not melds[k]]
            alike = all(was[k][:2] == melds[k][:2] for k in moved)
            grown += len(moved) == 1 and alike
            several += len(moved) > 1 and alike
        if was is not None and len(was) + 1 == len(melds):
            kept = [m for m in melds if any(m is w for w in was)]
            inserted += len(kept) == len(was)
        last[side] = melds
        differ += e._slots(t, melds, side) != e._slots_whole(t, melds)
    return grown, inserted, several, differ


@pytest.mark.parametrize("book", BOOKS)
def test_slots_carried_over_agree_with_slots_worked_out_whole(book: str) -> None:
    """A side's slots (additions, merges, cleanings) worked out from its last moment's, where one
    meld has grown or one meld has been laid, are those worked out meld by meld."""
    grown, inserted, several, differ = _slot_runs(engine, book)
    assert grown > 0 and inserted > 0
    assert several > 0 or not R(book).clean_by_replacing_wilds
    assert differ == 0


def test_slots_carried_over_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: slots carried over unchanged when a meld grows (a set
    grown to a canasta still offered to a wild it can no longer take, say) differ from the
    slots worked out whole. (Broken in a copy of the engine module run from source.)"""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "_slots_after", lambda t, melds, i, last: last)
    grown, _, _, differ = _slot_runs(copy, "samba-es")
    assert grown > 0
    assert differ > 0


def test_slots_after_a_lay_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """Likewise when a meld is laid: the new meld's entry put after the others, the entries of
    the melds after it left one place early (an addition offered to the meld before the one it
    was worked out for), differ from the slots worked out whole."""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "_slots_inserted", _entry_put_last(copy))
    _, inserted, _, differ = _slot_runs(copy, "samba-es")
    assert inserted > 0
    assert differ > 0


def test_slots_after_several_changes_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """Likewise when several melds changed (a set cleaned, the wild it freed added to another
    meld): slots carried over with only the first changed meld worked out again differ from
    the slots worked out whole."""
    copy = source_module("arbitro.model.rummy.engine")
    right = copy._slots_carried

    def first_only(t: Tables, was: tuple[Any, ...], melds: tuple[Any, ...], last: Any) -> Any:
        moved = [k for k in range(len(was)) if len(was) == len(melds) and was[k] is not melds[k]]
        if len(moved) < 2:
            return right(t, was, melds, last)
        return copy._slots_after(t, melds, moved[0], last.slots)

    assert _slot_runs(copy, "canasta-es")[3] == 0
    monkeypatch.setattr(copy, "_slots_carried", first_only)
    _, _, several, differ = _slot_runs(copy, "canasta-es")
    assert several > 0
    assert differ > 0


def _entry_runs(e: ModuleType, book: str) -> tuple[int, int, int, int]:
    """Over the moments met in random play of `book`: how many melds the mover's side has, how
    many of them are sets holding a wild, at how many moments the addition entries of
    `e._slots` (one per meld, in order) are not what `melds.takes` says of each meld (with
    tables of their own), and for how many such sets `e._clean_entry` does not give the set's
    rank and its distinct wilds in order (`cards.distinct` of its wild cards)."""
    from arbitro.model.rummy.melds import takes

    rules = R(book)
    t = tables_module._build(rules)
    fresh = tables_module._build(rules)
    melds_seen = wild_sets = differ = clean_differ = 0
    for s in walk(rules, 21, 600):
        if s.step != PLAY:
            continue
        side = s.seat % s.sides
        melds = s.table[side].melds
        melds_seen += len(melds)
        differ += e._slots(t, melds, side)[0] != tuple(takes(fresh, m) for m in melds)
        for m in melds:
            wilds = tuple(distinct(c for c in m.cards if is_wild(c)))
            if m.kind == SET and wilds:
                wild_sets += 1
                clean_differ += e._clean_entry(m)[1:] != (m.key, wilds)
    return melds_seen, wild_sets, differ, clean_differ


@pytest.mark.parametrize("book", BOOKS)
def test_slot_entries_are_what_each_meld_takes(book: str) -> None:
    """The addition entries of a side's slots, carried from listing to listing (a meld grown,
    a meld laid in its sorted place), are what `takes` says of each meld in order; a set's
    cleaning entry holds its distinct wilds, twos first and the joker last."""
    melds_seen, wild_sets, differ, clean_differ = _entry_runs(engine, book)
    assert melds_seen > 100 and wild_sets > 10, (melds_seen, wild_sets)
    assert differ == 0
    assert clean_differ == 0


def test_slot_entries_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparisons above can fail: a laid meld's entry put after the others whatever its
    place among the sorted melds, and a cleaning entry that leaves out the joker. (Broken in a
    copy of the engine module run from source.)"""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "_slots_inserted", _entry_put_last(copy))
    monkeypatch.setattr(
        copy, "_clean_entry", lambda m: (-1, m.key, tuple(distinct(c for c in m.cards if c < 4)))
    )
    assert _entry_runs(copy, "samba-es")[2] > 0
    assert _entry_runs(copy, "canasta-es")[3] > 0


def _sort_runs(table_module: ModuleType) -> tuple[int, int]:
    """Meld lists sorted by `table_module.sort_melds` and by `sorted`: the sides' melds met in
    random play of every book, shuffled, with copies of some melds (equal values, other objects)
    and melds of one kind and key with other cards. How many lists, and how many of them the two
    sort into other orders of the objects (`is`, not `==`: equal melds keep their order)."""
    from arbitro.model.rummy.melds import Meld

    rng = random.Random(41)
    lists = differ = 0
    for book in BOOKS:
        for s in walk(R(book), 17, 300)[::3]:
            for sd in s.table:
                ms = list(sd.melds)
                for m in list(ms):
                    if rng.random() < 0.3:
                        ms.append(Meld(m.kind, m.key, tuple(m.cards)))
                    if rng.random() < 0.3 and len(m.cards) > 1:
                        ms.append(Meld(m.kind, m.key, m.cards[1:]))
                rng.shuffle(ms)
                want = tuple(sorted(ms))
                got = table_module.sort_melds(ms)
                lists += 1
                differ += len(got) != len(want) or any(
                    a is not b for a, b in zip(got, want, strict=False)
                )
    return lists, differ


def test_sort_melds_is_sorted() -> None:
    """`table.sort_melds` orders the objects as `sorted` does."""
    from arbitro.model.rummy import table as table_module

    lists, differ = _sort_runs(table_module)
    assert lists > 100
    assert differ == 0


def test_sort_melds_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a sort that reads kind and key alone (melds of one set's
    rank left in any order) differs from `sorted`. (Broken in a copy of the module.)"""
    copy = source_module("arbitro.model.rummy.table")
    monkeypatch.setattr(copy, "_before", lambda a, b: (a[0], a[1]) < (b[0], b[1]))
    assert _sort_runs(copy)[1] > 0


def _placed_melds(m: ModuleType) -> tuple[int, int, int]:
    """Over random play of every book, the mover's side's melds with one grown by a card
    (each meld, cards of its rank and a wild, or of its suit for an escalera) and with one
    meld added (each meld of either side): how many tables `m.with_meld_grown` and
    `m.with_meld_added` built, how many of the grown ones had to move the meld (the sorted
    order is not the replacement in place), and how many differ from `table.with_melds`
    sorting the melds whole."""
    from arbitro.model.rummy import table as table_module
    from arbitro.model.rummy.melds import Meld

    built = moved = differ = 0
    for book in BOOKS:
        rules = R(book)
        for s in walk(rules, 23, 300):
            if s.phase != "play":
                continue
            melds = mover_side(s).melds
            for i, x in enumerate(melds):
                for c in (x.cards[0], x.cards[-1], 0, 52):
                    grown = Meld(x.kind, x.key, tuple(sorted((*x.cards, c))))
                    new = list(melds)
                    new[i] = grown
                    want = table_module.with_melds(s, new)
                    built += 1
                    moved += want[s.seat % s.sides].melds != tuple(new)
                    differ += m.with_meld_grown(s, i, grown) != want
            for side in s.table:
                for x in side.melds:
                    built += 1
                    differ += m.with_meld_added(s, x) != table_module.with_melds(s, (*melds, x))
    return built, moved, differ


def test_melds_placed_without_sorting_agree_with_sorting() -> None:
    """`table.with_meld_grown` (a meld grown by a card, kept in place when it still sorts
    between its neighbours) and `table.with_meld_added` (a new meld put where the sort would
    put it), which build the table after an addition and a lay, give the table `with_melds`
    gives by sorting the melds whole."""
    from arbitro.model.rummy import table as table_module

    built, moved, differ = _placed_melds(table_module)
    assert built > 1000 and moved > 0, (built, moved)
    assert differ == 0


def test_melds_placed_without_sorting_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a grown meld always left in place, a new meld always put
    last, and melds tuples built at their size from positions read one place off, differ from
    the sorted melds. (Broken in a copy of the table module.)"""
    copy = source_module("arbitro.model.rummy.table")
    assert _placed_melds(copy)[2] == 0
    with monkeypatch.context() as m:
        m.setattr(copy, "sort_melds", tuple)
        assert _placed_melds(copy)[2] > 0
    with monkeypatch.context() as m:
        m.setattr(copy, "_before", lambda a, b: False)
        assert _placed_melds(copy)[2] > 0
    with monkeypatch.context() as m:
        shifted = tuple(tuple(min(k + 1, n - 1) for k in range(n)) for n in range(copy.SPAN))
        m.setattr(copy, "POSITIONS", shifted)
        assert _placed_melds(copy)[2] > 0


def test_put_replaces_one_item() -> None:
    """`table.put` (the builder of the hands and the table with one replaced) gives the tuple
    with that item replaced, for every size and index."""
    from arbitro.model.rummy.table import put

    for n in range(1, 8):
        items = tuple(f"item{k}" for k in range(n))
        for i in range(n):
            want = tuple("new" if k == i else items[k] for k in range(n))
            got = put(items, i, "new")
            assert got == want and type(got) is tuple, (n, i)


def _draw_runs(stock_module: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the draw steps met in random play of `book`: how many draws `stock_module.draw`
    played, how many of them met a red three, and in how many its state differs from the slow
    path's, `stock.draw_cards` (the draw card by card, red threes laid out and replaced, each
    step a state of its own), then play on and the dead-end test."""
    from arbitro.model.rummy.actions import Draw
    from arbitro.model.rummy.cards import is_red_three
    from arbitro.model.rummy.going_out import dead_end
    from arbitro.model.rummy.refusal import STRICT
    from arbitro.model.rummy.stock import draw_cards, draw_count, exhausted

    rules = R(book)
    t = tables(rules)
    draws = reds = differ = 0
    for s in walk(rules, 23, 700):
        if s.step != DRAW or exhausted(t, s):
            continue
        n = draw_count(t, s)
        got = stock_module.draw(t, s, Draw(s.seat, n), STRICT)
        slow, stop = draw_cards(rules, s, s.seat, n)
        want = dead_end(t, replaced(slow, step=PLAY, no_discard=stop), False)
        draws += 1
        reds += any(is_red_three(c) for c in s.stock[:n])
        differ += got != want
    return draws, reds, differ


@pytest.mark.parametrize("book", BOOKS)
def test_draw_agrees_with_drawing_card_by_card(book: str) -> None:
    """A draw with no red three puts the cards in the hand by insertion (`cards.inserted_top`),
    not by sorting, and a draw that meets a red three builds its state once: either state is
    the one drawing card by card gives."""
    draws, reds, differ = _draw_runs(stock_module, book)
    assert draws > 50 and reds > 0, (draws, reds)
    assert differ == 0


def test_draw_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: an insertion that keeps only the first card drawn (a
    two-card draw of samba loses one) differs from drawing card by card. (Broken in a copy of
    the module run from source.)"""
    copy = source_module("arbitro.model.rummy.stock")
    monkeypatch.setattr(
        copy, "inserted_top", lambda cards, source, n: inserted_top(cards, source, min(n, 1))
    )
    assert _draw_runs(copy, "samba-es")[2] > 0


def test_draw_of_a_red_three_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """Likewise for a draw that meets a red three: its state built without the red three laid
    out on the side's row differs from drawing card by card."""
    copy = source_module("arbitro.model.rummy.stock")
    monkeypatch.setattr(copy, "with_reds", lambda table, side, cards: table)
    _, reds, differ = _draw_runs(copy, "canasta-es")
    assert reds > 0 and differ > 0


def _owed_runs(turn_module: ModuleType, book: str) -> tuple[int, int]:
    """Over the states met in random play of `book` where a seat is owed replacements for red
    threes dealt: how many times `turn_module.begin_turn` handed that seat the turn, and in how
    many its state differs from the slow path's (the owed count cleared by `replaced`, then
    `stock.draw_cards`, then `replaced` again when the last red three stops play, then the
    stock-out check)."""
    from arbitro.model.rummy.pile import can_take
    from arbitro.model.rummy.scoring import end_hand
    from arbitro.model.rummy.stock import draw_cards, exhausted
    from arbitro.model.rummy.table import clean_count

    rules = R(book)
    t = tables(rules)
    runs = differ = 0
    for s in walk(rules, 31, 900):
        for seat, owed in enumerate(s.owed):
            if not owed:
                continue
            got = turn_module.begin_turn(t, s, seat)
            side = seat % s.sides
            slow = next_turn(s, seat, s.hands, s.pile, clean_count(t, s.table[side].melds, side))
            slow = replaced(slow, owed=tuple(0 if k == seat else n for k, n in enumerate(s.owed)))
            slow, stop = draw_cards(rules, slow, seat, owed)
            if stop:
                slow = replaced(slow, step=PLAY, no_discard=True)
            elif exhausted(t, slow) and t.stock_out != "hand_ends" and not can_take(t, slow):
                slow = end_hand(t, slow, "stock-out", -1)
            runs += 1
            differ += got != slow
    return runs, differ


@pytest.mark.parametrize("book", BOOKS)
def test_owed_replacements_agree_with_drawing_card_by_card(book: str) -> None:
    """The replacements a seat is owed for red threes dealt, drawn as its turn begins, build
    the state once: it is the one the slow path's steps give. (A book that replaces them at the
    deal owes none.)"""
    runs, differ = _owed_runs(turn_module, book)
    assert runs > 0 or R(book).red_three_initial_replacement == "at_deal"
    assert differ == 0


def test_owed_replacements_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the state built once without the owed count cleared (the
    seat would draw its replacements again) differs from the slow path's. (Broken in a copy of
    the module run from source.)"""
    copy = source_module("arbitro.model.rummy.turn")

    def keeps_owed(state: State, **changes: Any) -> State:
        return replaced(state, **{k: v for k, v in changes.items() if k != "owed"})

    monkeypatch.setattr(copy, "replaced", keeps_owed)
    runs, differ = _owed_runs(copy, "samba-es")
    assert runs > 0 and differ > 0


def _insertion_runs(cards_module: ModuleType) -> tuple[int, int]:
    """Hands and cards drawn at random from a two-pack deck (repeated cards, wilds, the joker):
    how many insertions by `cards_module.inserted` and `cards_module.inserted_top` (the first
    cards of a tuple), and how many give other than the sorted multiset of the hand and those
    cards, or other than a plain tuple."""
    rng = random.Random(7)
    deck = [c for c in range(53) for _ in range(2)]
    runs = differ = 0
    for _ in range(2000):
        hand = tuple(sorted(rng.sample(deck, rng.randint(0, 15))))
        extra = tuple(rng.sample(deck, rng.randint(0, 3)))
        got = cards_module.inserted(hand, extra)
        differ += got != tuple(sorted((*hand, *extra))) or type(got) is not tuple
        top = tuple(rng.sample(deck, rng.randint(0, 5)))
        n = rng.randint(0, len(top))
        got = cards_module.inserted_top(hand, top, n)
        differ += got != tuple(sorted((*hand, *top[:n]))) or type(got) is not tuple
        runs += 2
    return runs, differ


def test_inserted_is_sorted() -> None:
    """`cards.inserted` (and `cards.inserted_top`, the first cards of a tuple) gives the sorted
    multiset of a sorted hand and a few cards: one or two cards put in place in a tuple built
    at its size, more by a list and its inserts."""
    runs, differ = _insertion_runs(cards_module)
    assert runs == 4000 and differ == 0


def test_inserted_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the positions of a tuple built at its size read from the
    wrong place (the table of positions shifted by one) give another hand, for one card and for
    two. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.cards")
    shifted = tuple(tuple(min(k + 1, n - 1) for k in range(n)) for n in range(copy.SPAN))
    monkeypatch.setattr(copy, "POSITIONS", shifted)
    assert _insertion_runs(copy)[1] > 0
    monkeypatch.setattr(copy, "inserted", cards_module.inserted)
    assert _insertion_runs(copy)[1] > 0  # the draws' insertions alone


class _Card(int):
    """A card number that is not of type int: the deal checks an order of them by the slow path
    (`int(c)` of each card, then the sort)."""


def _deal_runs(deal: Callable[[RummyRules, State, list[int]], State]) -> int:
    """Deck orders of every book's deck, shuffled and then broken in one of the ways an order
    can be wrong (a card replaced by another, or by one out of range, a card dropped or added
    twice) or left whole: at how many `deal` of the order as ints (the fast test of the order,
    sorting the ints) ends otherwise (another state, or refused or not) than `deal` of the same
    order as `_Card`s (each card converted by `int`, as any sequence of numbers is)."""
    rng = random.Random(43)
    differ = 0
    for book in BOOKS:
        rules = R(book)
        seating = RUMMY.seatings(rules)[0]
        deck = RUMMY.deck(rules, seating)
        s = RUMMY.new_game(rules, seating)
        for _ in range(100):
            order = list(deck)
            rng.shuffle(order)
            how = rng.randrange(6)
            i = rng.randrange(len(order))
            if how == 1:
                order[i] = rng.randrange(53)
            elif how == 2:
                order[i] = rng.choice((-1, 53, 99))
            elif how == 3:
                order.pop(i)
            elif how == 4:
                order.append(order[i])
            elif how == 5:
                order[i] = order[(i + 1) % len(order)]
            got: object
            want: object
            try:
                got = deal(rules, s, order)
            except MalformedInput:
                got = "refused"
            try:
                want = deal(rules, s, [_Card(c) for c in order])
            except MalformedInput:
                want = "refused"
            differ += got != want
    return differ


def test_deal_checks_an_order_of_ints_as_any_order() -> None:
    """The deal's test of an order of ints (sorted as it is, `int(c)` being the card itself)
    accepts and refuses the orders the test of any sequence of numbers does, with the same
    deal; a deal of an order with a card that is no number is refused."""
    assert _deal_runs(RUMMY.deal) == 0
    rules = R("samba-es")
    seating = RUMMY.seatings(rules)[0]
    order = list(RUMMY.deck(rules, seating))
    random.Random(3).shuffle(order)
    s = RUMMY.new_game(rules, seating)
    assert RUMMY.deal(rules, s, tuple(order)) == RUMMY.deal(rules, s, order)
    with pytest.raises(MalformedInput, match="permutation"):
        RUMMY.deal(rules, s, [*order[:-1], order[0]])
    with pytest.raises(MalformedInput, match="sequence of card numbers"):
        RUMMY.deal(rules, s, [*order[:-1], "x"])


def test_deal_builder_agrees_with_replaced() -> None:
    """The state after a deal, built field by field (`dealing._dealt`), is what `replaced`
    gives, on states of random play."""
    from arbitro.model.rummy.dealing import _dealt

    for s in walk(R("samba-es"), 9, 40):
        got = _dealt(s, ((1,), (2,)), (3,), (4,), (), (50, 90), (0, 1), 1)
        assert got == replaced(
            s,
            phase="play",
            hands=((1,), (2,)),
            stock=(3,),
            pile=(4,),
            table=(),
            minimums=(50, 90),
            owed=(0, 1),
            pile_taken=False,
            seat=1,
            step=DRAW,
            **TURN_START,
        )


def test_hand_end_builder_agrees_with_replace() -> None:
    """The state after a hand's end, built field by field (`scoring.after_hand`), is what the
    state's `_replace` gives, on states of random play."""
    from arbitro.model.rummy.scoring import after_hand, score_hand

    rules = R("samba-es")
    t = tables(rules)
    for s in walk(rules, 9, 40):
        res = score_hand(t, s, "stock-out", -1)
        assert after_hand(s, "over", 3, (10, 20), res) == s._replace(
            phase="over", hand_no=s.hand_no + 1, dealer=3, scores=(10, 20), result=res, step=""
        )


def _join_runs(pile_module: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the sets on the table in random play of `book`, each with a top card of its rank
    and one to three cards (of its rank, twos, the joker, a card of another rank): how many
    times `pile_module.join_ok` says yes and no, and how many of its answers differ from
    `pile.join_set` (the cards joined one by one through `melds.add_problem`)."""
    from arbitro.model.rummy.pile import join_set

    rules = R(book)
    t = tables(rules)
    rng = random.Random(29)
    yes = no = differ = 0
    for s in walk(rules, 19, 500)[::2]:
        for sd in s.table:
            for m in sd.melds:
                if m.kind != SET:
                    continue
                rank = m.key
                other = (rank + 1 if rank < 12 else rank - 1) * 4
                pool = [rank * 4 + u for u in range(4)] + [0, 1, 2, 3, 52, other]
                for _ in range(4):
                    top = rank * 4 + rng.randrange(4)
                    cards = tuple(sorted(rng.choices(pool, k=rng.randint(1, 3))))
                    got = pile_module.join_ok(t, m, top, cards)
                    want = not isinstance(join_set(t, m, top, cards), str)
                    yes += got
                    no += not got
                    differ += got != want
    return yes, no, differ


@pytest.mark.parametrize("book", BOOKS)
def test_pile_join_ok_agrees_with_join_set(book: str) -> None:
    """The listing's test whether cards shown join the side's set (`pile.join_ok`, on counts)
    agrees with joining them one by one (`pile.join_set`)."""
    yes, no, differ = _join_runs(pile_module, book)
    assert yes > 20 and no > 20, (yes, no)
    assert differ == 0


def test_pile_join_ok_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a test blind to the wild limits of a set (here none
    refuses) lets a wild join where `add_problem` refuses it. (Broken in a copy of the module
    run from source.)"""
    copy = source_module("arbitro.model.rummy.pile")
    monkeypatch.setattr(copy, "set_shape_problem", lambda t, n, w: None)
    assert _join_runs(copy, "samba-es")[2] > 0


def _pile_add_runs(pile: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the pile takes listed in random play of `book`: how many put the top card onto a
    meld of the side, how many of the piles taken held a red three under the top card, and in
    how many takes `pile.take` gives a state other than the slow path's: the grown meld's
    cards sorted whole with the top card, and the red threes of the pile's rest found by `in`
    (laid out on the side's row, out of the hand)."""
    from arbitro.model.rummy.cards import RED_THREES, is_red_three
    from arbitro.model.rummy.refusal import LISTED

    rules = R(book)
    t = tables(rules)
    adds = reds = differ = 0
    for s in walk(rules, 41, 700):
        if s.step != DRAW:
            continue
        takes = [a for a in RUMMY.legal_actions(rules, s) if isinstance(a, TakePile)]
        for a in takes:
            got = pile.take(t, s, a, LISTED)
            side = s.seat % s.sides
            top = s.pile[-1]
            rest = s.pile[:-1]
            red = RED_THREES[0] in rest or RED_THREES[1] in rest
            reds += red
            row = tuple(sorted((*s.table[side].red_threes, *(c for c in rest if is_red_three(c)))))
            differ += got.table[side].red_threes != row
            differ += any(is_red_three(c) for c in (*got.hands[s.seat], *got.held))
            if a[2] == "add":
                adds += 1
                m = s.table[side].melds[a[3]]
                want = tuple(sorted((*m.cards, top)))
                differ += not any(
                    x.kind == m.kind and x.key == m.key and x.cards == want
                    for x in got.table[side].melds
                )
    return adds, reds, differ


@pytest.mark.parametrize("book", BOOKS)
def test_pile_take_onto_a_meld_agrees_with_sorting(book: str) -> None:
    """A take that puts the top card onto a meld of the side puts it in its place among the
    meld's sorted cards (`cards.inserted`), and a pile's rest is searched for red threes by one
    loop (`pile._red_in`): the state is the one sorting and `in` give."""
    adds, _, differ = _pile_add_runs(pile_module, book)
    assert adds > 0
    assert differ == 0


def test_pile_take_onto_a_meld_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the top card left out of the grown meld differs from
    sorting it in. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.pile")
    monkeypatch.setattr(copy, "inserted", lambda cards, extra: cards)
    adds, _, differ = _pile_add_runs(copy, "samba-es")
    assert adds > 0 and differ > 0


def test_red_in_agrees_with_in() -> None:
    """`pile._red_in` says what `in` says of the two red threes, for random piles of a
    two-pack deck (and it can fail: a loop blind to the second red three differs)."""
    from arbitro.model.rummy.cards import RED_THREES

    rng = random.Random(11)
    deck = [c for c in range(53) for _ in range(2)]
    piles = [tuple(rng.sample(deck, rng.randint(0, 30))) for _ in range(3000)]
    want = [RED_THREES[0] in p or RED_THREES[1] in p for p in piles]
    assert any(want) and not all(want)
    assert [pile_module._red_in(p) for p in piles] == want

    def blind(cards: tuple[int, ...]) -> bool:
        return any(c == RED_THREES[0] for c in cards)

    assert [blind(p) for p in piles] != want


def _wild_fit_runs(e: ModuleType, book: str) -> tuple[int, int]:
    """Over the moments met in random play of `book`: how many melds a wild may join (`takes`),
    and at how many moments `e._wild_fits` of the side's slots says otherwise for some meld."""
    from arbitro.model.rummy.melds import takes

    rules = R(book)
    t = tables_module._build(rules)
    fit = differ = 0
    for s in walk(rules, 9, 600):
        if s.step != PLAY:
            continue
        side = s.seat % s.sides
        melds = s.table[side].melds
        want = [takes(t, m)[1] for m in melds]
        fit += sum(want)
        differ += e._wild_fits(e._slots(t, melds, side)[0], len(melds)) != want
    return fit, differ


@pytest.mark.parametrize("book", BOOKS)
def test_wild_fits_read_off_the_slots_agree_with_takes(book: str) -> None:
    """Which melds a freed wild may join, read off a side's addition slots for the cleaning
    fast path, is what `takes` says of each meld."""
    fit, differ = _wild_fit_runs(engine, book)
    assert fit > 0
    assert differ == 0


def test_wild_fits_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: reading whether a set takes naturals (the entry's rank)
    for whether it takes a wild. (Broken in a copy of the engine module run from source.)"""
    copy = source_module("arbitro.model.rummy.engine")

    def broken(adds: tuple[tuple[Any, ...], ...], n: int) -> list[bool]:
        return [entry[0] >= 0 for entry in adds]

    monkeypatch.setattr(copy, "_wild_fits", broken)
    fit, differ = _wild_fit_runs(copy, "canasta-es")
    assert fit > 0
    assert differ > 0


def _wild_set_runs(m: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the lay candidates of the hands met in random play of `book` and of random part-hands
    of them, and over random holdings of twos, naturals of one rank and jokers: how many sets
    `m.wild_set` accepts and refuses, and how many of its verdicts differ from `classify` (the
    set's rank, or -1 refused; -2 only for cards that are not such a set)."""
    from arbitro.model.rummy.laying import lay_candidates
    from arbitro.model.rummy.melds import classify

    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(41)
    ok = refused = differ = 0

    def check(cards: tuple[int, ...]) -> None:
        nonlocal ok, refused, differ
        got = m.wild_set(t, cards)
        nat = [c for c in cards if not is_wild(c)]
        if not (nat and nat[0] >= 8 and all(c >> 2 == nat[0] >> 2 for c in nat)):
            differ += got != -2
            return
        meld = classify(t, cards)
        want = -1 if isinstance(meld, str) else meld.key
        assert isinstance(meld, str) or meld.kind == SET
        ok += got >= 0
        refused += got == -1
        differ += got != want

    for s in walk(rules, 17, 600):
        if s.step != PLAY:
            continue
        hand = s.hands[s.seat]
        melds = mover_side(s).melds
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(2) if hand
        ]
        for h in hands:
            for cards in lay_candidates(t, h, melds):
                check(cards)
        for _ in range(4):
            rank = rng.randrange(2, 13)
            nats = [rank * 4 + rng.randrange(4) for _ in range(rng.randint(0, 7))]
            wilds = [rng.choice((0, 1, 2, 3, 52)) for _ in range(rng.randint(0, 4))]
            check(tuple(sorted(nats + wilds)))
    return ok, refused, differ


@pytest.mark.parametrize("book", BOOKS)
def test_wild_set_agrees_with_classify(book: str) -> None:
    """The listing's verdict on a new set with wilds (`melds.wild_set`, on its counts) is
    `classify`'s, and it leaves no such set to `classify`."""
    ok, refused, differ = _wild_set_runs(melds_module, book)
    assert ok > 20 and refused > 20, (ok, refused)
    assert differ == 0


def test_wild_set_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a verdict blind to the wild limits of a set (here none
    refuses) accepts sets that `classify` refuses. (Broken in a copy of the module run from
    source.)"""
    copy = source_module("arbitro.model.rummy.melds")
    monkeypatch.setattr(copy, "set_shape_problem", lambda t, n, w: None)
    assert _wild_set_runs(copy, "canasta-es")[2] > 0


def _without_runs(
    fn: Callable[[tuple[int, ...], tuple[int, ...]], tuple[int, ...]], book: str
) -> tuple[int, int]:
    """Over the hands met in random play of `book`, less their lay candidates and random sorted
    parts of them: how many times `fn` was asked, and how many of its answers differ from
    `cards.remove`."""
    from arbitro.model.rummy.laying import lay_candidates

    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(43)
    asked = differ = 0
    for s in walk(rules, 19, 400):
        if s.step != PLAY:
            continue
        hand = s.hands[s.seat]
        parts = lay_candidates(t, hand, mover_side(s).melds)
        parts += [tuple(sorted(rng.sample(hand, rng.randint(0, len(hand))))) for _ in range(3)]
        for part in parts:
            asked += 1
            differ += fn(hand, part) != remove(hand, part)
    return asked, differ


@pytest.mark.parametrize("book", BOOKS)
def test_without_agrees_with_remove(book: str) -> None:
    """The hand left by a lay or an addition in the listing (`cards.without`, one walk of two
    sorted tuples) is `cards.remove`'s; both refuse a card not held."""
    from arbitro.model.rummy.cards import without

    asked, differ = _without_runs(without, book)
    assert asked > 100
    assert differ == 0
    for cards, taken in (((8, 9), (10,)), ((8, 8), (8, 8, 8)), ((), (8,))):
        with pytest.raises(ValueError):
            remove(cards, taken)
        with pytest.raises(ValueError):
            without(cards, taken)


def test_without_is_checked() -> None:
    """The comparison above can fail: a walk that takes every copy of a card taken (a hand of
    several packs holds copies)."""

    def broken(cards: tuple[int, ...], taken: tuple[int, ...]) -> tuple[int, ...]:
        return tuple([c for c in cards if c not in taken])

    assert _without_runs(broken, "samba-es")[1] > 0


def _bound_runs(m: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the hands met in random play of `book` and random part-hands of them, against the
    mover's side, keeping 0, 1 or 2 cards: how many times `m.placed_bound` was asked, how many
    of its bounds are below what every card but the threes is worth (it settles something), and
    how many the exact search (`arrange._search_reaches`, which has no bound of its own) beats
    by placing more points than the bound."""
    from arbitro.model.rummy.arrange import _search_reaches

    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(47)
    asked = tighter = differ = 0
    for s in walk(rules, 23, 160):
        if s.step != PLAY:
            continue
        hand = s.hands[s.seat]
        melds = mover_side(s).melds
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(2) if hand
        ]
        for h in hands:
            loose = sum(t.points[c] for c in h if c >> 2 != 1)
            for keep in (0, 1, 2):
                bound = m.placed_bound(t, h, melds, keep)
                asked += 1
                tighter += bound < loose
                differ += _search_reaches(t, h, melds, bound + 1, keep)
    return asked, tighter, differ


@pytest.mark.parametrize("book", BOOKS)
def test_placed_bound_is_never_beaten_by_the_search(book: str) -> None:
    """The bound that settles searches of the opening's reach without them (`placed_bound`,
    which counts a wild freed by cleaning only for a natural of its set's rank in hand) is never
    below the most points the exact search places."""
    from arbitro.model.rummy import arrange

    asked, tighter, differ = _bound_runs(arrange, book)
    assert asked > 300 and tighter > 50, (asked, tighter)
    assert differ == 0


def test_placed_bound_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a bound that forgets the wilds cleaning frees (here every
    set of the side counted as holding none) is beaten where a cleaning's wild starts a set.
    (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.arrange")
    monkeypatch.setattr(copy, "wild_count", lambda cards: 0)
    assert _bound_runs(copy, "canasta-es")[2] > 0


def test_pile_new_sets_decided_on_counts_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The pile takes of an opened side starting a new set are decided on the set's counts
    (`melds.wild_set`, `classify`'s verdict); `_pile_takes` compares the listing with playing
    every take, and that comparison fails for a verdict that refuses every such set. (Broken
    in a copy of the engine module run from source.)"""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "wild_set", lambda t, cards: -1)
    assert _pile_takes(copy, "samba-en")[2] > 0


def _overflow_runs(m: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the hands met in random play of `book`, random part-hands of them and their part
    of one rank or two with their wild cards (which the side's melds often place whole),
    against the mover's side: how many hands `m.overflow` was asked of (those `lost_cards` lets
    through),
    how many it finds naturals no set could take in, and how many of its findings the exact
    search (`places_all` with no requirement to meet) contradicts: with the cards `lost_cards`
    lists, one card that cannot be placed rules out melding every card, two rule out keeping
    one over."""
    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(53)
    nothing = Need(0, 0, 0, False, 0)
    asked = found = differ = 0
    for s in walk(rules, 29, 300):
        if s.step != PLAY:
            continue
        hand = s.hands[s.seat]
        melds = mover_side(s).melds
        f = side_facts(t, melds)
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(3) if hand
        ]
        ranks = sorted({c >> 2 for c in hand if not is_wild(c)})
        for k in ranks:
            other = rng.choice(ranks)
            hands.append(tuple(c for c in hand if is_wild(c) or c >> 2 == k))
            hands.append(tuple(c for c in hand if is_wild(c) or c >> 2 in (k, other)))
        for h in hands:
            lost = lost_cards(t, h, f, spare=True)
            if lost is None:
                continue
            asked += 1
            over = m.overflow(t, h, melds, f)
            found += over > 0
            n = len(lost) + over
            if n >= 1 and places_all(t, h, melds, nothing):
                differ += 1
            if n >= 2 and places_all(t, h, melds, nothing, spare="upto1"):
                differ += 1
    return asked, found, differ


@pytest.mark.parametrize("book", BOOKS)
def test_overflow_agrees_with_placing_every_card(book: str) -> None:
    """The count of naturals the sets of their rank cannot all take (`arrange.overflow`, which
    `can_go_out` adds to the cards `lost_cards` lists before any search) never says fewer cards
    can be placed than the exact search places; where a completed set does not grow (samba-en)
    it finds such naturals often."""
    from arbitro.model.rummy import arrange

    asked, found, differ = _overflow_runs(arrange, book)
    assert asked > 300, asked
    if R(book).completed_set_growth == "none":
        assert found > 20, found
    assert differ == 0


def test_overflow_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a count blind to what the side's sets can still take
    (here no room in any of them) finds naturals with no home that a set takes. (Broken in a
    copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.arrange")
    monkeypatch.setattr(copy, "_natural_room", lambda sr, n0, w0: 0)
    assert _overflow_runs(copy, "samba-en")[2] > 0


def _escalera_bounds(m: ModuleType, book: str) -> tuple[int, int, int]:
    """Over the hands met in random play of `book` and random part-hands of them (with
    naturals that extend the side's unfinished escaleras, or a run of one suit), against the
    mover's side: at how many hands the exact search completes an escalera, at how many the
    bound on the escaleras completed (`m._seq_completions`, read by `arrange.by_cards`) is
    below the naturals of each suit pooled (the bound it replaced), and at how many it is below
    what the exact search reaches: the most escaleras some option of `arrange.suit_options`
    completes per suit (the options `places_all` walks), less those the side has completed."""
    rules = R(book)
    t = tables_module._build(rules)
    rng = random.Random(61)
    comp = t.completed
    rank_pts = tuple(t.points[k * 4] for k in range(13))
    runs = tighter = below = 0
    for s in walk(rules, 17, 1500):
        if s.step != PLAY:
            continue
        melds = mover_side(s).melds
        f = m.side_facts(t, melds)
        tb = m.table_of(t, melds)
        hand = s.hands[s.seat]
        hands = [hand] + [
            tuple(sorted(rng.sample(hand, rng.randint(1, len(hand))))) for _ in range(3) if hand
        ]
        # escaleras are seldom completed in random play: part-hands with naturals that extend
        # an unfinished escalera of the side at either end, and with a run of one suit (some
        # positions held twice)
        npos = len(t.seq_rank)
        for suit in range(4):
            for lo, hi in tb.seqs[suit]:
                if hi - lo + 1 < comp:
                    below_lo = range(lo - rng.randint(0, lo), lo)
                    above_hi = range(hi + 1, hi + 1 + rng.randint(0, npos - 1 - hi))
                    ext = [t.seq_rank[p] * 4 + suit for p in (*below_lo, *above_hi)]
                    part = rng.sample(hand, rng.randint(0, len(hand)))
                    hands.append(tuple(sorted(part + ext)))
        suit = rng.randrange(4)
        start = rng.randrange(npos - comp + 2)
        run = [t.seq_rank[p] * 4 + suit for p in range(start, min(npos, start + comp + 2))]
        run += [c for c in run if rng.random() < 0.4]
        hands.append(tuple(sorted(rng.sample(hand, rng.randint(0, len(hand))) + run)))
        for h in hands:
            sh = shape(t, h)
            got = m._seq_completions(t, sh.bits, sh.counts, f.open_seqs)
            sp = m.split(t, h)
            most = pooled = 0
            for suit in range(4):
                bases = tb.seqs[suit]
                moves = m._suit_moves(
                    sp.seq[suit], bases, t.sequence_min, t.sequence_max, comp, t.seq_rank, rank_pts
                )
                finished = sum(hi - lo + 1 >= comp for lo, hi in bases)
                most += max(move[1] for move in moves) - finished
                open_cards = sum(hi - lo + 1 for lo, hi in bases if hi - lo + 1 < comp)
                pooled += (sum(sp.seq[suit]) + open_cards) // comp
            runs += most > 0
            tighter += got < pooled
            below += got < most
    return runs, tighter, below


@pytest.mark.parametrize("book", SAMBAS)
def test_escalera_bound_holds_what_the_search_completes(book: str) -> None:
    """The bound on the escaleras a hand and the side's unfinished escaleras could complete
    (`arrange._seq_completions`: per run of held positions, its cards over completed_size)
    never falls below what the exact search completes, and it is tighter than pooling each
    suit's naturals on many hands (those whose naturals of a suit lie apart)."""
    from arbitro.model.rummy import arrange

    runs, tighter, below = _escalera_bounds(arrange, book)
    assert runs > 5 and tighter > 50, (runs, tighter)
    assert below == 0


def test_escalera_bound_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a bound that forgets the cards of the side's unfinished
    escaleras (here counted as none) says fewer escaleras can be completed than the search
    completes. (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.arrange")
    real = copy._seq_completions
    with monkeypatch.context() as mp:
        mp.setattr(
            copy,
            "_seq_completions",
            lambda t, bits, counts, open_seqs: real(t, bits, counts, []),
        )
        assert _escalera_bounds(copy, "samba-es")[2] > 0


def _rank_options_by_tuples(
    m: ModuleType, sr: Any, bases: tuple[tuple[int, int], ...], a: int
) -> frozenset[tuple[int, ...]]:
    """`arrange.rank_options` as it was written before its outcomes were packed into ints:
    every grouping of the unfinished sets (merged where *:merge-sets allows), each group's
    outcomes (`_group_options`) added up as tuples, then up to so many new sets."""
    incomplete = [i for i, (n, w) in enumerate(bases) if n + w < sr.completed]
    complete = [i for i, (n, w) in enumerate(bases) if n + w >= sr.completed]
    if sr.merge and len(incomplete) > 1:
        groupings = list(m._partitions(incomplete))
    else:
        groupings = [[[i] for i in incomplete]]
    fresh = m._group_options(sr, 0, 0, True, a)

    def combine(partial: set[tuple[int, ...]], opts: list[Any]) -> set[tuple[int, ...]]:
        return {
            tuple(x + y for x, y in zip(p, o, strict=True))
            for p in partial
            for o in opts
            if p[0] + o[0] <= a
        }

    results: set[tuple[int, ...]] = set()
    for grouping in groupings:
        groups = []
        for g in grouping:
            n0 = sum(bases[i][0] for i in g)
            w0 = sum(bases[i][1] for i in g)
            if len(g) > 1 and (
                w0 > sr.cap
                or (sr.at_most and w0 > n0)
                or (n0 + w0 > sr.completed and sr.growth != "any")
            ):
                break
            groups.append((n0, w0))
        else:
            groups += [bases[i] for i in complete]
            kmax = a // max(1, sr.start_min) if sr.several else 1 if not bases else 0
            partial: set[tuple[int, ...]] = {(0, 0, 0, 0, 0, 0)}
            for n0, w0 in groups:
                partial = combine(partial, m._group_options(sr, n0, w0, False, a))
            for _ in range(kmax + 1):
                results |= partial
                partial = combine(partial, fresh)
    return frozenset(results)


def _rank_option_runs(m: ModuleType) -> tuple[int, int]:
    """Over the sets of the sides met in random play of every book, per rank with from none to
    eight naturals in hand (and random unfinished sets beside them): how many outcomes
    `m.rank_options` found, and at how many inputs they differ from `_rank_options_by_tuples`."""
    rng = random.Random(67)
    outcomes = differ = 0
    for book in BOOKS:
        rules = R(book)
        t = tables_module._build(rules)
        sr = m.set_rules(t)
        inputs: set[tuple[tuple[tuple[int, int], ...], int]] = set()
        for s in walk(rules, 19, 300)[::15]:
            for side in s.table:
                tb = m.table_of(t, side.melds)
                for bases in tb.sets:
                    if bases:
                        inputs.add((bases, rng.randint(0, 8)))
        for _ in range(40):
            k = rng.randint(0, 3)
            n = [rng.randint(1, t.completed - 1) for _ in range(k)]
            bases = tuple(sorted((x, rng.randint(0, min(sr.cap, x))) for x in n))
            inputs.add((bases, rng.randint(0, 8)))
        for bases, a in sorted(inputs):
            got = m.rank_options.__wrapped__(sr, bases, a)
            outcomes += len(got)
            differ += got != _rank_options_by_tuples(m, sr, bases, a)
    return outcomes, differ


def test_rank_options_packed_agree_with_tuples() -> None:
    """`arrange.rank_options`, which adds up its outcomes packed into ints, finds the outcomes
    the same combining of tuples finds, for the sets met in random play of every book and
    random unfinished ones."""
    from arbitro.model.rummy import arrange

    outcomes, differ = _rank_option_runs(arrange)
    assert outcomes > 5000, outcomes
    assert differ == 0


def test_rank_options_packed_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a combining that forgets the limit on the naturals
    placed (here every sum kept) finds outcomes placing more naturals than the hand holds.
    (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.arrange")

    def unlimited(partial: set[int], opts: list[int], limit: int) -> set[int]:
        return {p - copy._ZERO + o for p in partial for o in opts}

    monkeypatch.setattr(copy, "_combine", unlimited)
    assert _rank_option_runs(copy)[1] > 0


def _packed_reader_runs(m: ModuleType, go: ModuleType) -> tuple[int, int]:
    """Over the sets of the sides met in random play of every book and random unfinished ones,
    per rank with from none to eight naturals in hand: how many outcomes `m._rank_packed`
    holds, and at how many inputs what the searches read off them differs from the same read
    off the tuples `_rank_options_by_tuples` finds: `m._rank_row` (one card kept over or not)
    from the outcomes placing every natural or all but one, as `_rank_ends` filters them (its
    parts, plain and counted, each in the tuples' order), `m._rank_pairs` (the distinct
    naturals placed and net wilds) and `go._rank_gains` (the fewest net wilds per count of
    melds completed)."""
    rng = random.Random(73)
    outcomes = differ = 0
    for book in BOOKS:
        rules = R(book)
        t = tables_module._build(rules)
        sr = m.set_rules(t)
        inputs: set[tuple[tuple[int, int], ...]] = {()}
        for s in walk(rules, 29, 300)[::15]:
            for side in s.table:
                inputs.update(b for b in m.table_of(t, side.melds).sets if b)
        for _ in range(30):
            n = [rng.randint(1, t.completed - 1) for _ in range(rng.randint(1, 3))]
            inputs.add(tuple(sorted((x, rng.randint(0, min(sr.cap, x))) for x in n)))
        for bases in sorted(inputs):
            for a in range(9):
                opts = _rank_options_by_tuples(m, sr, bases, a)
                outcomes += len(m._rank_packed.__wrapped__(sr, bases, a))
                for keep in (False, True):
                    ends = sorted(
                        {
                            (o[1], o[2], o[3], o[4], o[5], a - o[0])
                            for o in opts
                            if o[0] == a or (keep and o[0] == a - 1)
                        }
                    )
                    plain = []
                    counted = []
                    for x, c, cl, d, old, k in ends:
                        packed = (
                            (x << m._AT_XO)
                            + (c << m._AT_C)
                            + (cl << m._AT_CL)
                            + (d << m._AT_D)
                            + (old << m._AT_OLD)
                            + k
                        )
                        (counted if c or cl or d or old else plain).append(packed)
                    want = (
                        tuple(plain + counted),
                        min((e[0] for e in ends), default=1 << 30),
                        max((e[1] for e in ends), default=0),
                        max((e[2] for e in ends), default=0),
                        max((e[3] for e in ends), default=0),
                        max((e[4] for e in ends), default=0),
                        min((e[5] for e in ends), default=1 << 30),
                        len(plain),
                    )
                    differ += m._rank_row.__wrapped__(sr, bases, a, keep) != want
                pairs = tuple(sorted({(o[0], o[1]) for o in opts}))
                differ += m._rank_pairs.__wrapped__(sr, bases, a) != pairs
                gains = [go._NEVER] * (max((o[2] for o in opts), default=-1) + 1)
                for o in opts:
                    gains[o[2]] = min(gains[o[2]], o[1])
                differ += go._rank_gains.__wrapped__(sr, bases, a) != tuple(gains)
    return outcomes, differ


def test_packed_outcomes_read_as_tuples() -> None:
    """`places_all`'s rows of a rank's outcomes (`arrange._rank_row`), the reaches search's
    pairs (`arrange._rank_pairs`) and the completion screen's gains (`going_out._rank_gains`),
    read off the packed outcomes (`arrange._rank_packed`), are what the outcomes found as
    tuples give, for the sets met in random play of every book and random unfinished ones."""
    from arbitro.model.rummy import arrange

    outcomes, differ = _packed_reader_runs(arrange, going_out_module)
    assert outcomes > 20000, outcomes
    assert differ == 0


def test_packed_outcomes_reading_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a reading of the melds completed at the bits of the clean
    ones (here `_AT_DONE` 16, in a copy of `arrange` and then of `going_out`, run from source)
    gives rows and gains that differ from the tuples'."""
    from arbitro.model.rummy import arrange

    copy = source_module("arbitro.model.rummy.arrange")
    assert _packed_reader_runs(copy, going_out_module)[1] == 0
    monkeypatch.setattr(copy, "_AT_DONE", 16)
    assert _packed_reader_runs(copy, going_out_module)[1] > 0
    go = source_module("arbitro.model.rummy.going_out")
    assert _packed_reader_runs(arrange, go)[1] == 0
    monkeypatch.setattr(go, "_AT_DONE", 16)
    assert _packed_reader_runs(arrange, go)[1] > 0


def _combine_runs(m: ModuleType) -> tuple[int, int]:
    """Over the sets met in random play of every book, per rank with up to eight naturals in
    hand (`_rank_ends`, one card kept over or not), and random states of `places_all`'s sets
    search (random needs to cap the counts at): how many states `m._combine_states` reached,
    and at how many steps they differ from adding up each field and capping it, state by state
    and outcome by outcome (the combining before states and outcomes were packed alike)."""
    rng = random.Random(71)
    reached = differ = 0
    for book in BOOKS:
        rules = R(book)
        t = tables_module._build(rules)
        sr = m.set_rules(t)
        seen: set[tuple[tuple[int, int], ...]] = set()
        for s in walk(rules, 23, 300)[::15]:
            for side in s.table:
                seen.update(b for b in m.table_of(t, side.melds).sets if b)
        for bases in sorted(seen | {()}):
            for a in range(9):
                keep = rng.random() < 0.5
                ends = m._rank_ends(sr, bases, a, a >= 1 and keep)
                row = m._rank_row(sr, bases, a, a >= 1 and keep)
                caps = (rng.randint(0, 3), rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 2))
                hi_xo = rng.randint(0, 8)
                fields = {
                    (rng.randint(0, hi_xo), *(rng.randint(0, c) for c in caps), rng.randint(0, 1))
                    for _ in range(rng.randint(1, 6))
                }
                want = set()
                for xo, c, cl, d, old, k in fields:
                    for x1, c1, cl1, d1, old1, k1 in ends:
                        if xo + x1 > hi_xo or k + k1 > 1:
                            continue
                        got = (c + c1, cl + cl1, d + d1, old + old1)
                        capped = tuple(min(v, cap) for v, cap in zip(got, caps, strict=True))
                        want.add((xo + x1, *capped, k + k1))
                packed = {
                    xo << m._AT_XO
                    | c << m._AT_C
                    | cl << m._AT_CL
                    | d << m._AT_D
                    | old << m._AT_OLD
                    | k
                    for xo, c, cl, d, old, k in fields
                }
                out = m._combine_states(packed, row[0], row[7], hi_xo, caps)
                got_fields = {
                    (
                        q >> m._AT_XO,
                        q >> m._AT_C & 255,
                        q >> m._AT_CL & 255,
                        q >> m._AT_D & 255,
                        q >> m._AT_OLD & 255,
                        q & 1,
                    )
                    for q in out
                }
                reached += len(out)
                differ += got_fields != want
    return reached, differ


def test_combined_states_agree_with_adding_each_field() -> None:
    """`places_all`'s sets search adds a rank's outcomes to its states packed alike, one
    addition each (`arrange._combine_states`, the counts capped after it where an outcome
    completes something): the states it reaches are those that adding up each field and
    capping it reach, for the sets met in random play of every book."""
    from arbitro.model.rummy import arrange

    reached, differ = _combine_runs(arrange)
    assert reached > 2000, reached
    assert differ == 0


def test_combined_states_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a combining that caps no count (here every outcome taken
    for one that completes nothing) reaches states past the needs. (Broken in a copy of the
    module run from source.)"""
    copy = source_module("arbitro.model.rummy.arrange")
    real = copy._combine_states

    def uncapped(
        states: set[int], deltas: tuple[int, ...], n_plain: int, hi_xo: int, caps: Any
    ) -> set[int]:
        got: set[int] = real(states, deltas, len(deltas), hi_xo, caps)
        return got

    monkeypatch.setattr(copy, "_combine_states", uncapped)
    assert _combine_runs(copy)[1] > 0


def _clean_runs(e: ModuleType, book: str) -> tuple[int, int]:
    """Over random play of `book` by the engine module `e`: how many turns began where the
    side's clean canastas could be read off what its last listing carried (`table.CARRIED`: its
    melds the ones it saw), and how many began with a count (`State.clean_start`) other than
    the one `going_out_counts` gives for the side's melds."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(11)
    seating = RUMMY.seatings(rules)[0]
    s = RUMMY.new_game(rules, seating)
    deck = list(RUMMY.deck(rules, seating))
    read = differ = 0
    for _ in range(1500):
        if RUMMY.phase(s) == "over":
            break
        if RUMMY.phase(s) == "deal":
            order = deck[:]
            rng.shuffle(order)
            s = RUMMY.deal(rules, s, order)
            continue
        if s.step == DRAW:
            side = s.seat % s.sides
            melds = s.table[side].melds
            if side < len(table_module.CARRIED):
                c = table_module.CARRIED[side]
                read += c.melds is melds and c.t is t and bool(melds)
            differ += s.clean_start != going_out_counts(t, melds)[1]
        step = e.random_step(rules, s, rng)
        assert step is not None
        s = step[1]
    return read, differ


@pytest.mark.parametrize("book", BOOKS)
def test_clean_canastas_carried_agree_with_counting_them(book: str) -> None:
    """The clean canastas a side has when its turn begins (`turn.begin_turn`), read off what the
    side's last listing carried over from meld to meld (`engine._slots`), are those
    `going_out_counts` finds among its melds."""
    read, differ = _clean_runs(engine, book)
    assert read > 50, read
    assert differ == 0


def test_clean_canastas_carried_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a count carried over that leaves out the meld grown or
    laid (a canasta completed clean by an addition not counted) differs from counting the
    side's melds. (Broken in a copy of the engine module run from source, whose listings fill
    what is carried.)"""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "clean_done", lambda t, m: 0)
    read, differ = _clean_runs(copy, "samba-es")
    assert read > 50
    assert differ > 0


def _can_take_slow(t: Tables, s: State) -> bool:
    """`pile.can_take` by its definition: some candidate take is not refused by the rule."""
    for f in candidate_fields(t, s):
        try:
            pile_module.take_to_open(t, s, TakePile(s.seat, *f))
        except Refusal:
            continue
        return True
    return False


def _can_take_runs(p: ModuleType, book: str) -> tuple[int, int]:
    """Over the states of random play of `book` where a turn begins: how many are of a side
    that has opened with a take of the top card onto one of its melds among the candidates
    (`p.can_take` decides by the kind of meld, without playing the take), and how many answers
    of `p.can_take` differ from playing every candidate."""
    rules = R(book)
    t = tables(rules)
    onto = differ = 0
    for s in walk(rules, 3, 1500):
        if s.step != DRAW:
            continue
        fields = candidate_fields(t, s)
        onto += mover_side(s).opened and any(f[0] == "add" for f in fields)
        differ += p.can_take(t, s) != _can_take_slow(t, s)
    return onto, differ


@pytest.mark.parametrize("book", BOOKS)
def test_can_take_agrees_with_playing_every_take(book: str) -> None:
    """Whether the player whose turn begins may take the pile (asked when the stock is out),
    decided for a take onto a meld of an opened side by the kind of meld, is what playing
    every candidate take through the rule says."""
    onto, differ = _can_take_runs(pile_module, book)
    assert onto > 20, onto
    assert differ == 0


def test_can_take_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a take onto an escalera counted as taking the pile where
    *:pile-to-own-sequence says it does not (samba-es) differs from playing it. (Broken in a
    copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.pile")
    right = copy.takes_onto
    monkeypatch.setattr(copy, "takes_onto", lambda t, m: m.kind != SET or right(t, m))
    assert _can_take_runs(copy, "samba-es")[1] > 0


def _listed_copies(e: ModuleType) -> tuple[int, int]:
    """Over states of random play of samba-es, each listed by `e.legal_actions`: how many of
    the actions listed `e.apply` was given again as an equal action that is not the object
    listed (it must reach the state the listed one reaches) and as a plain tuple of the same
    fields, and how many of those plain tuples it did not refuse as malformed (`apply` finds a
    listed action by identity, else by equality only among the action types)."""
    rules = R("samba-es")
    tried = taken = 0
    for s in walk(rules, 9, 150):
        acts = e.legal_actions(rules, s)
        for a in acts[:3]:
            tried += 1
            same: Action = tuple.__new__(type(a), tuple(a))
            assert same is not a and e.apply(rules, s, same) == e.apply(rules, s, a)
            try:
                e.apply(rules, s, tuple(a))
            except MalformedInput:
                continue
            except Exception:  # anything but the refusal counts
                pass
            taken += 1
    return tried, taken


def test_listed_actions_found_by_equality_only_among_actions() -> None:
    """An action equal to a listed one is played as the listed one; a plain tuple equal to it
    is not an action and is refused as malformed, as it is before any listing."""
    tried, taken = _listed_copies(engine)
    assert tried > 100, tried
    assert taken == 0


def test_listed_actions_found_by_equality_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: found by equality with any tuple, a plain tuple equal to
    a listed action is played as that action. (Broken in a copy of the engine module.)"""
    copy = source_module("arbitro.model.rummy.engine")
    monkeypatch.setattr(copy, "_listed_as", lambda legal, a: a in legal)
    assert _listed_copies(copy)[1] > 0


_BOARDS = (
    ("KC KC KD KD KH KH KS", "QC QC QD QD QH 2S JK"),
    ("KC KC KD KD KH KH KS", "QC QC QD QD QH 2S JK", "7C 7D 2H"),
    ("KC KC KD KD KH KH KS", "QC QC QD QD QH QS 2S", "8C 8D 8H 2D"),
    ("4H 5H 6H 7H 8H 9H 10H", "QC QC QD QD QH 2S JK"),
)
_POOL = [
    "2C",
    "2D",
    "2H",
    "2S",
    "JK",
    "JK",
    "3C",
    "3S",
    "3C",
    "3S",
    "4H",
    "4S",
    "4D",
    "5H",
    "5S",
    "5D",
    "6C",
    "6D",
    "6H",
    "9D",
    "9H",
    "9S",
    "10C",
    "10D",
    "10H",
    "AH",
    "AS",
    "AC",
]


def _grown_board_runs(go: ModuleType, book: str) -> tuple[int, int, int]:
    """Over random hands of two to eight cards (wilds, black threes, pairs and runs) against
    grown tables of the side (two finished canastas, one clean, and a small set or an escalera
    where the book has them; a table the book refuses is left out), the mover holding a clean
    canasta from the start of the turn: how often `go.can_go_out` says yes and no, and how many
    of its answers differ from trying every discard (`_exhaustive_can_go_out`)."""
    rules = R(book)
    t = tables(rules)
    rng = random.Random(61)
    boards = []
    for melds in _BOARDS:
        try:
            make_state(rules, melds={0: melds}, clean_start=1)
        except (AssertionError, MalformedInput):  # a meld this book does not allow
            continue
        boards.append(melds)
    yes = no = differ = 0
    for _ in range(3000):
        hand = " ".join(sorted(rng.sample(_POOL, rng.randint(2, 8))))
        try:
            s = make_state(rules, hands={0: hand}, melds={0: rng.choice(boards)}, clean_start=1)
        except AssertionError:  # more copies of a card than the book's deck holds
            continue
        got = go.can_go_out(t, s)
        yes += got
        no += not got
        differ += got != _exhaustive_can_go_out(rules, s)
    return yes, no, differ


@pytest.mark.parametrize("book", BOOKS)
def test_going_out_against_grown_tables_agrees_with_the_search(book: str) -> None:
    """`can_go_out` equals trying every discard where a hand's naturals could go to an escalera
    or a new set and a lone card of a rank, or a lone black three, may be the discard: the
    hands random play reaches too rarely (`arrange.lost_cards_by` once asked wilds for the new
    set of a rank whose one homeless card could be the discard, and for a lone black three's
    meld: it said no to 3 hands of samba-en and 3 of samba-fr here that go out)."""
    yes, no, differ = _grown_board_runs(going_out_module, book)
    assert yes > 30 and no > 100, (yes, no)
    assert differ == 0


def test_going_out_against_grown_tables_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a `lost_cards_by` that never lets a card be the discard
    asks wilds for every new set. (Broken in a copy of the module run from source.)"""
    go = source_module("arbitro.model.rummy.going_out")
    real = go.lost_cards_by

    def no_spare(
        t: Tables, cards: tuple[int, ...], takes: int, seq_bits: int, freeable: int, spare: bool
    ) -> list[int] | None:
        got: list[int] | None = real(t, cards, takes, seq_bits, freeable, False)
        return got

    monkeypatch.setattr(go, "lost_cards_by", no_spare)
    assert _grown_board_runs(go, "samba-fr")[2] > 0


def test_a_recorded_hand_that_goes_out_with_a_pair_split_by_an_escalera() -> None:
    """A position of the replay goldens (samba-en, partnerships, its third combination of
    readings, seed 100, step 172) that `lost_cards_by` once ruled out before the search. The
    hand goes out, worked out by hand: 8H 9H 10H a new escalera; 9S the discard; AH AS 2H a new
    set of aces; 4H to the fours (a canasta of 7), 8D 8D 8S to the eights, KC KD KS to the
    kings (8), 6H 6S, 7C and QC QC QD to their sets; the four black threes one meld. The side
    then holds three canastas. (The old screen asked one wild for the nines, as if 9H had no
    escalera, and one for the aces: two wilds against the hand's one.)"""
    rules = rules_for(
        "samba-en",
        {
            "opening_rule": "exceed",
            "pile_one_card_rule": "one-card-rule",
            "pile_rest_after_opening": "canasta-practice",
            "set_start_min_naturals": "two-naturals",
            "target_rule": "reach",
            "wilds_at_most_naturals": "at-most-naturals",
        },
    )
    assert isinstance(rules, RummyRules)
    hand = "2H 3C 3S 3S 3S 4H 6H 6S 7C 8D 8D 8H 8S 9H 9S 10H QC QC QD KC KD KS AH AS"
    table = (
        "2D 2H 4D 4H 4S 4S",
        "2C 5C 5D 5D 5H 5S JK",
        "6D 6H 6H",
        "7D 7H 7H",
        "8C 8S 8S",
        "2S JD JH JS JK",
        "JC JD JD JH",
        "QD QH QH",
        "KC KD KH KS JK",
        "6C 7C 8C 9C",
    )
    s = make_state(
        rules, layout="partnerships", hands={1: hand}, melds={1: table}, seat=1, pile_taken=True
    )
    by_hand = ["8H 9H 10H", "9S", "AH AS 2H", "4H", "8D 8D 8S", "KC KD KS", "6H 6S", "7C"]
    by_hand += ["QC QC QD", "3C 3S 3S 3S"]
    assert Counter(C(" ".join(by_hand))) == Counter(C(hand))  # the arrangement uses every card
    t = tables(rules)
    assert places_all(t, remove(C(hand), C("9S")), mover_side(s).melds, need(t, s))
    assert can_go_out(t, s)
    assert _exhaustive_can_go_out(rules, s)


def _score_hand_by_categories(
    t: Tables, state: State, reason: str, out_seat: int, finding: tuple[str, ...] = ()
) -> Any:
    """The slow scoring of a hand, written as the rules read: a dict of every category per side,
    the cards each side holds gathered in a list, each count a generator."""
    from arbitro.model.rummy.cards import is_black_three, is_red_three
    from arbitro.model.rummy.layouts import layout_of
    from arbitro.model.rummy.melds import BLACK3, SEQ, WILDS, is_clean
    from arbitro.model.rummy.red_threes import red_three_score
    from arbitro.model.rummy.scoring import CATEGORIES
    from arbitro.model.rummy.state import Result
    from arbitro.model.rummy.table import completed_count

    r = t.rules
    pts = t.points
    went = out_seat % state.sides if out_seat >= 0 else -1
    lay = layout_of(r, state.players, state.sides, state.layout)
    reds_total = t.red_threes_total(lay)
    blacks_total = t.black_threes_total(lay)
    totals: list[int] = []
    cats: list[tuple[tuple[str, int], ...]] = []
    for i, sd in enumerate(state.table):
        c = dict.fromkeys(CATEGORIES, 0)
        if went < 0 or i == went or r.score_losing_melds:
            c["melds"] = sum(pts[x] for m in sd.melds for x in m.cards)
        held: list[int] = []
        seats = range(i, state.players, state.sides)
        for seat in seats:
            held.extend(state.hands[seat])
            if seat == state.seat:
                held.extend(state.held)
                if state.freed >= 0:
                    held.append(state.freed)
        c["hand"] = -sum(pts[x] for x in held if not is_red_three(x))
        for m in sd.melds:
            if len(m.cards) < t.completed or m.kind == BLACK3:
                continue
            if m.kind == SET:
                c["canastas"] += r.bonus_clean_canasta if is_clean(m) else r.bonus_dirty_canasta
            elif m.kind == SEQ:
                c["canastas"] += r.bonus_samba
            elif m.kind == WILDS:
                c["canastas"] += r.wild_canasta_bonus
        done = completed_count(t, sd.melds)
        if r.canasta_de_canastas_count and done >= r.canasta_de_canastas_count:
            c["canaston"] = r.canasta_de_canastas_bonus
        elif r.canaston_count and done >= r.canaston_count:
            c["canaston"] = r.canaston_bonus
        c["red-threes"] = red_three_score(r, len(sd.red_threes), done, reds_total)
        blacks_held = sum(1 for x in held if is_black_three(x))
        c["black-threes"] = -blacks_held * r.black_three_hand_penalty
        for seat in seats:
            if sum(1 for x in state.hands[seat] if is_black_three(x)) == blacks_total:
                c["black-threes"] -= r.black_threes_all_in_hand_penalty
        melded_blacks = sum(
            1 for m in sd.melds if m.kind == BLACK3 for x in m.cards if is_black_three(x)
        )
        if i == went and melded_blacks == blacks_total:
            c["black-threes"] += r.black_threes_all_melded_bonus
        if i == went or (
            went < 0
            and reason == "stock-out"
            and r.going_out_bonus_on_stock_out
            and i == state.seat % state.sides
        ):
            c["going-out"] = r.bonus_going_out
        c["penalties"] = -sum(1 for x in held if is_red_three(x)) * r.red_three_undeclared_penalty
        totals.append(sum(c.values()))
        cats.append(tuple(c.items()))
    return Result(state.hand_no, reason, tuple(totals), tuple(cats), finding)


def _scored_states(book: str) -> list[State]:
    """States of random play of `book`, and each again with what scoring treats apart that
    random play seldom reaches: the mover holding every black three of the deck, the rest of a
    pile held aside and a freed wild (a red and a black three among them), and the mover's
    side with a meld of every black three."""
    from arbitro.model.rummy.cards import BLACK_THREES, RED_THREES
    from arbitro.model.rummy.melds import BLACK3
    from arbitro.model.rummy.state import Side

    rules = R(book)
    out: list[State] = []
    for k, s in enumerate(walk(rules, 41, 300)[::3]):
        out.append(s)
        seat = s.seat
        blacks = BLACK_THREES * (len(RUMMY.deck(rules, RUMMY.seatings(rules)[0])) // 54)
        hand = tuple(sorted((*s.hands[seat], *blacks)))
        hands = (*s.hands[:seat], hand, *s.hands[seat + 1 :])
        held = (RED_THREES[k % 2], BLACK_THREES[0], 20, 51)
        out.append(replaced(s, hands=hands, held=held, freed=(0, 52)[k % 2]))
        side = seat % s.sides
        sd = s.table[side]
        black_meld = Meld(BLACK3, -1, tuple(sorted(blacks)))
        table = list(s.table)
        table[side] = Side((*sd.melds, black_meld), sd.red_threes, sd.opened)
        out.append(replaced(s, table=tuple(table)))
    return out


def _score_runs(scoring: ModuleType, book: str) -> tuple[int, int, int]:
    """Over `_scored_states` of `book`, each scored as a hand gone out by each seat, run out
    of stock and at a dead end: how many scorings, at how many `scoring.score_hand` gives
    another result than the slow scoring, and at how many it reads other clauses (`trace`)."""
    from arbitro.model.rummy.trace import traced_tables

    rules = R(book)
    t = tables(rules)
    runs = differ = reads = 0
    for s in _scored_states(book):
        ends = [("went-out", seat) for seat in range(s.players)]
        ends += [("stock-out", -1), ("dead-end", -1)]
        for reason, out_seat in ends:
            got = scoring.score_hand(t, s, reason, out_seat, ("f",))
            want = _score_hand_by_categories(t, s, reason, out_seat, ("f",))
            runs += 1
            differ += got != want or type(got) is not type(want)
            seen_got: set[str] = set()
            seen_want: set[str] = set()
            scoring.score_hand(traced_tables(rules, seen_got), s, reason, out_seat)
            _score_hand_by_categories(traced_tables(rules, seen_want), s, reason, out_seat)
            reads += seen_got != seen_want
    return runs, differ, reads


@pytest.mark.parametrize("book", BOOKS)
def test_score_hand_agrees_with_scoring_by_categories(book: str) -> None:
    """`scoring.score_hand`, which counts each category in ints of the compiled code, gives
    the result of scoring every category in a dict per side from the list of cards each side
    holds, and reads the same clauses (so `trace` names the same ones), on states of random
    play and on states built to hold what scoring treats apart."""
    from arbitro.model.rummy import scoring

    runs, differ, reads = _score_runs(scoring, book)
    assert runs > 300
    assert differ == 0
    assert reads == 0


def test_score_hand_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparisons above can fail: a scoring that forgets the penalty for one player holding
    every black three (*:black-threes-all-in-hand-penalty) gives other results, and one that
    reads *:red-three-negative-all for every side, whatever its red threes, reads other clauses.
    (Broken in a copy of the module run from source.)"""
    copy = source_module("arbitro.model.rummy.scoring")
    monkeypatch.setattr(copy, "_all_in_hand", lambda r, state, side, total: 0)
    _, differ, _ = _score_runs(copy, "canasta-es")
    assert differ > 0
    monkeypatch.undo()
    right = copy.red_three_score

    def reads_all(rules: RummyRules, count: int, completed: int, total: int) -> int:
        assert rules.red_three_negative_all is not None
        got: int = right(rules, count, completed, total)
        return got

    monkeypatch.setattr(copy, "red_three_score", reads_all)
    _, differ, reads = _score_runs(copy, "samba-es")
    assert differ == 0 and reads > 0
