"""Every rulebook as an OpenSpiel game, played by arbitro's own engine.

One pyspiel game per rulebook (`game_name`: ``arbitro_samba_es``, ``arbitro_escoba_es``, …).
A game instance is a *variant* (`Variant`): the rulebook, its options (a reading label for each
clause the book states twice or leaves open, ``True`` for each optional rule), a seating, the
first dealer, and how many hands an episode lasts. Every transition is the engine's:
`GameModel.legal_actions`, `apply` and `deal`; this module only translates.

- Chance: each hand begins with one chance node per card of the deck, each outcome the card
  number (for Samba and Canasta a card kind, weighted by its copies left), drawn from what
  remains; the outcomes of a hand, in order, are the deck order `GameModel.deal` receives (top of
  the stock first), which a transcript records.
- Actions: integer ids from `arbitro.openspiel.encoding`, fixed per game instance.
- Observations: a seat's `GameModel.view`; the information state is the sequence of its views
  (the first one whole, then what changed after each action or deal), so it has perfect recall.
- Returns: at the end only, zero-sum, per side: with ``n`` sides and ``L`` the sides that won
  (the book's winner, or every side tied on the highest total), a side of ``L`` gets
  ``(n / |L| - 1) / (n - 1)`` and any other ``-1 / (n - 1)``; each player gets its side's.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel

from arbitro.games import describe_seating, model_for
from arbitro.model.errors import ArbitroError, MalformedInput, OptionError
from arbitro.model.game import GameModel, Seating
from arbitro.model.rummy.dealing import RuleGap
from arbitro.model.schema import (
    EscobaRules,
    Options,
    Rules,
    RummyRules,
    normalize_options,
    rules_for,
)
from arbitro.model.spec import Rulebook, load_rulebook, rulebook_ids
from arbitro.openspiel.encoding import ActionCodec, EscobaCodec, RummyCodec
from arbitro.openspiel.observation import Layout, escoba_layout, rummy_layout

PREFIX = "arbitro_"
SEAT_PARAMS: dict[str, Any] = {
    "players": 0,  # 0: from `layout`, else the book's first seating
    "layout": "",  # a layout name (Samba, Canasta) or "teams" (Escoba)
    "dealer": 0,  # the seat that deals the first hand
    "max_hands": 0,  # 0: until the book's end of the game
    "config": "",  # a small configuration (issue 11); "" is the book itself
}
"""The parameters every game takes besides the options of its rulebook, with their defaults."""

UNBOUNDED = 10**9
"""`max_game_length` with ``max_hands=0``: the book's game has no bound on its length (a hand may
score nothing, and Samba and Canasta totals may fall), so this stands for unbounded."""

PUBLIC_AND_OWN, PUBLIC, OWN, ALL = "public+own", "public", "own", "all"
"""Which part of a view an observation shows: public and own cards (the default), public only,
own cards only, or every seat's cards."""

ConfigLoader = Callable[[Rulebook, str, Options], tuple[Rules, list[Seating]]]
_config_loader: ConfigLoader | None = None


def set_config_loader(loader: ConfigLoader | None) -> None:
    """Where the ``config`` parameter is resolved: ``loader(rulebook, name, options)`` returns the
    rules of the small configuration ``name`` and its seatings (OptionError for an unknown one)."""
    global _config_loader
    _config_loader = loader


def game_name(rulebook: str) -> str:
    """The OpenSpiel short name of a rulebook's game: ``samba-es`` -> ``arbitro_samba_es``."""
    return PREFIX + rulebook.replace("-", "_")


def option_params(rb: Rulebook) -> dict[str, str | bool]:
    """The rulebook's options as parameters with their defaults: the default reading's label for a
    clause with readings, False for an optional rule. A clause that `follows` another is set by
    that one and has no parameter of its own."""
    out: dict[str, str | bool] = {}
    for c in rb.clauses:
        if c.follows is not None:
            continue
        if c.optional:
            out[c.key] = False
        elif len(c.readings) > 1:
            out[c.key] = c.default
    clash = sorted(set(out) & set(SEAT_PARAMS))
    if clash:
        raise OptionError(f"{rb.id}: clause {clash[0]!r} has the name of a game parameter")
    return out


# ---------------------------------------------------------------- variants


def hand_bound(model: GameModel, players: int, sides: int, deck: int) -> int:
    """An upper bound on the player actions in one hand.

    Escoba: every card dealt to a player is played once, at most the deck. Samba and Canasta: a
    turn opens with a draw (at least one card leaves the stock, or the exhausted stock ends the
    hand) or a pile take (its top card goes to a meld for good), and one turn may open without
    either (the stock's last card, a red three), so there are at most ``2 * deck + 2`` turns,
    each with at most one draw or take, one discard or stop, one question and one answer; every
    lay, addition or cleaning moves a card from a hand to the table for good (at most ``deck``),
    each cleaning frees one wild to place (``deck``), each merge removes one of the melds laid
    (``deck``), and each side finishes one opening: ``11 * deck + sides + 8``.
    """
    return HAND_BOUNDS[model.game](sides, deck)


HAND_BOUNDS: dict[str, Callable[[int, int], int]] = {
    "escoba": lambda sides, deck: deck,
    "rummy": lambda sides, deck: 11 * deck + sides + 8,
}
"""Each game family's (`GameFamily.name`) bound on a hand's player actions, from the number of
sides and the deck's size (see `hand_bound`)."""


@dataclass(frozen=True, eq=False)
class Variant:
    """One game instance: the rules, the seating and the episode's length, built once per key."""

    key: tuple[Any, ...]
    rulebook: str
    options: dict[str, str | bool]
    rules: Rules
    model: GameModel
    seating: Seating
    dealer: int
    max_hands: int
    deck: tuple[int, ...]
    codec: ActionCodec
    layout: Layout
    hand_bound: int
    card_names: dict[int, str] = field(repr=False)
    copies: dict[int, int] = field(repr=False)  # card -> copies in the deck, ascending
    action_strings: dict[tuple[int, int], str] = field(default_factory=dict, repr=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return (variant, self.key)

    def __deepcopy__(self, memo: dict[int, Any]) -> Variant:
        return self  # immutable: clones share it

    @property
    def max_game_length(self) -> int:
        return self.max_hands * self.hand_bound if self.max_hands else UNBOUNDED

    def utilities(self, winners: list[int]) -> list[float]:
        """Each player's return when these sides won (see the module docstring)."""
        n = self.seating.sides
        side = [
            (n / len(winners) - 1) / (n - 1) if s in winners else -1 / (n - 1) for s in range(n)
        ]
        return [side[self.seating.side_of(p)] for p in range(self.seating.players)]


@lru_cache(maxsize=256)
def variant(
    rulebook: str,
    options_json: str,
    players: int,
    layout: str,
    dealer: int,
    max_hands: int,
    config: str,
) -> Variant:
    """The variant these parameters name; OptionError or MalformedInput names a bad one."""
    rb = load_rulebook(rulebook)
    options: dict[str, str | bool] = json.loads(options_json)
    model = model_for(rb.game)
    if config:
        if _config_loader is None:
            raise OptionError(
                f"no small configurations are available (config={config!r}); "
                "leave config empty to play the book"
            )
        rules, seatings = _config_loader(rb, config, options)
    else:
        rules = rules_for(rb, options)
        seatings = list(model.seatings(rules))
    seating = _seating(rules, seatings, players, layout)
    if isinstance(dealer, bool) or not 0 <= dealer < seating.players:
        raise OptionError(f"dealer {dealer} is not a seat of {seating.players} players")
    if max_hands < 0:
        raise OptionError(f"max_hands must be 0 (the book's end) or more, got {max_hands}")
    model.new_game(rules, seating, dealer)  # refuses a seating the rules do not allow
    deck = tuple(model.deck(rules, seating))
    names = {c: model.card_name(c) for c in sorted(set(deck))}
    codec, layout_ = ENCODINGS[model.game](rules, deck, seating, list(names.values()))
    return Variant(
        key=(rulebook, options_json, players, layout, dealer, max_hands, config),
        rulebook=rulebook,
        options=options,
        rules=rules,
        model=model,
        seating=seating,
        dealer=dealer,
        max_hands=max_hands,
        deck=deck,
        codec=codec,
        layout=layout_,
        hand_bound=hand_bound(model, seating.players, seating.sides, len(deck)),
        card_names=names,
        copies=dict(sorted(Counter(deck).items())),
    )


@lru_cache(maxsize=16)
def _escoba_codec(rules: EscobaRules, deck: tuple[int, ...]) -> EscobaCodec:
    return EscobaCodec(rules, deck)


@lru_cache(maxsize=64)
def _rummy_codec(rules: RummyRules, deck: tuple[int, ...], players: int, sides: int) -> RummyCodec:
    return RummyCodec(rules, deck, players, sides)


def _escoba_encoding(
    rules: Rules, deck: tuple[int, ...], seating: Seating, names: list[str]
) -> tuple[ActionCodec, Layout]:
    return _escoba_codec(rules, deck), escoba_layout(seating.players, seating.sides, names)


def _rummy_encoding(
    rules: Rules, deck: tuple[int, ...], seating: Seating, names: list[str]
) -> tuple[ActionCodec, Layout]:
    codec = _rummy_codec(rules, deck, seating.players, seating.sides)
    return codec, rummy_layout(seating.players, seating.sides, names, codec.meld_slots)


ENCODINGS: dict[
    str, Callable[[Any, tuple[int, ...], Seating, list[str]], tuple[ActionCodec, Layout]]
] = {"escoba": _escoba_encoding, "rummy": _rummy_encoding}
"""Each game family's (`GameFamily.name`) action codec and observation layout of a seating, from
its rules, its deck and the deck's card names."""


def _seating(rules: Rules, seatings: list[Seating], players: int, layout: str) -> Seating:
    """The seating the ``players`` and ``layout`` parameters name (both 0/"": the first)."""
    known = "; ".join(describe_seating(s) for s in seatings)
    if not players and not layout:
        return seatings[0]
    hits = [
        s
        for s in seatings
        if (not layout or s.layout == layout) and (not players or s.players == players)
    ]
    if len(hits) > 1:
        hits = [s for s in hits if not s.layout] or hits
    if len(hits) != 1:
        asked = ", ".join(
            x
            for x in (
                f"players={players}" if players else "",
                f"layout={layout!r}" if layout else "",
            )
            if x
        )
        why = "names no seating" if not hits else "names several seatings; give a layout"
        raise OptionError(f"{rules.rulebook}: {asked} {why}; seatings: {known}")
    return hits[0]


def variant_from_params(rb: Rulebook, params: Mapping[str, Any]) -> Variant:
    """The variant of a parameter dict (OpenSpiel fills in every default)."""
    defaults = option_params(rb)
    unknown = sorted(set(params) - set(defaults) - set(SEAT_PARAMS))
    if unknown:
        raise OptionError(
            f"{game_name(rb.id)} has no parameter {unknown[0]!r}; parameters: "
            + ", ".join([*SEAT_PARAMS, *defaults])
        )
    chosen = {
        k: params[k] for k in defaults if k in params and params[k] != defaults[k]
    }  # only what differs from the book's defaults, so equal variants share one key
    normalize_options(rb, chosen)
    return variant(
        rb.id,
        json.dumps(chosen, sort_keys=True),
        int(params.get("players", 0)),
        str(params.get("layout", "")),
        int(params.get("dealer", 0)),
        int(params.get("max_hands", 0)),
        str(params.get("config", "")),
    )


# ---------------------------------------------------------------- the history of an episode


class _Node:
    """One step of an episode: the state of the model after it, shared by every clone.

    The root holds the game before its first deal; a deal node holds the deck order it dealt; a
    play node the seat and action id. What a seat saw at each step (`lines`) is worked out the
    first time it is asked for and kept: nodes never change otherwise.
    """

    __slots__ = ("_legal", "action", "actor", "cache", "lines", "order", "prev", "state")

    def __init__(
        self,
        prev: _Node | None,
        actor: int,
        action: int,
        order: tuple[int, ...],
        state: Any,
    ) -> None:
        self.prev = prev
        self.actor = actor  # a seat, or -1 for the root and for a deal
        self.action = action
        self.order = order
        self.state = state
        self.lines: dict[tuple[int, str], str] = {}
        self.cache: dict[tuple[Any, ...], Any] = {}  # views and strings of this node's state
        self._legal: list[int] | None = None

    def seen(self, v: Variant, seat: int, kind: str = PUBLIC_AND_OWN) -> dict[str, Any]:
        """`seen` of this node's state, worked out once (callers must not change it)."""
        key = ("seen", seat, kind)
        got: dict[str, Any] | None = self.cache.get(key)
        if got is None:
            got = self.cache[key] = seen(v, self.state, seat, kind)
        return got

    def legal(self, v: Variant) -> list[int]:
        """The ids of the legal actions, ascending."""
        if self._legal is None:
            self._legal = sorted(
                v.codec.encode(a) for a in v.model.legal_actions(v.rules, self.state)
            )
        return self._legal

    def steps(self) -> list[tuple[int, int, tuple[int, ...]]]:
        out = []
        n: _Node | None = self
        while n is not None and n.prev is not None:
            out.append((n.actor, n.action, n.order))
            n = n.prev
        out.reverse()
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a history node is pickled through its state's _History")


class _History:
    """The last node of an episode, as the state holds it: shared by clones, pickled as the
    steps taken (which are replayed when read back, checking them again)."""

    __slots__ = ("node", "variant")

    def __init__(self, v: Variant, node: _Node) -> None:
        self.variant = v
        self.node = node

    def __deepcopy__(self, memo: dict[int, Any]) -> _History:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replay, (self.variant, tuple(self.node.steps())))


_ROOTS: dict[tuple[Any, ...], _Node] = {}


def _root(v: Variant) -> _Node:
    """The game before its first deal: one node per variant, shared by every episode."""
    got = _ROOTS.get(v.key)
    if got is None:
        if len(_ROOTS) > 256:
            _ROOTS.clear()
        got = _ROOTS[v.key] = _Node(
            None, -1, -1, (), v.model.new_game(v.rules, v.seating, v.dealer)
        )
    return got


def _replay(v: Variant, steps: tuple[tuple[int, int, tuple[int, ...]], ...]) -> _History:
    node = _root(v)
    for actor, action, order in steps:
        if actor < 0:
            state = v.model.deal(v.rules, node.state, order)
        else:
            state = v.model.apply(v.rules, node.state, v.codec.decode(action, actor))
        node = _Node(node, actor, action, order, state)
    return _History(v, node)


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------- what a seat sees


def _kind(iig: Any) -> str:
    """Which part of the view an observation type asks for."""
    private = iig.private_info
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
        return ALL if iig.public_info else "all-private"
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
        return PUBLIC_AND_OWN if iig.public_info else OWN
    return PUBLIC if iig.public_info else "nothing"


def seen(v: Variant, state: Any, seat: int, kind: str = PUBLIC_AND_OWN) -> dict[str, Any]:
    """The part of the seat's view an observation kind shows."""
    view = v.model.view(v.rules, state, seat)
    private = v.model.view_private
    if kind in (PUBLIC, "nothing"):
        view = {k: x for k, x in view.items() if k not in private}
    elif kind in (ALL, "all-private"):
        views = [
            view if q == seat else v.model.view(v.rules, state, q) for q in range(v.seating.players)
        ]
        for k in private:
            view[k] = [w[k] for w in views]
    if kind in (OWN, "all-private", "nothing"):
        view = {k: x for k, x in view.items() if k in private or k == "viewer"}
    return view


def _label(v: Variant, node: _Node) -> str:
    if node.actor < 0:
        return "deal"
    action = v.codec.decode(node.action, node.actor)
    return f"seat {node.actor} {_canon(v.model.action_to_json(action))}"


def history_string(v: Variant, node: _Node, seat: int, kind: str = PUBLIC_AND_OWN) -> str:
    """What a seat has seen since the game began: its first view whole, then each step's public
    action and what changed in its view. Two episodes give the same string exactly when the seat
    cannot tell them apart."""
    chain: list[_Node] = []
    n: _Node | None = node
    key = (seat, kind)
    while n is not None and key not in n.lines:
        chain.append(n)
        n = n.prev
    chain.reverse()
    before: dict[str, Any] | None = None
    if chain and chain[0].prev is not None:
        before = chain[0].prev.seen(v, seat, kind)
    for n in chain:
        now = n.seen(v, seat, kind)
        if before is None:
            n.lines[key] = _canon(now)
        else:
            diff = {k: x for k, x in now.items() if before.get(k) != x}
            n.lines[key] = f"{_label(v, n)} -> {_canon(diff)}"
        before = now
    # the whole string is kept on the last node asked about and handed on to its child, so that an
    # episode played forward costs one copy a step; another branch walks the lines again
    full = ("history", seat, kind)
    got: str | None = node.cache.get(full)
    if got is not None:
        return got
    prev = node.prev
    if prev is not None and full in prev.cache:
        got = prev.cache.pop(full) + "\n" + node.lines[key]
    else:
        lines = []
        n = node
        while n is not None:
            lines.append(n.lines[key])
            n = n.prev
        lines.append(f"{game_name(v.rulebook)} seat {seat}")
        lines.reverse()
        got = "\n".join(lines)
    node.cache[full] = got
    return got


class ArbitroObserver:
    """OpenSpiel's observer protocol (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, v: Variant, iig: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise OptionError(f"observation parameters are not supported; got {dict(params)}")
        self.variant = v
        self.kind = _kind(iig)
        self.recall = bool(iig.perfect_recall)
        self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = None
        self.dict: dict[str, Any] = {}
        if self.kind == PUBLIC_AND_OWN and not self.recall:
            self.tensor = np.zeros(v.layout.size, np.float32)
            self.dict = v.layout.views(self.tensor)

    def set_from(self, state: ArbitroState, player: int) -> None:
        if self.tensor is not None:
            node = state._history.node
            self.variant.layout.fill(node.seen(self.variant, player), self.dict)

    def string_from(self, state: ArbitroState, player: int) -> str:
        node = state._history.node
        if self.recall:
            return history_string(self.variant, node, player, self.kind)
        key = ("string", player, self.kind)
        got: str | None = node.cache.get(key)
        if got is None:
            got = node.cache[key] = _canon(node.seen(self.variant, player, self.kind))
        return got


# ---------------------------------------------------------------- the game and its states


class ArbitroGame(pyspiel.Game):  # type: ignore[misc]
    """One rulebook's game with its parameters applied; `register` makes one subclass per
    rulebook, setting `rulebook` and `game_type`."""

    rulebook: Rulebook
    game_type: Any

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        game_type = self.game_type
        v = variant_from_params(self.rulebook, params)
        n = v.seating.sides
        info = pyspiel.GameInfo(
            num_distinct_actions=v.codec.size,
            max_chance_outcomes=max(v.deck) + 1,
            num_players=v.seating.players,
            min_utility=-1.0 / (n - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=v.max_game_length,
        )
        super().__init__(game_type, info, dict(params))
        self.variant = v

    def new_initial_state(self) -> ArbitroState:
        return ArbitroState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> ArbitroObserver:
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return ArbitroObserver(self.variant, iig, params)


class ArbitroState(pyspiel.State):  # type: ignore[misc]
    """A moment of an episode: the model's state (through its history), the cards of the deal
    under way, the hands dealt so far, and why the episode ended ("" while it goes on)."""

    def __init__(self, game: ArbitroGame) -> None:
        super().__init__(game)
        v = game.variant
        self._variant = v
        self._history = _History(v, _root(v))
        self._dealt: tuple[int, ...] = ()
        self._hands = 0
        self._end = ""

    # the model's state and what the episode does next

    @property
    def model_state(self) -> Any:
        """The arbitro state (see `GameModel`); its JSON is ``model.state_to_json``."""
        return self._history.node.state

    @property
    def end_reason(self) -> str:
        """ "over" (the book's end), "max-hands", "no-legal-action", "rule-gap <clause>", or ""."""
        return self._end

    def current_player(self) -> int:
        if self._end:
            return int(pyspiel.PlayerId.TERMINAL)
        v = self._variant
        if v.model.phase(self.model_state) == "deal":
            return int(pyspiel.PlayerId.CHANCE)
        return v.model.to_move(self.model_state)

    def _legal_actions(self, player: int) -> list[int]:
        return self._history.node.legal(self._variant)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deck = self._variant.copies
        dealt = Counter(self._dealt)
        total = len(self._variant.deck) - len(self._dealt)
        return [(c, (n - dealt[c]) / total) for c, n in deck.items() if n > dealt[c]]

    def _apply_action(self, action: int) -> None:
        v = self._variant
        node = self._history.node
        if self.is_chance_node():
            if action not in dict(self.chance_outcomes()):
                raise MalformedInput(f"card {action!r} is not left to deal")
            self._dealt = (*self._dealt, int(action))
            if len(self._dealt) < len(v.deck):
                return
            order, self._dealt = self._dealt, ()
            self._hands += 1
            try:
                state = v.model.deal(v.rules, node.state, order)
            except RuleGap as gap:
                self._end = f"rule-gap {gap.clause}"
                return
            node = _Node(node, -1, -1, order, state)
        else:
            seat = v.model.to_move(node.state)
            state = v.model.apply(v.rules, node.state, v.codec.decode(int(action), seat))
            node = _Node(node, seat, int(action), (), state)
        self._history = _History(v, node)
        phase = v.model.phase(state)
        if phase == "over":
            self._end = "over"
        elif phase == "deal" and v.max_hands and self._hands >= v.max_hands:
            self._end = "max-hands"
        elif phase == "play" and not node.legal(v):
            self._end = "no-legal-action"

    def _action_to_string(self, player: int, action: int) -> str:
        v = self._variant
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {v.card_names[action]}"
        key = (player, action)
        got = v.action_strings.get(key)
        if got is None:
            got = v.action_strings[key] = _canon(
                v.model.action_to_json(v.codec.decode(action, player))
            )
        return got

    def is_terminal(self) -> bool:
        return bool(self._end)

    def winners(self) -> list[int]:
        """The sides that won: the book's winner, else every side on the highest total."""
        v = self._variant
        state = self.model_state
        if self._end == "over":
            w = v.model.winner(state)
            if w is not None:
                return [w]
        scores = v.model.game_scores(state)
        best = max(scores)
        return [s for s, x in enumerate(scores) if x == best]

    def returns(self) -> list[float]:
        if not self._end:
            return [0.0] * self._variant.seating.players
        return self._variant.utilities(self.winners())

    def __str__(self) -> str:
        v = self._variant
        node = self._history.node
        text: str | None = node.cache.get(("state",))
        if text is None:
            text = node.cache[("state",)] = _canon(v.model.state_to_json(node.state))
        dealing = " ".join(v.card_names[c] for c in self._dealt)
        return f"{text}\ndealing: {dealing}\nhands dealt: {self._hands}\nend: {self._end}"


# ---------------------------------------------------------------- registration


def _players_range(rb: Rulebook) -> tuple[int, int]:
    """The fewest and most players of any seating the book allows under any single reading."""
    model = model_for(rb.game)
    counts: set[int] = set()
    choices: list[dict[str, str | bool]] = [{}]
    for c in rb.clauses:
        if c.follows is None and len(c.readings) > 1:
            choices += [{c.key: label} for label in c.labels() if label != c.default]
    for options in choices:
        try:
            rules = rules_for(rb, options)
        except ArbitroError:
            continue
        counts.update(s.players for s in model.seatings(rules))
    return min(counts), max(counts)


def game_type(rb: Rulebook) -> Any:
    """The pyspiel GameType of a rulebook's game."""
    low, high = _players_range(rb)
    return pyspiel.GameType(
        short_name=game_name(rb.id),
        long_name=f"arbitro {rb.id}: {rb.title} ({rb.language})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**SEAT_PARAMS, **option_params(rb)},
        default_loadable=True,
    )


REGISTERED: dict[str, str] = {}
"""Rulebook id -> OpenSpiel short name, for every game registered in this process."""


def register(rulebook: str) -> str:
    """Register a rulebook's game with pyspiel (once); its short name."""
    if rulebook in REGISTERED:
        return REGISTERED[rulebook]
    rb = load_rulebook(rulebook)
    gt = game_type(rb)
    # a class, not a closure, is what pyspiel keeps: its registry outlives the interpreter, and a
    # class is only ever freed by the cycle collector, never by the registry's last reference
    cls = type(
        "ArbitroGame_" + rulebook.replace("-", "_"),
        (ArbitroGame,),
        {"rulebook": rb, "game_type": gt, "__module__": __name__},
    )
    pyspiel.register_game(gt, cls)
    REGISTERED[rulebook] = gt.short_name
    return str(gt.short_name)


def register_all() -> dict[str, str]:
    """Register every shipped rulebook; rulebook id -> short name."""
    for rulebook in rulebook_ids():
        register(rulebook)
    return dict(REGISTERED)


def load(rulebook: str, **params: Any) -> Any:
    """`pyspiel.load_game` for a rulebook id, registering it first: ``load("escoba-es",
    players=4, layout="teams")``."""
    return pyspiel.load_game(register(rulebook), params)
