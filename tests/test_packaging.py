"""The built wheel, installed outside the checkout: one import package, and it finds its rulebooks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is needed to build the wheel")
@pytest.mark.slow
def test_installed_wheel_lists_the_rulebooks(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        ["uv", "build", "--wheel", "--out-dir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("arbitro-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        top = {name.split("/")[0] for name in names}
    # the build hook put the compiled engine inside the package, or (no compiler) nothing at all
    compiled = "arbitro/_compiled/manifest.json" in names
    assert compiled == any(n.startswith("arbitro/_compiled/") for n in names)
    assert compiled == ("py3-none-any" not in wheel.name)
    assert top == {
        "arbitro",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }
    venv = tmp_path / "venv"
    subprocess.run(
        ["uv", "venv", "--python", sys.executable, str(venv)], check=True, capture_output=True
    )
    python = venv / "bin" / "python"
    subprocess.run(
        ["uv", "pip", "install", "--python", str(python), str(wheel)],
        check=True,
        capture_output=True,
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARBITRO_", "VIRTUAL_ENV", "PYTHONPATH"))
    }
    # a user's own modules named like the repository's folders must not shadow arbitro's
    (tmp_path / "model.py").write_text("raise SystemExit('the user model.py was imported')\n")
    (tmp_path / "proofs.py").write_text("raise SystemExit('the user proofs.py was imported')\n")
    out = subprocess.run(
        [str(venv / "bin" / "arbitro"), "rules", "list", "--json"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    listed = json.loads(out.stdout)
    spec_ids = sorted(p.stem for p in (ROOT / "spec").glob("*.toml"))
    assert [b["id"] for b in listed] == spec_ids
    where = subprocess.run(
        [str(python), "-c", "import arbitro.model.spec as s, arbitro.proofs; print(s.spec_dir())"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout.strip()
    assert str(ROOT) not in where
    engine = subprocess.run(
        [str(venv / "bin" / "arbitro"), "--version"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout
    assert ("compiled engine" in engine) == compiled, engine
    if shutil.which("cc") or shutil.which("gcc"):
        assert compiled, "a C compiler is here, yet the wheel holds no compiled engine"
