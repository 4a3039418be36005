"""Counts `Any` in the annotations of model/, proofs/ and arbitro/: how much of the code's
typing mypy cannot check (the seams between layers should carry real types; JSON input is Any).

    uv run python benchmarks/count_any.py [--by-file]
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("model", "proofs", "arbitro")


def _anys(node: ast.AST | None) -> int:
    if node is None:
        return 0
    return sum(
        1
        for n in ast.walk(node)
        if (isinstance(n, ast.Name) and n.id == "Any")
        or (isinstance(n, ast.Attribute) and n.attr == "Any")
        or (isinstance(n, ast.Constant) and isinstance(n.value, str) and "Any" in n.value)
    )


def count(path: Path) -> int:
    """`Any` in the function signatures and annotated assignments of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    total = 0
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
            args = [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]
            args += [a for a in (n.args.vararg, n.args.kwarg) if a is not None]
            total += sum(_anys(a.annotation) for a in args) + _anys(n.returns)
        elif isinstance(n, ast.AnnAssign):
            total += _anys(n.annotation)
    return total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--by-file", action="store_true", help="every file with its count")
    args = p.parse_args()
    by_file: Counter[str] = Counter()
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if folder == "arbitro" and path.relative_to(ROOT / folder).parts[0] in (
                "model",
                "proofs",
                "_compiled",
            ):
                continue
            by_file[path.relative_to(ROOT).as_posix()] = count(path)
    for folder in FOLDERS:
        n = sum(v for k, v in by_file.items() if k.startswith(folder + "/"))
        print(f"{folder + '/':10} {n:5} Any annotations")
    print(f"{'total':10} {sum(by_file.values()):5}")
    if args.by_file:
        for name, n in by_file.most_common():
            if n:
                print(f"{n:5}  {name}")


if __name__ == "__main__":
    main()
