"""Which cases of a test swept over many rulebooks or configurations a developer's run plays.

A quick run (`uv run pytest`) plays the first case of each group (of each rulebook, say, or of
the whole sweep) and leaves the others to the runs that take the slow tests (CI, `-m slow`,
`-m ""`): the same code on the other books and configurations, which CI still plays on every
change.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

import pytest

_ParameterSet = type(pytest.param(None))


def first_of_each(
    cases: Iterable[Any],
    group: Callable[[Any], Hashable] | None = None,
    *,
    row: bool = False,
) -> list[Any]:
    """`cases` with every case after the first of its group marked slow. `group` maps a case's
    value (its row of values, with `row`) to its group; without it the whole sweep is one group.
    `row`: each case is a tuple of the values of several parameters (a parametrize over several
    names), not one value. A case that is already a `pytest.param` keeps its marks and id."""
    seen: set[Hashable] = set()
    out: list[Any] = []
    for case in cases:
        if isinstance(case, _ParameterSet):
            values = tuple(case.values)
        else:
            values = tuple(case) if row else (case,)
        key = group(values if row else values[0]) if group is not None else ()
        if key not in seen:
            seen.add(key)
            out.append(case)
        elif isinstance(case, _ParameterSet):
            out.append(pytest.param(*values, marks=[*case.marks, pytest.mark.slow], id=case.id))
        else:
            out.append(pytest.param(*values, marks=pytest.mark.slow))
    return out
