"""The compiled engine: used where it was built from the same source, and the same games as the
pure-Python engine it falls back to."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import arbitro
import hatch_build  # the build hook, at the repository's root (the rootdir pytest puts on sys.path)
from arbitro import native

ROOT = Path(__file__).resolve().parent.parent

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def test_where_a_compiler_exists_the_compiled_engine_runs() -> None:
    """The build is made by `uv sync` and used: not silently lost to a build that failed."""
    if os.environ.get(native.ENV) == "0":
        pytest.skip(f"{native.ENV}=0 asks for the pure-Python engine")
    if _compiler() is None:
        pytest.skip("no C compiler: the engine is built as pure Python, as documented")
    status = native.status()
    assert status.compiled, status.reason
    import arbitro.model.escoba.capture as capture
    import arbitro.model.rummy.engine as engine

    for module in (capture, engine):
        assert module.__file__ is not None
        assert module.__file__.endswith(SUFFIX), module.__file__
    # every module the build names is the compiled one, and nothing it keeps interpreted is
    assert set(status.modules) == {hatch_build.module_name(p) for p in hatch_build.sources(ROOT)}
    import arbitro.model.rummy.trace as trace

    assert trace.__file__ is not None and trace.__file__.endswith(".py")


_PLAY = r"""
import hashlib, json, random, sys
from arbitro import native
from arbitro.games import model_for
from arbitro.model.schema import rules_for

out = {"engine": native.status().describe(), "games": {}}
for book, hands in (("escoba-es", 30), ("samba-es", 1), ("samba-en", 1), ("samba-fr", 1),
                    ("canasta-es", 1)):
    rules = rules_for(book)
    model = model_for(book.split("-")[0])
    rng = random.Random(book)
    h = hashlib.sha256()
    for seating in model.seatings(rules):
        state = model.new_game(rules, seating)
        deck = list(model.deck(rules, seating))
        for _ in range(hands):
            order = deck[:]
            rng.shuffle(order)
            state = model.deal(rules, model.new_game(rules, seating), order)
            while model.phase(state) == "play":
                acts = model.legal_actions(rules, state)
                a = acts[rng.randrange(len(acts))]
                state = model.apply(rules, state, a)
                h.update(repr(a).encode())
            h.update(json.dumps(model.state_to_json(state), sort_keys=True).encode())
    out["games"][book] = h.hexdigest()
print(json.dumps(out))
"""


def _play(native_env: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != native.ENV}
    if native_env is not None:
        env[native.ENV] = native_env
    done = subprocess.run(
        [sys.executable, "-c", _PLAY], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_pure_and_compiled_engines_play_the_same_games() -> None:
    """Seeded random games of every rulebook and seating, every action and final state hashed:
    the engine run from source (ARBITRO_NATIVE=0) and the default one agree."""
    pure = _play("0")
    default = _play(None)
    assert pure["engine"] == f"pure-Python engine ({native.ENV}=0)"
    if native.status().compiled:
        assert str(default["engine"]).startswith("compiled engine")
    assert pure["games"] == default["games"]


@pytest.mark.skipif(
    os.environ.get(native.ENV) == "0", reason="this run is already the pure-Python engine"
)
@pytest.mark.slow
def test_the_pure_python_engine_replays_the_goldens() -> None:
    """The fallback stays tested: the replay goldens of every rulebook and the model's own
    tests of Escoba captures and Samba/Canasta fast paths, run again from source."""
    env = dict(os.environ, **{native.ENV: "0"})
    files = [
        "tests/model/rummy/test_rummy_replay.py",
        "tests/model/escoba/test_escoba_replay.py",
        "tests/model/escoba/test_escoba_capture.py",
        "tests/model/rummy/test_rummy_fast_paths.py",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout


# ------------------------------------------------------------------ when the build is not used


def _package(tmp_path: Path, text: bytes = b"X = 1\n") -> tuple[Path, dict[str, Path]]:
    """A package folder with one source file and a build of it (the files need not load)."""
    package = tmp_path / "arbitro"
    (package / "model").mkdir(parents=True)
    source = package / "model" / "thing.py"
    source.write_bytes(text)
    folder = package / native.FOLDER
    folder.mkdir()
    (folder / ("arbitro.model.thing" + SUFFIX)).write_bytes(b"")
    (folder / ("shared__mypyc" + SUFFIX)).write_bytes(b"")
    manifest = {
        "recipe": "test",
        "ext_suffix": SUFFIX,
        "shared": {"name": "shared__mypyc", "file": "shared__mypyc" + SUFFIX},
        "modules": {
            "arbitro.model.thing": {
                "file": "arbitro.model.thing" + SUFFIX,
                "source": "model/thing.py",
                "sha256": hashlib.sha256(text).hexdigest(),
            }
        },
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return package, {"source": source, "manifest": folder / "manifest.json"}


def test_a_build_of_this_source_is_used(tmp_path: Path) -> None:
    package, _ = _package(tmp_path)
    status, files = native.check(package, {})
    assert status.compiled and status.modules == ("arbitro.model.thing",)
    assert files["arbitro.model.thing"].name == "arbitro.model.thing" + SUFFIX
    assert "shared__mypyc" in files


def test_an_edited_source_runs_from_source(tmp_path: Path) -> None:
    package, paths = _package(tmp_path)
    paths["source"].write_bytes(b"X = 2\n")
    status, files = native.check(package, {})
    assert not status.compiled and files == {}
    assert status.reason == "model/thing.py changed since the build"


def test_the_environment_can_ask_for_the_pure_engine(tmp_path: Path) -> None:
    package, _ = _package(tmp_path)
    status, _files = native.check(package, {native.ENV: "0"})
    assert not status.compiled and status.reason == f"{native.ENV}=0"


def test_a_build_for_another_interpreter_or_incomplete_is_not_used(tmp_path: Path) -> None:
    package, paths = _package(tmp_path)
    manifest = json.loads(paths["manifest"].read_text())
    manifest["ext_suffix"] = ".cpython-99-x.so"
    paths["manifest"].write_text(json.dumps(manifest))
    status, _files = native.check(package, {})
    assert status.reason == "the build is for another interpreter (.cpython-99-x.so)"

    package, paths = _package(tmp_path / "second")
    (paths["manifest"].parent / ("arbitro.model.thing" + SUFFIX)).unlink()
    status, _files = native.check(package, {})
    assert status.reason == f"the build lacks arbitro.model.thing{SUFFIX}"

    package, paths = _package(tmp_path / "third")
    paths["manifest"].write_text("{not json")
    status, _files = native.check(package, {})
    assert status.reason.startswith("the build's manifest is unreadable")

    status, _files = native.check(tmp_path / "nowhere", {})
    assert status.reason == "no compiled build installed"


def test_the_build_replaces_only_an_earlier_build(tmp_path: Path) -> None:
    """The build writes one folder: it refuses a symlink there, or a folder of other files."""
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "manifest.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    link = tmp_path / "link"
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(RuntimeError, match="is not a folder of compiled modules"):
        hatch_build._replace(staged, link)
    with pytest.raises(RuntimeError, match="holds files that are not a build"):
        hatch_build._replace(staged, outside)
    assert (outside / "keep.txt").read_text() == "mine"
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "manifest.json").write_text("{}")
    (earlier / "old.so").write_text("")
    hatch_build._replace(staged, earlier)
    assert sorted(p.name for p in earlier.iterdir()) == ["manifest.json"]


def test_a_failed_build_says_why(tmp_path: Path) -> None:
    """A build that could not compile leaves a note beside the build folder, which the status
    repeats; the folder itself is left as it was; a build that succeeds removes the note."""
    package, paths = _package(tmp_path)
    paths["source"].write_bytes(b"X = 2\n")
    hatch_build.note_failure(package, "the build failed (no compiler); `uv sync -v` shows why")
    status, _files = native.check(package, {})
    assert status.reason == "the build failed (no compiler); `uv sync -v` shows why"
    assert paths["manifest"].is_file()
    hatch_build.note_failure(package, "")
    status, _files = native.check(package, {})
    assert status.reason == "model/thing.py changed since the build"


def test_the_checkout_build_is_current_only_for_its_own_sources(tmp_path: Path) -> None:
    """`up_to_date` (which lets the wheel reuse the checkout's build) fails on any change."""
    built = ROOT / "arbitro" / native.FOLDER
    if not hatch_build.up_to_date(ROOT, built):
        pytest.skip("this checkout has no current build")
    root = tmp_path / "root"
    shutil.copytree(ROOT / "model", root / "model")
    (root / "arbitro").mkdir()
    (root / "arbitro" / "model").symlink_to(root / "model", target_is_directory=True)
    assert hatch_build.up_to_date(root, built)
    capture = root / "model" / "escoba" / "capture.py"
    capture.write_text(capture.read_text() + "\n")
    assert not hatch_build.up_to_date(root, built)


def test_the_status_names_the_engine() -> None:
    assert native.status().describe().startswith(("compiled engine", "pure-Python engine"))
    assert arbitro.native is native
