"""The findings' cache: verified when read, never trusted.

A cache file holds what `findings.derive` computed for one digest of the specs and sources. It is
read only when every check passes, and derived again otherwise:

- its size is at most `MAX_BYTES` (a file past it is not read at all);
- it parses as JSON nested at most `MAX_DEPTH` deep;
- it names the digest asked for, and the hash of its content matches (a flipped verdict or an
  edited witness changes the hash);
- every section has the shape and types `derive` writes (`SCHEMA`): a missing `witnesses` or a
  verdict that is not a verdict is a mismatch, never a silent gap in the findings.

Only deterministic results are written: no timings, and no derivation holding a verdict that a
wall-clock timeout decided (it depends on the machine's load, not on the books).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

MAX_BYTES = 32 * 1024 * 1024
"""The largest cache file read: a full derivation of the five books is about 2 MB."""
MAX_DEPTH = 64
"""The deepest nesting a cache may have: `derive` writes about 10 levels."""

VERDICTS = ("PROVED", "REFUTED", "UNKNOWN")

_STR, _INT, _BOOL, _LIST, _DICT = str, int, bool, list, dict

SCHEMA: dict[str, tuple[type, dict[str, type] | None]] = {
    # section: (container type, required fields of each entry and their types)
    "claims": (
        _LIST,
        {"claim": _STR, "statement": _STR, "options": _DICT, "method": _STR, "verdict": _STR},
    ),
    "clashes": (_LIST, {"rulebook": _STR, "clause": _STR, "permission": _STR, "core": _LIST}),
    "dead_rules": (
        _LIST,
        {
            "rulebook": _STR,
            "clause": _STR,
            "what": _STR,
            "why": _STR,
            "core": _LIST,
            "options": _DICT,
            "whole": _BOOL,
        },
    ),
    "escalera_wild": (_DICT, None),
    "witnesses": (
        _DICT,
        {"key": _STR, "books": _LIST, "how": _STR, "found": _BOOL, "text": _STR},
    ),
    "dead_ends": (
        _LIST,
        {
            "rulebook": _STR,
            "layout": _STR,
            "clauses": _LIST,
            "hands": _INT,
            "sampled": _INT,
            "actions": _INT,
            "replayed": _STR,
            "transcript": _STR,
        },
    ),
    "moot": (_DICT, {"how": _STR, "text": _STR}),
    "properties": (
        _LIST,
        {"rulebook": _STR, "options": _DICT, "property": _STR, "verdict": _STR, "text": _STR},
    ),
    "arises": (_DICT, {"how": _STR, "found": _BOOL, "text": _STR}),
}
"""What `derive` writes: each section's type and the fields every entry must carry."""


class CacheMismatch(ValueError):
    """A cache file that fails a check: it is derived again, never used."""


def content_hash(derived: dict[str, Any]) -> str:
    """The hash of the derived data, over its canonical JSON."""
    text = json.dumps(derived, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _depth_ok(text: str) -> bool:
    """Whether the JSON text nests at most MAX_DEPTH deep (counted outside strings, before
    parsing, so a deeply nested file never reaches the parser's recursion)."""
    depth = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def check_shape(derived: Any) -> None:
    """Raise CacheMismatch naming the first section or entry that `derive` would not write."""
    if not isinstance(derived, dict):
        raise CacheMismatch("the derived data is not an object")
    for section, (kind, fields) in SCHEMA.items():
        if section not in derived:
            raise CacheMismatch(f"section {section!r} is missing")
        value = derived[section]
        if not isinstance(value, kind):
            raise CacheMismatch(f"section {section!r} is not a {kind.__name__}")
        entries: list[Any] = value if isinstance(value, list) else list(value.values())  # type: ignore[attr-defined]
        for i, entry in enumerate(entries):
            if fields is None:
                if not isinstance(entry, list) or not all(isinstance(x, str) for x in entry):
                    raise CacheMismatch(f"{section}[{i}] is not a list of clause ids")
                continue
            if not isinstance(entry, dict):
                raise CacheMismatch(f"{section}[{i}] is not an object")
            for name, t in fields.items():
                got = entry.get(name)
                # a bool is an int to Python: an int field must not hold one, nor the reverse
                if not isinstance(got, t) or (t is int and isinstance(got, bool)):
                    raise CacheMismatch(f"{section}[{i}].{name} is not a {t.__name__}")
            if section == "claims" and entry["verdict"] not in VERDICTS:
                raise CacheMismatch(f"claims[{i}].verdict {entry['verdict']!r} is not a verdict")


def deterministic(derived: dict[str, Any]) -> bool:
    """Whether every result is one the books decide: no verdict left to a wall-clock timeout."""
    return not any(
        c.get("verdict") == "UNKNOWN" and "timeout" in str(c.get("reason", ""))
        for c in derived.get("claims", [])
    )


def read(path: Path, key: str) -> dict[str, Any]:
    """The derived data in the cache file `path` for digest `key`; CacheMismatch (or OSError)
    when any check fails."""
    if path.is_symlink() or not path.is_file():
        raise CacheMismatch("not a regular file")
    if path.stat().st_size > MAX_BYTES:
        raise CacheMismatch(f"larger than {MAX_BYTES} bytes")
    with path.open("rb") as f:
        raw = f.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise CacheMismatch(f"larger than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CacheMismatch("not UTF-8") from e
    if not _depth_ok(text):
        raise CacheMismatch(f"nested deeper than {MAX_DEPTH}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise CacheMismatch("not JSON") from e
    if not isinstance(data, dict) or data.get("digest") != key:
        raise CacheMismatch("made for other specs or sources")
    derived = data.get("derived")
    check_shape(derived)
    assert isinstance(derived, dict)  # check_shape raised otherwise
    try:
        expected = content_hash(derived)
    except UnicodeEncodeError as e:  # an escaped lone surrogate: JSON reads it, UTF-8 cannot
        raise CacheMismatch("it holds a lone surrogate, which derive never writes") from e
    if data.get("content") != expected:
        raise CacheMismatch("its content does not match its hash")
    return derived


def write(path: Path, key: str, derived: dict[str, Any]) -> bool:
    """Write the cache atomically when its results are deterministic; False when skipped or when
    the cache cannot be written (never an error)."""
    from arbitro.safe_write import WriteError, write_text

    if not deterministic(derived):
        return False
    body = {"digest": key, "content": content_hash(derived), "derived": derived}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(body, ensure_ascii=False), force=True)
    except (OSError, WriteError):
        return False
    return True


__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "SCHEMA",
    "CacheMismatch",
    "check_shape",
    "content_hash",
    "deterministic",
    "read",
    "write",
]
