"""The compiled engine: the model's modules built by mypyc, used in place of their source.

The build (hatch_build.py, run by `uv sync` and by building the wheel) puts in
``arbitro/_compiled/`` one extension module per compiled source file and a manifest with each
source file's SHA-256. `install` puts a finder first on ``sys.meta_path`` that loads those
extension modules for their names, and does so only when the whole build is usable:

- ``ARBITRO_NATIVE`` is not ``0`` (``ARBITRO_NATIVE=0`` asks for the pure-Python engine);
- the manifest is there and was built for this interpreter (its extension suffix);
- every compiled module's source file is, byte for byte, the one it was compiled from: a checkout
  edited since the build runs its source, never stale compiled code;
- none of those modules is imported yet.

Otherwise nothing changes and the engine runs from source. The compiled and the source engine
are the same code, so they play the same games; tests/test_native.py plays both and compares.
`status` says which one runs and why.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

ENV = "ARBITRO_NATIVE"
"""Set to ``0`` to run the engine from source even where a compiled build is installed."""
FOLDER = "_compiled"
"""The build's folder inside the `arbitro` package."""
PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Status:
    """Whether the compiled engine runs, why (or why not), and which modules it replaces."""

    compiled: bool
    reason: str
    modules: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.compiled:
            return f"compiled engine ({len(self.modules)} modules built by mypyc)"
        return f"pure-Python engine ({self.reason})"


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the compiled build's modules, by full name, in the build's folder."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def check(
    package: Path = PACKAGE, environ: dict[str, str] | None = None
) -> tuple[Status, dict[str, Path]]:
    """Whether the build under ``package`` is usable, and the file of each module it provides."""
    env = os.environ if environ is None else environ
    if env.get(ENV, "1") == "0":
        return Status(False, f"{ENV}=0"), {}
    folder = package / FOLDER
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file():
        return Status(False, _failure_note(package) or "no compiled build installed"), {}
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        suffix = manifest["ext_suffix"]
        shared = manifest["shared"]
        modules = manifest["modules"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return Status(False, f"the build's manifest is unreadable: {e}"), {}
    if suffix != sysconfig.get_config_var("EXT_SUFFIX"):
        why = _failure_note(package) or f"the build is for another interpreter ({suffix})"
        return Status(False, why), {}
    files = {shared["name"]: folder / shared["file"]}
    for name, entry in sorted(modules.items()):
        source = package / entry["source"]
        try:
            now = hashlib.sha256(source.read_bytes()).hexdigest()
        except OSError:
            return Status(False, f"{entry['source']} is missing"), {}
        if now != entry["sha256"]:
            why = _failure_note(package) or f"{entry['source']} changed since the build"
            return Status(False, why), {}
        files[name] = folder / entry["file"]
    missing = [f.name for f in files.values() if not f.is_file()]
    if missing:
        return Status(False, f"the build lacks {missing[0]}"), {}
    return Status(True, "built from this source", tuple(sorted(modules))), files


def _failure_note(package: Path) -> str:
    """Why the last build failed, if the build left a note (see hatch_build.py)."""
    try:
        return (package / "_compiled-failed.txt").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


_STATUS: Status | None = None


def install() -> Status:
    """Uses the compiled build from now on if it is usable (see the module's text); idempotent."""
    global _STATUS
    if _STATUS is not None:
        return _STATUS
    status, files = check()
    if status.compiled:
        early = sorted(n for n in files if n in sys.modules)
        if early:
            status = Status(False, f"{early[0]} was imported before arbitro")
        else:
            sys.meta_path.insert(0, _Finder(files))
    _STATUS = status
    return status


def status() -> Status:
    """Which engine runs in this process (installing the finder first if nobody has yet)."""
    return install()
