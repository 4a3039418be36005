"""Code outside a family's folder asks the registry (`arbitro.model.family`), never which family it
holds: no `game == "escoba"`, no `isinstance(rules, RummyRules)` (docs/architecture.md, game
families). The few sites allowed are listed here with the reason, and in docs/architecture.md."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from arbitro.model.family import families

ROOT = Path(__file__).resolve().parent.parent

FAMILY_FOLDERS = ("model/escoba", "model/rummy", "proofs/escoba", "proofs/rummy")
"""Inside its own folder a family knows itself."""
SKIPPED = ("arbitro/model", "arbitro/proofs", "arbitro/_compiled", "model/family.py")
"""The links to model/ and proofs/ (scanned once, under their own names), build output, and the
registry itself."""

NAMES = frozenset(g for f in families() for g in (f.name, *f.games))
"""The words that name a family or a game of one: `escoba`, `rummy`, `samba`, `canasta`."""

ALLOWED: dict[tuple[str, str], str] = {
    ("arbitro/reports/report.py", "comparison_groups"): (
        "the published comparison has a section of the Samba books, then one of Samba and "
        "Canasta: the document's layout names the games it compares"
    ),
    ("arbitro/findings/core.py", "_different_games"): (
        "one finding per topic where Canasta differs from every Samba book: a finding about "
        "those two games by name"
    ),
}
"""(file, function) -> why it may name a family or a game."""


def _family_types(tree: ast.Module) -> set[str]:
    """The names a module binds to something of one family: what it imports from a family's
    folder, and each family's rules class."""
    out = {f.rules_type.__name__ for f in families()}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:1] == ["arbitro"] and len(parts) > 2 and parts[2] in NAMES:
                out |= {a.asname or a.name for a in node.names}
    return out


def _names_family(node: ast.AST | None) -> bool:
    """A string constant naming a family or game, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_family(e) for e in node.elts)
    return False


def _type_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _is_hook(where: str) -> bool:
    """Whether code sits in one family's own hook (`_escoba_report`, `class RummyCodec`), which
    a table keyed by the family's name selects: there it may know its family."""
    return any(
        part.lstrip("_").lower().startswith(name) for part in where.split(".") for name in NAMES
    )


def dispatch_sites(source: str) -> Iterator[tuple[int, str, str]]:
    """Each place the source asks which family it holds: (line, enclosing function, code)."""
    tree = ast.parse(source)
    types = _family_types(tree)
    lines = source.splitlines()

    def visit(node: ast.AST, where: str) -> Iterator[tuple[int, str, str]]:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = f"{where}.{child.name}" if where else child.name
            found = False
            if isinstance(child, ast.Compare):
                ops = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
                found = any(isinstance(op, ops) for op in child.ops) and any(
                    _names_family(x) for x in (child.left, *child.comparators)
                )
            elif isinstance(child, ast.Call):
                f = child.func
                if isinstance(f, ast.Name) and f.id in ("isinstance", "issubclass"):
                    found = len(child.args) == 2 and bool(_type_names(child.args[1]) & types)
                elif isinstance(f, ast.Attribute) and f.attr in ("startswith", "endswith"):
                    found = any(_names_family(a) for a in child.args)
            elif isinstance(child, ast.MatchValue):
                found = _names_family(child.value)
            if found and not _is_hook(inner):
                line = getattr(child, "lineno", 0)
                yield line, where, lines[line - 1].strip() if line else ""
            yield from visit(child, inner)

    yield from visit(tree, "")


def _scanned() -> Iterator[Path]:
    for folder in ("model", "proofs", "arbitro"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(FAMILY_FOLDERS) or rel.startswith(SKIPPED):
                continue
            yield path


def test_no_family_dispatch_outside_the_registry() -> None:
    found = []
    used = set()
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        for line, where, code in dispatch_sites(path.read_text(encoding="utf-8")):
            top = where.split(".")[0]
            if (rel, top) in ALLOWED or (rel, where) in ALLOWED:
                used.add((rel, top) if (rel, top) in ALLOWED else (rel, where))
                continue
            found.append(f"{rel}:{line}: in {where or 'the module'}: {code}")
    assert not found, "family dispatch outside the registry (ask arbitro.model.family):\n" + (
        "\n".join(found)
    )
    assert used == set(ALLOWED), f"allowed sites that no longer dispatch: {set(ALLOWED) - used}"


def test_the_check_sees_each_form_of_dispatch() -> None:
    planted = """
from arbitro.model.escoba.state import EscobaState
from arbitro.model.schema import RummyRules

def f(game, rules, state, book):
    if game == "escoba":
        pass
    if book.game in ("samba", "canasta"):
        pass
    if isinstance(rules, RummyRules):
        pass
    if isinstance(state, (int, EscobaState)):
        pass
    if book.id.startswith("escoba"):
        pass
    match game:
        case "rummy":
            pass
    if game == "other" or rules.kind == "escobas":
        pass

def _escoba_hook(action):
    return isinstance(action, EscobaState)
"""
    got = [(line, where) for line, where, _ in dispatch_sites(planted)]
    assert got == [(6, "f"), (8, "f"), (10, "f"), (12, "f"), (14, "f"), (17, "f")]
