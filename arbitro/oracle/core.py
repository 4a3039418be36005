"""The oracle: what other implementations ask arbitro, as a Python API (`arbitro.Oracle`).

Every operation takes and returns JSON-ready values (states, actions and card names as in
docs/protocol.md), so the server is a thin loop around this class. Everything that comes in is
checked before a rule looks at it: a state against its published schema, then its shape (lengths
that follow the seating, seats in range, the turn's bookkeeping, melds in canonical order), then
the whole-state checks (cards conserved, meld limits, the phase agreeing with the totals). A
state that fails is refused — MalformedInput naming the field, or InconsistentState naming the
clauses and what differs — by every operation but `check_state`, whose job is to list them.

Errors are typed: MalformedInput (InconsistentState), IllegalAction (Refused, with every refusing
clause), OptionError, UnknownRulebook, RuleGap; never a bare IndexError, KeyError or TypeError.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar, TypeVarTuple

from arbitro.games import choose_seating, model_for
from arbitro.model.errors import (
    ArbitroError,
    IllegalAction,
    MalformedInput,
    OptionError,
    UnknownRulebook,
)
from arbitro.model.schema import Options
from arbitro.model.spec import load_rulebook, rulebook_ids
from arbitro.oracle import states
from arbitro.oracle.jsonio import shorten
from arbitro.oracle.notation import move_text, position_line, read_move, read_position_line
from arbitro.oracle.protocol import validate
from arbitro.oracle.states import HIDDEN, InconsistentState
from arbitro.oracle.variants import describe as describe_overrides
from arbitro.oracle.variants import normalise, rules_with


class Refused(IllegalAction):
    """An illegal action, with every clause that refuses it (`refusals`, the most specific first;
    the first is the one this error carries)."""

    def __init__(
        self,
        first: IllegalAction,
        refusals: Sequence[IllegalAction],
        move: str | None = None,
        position: str | None = None,
    ) -> None:
        super().__init__(first.action, first.clause, first.reason, first.penalty)
        self.refusals = tuple(refusals) or (first,)
        self.move = move
        """The refused action in move notation (its seat first), and the position line of the
        state it was tried in: a bug report is these two lines."""
        self.position_line = position

    def __str__(self) -> str:
        base = super().__str__()
        return f"{self.move} refused: {base}" if self.move else base


T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def refusal_json(e: IllegalAction) -> dict[str, Any]:
    out: dict[str, Any] = {"clause": e.clause, "reason": e.reason}
    if e.penalty is not None:
        out["penalty"] = e.penalty
    return out


def _read(what: str, read: Callable[[*Ts], T], *args: *Ts) -> T:
    """A model's reader on input already checked against the schema; should it still trip over
    the input, the error is the input's (typed), not a crash."""
    try:
        return read(*args)
    except ArbitroError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        raise MalformedInput(
            f"{what}: cannot be read ({type(e).__name__}: {shorten(str(e), 120)})"
        ) from None


KNOWN_STATES = 512
"""Checked states remembered by their rules, seating and canonical text (the most recently
used), shared by the oracles of one rulebook and options (their rules are one object)."""
_KNOWN: OrderedDict[tuple[int, Any, str], tuple[Any, Hashable]] = OrderedDict()


def _key(data: Mapping[str, Any]) -> str | None:
    """A state's canonical text, or None when it is not plain JSON."""
    try:
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


class Oracle:
    """A rulebook with its options, overrides and seating, answering about states and actions."""

    def __init__(
        self,
        rulebook: str,
        options: Options | None = None,
        players: int | None = None,
        teams: bool = False,
        layout: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        config: str | None = None,
    ) -> None:
        if not isinstance(rulebook, str):
            # load_rulebook refuses every id that is not registered (an id is never a path)
            raise UnknownRulebook(shorten(repr(rulebook), 60), rulebook_ids())
        if options is not None and not isinstance(options, Mapping):
            raise OptionError("options: an object of clause key → reading label or true/false")
        if players is not None and (type(players) is not int or not 1 <= players <= 64):
            raise OptionError(f"players: a number of players from 1 to 64, got {players!r}")
        if not isinstance(teams, bool):
            raise OptionError(f"teams: true or false, got {shorten(repr(teams), 40)}")
        if layout is not None and not isinstance(layout, str):
            raise OptionError("layout: a layout name of the rulebook")
        self.book = load_rulebook(rulebook)
        self.options = dict(options or {})
        for key, value in self.options.items():
            if not isinstance(value, (str, bool)):
                raise OptionError(f"option {key!r}: a reading label or true/false")
        self.overrides = normalise(self.book, overrides)
        self.config = config
        self.model = model_for(self.book.game)
        if config is not None:
            # a small configuration (spec/configs/) brings its own rules and its one seating
            small = _small_config(self.book.id, config, self.options, self.overrides)
            self.rules: Any = small.rules
            self.seating = small.seating
        else:
            self.rules = rules_with(self.book, self.options, self.overrides)
            self.seating = choose_seating(self.model, self.rules, players, teams, layout)
        self.game = states.game_for(self.model)
        self.cache: dict[Any, Any] = {}
        self._order = {
            self.model.card_name(c): i for i, c in enumerate(sorted(set(self.deck_cards())))
        }

    # ------------------------------------------------------------ helpers for the states module

    def deck_cards(self) -> tuple[int, ...]:
        return tuple(self.model.deck(self.rules, self.seating))

    def card_key(self, name: str) -> int:
        """A card's place in card order (docs/protocol.md)."""
        try:
            return self._order[name]
        except KeyError:
            return len(self._order) + self.model.parse_card(name)

    # ------------------------------------------------------------ reading what comes in

    def describe(self) -> dict[str, Any]:
        """The rulebook, options, overrides and seating this oracle answers for."""
        out = {
            "rulebook": self.book.id,
            "game": self.book.game,
            "options": self.options,
            "overrides": self.overrides,
            "players": self.seating.players,
            "sides": self.seating.sides,
            "layout": self.seating.layout,
            "deck": [self.model.card_name(c) for c in self.deck_cards()],
        }
        if self.overrides:
            out["note"] = describe_overrides(self.overrides)
        return out

    def read_state(self, data: Any, checked: bool = True) -> Hashable:
        """The model's state for a state's JSON or its position line, refused unless it is one
        play can reach (with `checked`; without, only its form is checked)."""
        if isinstance(data, str):
            data = read_position_line(data)
        if not isinstance(data, Mapping):
            raise MalformedInput("state: expected a state object (see docs/protocol.md)")
        key = _key(data)
        if key is not None:
            known = _KNOWN.get((id(self.rules), self.seating, key))
            if known is not None and known[0] is self.rules:
                _KNOWN.move_to_end((id(self.rules), self.seating, key))
                return known[1]
        data = dict(data)
        if data.get("game") != self.game.name:
            raise MalformedInput(
                f"state.game: {self.game.name!r} for {self.book.id}, got "
                f"{shorten(repr(data.get('game')), 40)}"
            )
        validate(data, self.game.state_schema, "state")
        self.game.shape(self, data)
        state: Hashable = _read("state", self.model.state_from_json, self.rules, data)
        self.game.check_read(self, data, state)
        if checked:
            broken = self.model.violations(self.rules, state)
            if broken:
                raise InconsistentState(broken, self._inconsistency(broken, state))
            if key is not None:
                self._remember(key, state)
        return state

    def _inconsistency(self, broken: Sequence[str], state: Hashable) -> str:
        """What a state breaking these clauses gets wrong, in words: the cards that differ from
        the deck when the deck's clause is broken, the totals when the game's end is."""
        parts = []
        pack = states.pack_clause(self)
        if pack in broken:
            parts.append(
                states.conservation(self, self.game.cards(self.model.state_to_json(state)))
            )
        ends = {
            self.rules.cid(k) for k in ("target_score", "target_tie") if k in self.rules.clause_ids
        }
        if ends & set(broken):
            totals = list(self.model.game_scores(state))
            parts.append(
                f"the totals {totals} against the target {self.rules.target_score} do not agree"
                f" with phase {self.model.phase(state)!r} (a side that has won ends the game:"
                " no hand follows)"
            )
        return "; ".join(p for p in parts if p)

    def _remember(self, key: str, state: Hashable) -> None:
        """Keep a checked state under its canonical text, so that reading it again (a client
        sends back the state it was given) costs one dump, and the models' caches, keyed by the
        identity of a state's parts, see the same objects. The entry keeps the rules alive, so
        their id is not reused meanwhile."""
        _KNOWN[(id(self.rules), self.seating, key)] = (self.rules, state)
        if len(_KNOWN) > KNOWN_STATES:
            _KNOWN.popitem(last=False)

    def read_action(self, state: Hashable, data: Any) -> Hashable:
        """The model's action for an action's JSON or its move (melds may be named by their
        cards)."""
        if isinstance(data, str):
            mover = self.model.to_move(state) if self.model.phase(state) == "play" else None
            data = read_move(data, self.game.name, mover)
        if not isinstance(data, Mapping):
            raise MalformedInput("action: expected an action object (see docs/protocol.md)")
        validate(data, self.game.action_schema, "action")
        if type(data.get("meld")) is list or type(data.get("other")) is list:
            data = self.game.resolve_action(self.model.state_to_json(state), dict(data))
        seat = data.get("seat")
        if type(seat) is int and seat >= self.seating.players:
            raise MalformedInput(
                f"action.seat: a seat from 0 to {self.seating.players - 1}, got {seat}"
            )
        action: Hashable = _read("action", self.model.action_from_json, data)
        return action

    def position_line(self, state: Hashable) -> str:
        """A state read by this oracle as its position line (docs/protocol.md, notation)."""
        return position_line(self.model.state_to_json(state))

    def write(self, state: Hashable) -> dict[str, Any]:
        """A state the models produced from checked states, as JSON (and remembered)."""
        out = self.model.state_to_json(state)
        key = _key(out)
        if key is not None:
            self._remember(key, state)
        return out

    # ------------------------------------------------------------ the operations

    def new_game(
        self, dealer: int = 0, scores: Sequence[int] | None = None, hand: int = 0
    ) -> dict[str, Any]:
        """A game before its first deal; or, with `scores` and `hand`, before hand `hand` of a
        game whose totals are `scores` (a transcript or a session may start there)."""
        n = self.seating.players
        if type(dealer) is not int or not 0 <= dealer < n:
            raise MalformedInput(f"dealer: expected a seat from 0 to {n - 1}, got {dealer!r}")
        desc: dict[str, Any] = {"phase": "deal", "dealer": dealer, "hand": hand}
        if scores is not None:
            desc["scores"] = list(scores) if isinstance(scores, (list, tuple)) else scores
        return self.position(desc)

    def deal(
        self,
        state: Mapping[str, Any],
        order: Sequence[str] | None = None,
        dealt: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Start the next hand of `state` from a deck order of card names (top of the stock
        first), or from the dealt hands, table or upcard and stock (`dealt`, see deck_order)."""
        s = self.read_state(state)
        if (order is None) == (dealt is None):
            raise MalformedInput(
                "deal: give either order (a deck order) or dealt (the dealt cards)"
            )
        if dealt is not None:
            order = self.deck_order(state, dealt)
            try:
                cards = self.parse_order(order)
            except MalformedInput as e:
                raise MalformedInput(f"dealt: the cards given are not the deck's; {e}") from None
        else:
            cards = self.parse_order(order)
        if self.model.phase(s) != "deal":
            raise MalformedInput(f"state.phase: 'deal' to deal a hand, got {self.model.phase(s)!r}")
        new = self.model.deal(self.rules, s, cards)
        got = self.write(new)
        if dealt is not None:
            self._same_deal(got, dealt)
        return got

    def parse_order(self, order: Any) -> list[int]:
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            raise MalformedInput("order: expected an array of card names")
        cards = []
        for i, c in enumerate(order):
            try:
                cards.append(self.model.parse_card(c))
            except MalformedInput as e:
                raise MalformedInput(f"order[{i}]: {e}") from None
        deck = sorted(self.deck_cards())
        if sorted(cards) != deck:
            have = Counter(order)
            want = Counter(self.model.card_name(c) for c in deck)
            raise MalformedInput(
                f"order: a permutation of the {len(deck)}-card deck of {self.book.id}; "
                + states.conservation(self, have)
                + ("" if have - want or want - have else f" (got {len(order)} cards)")
            )
        return cards

    def deck_order(self, state: Mapping[str, Any], dealt: Mapping[str, Any]) -> list[str]:
        """The deck order that deals `dealt` from `state` (a state before a deal): the hands as
        they stand once dealt, the cards dealt to the table (Escoba) or the upcard and the cards
        that covered it (the pile, bottom first), the red threes each seat laid out, the stock."""
        s = self.read_state(state)
        if self.model.phase(s) != "deal":
            raise MalformedInput("state.phase: 'deal' to deal a hand")
        validate(dealt, f"{self.game.name}-dealt", "dealt")
        before = self.write(s)
        return self.game.dealt_order(self, before, dealt)

    def _same_deal(self, got: dict[str, Any], dealt: Mapping[str, Any]) -> None:
        """The deal made agrees with the cards said to be dealt, or the difference is named."""
        for seat, hand in enumerate(dealt.get("hands", [])):
            if Counter(hand) != Counter(got["hands"][seat]):
                raise MalformedInput(
                    f"dealt.hands[{seat}]: dealing as the rules do gives seat {seat} "
                    f"{' '.join(got['hands'][seat])}"
                )
        for key in ("pile", "stock"):
            if key in dealt and list(dealt[key]) != got.get(key):
                raise MalformedInput(
                    f"dealt.{key}: dealing as the rules do gives {shorten(' '.join(got[key]), 120)}"
                    " (see docs/protocol.md, dealing)"
                )

    def position(self, description: Mapping[str, Any] | str) -> dict[str, Any]:
        """A full state built from what an engine knows (docs/protocol.md, positions): hands,
        table or melds by their cards, piles, scores, whose turn, dealer, hand number; the
        bookkeeping filled in, the result in canonical form, refused if inconsistent."""
        if isinstance(description, str):
            return self.write(self.read_state(description))
        validate(description, f"{self.game.name}-position", "position")
        built = _read("position", self.game.build, self, description)
        return self.write(self.read_state(built))

    def legal_actions(self, state: Mapping[str, Any] | str) -> list[dict[str, Any]]:
        """Every legal action in canonical order."""
        s = self.read_state(state)
        return [self.model.action_to_json(a) for a in self.model.legal_actions(self.rules, s)]

    def apply(
        self, state: Mapping[str, Any] | str, action: Mapping[str, Any] | str
    ) -> dict[str, Any]:
        """The next state; Refused (an IllegalAction with every refusing clause) when the rules
        forbid the action."""
        s = self.read_state(state)
        return self.write(self.apply_to(s, action))

    def apply_to(self, s: Hashable, action: Mapping[str, Any] | str) -> Hashable:
        """`apply` on a state already read."""
        a = self.read_action(s, action)
        self._playing(s)
        try:
            after: Hashable = self.model.apply(self.rules, s, a)
            return after
        except IllegalAction as e:
            try:
                move: str | None = move_text(self.model.action_to_json(a))
            except (KeyError, TypeError, ValueError):
                move = None
            line = position_line(self.model.state_to_json(s))
            raise Refused(e, self._refusals(s, a, e), move, line) from None

    def _playing(self, s: Hashable) -> None:
        phase = self.model.phase(s)
        if phase == "over":
            clause = self.rules.cid("target_score")
            raise IllegalAction(None, clause, f"the game is over: {self._ended(s)}", None)
        if phase != "play":
            raise MalformedInput("state.phase: no action is played before a hand is dealt")

    def _ended(self, s: Hashable) -> str:
        totals = self.model.game_scores(s)
        winner = self.model.winner(s)
        who = f"side {winner} won" if winner is not None else "no side won"
        return f"{who} with totals {list(totals)} (target {self.rules.target_score})"

    def _refusals(
        self, s: Hashable, a: Hashable, first: IllegalAction
    ) -> tuple[IllegalAction, ...]:
        try:
            found = tuple(self.model.refusals(self.rules, s, a))
        except ArbitroError:
            found = ()
        if not found or found[0].clause != first.clause:
            found = (first, *(r for r in found if r.clause != first.clause))
        return found

    def explain(
        self, state: Mapping[str, Any] | str, action: Mapping[str, Any] | str
    ) -> dict[str, Any]:
        """Whether an action is legal; if not, every clause that refuses it, the most specific
        first, with the book's price for the act where it names one."""
        s = self.read_state(state)
        try:
            self.apply_to(s, action)
        except Refused as e:
            return {
                "legal": False,
                **refusal_json(e),
                "penalty": e.penalty,
                "refusals": [refusal_json(r) for r in e.refusals],
            }
        except IllegalAction as e:
            return {
                "legal": False,
                **refusal_json(e),
                "penalty": e.penalty,
                "refusals": [refusal_json(e)],
            }
        return {"legal": True}

    def score(self, state: Mapping[str, Any] | str) -> dict[str, Any]:
        """The last finished hand's scores by category, the running totals and the winner."""
        return self.score_of(self.read_state(state))

    def score_of(self, s: Hashable) -> dict[str, Any]:
        result = self.model.last_hand(s)
        return {
            "phase": self.model.phase(s),
            "hand": None
            if result is None
            else {
                "reason": result.reason,
                "scores": list(result.scores),
                "categories": [dict(c) for c in result.categories],
            },
            "totals": list(self.model.game_scores(s)),
            "winner": self.model.winner(s),
        }

    def check_state(self, state: Mapping[str, Any]) -> list[str]:
        """The clause ids the state breaks (card conservation, wild limits, meld sizes…); the
        state's form must be right (MalformedInput otherwise)."""
        return self.model.violations(self.rules, self.read_state(state, checked=False))

    def view(self, state: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """What seat `seat` may know of the state: the model's view of the seat
        (GameModel.view) in the state's shape, every card it cannot see written "??"."""
        s = self.read_state(state)
        n = self.seating.players
        if type(seat) is not int or not 0 <= seat < n:
            raise MalformedInput(f"seat: a seat from 0 to {n - 1}, got {shorten(repr(seat), 40)}")
        seen = self.model.view(self.rules, s, seat)
        return self.game.view(self, seen, list(self.write(s)))

    def from_view(self, view: Mapping[str, Any], mover: bool = False) -> dict[str, Any]:
        """A state consistent with a view: the hidden cards ("??") are the cards nobody is shown,
        in card order. The legal actions of the seat the view is for are the same for every such
        state (they depend on its own hand, the table and the sizes of the rest). With `mover`,
        the view must be the seat to move's own (MalformedInput otherwise): only that seat's
        actions follow from what it sees."""
        if not isinstance(view, Mapping):
            raise MalformedInput("view: expected a view object (see docs/protocol.md)")
        if mover:
            self.check_mover_view(view)
        probe = dict(view)
        names = [self.model.card_name(c) for c in sorted(set(self.deck_cards()))]
        form = _unhide(probe, names)
        validate(form, self.game.state_schema, "view")
        self.game.shape(self, form)
        return self.write(self.read_state(self.game.complete(self, probe)))

    def check_mover_view(self, view: Mapping[str, Any]) -> None:
        """MalformedInput unless `view` is the view of the seat to move: its hand (and, in Samba
        and Canasta, the rest of a pile it took to open) shown. Another seat's view does not
        hold the mover's cards, so what the mover may do cannot be answered from it."""
        seat = self.game.to_move(dict(view))
        hands = view.get("hands")
        if seat is None or not isinstance(hands, list) or not 0 <= seat < len(hands):
            return  # nobody to move: the form checks say what is wrong, if anything
        hidden = isinstance(hands[seat], list) and HIDDEN in hands[seat]
        for private in self.model.view_private:  # beside the hand: a pile taken to open
            held = view.get(private)
            if private != "hand" and view.get("seat") == seat and isinstance(held, list):
                hidden = hidden or HIDDEN in held
        if hidden:
            raise MalformedInput(
                f"view: seat {seat} is to move, but this view hides its hand: it is another"
                f" seat's view; legal and explain answer only from the view of the seat to move"
                f" (seat {seat}), or from the whole state"
            )


def _small_config(
    rulebook: str, name: str, options: Mapping[str, Any], overrides: Mapping[str, Any]
) -> Any:
    """The named small configuration of `rulebook` (a name, never a path: a transcript names
    it), agreeing with the options given; OptionError otherwise."""
    from arbitro.proofs.explore_config import config_names, load_config

    known = config_names()
    if not isinstance(name, str) or name not in known:
        raise OptionError(f"no configuration {shorten(repr(name), 60)}; known: {', '.join(known)}")
    small = load_config(name)
    if small.rulebook != rulebook:
        raise OptionError(f"configuration {name!r} derives from {small.rulebook}, not {rulebook}")
    if overrides:
        raise OptionError(f"configuration {name!r}: overrides cannot be added to a configuration")
    if dict(options) != dict(small.options):
        raise OptionError(
            f"configuration {name!r} plays the options {dict(small.options)}, not {dict(options)}"
        )
    return small


def _unhide(d: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """A copy of a view with its hidden cards written as card names (distinct within a list,
    as a list of Escoba cards must be), to check the view's form against the state schema."""

    def fill(cards: Any) -> Any:
        if not isinstance(cards, list):
            return cards
        spare = (c for c in names if c not in cards)
        return [next(spare, names[0]) if c == HIDDEN else c for c in cards]

    out = dict(d)
    for key in ("hands", "piles"):  # per seat, per side
        if isinstance(d.get(key), list):
            out[key] = [fill(h) for h in d[key]]
    for key in ("stock", "pile", "held"):
        if key in d:
            out[key] = fill(d.get(key))
    return out
