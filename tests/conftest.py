from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = Path(os.environ.get("ARBITRO_RULEBOOKS", ROOT.parent / "shared" / "rulebooks"))

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def rulebooks_dir() -> Path:
    if not RULEBOOKS.is_dir():
        pytest.skip(f"rulebook texts not found at {RULEBOOKS}")
    return RULEBOOKS
