"""The derived findings' cache: keyed on everything that computes them, and verified when read —
a cache that is not what `derive` writes is derived again, never used."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.findings import cache as findings_cache
from arbitro.findings import core as findings
from arbitro.findings.core import _source_files, cache_path, load_or_derive
from arbitro.model.spec import load_all


def test_the_cache_key_reads_the_model_and_the_proofs() -> None:
    # dead ends and witnesses are played by the model and proved by the encodings: a change to
    # either must derive the findings again rather than serve them from the cache
    names = {p.as_posix() for p in _source_files()}
    for tail in (
        "model/rummy/engine.py",
        "model/escoba/capture.py",
        "proofs/rummy/score.py",
        "proofs/claims.py",
        "arbitro/findings/core.py",
    ):
        assert any(n.endswith(tail) for n in names), tail


# ---------------------------------------------------------------- verified when read

DERIVED: dict[str, Any] = {
    "claims": [
        {
            "claim": "samba-en:claim:pack-of-54",
            "statement": "card_count",
            "options": {},
            "method": "computation",
            "verdict": "PROVED",
        }
    ],
    "clashes": [],
    "dead_rules": [
        {
            "rulebook": "samba-es",
            "clause": "samba-es:red-three-undeclared-penalty",
            "what": "the penalty",
            "why": "never",
            "core": ["samba-es:red-three-initial-replacement"],
            "options": {},
            "whole": True,
        }
    ],
    "escalera_wild": {"samba-en": ["samba-en:sequences"]},
    "witnesses": {
        "draw_count|samba-es|canasta-es": {
            "key": "draw_count",
            "books": ["samba-es", "canasta-es"],
            "how": "none",
            "found": False,
            "text": "no case found",
        }
    },
    "dead_ends": [],
    "properties": [],
    "moot": {},
    "arises": {},
}
"""The shape `derive` writes, small."""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A cache directory of its own and a `derive` that counts its calls (the real one takes a
    minute): each call returns a fresh copy of DERIVED."""
    monkeypatch.setenv("ARBITRO_CACHE", str(tmp_path))
    calls: list[int] = []

    def fake(*_: Any, **__: Any) -> dict[str, Any]:
        calls.append(1)
        return copy.deepcopy(DERIVED)

    monkeypatch.setattr(findings, "derive", fake)
    return calls


def _file() -> Path:
    return cache_path(load_all())[0]


def _edit(change: Any) -> None:
    """Rewrite the cache file's JSON through `change`, keeping its content hash unless the change
    replaces it."""
    path = _file()
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_good_cache_is_read_and_not_derived_again(cache: list[int]) -> None:
    books = load_all()
    first, source = load_or_derive(books)
    assert source == "derived now" and len(cache) == 1
    again, source = load_or_derive(books)
    assert source.startswith("cache ") and len(cache) == 1 and again == first


def _rehash(data: dict[str, Any]) -> None:
    """Make the content hash agree with the edited content: only the shape check is then left to
    catch the edit."""
    data["content"] = findings_cache.content_hash(data["derived"])


@pytest.mark.parametrize(
    "why,change",
    [
        ("missing witnesses", lambda d: (d["derived"].pop("witnesses"), _rehash(d))),
        (
            "flipped verdict",
            lambda d: d["derived"]["claims"][0].update(verdict="REFUTED"),
        ),
        (
            "not a verdict",
            lambda d: (d["derived"]["claims"][0].update(verdict="MAYBE"), _rehash(d)),
        ),
        (
            "wrong type",
            lambda d: (d["derived"]["witnesses"].update(x={"key": 1}), _rehash(d)),
        ),
        ("an empty entry", lambda d: (d["derived"].update(dead_rules=[{}]), _rehash(d))),
        ("not an object", lambda d: (d.update(derived=[1, 2]), _rehash_list(d))),
        ("other digest", lambda d: d.update(digest="0" * 24)),
    ],
)
def test_a_cache_that_is_not_what_derive_writes_is_derived_again(
    cache: list[int], why: str, change: Any
) -> None:
    books = load_all()
    load_or_derive(books)
    _edit(change)
    with pytest.raises(findings_cache.CacheMismatch):
        findings_cache.read(*cache_path(books))
    got, source = load_or_derive(books)
    assert source == "derived now", why
    assert len(cache) == 2 and got == DERIVED
    # and the file is good again
    assert findings_cache.read(*cache_path(books)) == DERIVED


def _rehash_list(data: dict[str, Any]) -> None:
    data["content"] = findings_cache.content_hash({"x": data["derived"]})


def test_a_deeply_nested_cache_is_derived_again_without_reaching_the_parser(
    cache: list[int],
) -> None:
    books = load_all()
    path, key = cache_path(books)
    path.parent.mkdir(parents=True, exist_ok=True)
    depth = 200_000  # far past Python's recursion limit: json.loads would raise RecursionError
    path.write_text(f'{{"digest": "{key}", "derived": {"[" * depth}{"]" * depth}}}')
    with pytest.raises(findings_cache.CacheMismatch, match="nested"):
        findings_cache.read(path, key)
    _, source = load_or_derive(books)
    assert source == "derived now" and len(cache) == 1


def test_a_400_mb_cache_is_never_read(cache: list[int]) -> None:
    books = load_all()
    path, key = cache_path(books)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:  # sparse: 400 MB on paper, nothing on disk
        f.truncate(400 * 1024 * 1024)
    assert path.stat().st_size > findings_cache.MAX_BYTES
    with pytest.raises(findings_cache.CacheMismatch, match="larger"):
        findings_cache.read(path, key)
    _, source = load_or_derive(books)
    assert source == "derived now" and len(cache) == 1
    assert path.stat().st_size < findings_cache.MAX_BYTES  # replaced by the fresh derivation


def test_a_symlinked_cache_is_not_followed(cache: list[int], tmp_path: Path) -> None:
    books = load_all()
    load_or_derive(books)
    path = _file()
    real = tmp_path / "elsewhere.json"
    path.rename(real)
    os.symlink(real, path)
    with pytest.raises(findings_cache.CacheMismatch):
        findings_cache.read(*cache_path(books))


def test_a_verdict_a_timeout_decided_is_never_cached(cache: list[int]) -> None:
    timed_out = copy.deepcopy(DERIVED)
    timed_out["claims"][0].update(verdict="UNKNOWN", reason="timeout after 10 s")
    assert not findings_cache.deterministic(timed_out)
    path, key = cache_path(load_all())
    assert not findings_cache.write(path, key, timed_out) and not path.exists()
    # a verdict the encoding itself cannot reach is the same on every machine: cached
    gave_up = copy.deepcopy(DERIVED)
    gave_up["claims"][0].update(verdict="UNKNOWN", reason="a run of tied hands has no bound")
    assert findings_cache.write(path, key, gave_up)


def test_json_output_is_byte_identical_and_timings_only_on_request(
    cache: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    outs = []
    for _ in range(2):  # derived, then read from the cache
        assert main(["findings", "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert '"seconds"' not in outs[0] and '"source"' not in outs[0]
    assert main(["findings", "--json", "--timings"]) == 0
    timed = json.loads(capsys.readouterr().out)
    assert timed["timings"]["source"].startswith("cache ")
