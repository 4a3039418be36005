"""One hop from a clause to the code that plays it and the tests that exercise it: `rules trace`.

Everything here is read from the source, so it follows the code through rewrites. A static pass
over `model/` finds, for each function, the rules fields it reads (`rules.draw_count`; a method of
the rules class, `rules.penalty(...)` reading `penalties`; a field of the engine's own tables built
from one, `Tables(cover=class_mask(rules.upcard_cover))` making `t.cover` a read of `upcard_cover`),
the clauses it names (`cid("key")`, a string that is a key, as `Refusal("key", ...)` and
`clauses_used` use them) and the clause ids its docstring or comments list (`samba-en:draw-count`,
`*:draw-count`). A pass over `tests/` finds the tests that name a clause (its id, its key in either
spelling, an option `key=value`, a `replace(rules, key=…)`), directly or through a helper or
constant of the suite they use. Left out: the loaders (`schema.py`, `spec.py`, `provenance.py`),
which read every field to check it, and the tests of this module, which write clause names into
small sources of their own.

A module belongs to the game family of the package it sits in (`model/rummy`: samba and canasta);
a key of one family is looked for only in that family's package and the shared modules. Claims are
data only: no rule reads them, and a trace says so.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import io
import re
import textwrap
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from arbitro.model.errors import OptionError, did_you_mean
from arbitro.model.schema import SCHEMAS, option_key, schema_keys
from arbitro.model.spec import GAMES, Claim, Clause, Rulebook, load_all

LOADERS = frozenset({"schema.py", "spec.py", "provenance.py"})
"""Modules of model/ that read every field to check a spec, not to play it."""

PLAYED_STATUSES = ("stated", "inferred", "conflicting", "unspecified")
"""Statuses whose value the model plays: an unspecified clause is played at our default."""

_CLAUSE_ID = re.compile(r"(?<![A-Za-z0-9_.-])(?:\*|[a-z0-9][a-z0-9-]*):([a-z][a-z0-9-]*[a-z0-9])")
"""A clause id inside text: `samba-en:draw-count`, or `*:draw-count` for every book of a family."""


class TraceError(OptionError):
    """A clause that no rulebook has, or a source tree that cannot be read."""


# ---------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """The games one engine package plays, and the clause keys its rules class has."""

    package: str  # the folder under model/, e.g. "rummy"
    games: tuple[str, ...]
    rules_class: str
    keys: frozenset[str]
    methods: Mapping[str, frozenset[str]]  # a method of the rules class -> the fields it reads


@cache
def families() -> tuple[Family, ...]:
    """One per engine package, from the model each game is played by and its rules class."""
    from arbitro.games import model_for

    by_package: dict[str, list[str]] = {}
    for game in GAMES:
        module = type(model_for(game)).__module__  # arbitro.model.<package>.<module>
        package = module.split(".")[2]
        by_package.setdefault(package, []).append(game)
    out = []
    for package, games in sorted(by_package.items()):
        cls = SCHEMAS[games[0]]
        out.append(
            Family(
                package=package,
                games=tuple(games),
                rules_class=cls.__name__,
                keys=frozenset(schema_keys(games[0])),
                methods=_method_fields(cls),
            )
        )
    return tuple(out)


def family_of(game: str) -> Family:
    return next(f for f in families() if game in f.games)


def _method_fields(cls: type) -> dict[str, frozenset[str]]:
    """The fields each method of a rules class reads through `self` (`penalty` reads `penalties`)."""
    names = {f.name for f in dataclasses.fields(cls)}
    out: dict[str, frozenset[str]] = {}
    for name, fn in vars(cls).items():
        if not inspect.isfunction(fn) or name.startswith("__"):
            continue
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(fn)))
        read = {
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id == "self"
            and n.attr in names
            and n.attr not in ("rulebook", "clause_ids")
        }
        if read:
            out[name] = frozenset(read)
    return out


# ---------------------------------------------------------------- what a piece of code mentions


@dataclass
class _Hits:
    """Per clause key, how a piece of code mentions it."""

    how: dict[str, set[str]] = field(default_factory=dict)

    def add(self, key: str, how: str) -> None:
        self.how.setdefault(key, set()).add(how)

    def merge(self, other: _Hits) -> None:
        for key, hows in other.how.items():
            self.how.setdefault(key, set()).update(hows)


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function or module body, not those of functions or classes inside it."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(n))


def _docstring_node(node: ast.AST) -> ast.AST | None:
    body = getattr(node, "body", None)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first.value if isinstance(first.value.value, str) else None
    return None


def _ids_in(text: str, keys: frozenset[str]) -> Iterator[str]:
    for m in _CLAUSE_ID.finditer(text):
        key = m.group(1).replace("-", "_")
        if key in keys:
            yield key


def _derived(trees: Iterable[ast.Module], fam: Family) -> dict[str, frozenset[str]]:
    """Fields of the engine's own records computed from rules fields: `Tables(cover=class_mask(
    rules.upcard_cover))` makes a read of `.cover` a read of `upcard_cover`. Only a keyword of a
    call to a class (a capitalised name) whose value reads the field directly counts."""
    out: dict[str, set[str]] = {}
    for tree in trees:
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            callee = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if not callee[:1].isupper():
                continue
            for kw in n.keywords:
                if kw.arg is None or kw.arg in fam.keys:
                    continue
                read = {
                    a.attr for a in ast.walk(kw.value) if isinstance(a, ast.Attribute)
                } & fam.keys
                if read:
                    out.setdefault(kw.arg, set()).update(read)
    return {k: frozenset(v) for k, v in out.items()}


def _code_hits(
    node: ast.AST,
    fam: Family,
    comments: Iterable[str] = (),
    derived: Mapping[str, frozenset[str]] | None = None,
    nodes: Sequence[ast.AST] | None = None,
) -> _Hits:
    """What a model function (or a module's top level) reads and names of the family's clauses
    (`nodes`: its own nodes, when the caller has listed them already)."""
    hits = _Hits()
    via = derived or {}
    for text in comments:
        for key in _ids_in(text, fam.keys):
            hits.add(key, "comment")
    doc = _docstring_node(node)
    for n in nodes if nodes is not None else _own_nodes(node):
        if isinstance(n, ast.Attribute):
            if n.attr in fam.keys:
                hits.add(n.attr, "reads")
            for key in fam.methods.get(n.attr, ()):
                hits.add(key, "reads")
            for key in via.get(n.attr, ()):
                hits.add(key, f"reads .{n.attr}")
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            if n is doc:
                for key in _ids_in(n.value, fam.keys):
                    hits.add(key, "docstring")
            elif n.value in fam.keys:
                hits.add(n.value, "names")
            else:
                for key in _ids_in(n.value, fam.keys):
                    hits.add(key, "names")
    return hits


_OPTION = re.compile(r"^-*([a-z][a-z0-9_-]*)=")


def _test_symbol(node: ast.AST, keys: frozenset[str], comments: Iterable[str] = ()) -> _Symbol:
    """What a test (or a helper or constant of the suite) says about clauses (ids, keys, options),
    and the names it uses, in one walk."""
    hits = _Hits()
    refs: set[str] = set()
    for text in comments:
        for key in _ids_in(text, keys):
            hits.add(key, "names the clause")
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            refs.add(n.id)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            text = n.value
            key = option_key(text) if len(text) < 64 else ""
            if key in keys:
                hits.add(key, "names the key")
                continue
            m = _OPTION.match(text)
            if m and option_key(m.group(1)) in keys:
                hits.add(option_key(m.group(1)), "sets the option")
            for key in _ids_in(text, keys):
                hits.add(key, "names the clause")
        elif isinstance(n, ast.Attribute) and n.attr in keys:
            hits.add(n.attr, "reads the field")
        elif isinstance(n, ast.keyword) and n.arg in keys:
            hits.add(n.arg, "sets the field")
    return _Symbol(hits, refs)


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class CodeSite:
    """A function of model/ that reads a clause's field or names the clause."""

    function: str  # arbitro.model.rummy.pile:take_pile, or …:<module> for a module's top level
    file: str  # relative to the source root, e.g. model/rummy/pile.py
    line: int
    how: tuple[str, ...]  # reads, names, docstring

    @property
    def is_function(self) -> bool:
        return not self.function.endswith(":<module>")

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "file": self.file,
            "line": self.line,
            "how": list(self.how),
        }


@dataclass(frozen=True)
class TestSite:
    """A test that exercises a clause, with how it names it."""

    test: str  # the pytest node id, e.g. tests/model/rummy/test_pile.py::test_frozen
    file: str
    line: int
    how: tuple[str, ...]
    plays: bool = True  # its module imports the engine (directly or through a helper)

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "file": self.file,
            "line": self.line,
            "how": list(self.how),
            "plays_engine": self.plays,
        }


@dataclass
class Index:
    """Code and tests by (family package, clause key)."""

    root: Path
    code: dict[tuple[str, str], list[CodeSite]]
    tests: dict[tuple[str, str], list[TestSite]]
    tests_at_hand: bool

    def code_for(self, package: str, key: str) -> list[CodeSite]:
        return self.code.get((package, key), [])

    def tests_for(self, package: str, key: str) -> list[TestSite]:
        return self.tests.get((package, key), [])


@dataclass(frozen=True)
class _Source:
    tree: ast.Module
    comments: Mapping[int, str]  # line -> comment text


def _parse(path: Path, root: Path) -> _Source:
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        comments = {
            tok.start[0]: tok.string
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.COMMENT
        }
    except (SyntaxError, UnicodeDecodeError, OSError, tokenize.TokenError) as e:
        raise TraceError(f"cannot read {path.relative_to(root)}: {e}") from None
    return _Source(tree, comments)


def _span(node: ast.AST) -> tuple[int, int]:
    """The lines of a statement, its decorators included."""
    first = getattr(node, "lineno", 1)
    for d in getattr(node, "decorator_list", ()):
        first = min(first, d.lineno)
    return first, getattr(node, "end_lineno", None) or first


def _comments_in(
    node: ast.AST, src: _Source, own: bool, nodes: Sequence[ast.AST] | None = None
) -> list[str]:
    """The comments inside a statement (`own`: not those of functions or classes inside it,
    found among `nodes`, its own nodes, when given)."""
    if isinstance(node, ast.Module):
        low, high = 1, max(src.comments, default=0)
    else:
        low, high = _span(node)
    if not any(low <= line <= high for line in src.comments):
        return []
    skip: set[int] = set()
    if own:
        for n in nodes if nodes is not None else _own_nodes(node):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                a, b = _span(n)
                skip.update(range(a, b + 1))
    return [c for line, c in src.comments.items() if low <= line <= high and line not in skip]


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualified name, node) of every function and method, and `<module>` for the top level."""
    yield "<module>", tree

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                yield name, child
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield prefix + child.name, child
                yield from walk(child, prefix + child.name + ".")
            elif not isinstance(child, ast.Lambda):
                yield from walk(child, prefix)

    yield from walk(tree, "")


def scan_model(model_dir: Path, root: Path) -> dict[tuple[str, str], list[CodeSite]]:
    """Every function of model/ by the (family, key) of each clause it reads or names."""
    fams = families()
    out: dict[tuple[str, str], list[CodeSite]] = {}
    sources: dict[Path, _Source] = {}
    for path in sorted(model_dir.rglob("*.py")):
        rel = path.relative_to(model_dir)
        if not (rel.name in LOADERS and len(rel.parts) == 1):
            sources[path] = _parse(path, root)
    derived = {
        f.package: _derived(
            (s.tree for p, s in sources.items() if p.relative_to(model_dir).parts[0] == f.package),
            f,
        )
        for f in fams
    }
    for path, src in sources.items():
        rel = path.relative_to(model_dir)
        mine = [f for f in fams if rel.parts[0] == f.package] or list(fams)
        module = ".".join(("arbitro", "model", *rel.with_suffix("").parts))
        module = module.removesuffix(".__init__")
        for qual, node in _functions(src.tree):
            line = getattr(node, "lineno", 1)
            nodes = list(_own_nodes(node))
            comments = _comments_in(node, src, True, nodes)
            for fam in mine:
                hits = _code_hits(node, fam, comments, derived[fam.package], nodes)
                for key, hows in hits.how.items():
                    site = CodeSite(
                        f"{module}:{qual}",
                        str(path.relative_to(root)),
                        line,
                        tuple(sorted(hows)),
                    )
                    out.setdefault((fam.package, key), []).append(site)
    return out


# ---------------------------------------------------------------- the tests


@dataclass
class _Symbol:
    hits: _Hits
    refs: set[str]  # names it uses, resolved through the module's imports when it is called


@dataclass
class _TestModule:
    path: Path
    dotted: str
    symbols: dict[str, _Symbol]
    imports: dict[str, tuple[str, str]]  # local name -> (module, name)
    tests: list[tuple[str, int, _Symbol]]  # (node id tail, line, the test)
    families: set[str]  # the families whose books or engines it names
    engines: set[str]  # the engine packages it imports


def _read_test_module(
    path: Path, root: Path, tests_dir: Path, all_keys: frozenset[str]
) -> _TestModule:
    src = _parse(path, root)
    tree = src.tree
    rel = path.relative_to(tests_dir.parent)
    dotted = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
    books = _book_families()
    fams: set[str] = set()
    symbols: dict[str, _Symbol] = {}
    imports: dict[str, tuple[str, str]] = {}
    tests: list[tuple[str, int, _Symbol]] = []
    engines: set[str] = set()
    packages = {f.package for f in families()}
    for n in ast.walk(tree):
        modules: list[str] = []
        if isinstance(n, ast.ImportFrom) and n.module:
            base = n.module
            if n.level:
                parts = dotted.split(".")[: -n.level]
                base = ".".join([*parts, n.module])
            for alias in n.names:
                imports[alias.asname or alias.name] = (base, alias.name)
            modules = [base, *(f"{base}.{a.name}" for a in n.names)]
        elif isinstance(n, ast.Import):
            modules = [a.name for a in n.names]
            for a in n.names:
                imports.setdefault(a.asname or a.name, (a.name, ""))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            for book, pkg in books.items():
                if book in n.value:
                    fams.add(pkg)
        for name in modules:
            parts = name.split(".")
            if parts[:2] == ["arbitro", "model"] and len(parts) > 2 and parts[2] in packages:
                engines.add(parts[2])

    def symbol(node: ast.AST) -> _Symbol:
        return _test_symbol(node, all_keys, _comments_in(node, src, own=False))

    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            sym = symbols[stmt.name] = symbol(stmt)
            if stmt.name.startswith("test"):
                tests.append((stmt.name, stmt.lineno, sym))
        elif isinstance(stmt, ast.ClassDef):
            class_sym = symbols[stmt.name] = _Symbol(_Hits(), set())
            for item in stmt.body:
                sym = symbol(item)
                name = item.name if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) else ""
                if name.startswith("test") and stmt.name.startswith("Test"):
                    sym.refs.add(stmt.name)  # a test method uses its class's helpers
                    tests.append((f"{stmt.name}::{name}", item.lineno, sym))
                else:
                    class_sym.hits.merge(sym.hits)
                    class_sym.refs |= sym.refs
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            sym = symbol(stmt)
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        symbols[n.id] = sym
    return _TestModule(path, dotted, symbols, imports, tests, fams | engines, engines)


@cache
def _book_families() -> dict[str, str]:
    return {b.id: family_of(b.game).package for b in load_all()}


def scan_tests(tests_dir: Path, root: Path) -> dict[tuple[str, str], list[TestSite]]:
    """Every test by the (family, key) of each clause it names, itself or through what it uses."""
    fams = families()
    all_keys = frozenset().union(*(f.keys for f in fams))
    modules = {}
    for path in sorted(tests_dir.rglob("*.py")):
        m = _read_test_module(path, root, tests_dir, all_keys)
        modules[m.dotted] = m

    def find(m: _TestModule, name: str) -> _TestModule | None:
        """A module of the suite imported by `m`: by its full name, or beside `m` (the suite's
        helpers are imported by their bare names)."""
        sibling = m.dotted.rpartition(".")[0] + "." + name
        return modules.get(name) or modules.get(sibling)

    # a helper module of the suite that imports an engine brings it to those that import it
    changed = True
    while changed:
        changed = False
        for m in modules.values():
            for src, _ in m.imports.values():
                other = find(m, src)
                if other is not None and not other.engines <= m.engines:
                    m.engines |= other.engines
                    m.families |= other.engines
                    changed = True

    def closure(mod: _TestModule, sym: _Symbol) -> _Hits:
        out = _Hits()
        seen: set[tuple[str, str]] = set()
        todo: list[tuple[_TestModule, _Symbol]] = [(mod, sym)]
        while todo:
            m, s = todo.pop()
            out.merge(s.hits)
            for name in s.refs:
                target: tuple[_TestModule, str] | None = None
                if name in m.symbols:
                    target = (m, name)
                elif name in m.imports:
                    src, orig = m.imports[name]
                    other = find(m, src)
                    if other is not None and orig in other.symbols:
                        target = (other, orig)
                if target is None or (target[0].dotted, target[1]) in seen:
                    continue
                seen.add((target[0].dotted, target[1]))
                todo.append((target[0], target[0].symbols[target[1]]))
        return out

    out: dict[tuple[str, str], list[TestSite]] = {}
    for mod in modules.values():
        if any(
            src == __name__ or src.startswith(__name__ + ".") for src, _ in mod.imports.values()
        ):
            continue  # the tests of this module write clause names into sources of their own
        rel = str(mod.path.relative_to(root))
        mine = [f for f in fams if f.package in mod.families] or list(fams)
        for name, line, sym in mod.tests:
            hits = closure(mod, sym)
            for key, hows in hits.how.items():
                for fam in mine:
                    if key in fam.keys:
                        plays = fam.package in mod.engines
                        site = TestSite(f"{rel}::{name}", rel, line, tuple(sorted(hows)), plays)
                        out.setdefault((fam.package, key), []).append(site)
    return out


# ---------------------------------------------------------------- the index


def default_root() -> Path:
    """The folder holding model/ (and, in a checkout, tests/) of the arbitro that is running."""
    import arbitro.model

    return Path(arbitro.model.__file__).resolve().parent.parent


_INDEXES: dict[tuple[Path, tuple[tuple[str, int, int], ...]], Index] = {}


def _signature(*dirs: Path) -> tuple[tuple[str, int, int], ...]:
    """Every source file under the folders with its size and time of change."""
    out = []
    for d in dirs:
        if d.is_dir():
            for p in sorted(d.rglob("*.py")):
                st = p.stat()
                out.append((str(p), st.st_size, st.st_mtime_ns))
    return tuple(out)


def build_index(root: Path | None = None) -> Index:
    """Scan `root`/model and, when present, `root`/tests (default: this installation's); a tree
    scanned before in this process and unchanged since is not scanned again."""
    base = root or default_root()
    key = (base.resolve(), _signature(base / "model", base / "arbitro" / "model", base / "tests"))
    hit = _INDEXES.get(key)
    if hit is None:
        hit = _INDEXES[key] = _build_index(base)
        if len(_INDEXES) > 8:
            _INDEXES.pop(next(iter(_INDEXES)))
    return hit


def _build_index(base: Path) -> Index:
    model_dir = base / "model"
    if not model_dir.is_dir():
        model_dir = base / "arbitro" / "model"  # an installed wheel keeps the model inside arbitro
    if not model_dir.is_dir():
        raise TraceError(f"no model/ folder under {base}: give the root of an arbitro checkout")
    tests_dir = base / "tests"
    at_hand = tests_dir.is_dir()
    return Index(
        root=base,
        code=scan_model(model_dir, base),
        tests=scan_tests(tests_dir, base) if at_hand else {},
        tests_at_hand=at_hand,
    )


# ---------------------------------------------------------------- gaps (the meta-test)


GAP_KINDS = ("enforcing function", "clause id beside its code", "test")


@dataclass(frozen=True)
class Gap:
    """A played clause key that lacks one of GAP_KINDS, and the books that have it."""

    package: str
    key: str
    missing: str  # one of GAP_KINDS
    books: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.key} ({', '.join(self.books)}): no {self.missing} in model/{self.package}"


def gaps(index: Index, books: Sequence[Rulebook]) -> list[Gap]:
    """What a played clause of these books lacks, one entry per family, key and kind:

    - an enforcing function: one in the family's package that reads the field or names the clause;
    - its clause id beside its code: a module holding an enforcing function names the clause (in a
      docstring, a comment, `cid("key")` or a refusal), so a reader of the code finds the clause;
    - a test: one that names the clause and whose module imports the family's engine, itself or
      through a helper of the suite (a test of the spec loader alone does not count).
    """
    wanted: dict[tuple[str, str], list[str]] = {}
    for book in books:
        pkg = family_of(book.game).package
        for c in book.clauses:
            if c.status in PLAYED_STATUSES:
                wanted.setdefault((pkg, c.key), []).append(book.id)
    out = []
    for (pkg, key), ids in sorted(wanted.items()):
        sites = index.code_for(pkg, key)
        files = {s.file for s in sites if s.is_function}
        if not files:
            out.append(Gap(pkg, key, "enforcing function", tuple(ids)))
        elif not any(s.file in files and any(h in _NAMES for h in s.how) for s in sites):
            out.append(Gap(pkg, key, "clause id beside its code", tuple(ids)))
        if index.tests_at_hand and not any(t.plays for t in index.tests_for(pkg, key)):
            out.append(Gap(pkg, key, "test", tuple(ids)))
    return out


_NAMES = frozenset({"names", "docstring", "comment"})


# ---------------------------------------------------------------- a trace


@dataclass(frozen=True)
class FieldInfo:
    """The rules field a clause key sets: its class, type and the schema's comment on it."""

    rules_class: str
    name: str
    type: str
    about: str


@cache
def _schema_comments() -> dict[tuple[str, str], str]:
    """The comment beside each field of the rules classes in schema.py (the field's meaning)."""
    import arbitro.model.schema as schema

    source = Path(schema.__file__).read_text(encoding="utf-8")
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("# ").strip()
    out: dict[tuple[str, str], str] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                end = stmt.end_lineno or stmt.lineno
                said = [comments[n] for n in range(stmt.lineno, end + 1) if n in comments]
                if said:
                    out[(node.name, stmt.target.id)] = " ".join(said)
    return out


def field_info(fam: Family, key: str) -> FieldInfo:
    cls = SCHEMAS[fam.games[0]]
    hint = next(f for f in dataclasses.fields(cls) if f.name == key).type
    shown = hint if isinstance(hint, str) else getattr(hint, "__name__", str(hint))
    return FieldInfo(
        cls.__name__,
        key,
        " ".join(str(shown).split()),
        _schema_comments().get((cls.__name__, key), ""),
    )


@dataclass(frozen=True)
class BookClause:
    book: Rulebook
    clause: Clause


@dataclass(frozen=True)
class FamilyTrace:
    """One clause key in the books of one engine: values, field, code, tests."""

    family: Family
    key: str
    clauses: tuple[BookClause, ...]
    field: FieldInfo
    code: tuple[CodeSite, ...]
    tests: tuple[TestSite, ...]


@dataclass(frozen=True)
class ClaimTrace:
    """A claim of a book: data only, no rule reads it."""

    book: Rulebook
    claim: Claim
    tests: tuple[TestSite, ...]
    checkers: tuple[CodeSite, ...] = ()  # the functions of proofs/ that check claims of its kind


@dataclass(frozen=True)
class Trace:
    name: str
    families: tuple[FamilyTrace, ...]
    claims: tuple[ClaimTrace, ...]
    tests_at_hand: bool


def resolve(
    name: str, books: Sequence[Rulebook]
) -> tuple[list[BookClause], list[tuple[Rulebook, Claim]]]:
    """The clauses (or claims) a CLAUSE argument names: `book:key`, `key` in every book having it,
    `book:claim:name`; TraceError naming what is wrong, with near keys when there are some."""
    text = name.strip()
    by_id = {b.id: b for b in books}
    if text.count(":") == 2 and text.split(":")[1] == "claim":
        book_id, _, claim_name = text.split(":")
        book = by_id.get(book_id)
        if book is None:
            raise TraceError(f"unknown rulebook {book_id!r}; known: {', '.join(by_id)}")
        for cl in book.claims:
            if cl.name == claim_name:
                return [], [(book, cl)]
        known = ", ".join(c.name for c in book.claims) or "none"
        raise TraceError(f"{book_id} has no claim {claim_name!r}; its claims: {known}")
    if ":" in text:
        book_id, _, raw = text.partition(":")
        book = by_id.get(book_id)
        if book is None:
            raise TraceError(
                f"unknown rulebook {book_id!r}; known: {', '.join(by_id)}"
                + did_you_mean(book_id, by_id)
            )
        chosen = [book]
    else:
        raw, chosen = text, list(books)
    key = option_key(raw)
    found = [BookClause(b, b.clause(key)) for b in chosen if b.has(key)]
    claims = [(b, c) for b in chosen for c in b.claims if c.name == raw.replace("_", "-")]
    if found or claims:
        return found, claims
    where = chosen[0].id if len(chosen) == 1 else "no rulebook"
    near = sorted(
        {
            c.key.replace("_", "-")
            for b in chosen
            for c in b.clauses
            if key and (key in c.key or c.key in key)
        }
    )
    hint = (
        f"; did you mean {', '.join(near[:4])}?"
        if near
        else did_you_mean(raw, {c.key.replace("_", "-") for b in chosen for c in b.clauses})
    )
    shown = raw if len(raw) <= 60 else raw[:60] + "…"
    if where == "no rulebook":
        raise TraceError(f"no rulebook has a clause {shown!r}{hint}")
    raise TraceError(f"{where} has no clause {shown!r}{hint}")


def trace(name: str, index: Index | None = None, books: Sequence[Rulebook] | None = None) -> Trace:
    """Everything `rules trace` shows for one CLAUSE argument."""
    all_books = list(books) if books is not None else load_all()
    found, claims = resolve(name, all_books)
    idx = index or build_index()
    fams: list[FamilyTrace] = []
    for fam in families():
        mine = tuple(bc for bc in found if bc.book.game in fam.games)
        if not mine:
            continue
        key = mine[0].clause.key
        fams.append(
            FamilyTrace(
                family=fam,
                key=key,
                clauses=mine,
                field=field_info(fam, key),
                code=tuple(sorted(idx.code_for(fam.package, key), key=_code_order)),
                tests=tuple(sorted(idx.tests_for(fam.package, key), key=_test_order)),
            )
        )
    claim_traces = tuple(
        ClaimTrace(b, c, tuple(_claim_tests(idx, b, c)), claim_checkers(idx.root, c.kind))
        for b, c in claims
    )
    return Trace(name, tuple(fams), claim_traces, idx.tests_at_hand)


def _test_order(t: TestSite) -> tuple[bool, str, int]:
    return (not t.plays, t.file, t.line)


def _code_order(s: CodeSite) -> tuple[int, str, int]:
    # functions that say which clause they implement first, then readers, the module level last
    rank = 0 if "docstring" in s.how or "names" in s.how else 1
    return (rank if s.is_function else 2, s.file, s.line)


def claim_checkers(root: Path, kind: str) -> tuple[CodeSite, ...]:
    """The functions of proofs/ that check a claim kind: those a table maps the kind's name to
    (`{"card_count": _card_count}`), or that name the kind themselves."""
    proofs = root / "proofs" if (root / "proofs").is_dir() else root / "arbitro" / "proofs"
    out: list[CodeSite] = []
    for path in sorted(proofs.rglob("*.py")) if proofs.is_dir() else []:
        tree = _parse(path, root).tree
        module = ".".join(("arbitro", "proofs", *path.relative_to(proofs).with_suffix("").parts))
        defs = {
            n.name: n.lineno
            for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        mapped = {
            v.id
            for d in ast.walk(tree)
            if isinstance(d, ast.Dict)
            for k, v in zip(d.keys, d.values, strict=True)
            if isinstance(k, ast.Constant) and k.value == kind and isinstance(v, ast.Name)
        }
        for qual, node in _functions(tree):
            if qual == "<module>" or isinstance(node, ast.ClassDef):
                continue
            names_it = any(
                isinstance(n, ast.Constant) and n.value == kind for n in _own_nodes(node)
            )
            if qual in mapped or names_it:
                how = ("checks the kind",) if qual in mapped else ("names the kind",)
                line = defs.get(qual, getattr(node, "lineno", 1))
                out.append(CodeSite(f"{module}:{qual}", str(path.relative_to(root)), line, how))
    return tuple(out)


def _claim_tests(idx: Index, book: Rulebook, claim: Claim) -> Iterable[TestSite]:
    """Tests naming the claim's id; found by a plain text search, claims being few and rare."""
    if not idx.tests_at_hand:
        return []
    out = []
    needle = (claim.id, f'"{claim.name}"')
    for path in sorted((idx.root / "tests").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if not any(n in text for n in needle):
            continue
        tree = ast.parse(text)
        rel = str(path.relative_to(idx.root))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                seg = ast.get_source_segment(text, node) or ""
                if any(n in seg for n in needle):
                    out.append(
                        TestSite(f"{rel}::{node.name}", rel, node.lineno, ("names the claim",))
                    )
    return out


# ---------------------------------------------------------------- output


def to_json(t: Trace) -> dict[str, Any]:
    return {
        "clause": t.name,
        "tests_at_hand": t.tests_at_hand,
        "families": [
            {
                "games": list(ft.family.games),
                "key": ft.key,
                "field": {
                    "class": ft.field.rules_class,
                    "name": ft.field.name,
                    "type": ft.field.type,
                    "about": ft.field.about,
                },
                "books": [_book_json(bc) for bc in ft.clauses],
                "code": [s.to_json() for s in ft.code],
                "tests": [s.to_json() for s in ft.tests],
            }
            for ft in t.families
        ],
        "claims": [
            {
                "id": ct.claim.id,
                "role": "data only: a statement the book makes about itself; no rule reads it",
                "statement": ct.claim.statement(),
                "section": ct.claim.section,
                "paraphrase": ct.claim.paraphrase,
                "checked_by": [s.to_json() for s in ct.checkers],
                "tests": [s.to_json() for s in ct.tests],
            }
            for ct in t.claims
        ],
    }


def _book_json(bc: BookClause) -> dict[str, Any]:
    c = bc.clause
    out: dict[str, Any] = {
        "id": c.id,
        "value": c.value,
        "status": c.status,
        "section": c.section,
        "role": _role(c),
    }
    if len(c.readings) > 1:
        out["default"] = c.default
        out["readings"] = {r.label: r.value for r in c.readings}
    return out


def _role(c: Clause) -> str:
    if c.status == "unspecified":
        return "played at our default (the book is silent)"
    if c.status == "conflicting":
        return f"played as reading {c.default!r} (the book says two things; switchable)"
    if c.optional:
        return "played when the optional rule is on"
    return "played"


def _value(v: Any) -> str:
    import json

    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def render_text(t: Trace, width: int = 100) -> str:
    """The trace as a person reads it: lines wrapped to `width`, tests grouped by file."""
    out: list[str] = []

    def put(text: str, indent: int, more: int = 4) -> None:
        out.extend(
            textwrap.wrap(
                text,
                width=max(width, 40),
                initial_indent=" " * indent,
                subsequent_indent=" " * (indent + more),
                break_long_words=False,
                break_on_hyphens=False,
            )
            or [""]
        )

    for ft in t.families:
        put(f"clause {ft.key.replace('_', '-')} ({' and '.join(ft.family.games)})", 0)
        about = f" — {ft.field.about}" if ft.field.about else ""
        put(f"field: {ft.field.rules_class}.{ft.field.name}: {ft.field.type}{about}", 2)
        put("books:", 2)
        for bc in ft.clauses:
            c = bc.clause
            role = _role(c)
            said = "" if role == "played" else f"; {role}"
            put(f"{c.id} = {_value(c.value)}  ({c.status}, § {c.section}{said})", 4)
            if len(c.readings) > 1:
                shown = "; ".join(f"{r.label} = {_value(r.value)}" for r in c.readings)
                put(f"readings: {shown}", 6)
        fns = [s for s in ft.code if s.is_function]
        put(
            f"code: {len(fns)} function{'' if len(fns) == 1 else 's'} in model/{ft.family.package}",
            2,
        )
        if not fns:
            put("none: no function reads this field or names the clause", 4)
        for s in ft.code:
            put(f"{s.function}  {s.file}:{s.line}  ({', '.join(s.how)})", 4, 6)
        if not t.tests_at_hand:
            put("tests: not at hand (no tests/ folder beside model/; run from a checkout)", 2)
        else:
            files = len({ts.file for ts in ft.tests})
            put(f"tests: {len(ft.tests)} in {files} file{'' if files == 1 else 's'}", 2)
            if not ft.tests:
                put("none: no test names this clause", 4)
            _put_tests(put, ft.tests, ft.family.package)
        out.append("")
    for ct in t.claims:
        put(f"claim {ct.claim.id}: data only, a statement the book makes; no rule reads it", 0)
        put(f"{ct.claim.statement()}  (§ {ct.claim.section})", 2)
        put(ct.claim.paraphrase, 2)
        put(f"checked by: {len(ct.checkers)} function{'' if len(ct.checkers) == 1 else 's'}", 2)
        for cs in ct.checkers:
            put(f"{cs.function}  {cs.file}:{cs.line}  ({', '.join(cs.how)})", 4, 6)
        if t.tests_at_hand:
            put(f"tests: {len(ct.tests)}", 2)
            _put_tests(put, ct.tests, "")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _put_tests(put: Any, tests: Sequence[TestSite], package: str) -> None:
    last = ""
    for ts in tests:
        if ts.file != last:
            put(ts.file, 4)
            last = ts.file
        name = ts.test.split("::", 1)[1]
        alone = "" if ts.plays or not package else f"; does not import model/{package}"
        put(f"{ts.line:>4}  {name}  ({', '.join(ts.how)}{alone})", 6, 6)


# ---------------------------------------------------------------- the command


def cmd_rules_trace(args: argparse.Namespace) -> int:
    import json
    import sys

    root = Path(args.root) if args.root else None
    if root is not None and not root.is_dir():
        raise TraceError(f"--root {args.root}: not a folder")
    books = load_all()
    resolve(args.clause, books)  # a bad name is refused before the source is read
    t = trace(args.clause, build_index(root), books)
    if args.json:
        sys.stdout.write(json.dumps(to_json(t), indent=2, ensure_ascii=False) + "\n")
    else:
        import shutil

        sys.stdout.write(render_text(t, shutil.get_terminal_size((100, 24)).columns))
    return 0


def register(rules_sub: Any) -> None:
    """Add `rules trace` to the `rules` subcommands."""
    p = rules_sub.add_parser(
        "trace", help="one clause: its value in each book, the code that plays it, its tests"
    )
    p.add_argument(
        "clause",
        metavar="CLAUSE",
        help="samba-en:draw-count, or draw-count (draw_count) for every book that has it; "
        "book:claim:NAME for a claim",
    )
    p.add_argument("--root", metavar="DIR", help="read model/ and tests/ of this checkout")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_rules_trace)
