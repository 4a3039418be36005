"""Rules that record which fields are read: what a proof's result depends on.

Shared by the runner and the searches of both families, so that neither family's proofs import
the runner (which imports every family's properties).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class Recorder:
    """The rules, recording which fields are read (and the values read)."""

    def __init__(self, rules: Any) -> None:
        object.__setattr__(self, "_rules", rules)
        object.__setattr__(self, "read", {})

    def __getattr__(self, name: str) -> Any:
        rules = object.__getattribute__(self, "_rules")
        value = getattr(rules, name)
        read = object.__getattribute__(self, "read")
        if name == "penalty":
            read["penalties"] = rules.penalties
        elif not callable(value):
            read[name] = value
        return value


_ONCE: dict[tuple[Any, ...], tuple[Any, dict[str, Any]]] = {}


def once(fn: Callable[..., T], rules: Any, *args: Hashable) -> T:
    """`fn(rules, *args)`, once per process for the same rules and arguments, for a pure `fn`
    whose result is never changed in place. The rules may be a `Recorder` (the runner's, noting
    which fields a property reads): the fields the first call read are read again through it, so
    a property that finds the answer here depends on them as much as the one that computed it."""
    base = object.__getattribute__(rules, "_rules") if isinstance(rules, Recorder) else rules
    key = (fn.__module__, fn.__qualname__, base, *args)
    got = _ONCE.get(key)
    if got is None:
        rec = Recorder(base)
        got = (fn(rec, *args), dict(object.__getattribute__(rec, "read")))
        if len(_ONCE) >= 1024:  # a long-lived process keeps a bounded memory
            _ONCE.clear()
        _ONCE[key] = got
    for name in got[1]:
        getattr(rules, name)
    return got[0]
