"""One hop from a clause to its code and its tests: every clause the model plays has a function in
its engine that reads its field or names it, its id written beside that code, and a test of the
engine that names it. The check is shown to fail on a spec key nobody reads and on a model whose
only read of a field is removed."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from arbitro.cli.trace import PLAYED_STATUSES, Index, build_index, gaps, trace
from arbitro.model.spec import load_all, load_file, spec_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def index() -> Index:
    return build_index(ROOT)


def test_every_played_clause_has_an_enforcing_function_its_id_and_a_test(index: Index) -> None:
    found = gaps(index, load_all())
    assert not found, "clauses the model plays that lack something:\n" + "\n".join(
        f"  {g}" for g in found
    )


def test_every_clause_of_every_book_is_one_the_model_plays() -> None:
    # the four statuses are all played (an unspecified clause at our default), so none is skipped
    statuses = {c.status for book in load_all() for c in book.clauses}
    assert statuses <= set(PLAYED_STATUSES)


def test_a_spec_key_nobody_reads_is_caught(index: Index, tmp_path: Path) -> None:
    text = (spec_dir() / "samba-en.toml").read_text(encoding="utf-8")
    extra = (
        '\n[[clause]]\nkey = "pile_spoons"\ntopic = "discard-pile"\nsection = "Setup"\n'
        'status = "stated"\nparaphrase = "a rule no engine plays"\nvalue = 2\n'
    )
    claims = text.index("[[claim]]") if "[[claim]]" in text else len(text)
    path = tmp_path / "samba-en.toml"
    path.write_text(text[:claims] + extra + "\n" + text[claims:], encoding="utf-8")
    book = load_file(path)  # shape only: the schema would refuse the key before any play
    found = {(g.key, g.missing) for g in gaps(index, [book])}
    assert found == {("pile_spoons", "enforcing function"), ("pile_spoons", "test")}


def _copy_tree(tmp: Path) -> Path:
    for part in ("model", "tests"):
        shutil.copytree(
            ROOT / part,
            tmp / part,
            ignore=lambda d, names: [n for n in names if n == "__pycache__" or n == "data"],
        )
    return tmp


def _remove_reads(root: Path, file: str, line: int, key: str) -> None:
    """Rename the key wherever the function defined at `line` of `file` reads or names it."""
    path = root / file
    source = path.read_text(encoding="utf-8")
    node = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == line
    )
    lines = source.splitlines(keepends=True)
    pattern = re.compile(rf"\b({key}|{key.replace('_', '-')})\b")
    end = node.end_lineno or line
    for i in range(line - 1, end):
        lines[i] = pattern.sub("gone", lines[i])
    path.write_text("".join(lines), encoding="utf-8")


def test_a_function_whose_read_is_removed_is_caught(index: Index, tmp_path: Path) -> None:
    # the key read by the fewest functions (today: one), each made to read nothing
    readers = {
        pk: [s for s in sites if s.is_function]
        for pk, sites in sorted(index.code.items())
        if any(s.is_function for s in sites)
        and all("reads" in s.how for s in sites if s.is_function)
    }
    (package, key), sites = min(readers.items(), key=lambda kv: len(kv[1]))
    assert not [g for g in gaps(index, load_all()) if g.key == key]
    root = _copy_tree(tmp_path)
    for s in sites:
        _remove_reads(root, s.file, s.line, key)
    patched = build_index(root)
    found = [g for g in gaps(patched, load_all()) if g.key == key]
    assert [(g.package, g.missing) for g in found] == [(package, "enforcing function")]
    assert "no enforcing function" in str(found[0])
    book = next(b for b in load_all() if b.has(key))
    t = trace(f"{book.id}:{key}", patched)
    assert not [s for s in t.families[0].code if s.is_function]
