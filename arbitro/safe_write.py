"""Writing files without destroying anything: every command that writes a file goes through here.

A file is written to a temporary file in the target's own directory and then moved over the target
in one step, so a reader sees the old file or the new one, never half of either, and a failure (a
full disk, Ctrl-C) leaves the target as it was and no temporary file behind.

Only a regular file is ever replaced, and only with ``force``. A symbolic link is never followed:
arbitro refuses it and names where it points, so that replacing the file behind a link is done on
purpose, by naming that file itself. Devices, FIFOs, sockets and directories are refused, as is a
regular file without write permission. Every refusal is a `WriteError`, whose message is one line
naming the path and what is wrong.

    check_target(path, force=False)      # refuse early, before a long computation
    write_text(path, text, force=False)  # the whole file at once
    with open_atomic(path, force=False) as f: ...   # streamed; replaced when the block ends
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from arbitro.model.errors import ArbitroError
from arbitro.model.inputs import shown

__all__ = ["WriteError", "check_target", "open_atomic", "write_bytes", "write_text"]


class WriteError(ArbitroError, OSError):
    """A file arbitro was asked to write cannot or must not be written; names the path."""


def _kind(mode: int) -> str | None:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return None


def _reason(e: OSError) -> str:
    return (e.strerror or os.strerror(e.errno or 0) or type(e).__name__).lower()


def check_target(path: str | os.PathLike[str], force: bool = False) -> Path:
    """The target as a Path, or WriteError if writing it would fail or replace what it must not."""
    text = os.fspath(path)
    if not text or not text.strip():
        raise WriteError("an empty file name was given")
    if "\0" in text:
        raise WriteError(f"{text!r} is not a file name (it holds a NUL byte)")
    p = Path(text)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise WriteError(f"{p.parent} is not a directory, so {p} cannot be written") from None
    except OSError as e:
        raise WriteError(f"cannot look at {shown(p)}: {_reason(e)}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(p)
            raise WriteError(
                f"{p} is a symbolic link to {target}; arbitro replaces only regular files: "
                f"name {target} itself to write there"
            )
        kind = _kind(st.st_mode)
        if kind == "a directory":
            raise WriteError(f"{p} is a directory; give a file name")
        if kind is not None:
            raise WriteError(f"{p} is {kind}, not a regular file; arbitro will not write over it")
        if not force:
            raise WriteError(f"{p} exists; pass --force to replace it")
        if not st.st_mode & 0o222:
            raise WriteError(f"{p} is read-only; arbitro will not replace it")
    parent = p.parent
    try:
        pst = os.stat(parent)
    except FileNotFoundError:
        raise WriteError(f"no directory {parent} to write {p.name} in") from None
    except NotADirectoryError:
        raise WriteError(f"{parent} is not a directory, so {p} cannot be written") from None
    except OSError as e:
        raise WriteError(f"cannot reach the directory {parent}: {_reason(e)}") from None
    if not stat.S_ISDIR(pst.st_mode):
        raise WriteError(f"{parent} is not a directory, so {p} cannot be written")
    return p


def _new_mode(existing: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(existing).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def open_atomic(
    path: str | os.PathLike[str], force: bool = False, binary: bool = False
) -> Iterator[IO[Any]]:
    """A file to write `path` through: a temporary file beside it, moved over it when the block
    ends without an exception; removed, and the target untouched, when it raises."""
    p = check_target(path, force)
    try:
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name[:100]}.", suffix=".tmp")
    except OSError as e:
        raise WriteError(f"cannot create a file in {p.parent}: {_reason(e)}") from None
    done = False
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            yield f
            f.flush()
        os.chmod(tmp, _new_mode(p))
        # between the first look and now the target may have changed: look again
        check_target(p, force)
        if force:
            os.replace(tmp, p)
        else:
            try:
                os.link(tmp, p)  # fails if the target appeared meanwhile: never replaces
            except FileExistsError:
                raise WriteError(f"{p} exists; pass --force to replace it") from None
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                    raise
                os.replace(tmp, p)  # a file system without hard links
            else:
                os.unlink(tmp)
        done = True
    except WriteError:
        raise
    except OSError as e:
        raise WriteError(f"cannot write {p}: {_reason(e)}") from None
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_text(path: str | os.PathLike[str], text: str, force: bool = False) -> Path:
    """Write `text` (UTF-8) to `path` atomically; see the module docstring for what is refused."""
    with open_atomic(path, force) as f:
        f.write(text)
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes, force: bool = False) -> Path:
    """Write `data` to `path` atomically."""
    with open_atomic(path, force, binary=True) as f:
        f.write(data)
    return Path(path)
