"""Builds the compiled engine: the model's modules compiled with mypyc, beside their source.

Installing (``uv sync``, and so the first ``uv run`` of a fresh clone) compiles the engine into
``arbitro/_compiled/``, which git ignores: build output is never committed. An edit under model/
does not rebuild by itself (``[tool.uv] cache-keys`` leaves model/ out): the hash check below makes
the checkout run its edited source, and ``uv sync --reinstall-package arbitro`` compiles again.
A wheel is tagged for its platform only when it holds compiled modules; the sdist holds none.

The wheel (and the editable install `uv sync` makes) carries, in ``arbitro/_compiled/``, one
extension module per compiled source file and a manifest naming each module, its source file and
that file's SHA-256. `arbitro.native` uses them in place of the source only when every hash still
matches, so a checkout edited since the build runs its own source (see docs/engine.md).

Compiling needs a C compiler and mypy's mypyc. When either is missing or the compilation fails,
the build says so and goes on without the compiled engine: every command works the same, in pure
Python. ``ARBITRO_NATIVE_BUILD=0`` skips the compilation on purpose.

Also a script, to rebuild the compiled engine of a checkout in place after an edit:

    uv run --with mypy --with setuptools python hatch_build.py
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
OUT = "_compiled"
"""The folder, inside the `arbitro` package, that holds the compiled modules and the manifest."""
FAILED = "_compiled-failed.txt"
"""Written beside the build folder (editable installs) when compilation failed: why, for
`arbitro --version`; removed by the next build that succeeds. Git ignores it."""
GROUP = "arbitro._compiled"
"""mypyc's group name: its shared library is the module ``arbitro._compiled__mypyc``."""
PACKAGES = ("escoba", "rummy")
"""The model's packages compiled: the two engines, every module but those below."""
KEPT_INTERPRETED = {
    "escoba/__init__.py": "packages stay plain Python, so that their folders are found as usual",
    "rummy/__init__.py": "the same",
    "escoba/model.py": "the GameModel object: tests subclass it to break a rule on purpose",
    "rummy/model.py": "the same",
    "escoba/family.py": "the family's entry in the registry, read once",
    "rummy/family.py": "the same",
    "rummy/actions.py": "the actions are tuple subclasses, which mypyc cannot compile",
    "rummy/codec.py": "a starred argument list mypyc fails on (an internal error)",
    "rummy/trace.py": "that tracer: it builds its Tables without calling their constructor",
}
"""Modules of those packages left to the interpreter, and why."""

_COMPILE = r"""
import os, sys
from mypyc.build import mypycify
from setuptools import Distribution

out, temp, group = sys.argv[1], sys.argv[2], sys.argv[3]
paths = sys.argv[4:]
exts = mypycify(paths, opt_level="3", debug_level="0", group_name=group,
                target_dir=os.path.join(temp, "c"))
dist = Distribution({"name": "arbitro-compiled", "ext_modules": exts})
cmd = dist.get_command_obj("build_ext")
cmd.build_lib = out
cmd.build_temp = os.path.join(temp, "o")
cmd.parallel = os.cpu_count() or 1
dist.run_command("build_ext")
"""


def sources(root: Path = ROOT) -> list[Path]:
    """The source files compiled, as paths through the `arbitro` package (arbitro/model/...)."""
    found: list[Path] = []
    for package in PACKAGES:
        for path in sorted((root / "arbitro" / "model" / package).glob("*.py")):
            if f"{package}/{path.name}" not in KEPT_INTERPRETED:
                found.append(path.relative_to(root))
    return found


def module_name(path: Path) -> str:
    """``arbitro/model/escoba/capture.py`` -> ``arbitro.model.escoba.capture``."""
    return ".".join(path.with_suffix("").parts)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(root: Path, dest: Path) -> dict[str, Any]:
    """Compiles the engine into the folder ``dest`` (made anew) and returns its manifest.

    Raises RuntimeError, naming the step and its output, when compilation fails.
    """
    paths = sources(root)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with tempfile.TemporaryDirectory(prefix="arbitro-build-") as tmp:
        lib = Path(tmp) / "lib"
        done = subprocess.run(
            [sys.executable, "-c", _COMPILE, str(lib), tmp, GROUP, *map(str, paths)],
            cwd=root,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
            raise RuntimeError("mypyc or the C compiler failed:\n" + "\n".join(tail))
        staged = Path(tmp) / "staged"
        staged.mkdir()
        modules: dict[str, dict[str, str]] = {}
        for path in paths:
            name = module_name(path)
            built = lib / path.with_suffix(suffix)
            if not built.is_file():
                raise RuntimeError(f"the build made no {built.name} for {name}")
            shutil.copyfile(built, staged / (name + suffix))
            # the source as the package sees it: relative to the `arbitro` folder
            modules[name] = {
                "file": name + suffix,
                "source": path.relative_to("arbitro").as_posix(),
                "sha256": digest(root / path),
            }
        shared = GROUP + "__mypyc"
        shared_built = lib / Path(*shared.split(".")).with_suffix(suffix)
        if not shared_built.is_file():
            raise RuntimeError(f"the build made no shared library {shared_built.name}")
        shutil.copyfile(shared_built, staged / (shared + suffix))
        manifest = {
            "recipe": recipe(),
            "ext_suffix": suffix,
            "shared": {"name": shared, "file": shared + suffix},
            "modules": modules,
        }
        (staged / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        _replace(staged, dest)
    return manifest


def recipe() -> str:
    """What else decides the build: this file and the version of mypyc that compiles."""
    from importlib.metadata import version

    return f"{digest(Path(__file__))[:16]} mypy {version('mypy')}"


def up_to_date(root: Path, dest: Path) -> bool:
    """Whether ``dest`` holds a build of exactly today's sources by today's recipe."""
    try:
        manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
        if manifest["recipe"] != recipe():
            return False
        if manifest["ext_suffix"] != sysconfig.get_config_var("EXT_SUFFIX"):
            return False
        modules = manifest["modules"]
        wanted = {module_name(p): p for p in sources(root)}
        if set(modules) != set(wanted):
            return False
        for name, path in wanted.items():
            entry = modules[name]
            if entry["sha256"] != digest(root / path) or not (dest / entry["file"]).is_file():
                return False
        return (dest / manifest["shared"]["file"]).is_file()
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _replace(staged: Path, dest: Path) -> None:
    """Puts the folder ``staged`` at ``dest``, replacing only an earlier build there."""
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise RuntimeError(f"{dest} is not a folder of compiled modules; not replacing it")
    if dest.exists():
        if not _is_build(dest) and any(dest.iterdir()):
            raise RuntimeError(f"{dest} holds files that are not a build; not replacing it")
        shutil.rmtree(dest)
    shutil.copytree(staged, dest)


def _is_build(dest: Path) -> bool:
    """Whether the folder ``dest`` is an earlier build (it has a manifest)."""
    return (dest / "manifest.json").is_file()


def note_failure(package: Path, why: str) -> None:
    """Leaves the reason a build failed beside the build folder (``why`` empty: removes it)."""
    note = package / FAILED
    if note.is_symlink() or (note.exists() and not note.is_file()):
        return
    if why:
        note.write_text(why + "\n", encoding="utf-8")
    elif note.exists():
        note.unlink()


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, or imported by the tests, without hatchling
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CompiledEngineHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """The hatch build hook: compiles the engine into the wheel, or in place when editable."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        in_place = root / "arbitro" / OUT
        if os.environ.get("ARBITRO_NATIVE_BUILD", "1") == "0":
            # the build folder stays as it is: arbitro.native ignores a build of other sources
            self.app.display_info("arbitro: ARBITRO_NATIVE_BUILD=0, the engine stays pure Python")
            return
        if version == "editable":
            dest = in_place
        else:
            # staged outside the checkout, put into the wheel, removed in `finalize`
            dest = Path(tempfile.mkdtemp(prefix="arbitro-compiled-")) / OUT
            self._staged = dest
        try:
            if up_to_date(root, in_place):
                # the checkout's own build is of these very sources: the same modules again
                if dest != in_place:
                    _replace(in_place, dest)
                manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
            else:
                manifest = build(root, dest)
        except (RuntimeError, OSError) as e:
            self.app.display_warning(
                f"arbitro: the engine could not be compiled, it runs as pure Python: {e}"
            )
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            if version == "editable":
                note_failure(
                    root / "arbitro", f"the build failed ({first}); `uv sync -v` shows why"
                )
            else:
                shutil.rmtree(dest.parent, ignore_errors=True)
            return
        if version == "editable":
            note_failure(root / "arbitro", "")
        self.app.display_info(f"arbitro: compiled {len(manifest['modules'])} engine modules")
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            for f in sorted(dest.iterdir()):
                build_data["force_include"][str(f)] = f"arbitro/{OUT}/{f.name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staged = getattr(self, "_staged", None)
        if staged is not None:
            shutil.rmtree(staged.parent, ignore_errors=True)


def main() -> int:
    dest = ROOT / "arbitro" / OUT
    try:
        manifest = build(ROOT, dest)
    except (RuntimeError, OSError) as e:
        print(f"hatch_build.py: {e}", file=sys.stderr)
        return 1
    print(f"compiled {len(manifest['modules'])} modules into {dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
