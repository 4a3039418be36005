"""Rules that record which fields are read: what a proof's result depends on.

Shared by the runner and the searches of both families, so that neither family's proofs import
the runner (which imports every family's properties).
"""

from __future__ import annotations

from typing import Any


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
