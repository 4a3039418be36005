"""The clauses an action used: every rule value read while deciding what it does and whether it
is allowed.

`clauses_used` plays the action through its rule (the same code `apply` runs) with the rules
behind a reader that notes each field read, on per-rules tables of its own whose remembered
answers start empty, so that no answer worked out earlier hides a read. A value the rules fixed
earlier and the state carries (the opening minimum fixed at the deal, the replacements owed for
dealt red threes, the rest of a pile held until the opening) is noted where the rule consults it
(`Tables.consult`). An action refused by a clause also names that clause; one out of turn names
only *:play-direction. The answer over-approximates "decided": a clause read is a clause whose
value could have changed the outcome, and the tests check the converse, that changing the
value of a clause not named never changes the outcome.
"""

from __future__ import annotations

from typing import Any, cast

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import dealing, engine
from arbitro.model.rummy.refusal import Refusal
from arbitro.model.rummy.state import State
from arbitro.model.rummy.tables import RULE_FIELDS, Tables, tables
from arbitro.model.schema import RummyRules, schema_keys

_CLAUSES = frozenset(schema_keys("samba"))

_DERIVED: dict[str, tuple[str, ...]] = {
    "points": ("card_points",),
    "frozen_by": ("frozen_by",),
    "blocked_by": ("blocked_by_top",),
    "cover": ("upcard_cover",),
    "seq_pos": ("sequence_ranks",),
    "seq_rank": ("sequence_ranks",),
    "seq_bit": ("sequences", "sequence_ranks"),
    "set_lay": ("set_min", "set_start_min_naturals"),
    "wild_cap": ("wild_cap",),
    "completed": ("completed_size",),
}
"""The clauses each field of `Tables` is computed from; each of its `RULE_FIELDS` is the clause of
that name."""


class _Reader:
    """RummyRules as the rule modules see them while tracing: each clause field read is noted."""

    __slots__ = ("_rules", "_seen")

    def __init__(self, rules: RummyRules, seen: set[str]) -> None:
        self._rules = rules
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        if name in _CLAUSES:
            self._seen.add(name)
        return getattr(self._rules, name)


def _noting(name: str, sources: tuple[str, ...]) -> property:
    """A property reading the field `name` of `Tables` that first notes `sources`."""

    def get(self: _Traced) -> Any:
        self._seen.update(sources)
        return getattr(super(_Traced, self), name)

    return property(get)


class _Traced(Tables):
    """Tables whose derived fields and copied rules fields note the clauses behind them when read
    (each a property of `Tables`, overridden here: the compiled engine calls the override), and
    whose rules are a `_Reader`."""

    _seen: set[str]
    _reader: RummyRules

    @property
    def rules(self) -> RummyRules:
        return self._reader

    def consult(self, *keys: str) -> None:
        self._seen.update(keys)

    for _name, _sources in _DERIVED.items():
        locals()[_name] = _noting(_name, _sources)
    for _name in RULE_FIELDS:
        locals()[_name] = _noting(_name, (_name,))
    del _name, _sources


def traced_tables(rules: RummyRules, seen: set[str]) -> Tables:
    """Tables for `rules` that note in `seen` every clause read through them, with empty
    remembered answers."""
    base = tables(rules)
    t = _Traced(
        rules,
        base.points,
        base.frozen_by,
        base.blocked_by,
        base.cover,
        base.seq_pos,
        base.seq_rank,
        base.set_lay,
        base.wild_cap,
        base.completed,
        base.nat_rank,
        base.seq_bit,
    )
    t._seen = seen
    t._reader = cast(RummyRules, _Reader(rules, seen))
    return t


def clauses_used(rules: RummyRules, state: State, action: object) -> frozenset[str]:
    """The ids of the clauses whose values decided what `action` does in `state` or whether it
    is allowed; MalformedInput for a malformed action or state."""
    seen: set[str] = set()
    if state.phase == "deal":
        # the protocol's action in phase deal is a deck order: the deal is traced like a move
        if not isinstance(action, (tuple, list)):
            raise MalformedInput("in phase 'deal' the action is a deck order (card numbers)")
        dealing.deal_with(
            traced_tables(rules, seen), cast(RummyRules, _Reader(rules, seen)), state, action
        )
        return frozenset(rules.cid(k) for k in seen if k in _CLAUSES)
    a = engine.well_formed(state, action)
    if a.seat != state.to_move():
        return frozenset({rules.cid("play_direction")})
    try:
        engine.transition(traced_tables(rules, seen), state, a)
    except Refusal as e:
        seen.add(e.key)
    return frozenset(rules.cid(k) for k in seen if k in _CLAUSES)
