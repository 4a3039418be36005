"""Integer action ids: a fixed bijection between arbitro's actions and ``range(size)`` per game.

OpenSpiel names an action by an integer below `num_distinct_actions`, the same for every state
of a game. An id here stands for one action *without its seat* (the seat is whoever is to move),
and the mapping depends only on the rules and the deck of the game instance, never on a state, so
a policy's output ``k`` means the same action everywhere. The universe of ids holds every action
the engine can ever list as legal (a superset: most ids are illegal in any one state), laid out in
blocks whose order is documented in docs/openspiel.md:

- Escoba: for each card of the pack in ascending card number, the card laid without a capture,
  then every group of other cards of the pack it could take (by `capture_groups` on a table
  holding the whole rest of the pack), in ascending mask order.
- Samba and Canasta: draw (by count), take the pile for a new set (by rank, then cards), for an
  escalera, onto meld ``i``; lay a meld (every card tuple a lay can name, ascending); add card
  ``c`` to meld ``i``; merge melds ``i < j``; replace a wild; finish the opening; discard a card;
  ask the partner; answer yes, no; stop. Meld indices run below `meld_slots`, a bound on the
  melds one side can hold (the deck divided by the smallest meld a lay makes).

No rule is decided here: legality stays with the engine's `legal_actions` and `apply`; the
universe is read off the deck and the size fields of the rules (which melds a lay can name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any, Protocol

from arbitro.model.errors import MalformedInput
from arbitro.model.escoba import capture_groups
from arbitro.model.escoba.state import Play
from arbitro.model.rummy.actions import (
    Action,
    AddToMeld,
    Answer,
    AskPartner,
    Discard,
    Draw,
    FinishOpening,
    LayMeld,
    Merge,
    ReplaceWild,
    Stop,
    TakePile,
)
from arbitro.model.rummy.cards import RANK_NAMES, is_black_three, is_natural, is_wild
from arbitro.model.rummy.tables import tables as rummy_tables
from arbitro.model.schema import EscobaRules, RummyRules


class ActionCodec(Protocol):
    """A bijection between the actions of one game instance and ``range(size)``."""

    size: int

    def encode(self, action: Any) -> int:
        """The id of an action (its seat is not part of the id); MalformedInput if it has none."""
        ...

    def decode(self, action_id: int, seat: int) -> Any:
        """The action of this id taken by ``seat``; MalformedInput for an id out of range."""
        ...

    def blocks(self) -> list[tuple[str, int, int]]:
        """The documented layout: (block name, first id, number of ids), in id order."""
        ...


def _check_id(action_id: int, size: int) -> None:
    if isinstance(action_id, bool) or not isinstance(action_id, int) or not 0 <= action_id < size:
        raise MalformedInput(f"action id {action_id!r} is not in range(0, {size})")


class EscobaCodec:
    """Escoba: card ``c`` with capture mask ``m`` (0: laid on the table)."""

    def __init__(self, rules: EscobaRules, deck: Sequence[int]) -> None:
        full = 0
        for c in deck:
            full |= 1 << c
        self._plays: list[tuple[int, int]] = []
        self._blocks: list[tuple[str, int, int]] = []
        for c in sorted(deck):
            first = len(self._plays)
            groups = sorted(capture_groups(rules, full & ~(1 << c), c))
            self._plays.append((c, 0))
            self._plays.extend((c, g) for g in groups)
            self._blocks.append((f"card {c}", first, len(self._plays) - first))
        self._ids = {p: i for i, p in enumerate(self._plays)}
        self.size = len(self._plays)

    def encode(self, action: Any) -> int:
        if not isinstance(action, Play):
            raise MalformedInput(f"not an escoba play: {action!r}")
        got = self._ids.get((action.card, action.capture))
        if got is None:
            raise MalformedInput(f"no action id for {action.describe()}: not a capture of the pack")
        return got

    def decode(self, action_id: int, seat: int) -> Play:
        _check_id(action_id, self.size)
        c, m = self._plays[action_id]
        return Play(seat, c, m)

    def blocks(self) -> list[tuple[str, int, int]]:
        return list(self._blocks)


def _multisets(kinds: Sequence[tuple[int, int]], size: int) -> Iterator[tuple[int, ...]]:
    """Sorted multisets of ``size`` cards from (card, copies in the deck) pairs."""
    for combo in combinations_with_replacement([c for c, _ in kinds], size):
        counts = Counter(combo)
        if all(counts[c] <= n for c, n in kinds):
            yield combo


class RummyCodec:
    """Samba and Canasta: the blocks of the module docstring, for one rules value and deck."""

    def __init__(self, rules: RummyRules, deck: Sequence[int], players: int, sides: int) -> None:
        t = rummy_tables(rules)
        copies = Counter(deck)
        kinds = sorted(copies)
        naturals = [c for c in kinds if is_natural(c)]
        wilds = [(c, copies[c]) for c in kinds if is_wild(c)]
        ranks = sorted({c >> 2 for c in naturals})
        smallest = [t.set_lay]
        if rules.sequences and rules.sequence_min > 0:
            smallest.append(rules.sequence_min)
        if rules.wild_canasta and rules.wild_meld_min_start > 0:
            smallest.append(rules.wild_meld_min_start)
        self.meld_slots = max(1, len(deck) // max(1, min(smallest)))
        m = self.meld_slots
        out: list[Action] = []
        blocks: list[tuple[str, int, int]] = []

        def block(name: str, actions: list[Action]) -> None:
            blocks.append((name, len(out), len(actions)))
            out.extend(actions)

        block("draw", [Draw(0, n) for n in range(1, rules.draw_count + 1)])
        k = rules.pile_new_set_naturals
        takes: list[Action] = []
        for rank in ranks:
            suits = [(c, copies[c]) for c in naturals if c >> 2 == rank]
            shown = list(_multisets(suits, k))
            if k >= 1:
                for nat in _multisets(suits, k - 1):
                    shown.extend(tuple(sorted((*nat, w))) for w, _ in wilds)
            takes.extend(TakePile(0, "set", -1, cards) for cards in sorted(set(shown)))
        block("take-pile set", takes)
        pairs: list[Action] = []
        if rules.sequences and rules.pile_new_sequence:
            for suit in range(4):
                own = [c for c in naturals if c & 3 == suit]
                pairs.extend(TakePile(0, "escalera", -1, p) for p in combinations(own, 2))
        block("take-pile escalera", pairs)
        block("take-pile add", [TakePile(0, "add", i, ()) for i in range(m)])
        block("lay", [LayMeld(0, cards) for cards in sorted(self._lays(rules, copies, ranks))])
        block("add", [AddToMeld(0, i, c) for i in range(m) for c in kinds])
        merges: list[Action] = []
        if rules.merge_sets:
            merges = [Merge(0, i, j) for i, j in combinations(range(m), 2)]
        block("merge", merges)
        replaces: list[Action] = []
        if rules.clean_by_replacing_wilds:
            replaces = [
                ReplaceWild(0, i, n, w) for i in range(m) for n in naturals for w, _ in wilds
            ]
        block("replace-wild", replaces)
        block("finish-opening", [FinishOpening(0)])
        block("discard", [Discard(0, c) for c in kinds])
        block("ask-partner", [AskPartner(0)] if rules.ask_partner and players > sides else [])
        block("answer", [Answer(0, True), Answer(0, False)] if players > sides else [])
        block("stop", [Stop(0)])
        self._actions = out
        self._blocks = blocks
        self._ids = {a: i for i, a in enumerate(out)}
        if len(self._ids) != len(out):
            raise AssertionError("two action ids stand for one action")  # a bug of this module
        self.size = len(out)

    @staticmethod
    def _lays(rules: RummyRules, copies: Counter[int], ranks: list[int]) -> set[tuple[int, ...]]:
        """Every card tuple a `LayMeld` can name (`laying.lay_candidates` draws from these)."""
        t = rummy_tables(rules)
        kinds = sorted(copies)
        wilds = [(c, copies[c]) for c in kinds if is_wild(c)]
        blacks = [(c, copies[c]) for c in kinds if is_black_three(c)]
        lays: set[tuple[int, ...]] = set()
        size = t.set_lay
        for rank in ranks:
            suits = [(c, copies[c]) for c in kinds if is_natural(c) and c >> 2 == rank]
            for n in range(1, size + 1):
                for nat in _multisets(suits, n):
                    for wl in _multisets(wilds, size - n):
                        lays.add(tuple(sorted(nat + wl)))
        if rules.sequences and rules.sequence_min > 0:
            run = [RANK_NAMES.index(r) for r in rules.sequence_ranks]
            for suit in range(4):
                for i in range(len(run) - rules.sequence_min + 1):
                    cards = tuple(r * 4 + suit for r in run[i : i + rules.sequence_min])
                    if all(copies[c] for c in cards):
                        lays.add(cards)
        if rules.wild_canasta and rules.wild_meld_min_start > 0:
            lays.update(_multisets(wilds, rules.wild_meld_min_start))
        if rules.black_threes_meld != "never" and blacks:
            most = t.wild_cap if rules.black_three_meld_wilds else 0
            for b in range(1, sum(n for _, n in blacks) + 1):
                for bl in _multisets(blacks, b):
                    for w in range(most + 1):
                        for wl in _multisets(wilds, w):
                            lays.add(tuple(sorted(bl + wl)))
        return lays

    def encode(self, action: Any) -> int:
        if not isinstance(action, Action):
            raise MalformedInput(f"not a rummy action: {action!r}")
        key = action.with_seat(0)
        got = self._ids.get(key)
        if got is None:
            raise MalformedInput(f"no action id for {action!r}: outside this game's action space")
        return got

    def decode(self, action_id: int, seat: int) -> Action:
        _check_id(action_id, self.size)
        return self._actions[action_id].with_seat(seat)

    def blocks(self) -> list[tuple[str, int, int]]:
        return list(self._blocks)
