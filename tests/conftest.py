from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

import arbitro
from tests.support.browser import DevTools

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = Path(os.environ.get("ARBITRO_RULEBOOKS", ROOT.parent / "shared" / "rulebooks"))

if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    # where no bytecode is written beside the sources, every process the tests start (the
    # workers, each command run as a user runs it) would compile every module it imports again,
    # a third of a second of CPU or more each: its bytecode is kept in a cache folder instead,
    # apart from the sources (Python checks each cached file against its source before use)
    _BYTECODE = str(ROOT / ".pytest_cache" / "bytecode")
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _BYTECODE
    sys.dont_write_bytecode = False

if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("COLUMNS") == "80":
    # pytest-xdist's workers start with COLUMNS=80; piped output is read at its documented width
    # (100 columns), as in a run without workers
    del os.environ["COLUMNS"]

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


KNOWN_FAILURES: dict[str, str] = {}
"""Tests that fail on main for a reason recorded here and in an open issue: run, reported as
xfail, and reported as XPASS the day they pass."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        reason = KNOWN_FAILURES.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=False))


def pytest_configure(config: pytest.Config) -> None:
    # a run on a contributor's machine leaves out the tests marked slow; CI (which sets $CI) runs
    # them, and so does any run that chooses its own markers (-m slow, or -m "" for everything)
    if not os.environ.get("CI") and not config.option.markexpr:
        config.option.markexpr = "not slow"


@pytest.fixture(scope="session")
def rulebooks_dir() -> Path:
    if not RULEBOOKS.is_dir():
        pytest.skip(f"rulebook texts not found at {RULEBOOKS}")
    return RULEBOOKS


@pytest.fixture
def source_module() -> Iterator[Callable[[str], ModuleType]]:
    """Loads a fresh copy of an engine module run from its source, whichever engine runs.

    A test that breaks one function on purpose patches it in this copy: compiled code calls the
    functions of its own build directly, so a patch of the compiled module would not be seen.
    The copy's own calls go through its globals, and it uses the other modules as they are.
    """
    loaded: list[str] = []

    def load(name: str) -> ModuleType:
        package = Path(arbitro.__file__).resolve().parent
        source = package.joinpath(*name.split(".")[1:]).with_suffix(".py")
        alias = f"{name}__source_copy"
        spec = importlib.util.spec_from_file_location(alias, source)
        assert spec is not None and spec.loader is not None, source
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module  # dataclasses look their module up while being defined
        loaded.append(alias)
        spec.loader.exec_module(module)
        return module

    yield load
    for alias in loaded:
        sys.modules.pop(alias, None)


@pytest.fixture(scope="module")
def browser() -> Iterator[DevTools]:
    """Headless Chromium, one per test module that opens pages."""
    b = DevTools()
    yield b
    b.close()
