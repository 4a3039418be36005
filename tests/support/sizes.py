"""How many samples a sampling test draws: fewer in a developer's run, the full count in CI.

A test that checks a property on random cases checks the same property on fewer of them; CI
(which loads the larger Hypothesis profile, tests/conftest.py) draws them all.
"""

from __future__ import annotations

from hypothesis import settings


def ci_profile() -> bool:
    """Whether the run is CI's: the profile conftest loads when $CI is set."""
    return settings.default.max_examples >= 200


def sized(dev: int, ci: int) -> int:
    """`ci` in CI's run, `dev` in a developer's."""
    return ci if ci_profile() else dev
