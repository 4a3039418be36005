"""The protocol's JSON Schemas, read from the installed package, and a validator that names the field.

The schemas in `arbitro/schemas/` are the protocol (docs/protocol.md); the server and the oracle
check what they receive against the very same files, so the documents and the code cannot drift
apart. The validator reads the subset of JSON Schema (draft 2020-12) those files use — `type`,
`enum`, `const`, `properties`, `required`, `additionalProperties`, `items`, `minItems`,
`maxItems`, `minimum`, `maximum`, `maxLength`, `pattern`, `uniqueItems`, `oneOf`, `allOf` with
`if`/`then`, `$ref` — and raises MalformedInput at the first value that breaks it, with its path:
``state.table[0].melds[1].kind: expected one of "set", "escalera", "wilds", "black-threes"; got "sets"``.

`arbitro schema NAME` prints one of them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from arbitro.model.errors import MalformedInput, OptionError
from arbitro.oracle.jsonio import shorten

BASE = "https://arbitro.invalid/schemas/v1/"


def schema_names() -> list[str]:
    """The names of the published schemas (file names without `.schema.json`), sorted."""
    folder = resources.files("arbitro").joinpath("schemas")
    return sorted(
        p.name.removesuffix(".schema.json")
        for p in folder.iterdir()
        if p.name.endswith(".schema.json")
    )


@cache
def schema_text(name: str) -> str:
    """The text of a published schema; OptionError lists the names when there is no such one."""
    if name not in schema_names():
        raise OptionError(f"no schema {name!r}; schemas: {', '.join(schema_names())}")
    return resources.files("arbitro").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")


@cache
def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text(name))
    return loaded


def _show(value: Any) -> str:
    try:
        text = json.dumps(_clip(value), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)[:200]
    return shorten(text, 80)


def _clip(value: Any, depth: int = 0) -> Any:
    """Enough of `value` to show 80 characters of it: a few items of each container, a few levels,
    so that naming a request of a hundred thousand items does not write all of them out."""
    if isinstance(value, str):
        return value[:100]
    if isinstance(value, list):
        if depth >= 4:
            return ["…"] if value else []
        head: list[Any] = [_clip(x, depth + 1) for x in value[:6]]
        return [*head, "…"] if len(value) > 6 else head
    if isinstance(value, dict):
        if depth >= 4:
            return {"…": "…"} if value else {}
        items = list(itertools.islice(value.items(), 6))
        out = {str(k)[:100]: _clip(x, depth + 1) for k, x in items}
        if len(value) > 6:
            out["…"] = "…"
        return out
    return value


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return type(value) is int
    if kind == "number":
        return type(value) in (int, float)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    raise ValueError(f"schema type {kind!r} is not read by this validator")  # pragma: no cover


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
"""The types a decoded JSON value of each schema type has (`_type_ok` on values JSON gives)."""


_ARTICLE = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


_PATTERN_WORDS = {
    "^(?:(?:10|[2-9JQKA])[CDHS]|JK)$": "a card name such as 10H, QS, 2C or JK",
    "^(10|[2-9JQKA])[CDHS]$": "a card name such as 10H, QS or 2C",
    "^[1-7SCR][ocbe]$": "a card name such as 7o, Sc or Re",
    "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$": "a name of at most 64 letters, digits, '_', '.', ':' or '-'",
}
"""How a message says what a pattern of the schemas asks for."""


class Invalid(MalformedInput):
    """A value that breaks a published schema: `path` is where, the message says what was expected."""

    def __init__(self, path: str, expected: str, got: Any) -> None:
        self.path = path
        self.expected = expected
        super().__init__(f"{path}: expected {expected}; got {_show(got)}")


def validate(value: Any, name: str, path: str) -> None:
    """Raise Invalid at the first place where `value` breaks the schema `name`.

    A compiled check says quickly whether the value is valid; only then is it walked again
    to say where it is not."""
    if not _compiled(name)(value):
        _check(value, schema(name), path)
        raise Invalid(path, f"a value of {name}.schema.json", value)  # pragma: no cover


@cache
def _compiled(name: str) -> Callable[[Any], bool]:
    return _compile(schema(name))


def _compile(s: dict[str, Any]) -> Callable[[Any], bool]:
    """A function telling whether a value satisfies the schema `s` (the keywords `_check` reads,
    with the same meaning), built once so that a state of a few hundred values checks fast."""
    checks: list[Callable[[Any], bool]] = []
    if "$ref" in s:
        checks.append(_compile(_resolve(s["$ref"])))
    kind = s.get("type")
    if kind is not None:
        kinds = tuple(kind if isinstance(kind, list) else [kind])
        if kinds == ("string",):
            checks.append(lambda v: type(v) is str)
        elif kinds == ("integer",):
            checks.append(lambda v: type(v) is int)
        elif kinds == ("boolean",):
            checks.append(lambda v: type(v) is bool)
        elif kinds == ("array",):
            checks.append(lambda v: type(v) is list)
        elif kinds == ("object",):
            checks.append(lambda v: type(v) is dict)
        else:
            # the exact Python types JSON decodes to: one set lookup for a value JSON gave, the
            # loop over the kinds only for anything else (a subclass is judged as before)
            types = frozenset(t for k in kinds for t in _TYPES[k])
            checks.append(lambda v: type(v) in types or any(_type_ok(v, k) for k in kinds))
    if "const" in s:
        c = s["const"]
        checks.append(lambda v: v == c and type(v) is type(c))
    if "enum" in s:
        allowed = tuple(s["enum"])
        checks.append(lambda v: any(v == e and type(v) is type(e) for e in allowed))
    if "pattern" in s or "maxLength" in s:
        rx = _pattern(s["pattern"]).search if "pattern" in s else None
        most = s.get("maxLength")
        checks.append(
            lambda v: (
                type(v) is not str
                or ((most is None or len(v) <= most) and (rx is None or rx(v) is not None))
            )
        )
    if "minimum" in s or "maximum" in s:
        low, high = s.get("minimum"), s.get("maximum")
        checks.append(
            lambda v: (
                type(v) not in (int, float)
                or ((low is None or v >= low) and (high is None or v <= high))
            )
        )
    if any(k in s for k in ("items", "minItems", "maxItems", "uniqueItems")):
        item = _compile(s["items"]) if "items" in s else None
        fewest, most_items = s.get("minItems", 0), s.get("maxItems")
        unique = bool(s.get("uniqueItems"))

        def array(v: Any) -> bool:
            if type(v) is not list:
                return True
            if len(v) < fewest or (most_items is not None and len(v) > most_items):
                return False
            if item is not None and not all(map(item, v)):
                return False
            if unique:
                return len({json.dumps(x, sort_keys=True) for x in v}) == len(v)
            return True

        checks.append(array)
    if any(k in s for k in ("properties", "required", "additionalProperties")):
        props = {k: _compile(v) for k, v in s.get("properties", {}).items()}
        required = tuple(s.get("required", ()))
        extra = s.get("additionalProperties", True)
        other = _compile(extra) if isinstance(extra, dict) else None

        def obj(v: Any) -> bool:
            if type(v) is not dict:
                return True
            for key in required:
                if key not in v:
                    return False
            for key, x in v.items():
                f = props.get(key)
                if f is not None:
                    if not f(x):
                        return False
                elif extra is False or (other is not None and not other(x)):
                    return False
            return True

        checks.append(obj)
    for part in s.get("allOf", ()):
        if "if" in part:
            checks.append(_implies(_compile(part["if"]), _compile(part.get("then", {}))))
        else:
            checks.append(_compile(part))
    if "oneOf" in s:
        options = [_compile(o) for o in s["oneOf"]]
        checks.append(lambda v: sum(1 for f in options if f(v)) == 1)
    if not checks:
        return lambda v: True
    f = checks[0]
    for g in checks[1:]:
        f = _both(f, g)
    if kind == "string" or ("oneOf" in s and all(o.get("type") == "string" for o in s["oneOf"])):
        f = _remembered(f)
    return f


def _implies(f: Callable[[Any], bool], g: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: not f(v) or g(v)


def _both(f: Callable[[Any], bool], g: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: f(v) and g(v)


def _remembered(f: Callable[[Any], bool], most: int = 4096) -> Callable[[Any], bool]:
    """`f` remembering its answer for up to `most` strings (card names recur by the hundred)."""
    seen: dict[str, bool] = {}

    def check(v: Any) -> bool:
        if type(v) is not str:
            return f(v)
        got = seen.get(v)
        if got is None:
            got = f(v)
            if len(seen) < most:
                seen[v] = got
        return got

    return check


def _resolve(ref: str) -> dict[str, Any]:
    target = ref.removeprefix(BASE)
    if not target.endswith(".schema.json"):
        raise ValueError(f"unsupported $ref {ref!r}")  # pragma: no cover
    return schema(target.removesuffix(".schema.json"))


def _check(value: Any, s: dict[str, Any], path: str) -> None:
    if "$ref" in s:
        _check(value, _resolve(s["$ref"]), path)
    kind = s.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_type_ok(value, k) for k in kinds):
            raise Invalid(path, " or ".join(_ARTICLE[k] for k in kinds), value)
    if "const" in s and not (value == s["const"] and type(value) is type(s["const"])):
        raise Invalid(path, _show(s["const"]), value)
    if "enum" in s and not any(value == e and type(value) is type(e) for e in s["enum"]):
        raise Invalid(path, "one of " + ", ".join(_show(e) for e in s["enum"]), value)
    if isinstance(value, str):
        if "maxLength" in s and len(value) > s["maxLength"]:
            raise Invalid(path, f"a string of at most {s['maxLength']} characters", value)
        if "pattern" in s and not _pattern(s["pattern"]).search(value):
            raise Invalid(
                path, _PATTERN_WORDS.get(s["pattern"], f"a string matching {s['pattern']}"), value
            )
    if type(value) in (int, float) and not isinstance(value, bool):
        if "minimum" in s and value < s["minimum"]:
            raise Invalid(path, f"a number of at least {s['minimum']}", value)
        if "maximum" in s and value > s["maximum"]:
            raise Invalid(path, f"a number of at most {s['maximum']}", value)
    if isinstance(value, list):
        if "minItems" in s and len(value) < s["minItems"]:
            raise Invalid(path, f"an array of at least {s['minItems']} items", value)
        if "maxItems" in s and len(value) > s["maxItems"]:
            raise Invalid(path, f"an array of at most {s['maxItems']} items", value)
        items = s.get("items")
        if items is not None:
            for i, x in enumerate(value):
                _check(x, items, f"{path}[{i}]")
        if s.get("uniqueItems") and len({json.dumps(x, sort_keys=True) for x in value}) < len(
            value
        ):
            raise Invalid(path, "an array without repeated items", value)
    if isinstance(value, dict):
        props = s.get("properties", {})
        for key in s.get("required", ()):
            if key not in value:
                raise Invalid(path, f"an object with the field {key!r}", value)
        extra = s.get("additionalProperties", True)
        for key, x in value.items():
            sub = props.get(key)
            where = f"{path}.{key}"
            if sub is not None:
                _check(x, sub, where)
            elif extra is False:
                known = ", ".join(props)
                raise Invalid(path, f"no field {shorten(str(key), 40)!r} (fields: {known})", key)
            elif isinstance(extra, dict):
                _check(x, extra, where)
    for part in s.get("allOf", ()):
        cond = part.get("if")
        if cond is not None:
            if _matches(value, cond):
                _check(value, part.get("then", {}), path)
        else:
            _check(value, part, path)
    if "oneOf" in s:
        _one_of(value, s["oneOf"], path)


def _matches(value: Any, s: dict[str, Any]) -> bool:
    try:
        _check(value, s, "")
    except Invalid:
        return False
    return True


def _one_of(value: Any, options: list[dict[str, Any]], path: str) -> None:
    # objects told apart by their "type" field: check against the branch it names, for a precise
    # message; otherwise exactly one branch must match
    tagged = {
        o["properties"]["type"]["const"]: o
        for o in options
        if "const" in o.get("properties", {}).get("type", {})
    }
    if tagged and len(tagged) == len(options):
        if not isinstance(value, dict):
            raise Invalid(path, "an object", value)
        branch = tagged.get(value.get("type")) if isinstance(value.get("type"), str) else None
        if branch is None:
            raise Invalid(
                f"{path}.type", "one of " + ", ".join(map(_show, tagged)), value.get("type")
            )
        _check(value, branch, path)
        return
    errors: list[Invalid] = []
    hits = 0
    for o in options:
        try:
            _check(value, o, path)
            hits += 1
        except Invalid as e:
            errors.append(e)
    if hits == 1:
        return
    if hits == 0:
        # the branch that got furthest (the longest path) says most about what is wrong
        best = max(errors, key=lambda e: len(e.path))
        raise best
    raise Invalid(path, "a value matching exactly one of the forms", value)  # pragma: no cover


# ---------------------------------------------------------------- `arbitro schema NAME`


def cmd_schema(args: argparse.Namespace) -> int:
    if args.name is None or args.list:
        sys.stdout.write("".join(f"{n}\n" for n in schema_names()))
        return 0
    sys.stdout.write(schema_text(args.name))
    if not schema_text(args.name).endswith("\n"):
        sys.stdout.write("\n")
    return 0


def register(sub: Any) -> None:
    """Add `arbitro schema` to the command line's subparsers."""
    p = sub.add_parser(
        "schema", help="print a JSON Schema of the protocol (without NAME: list them)"
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="e.g. request, rummy-state, card")
    p.add_argument("--list", action="store_true", help="list the schema names")
    p.set_defaults(func=cmd_schema)
