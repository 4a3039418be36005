"""The derived findings' cache key covers everything that computes them."""

from __future__ import annotations

from arbitro.findings.core import _source_files


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
