"""Files a user names on the command line: what is wrong with one, in words, before it is read.

`input_problem(path)` returns None for a regular file that can be opened, or one short phrase
("is a directory", "is a FIFO, not a regular file", "file name too long ...") that a message puts
after the path. It never raises: an empty name, a NUL byte, a name longer than the system allows
and a loop of links are each named as such, rather than surfacing as an OSError.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["input_problem", "shown"]

SHOWN = 80
"""The most characters of a path a message shows (a longer one is cut in the middle)."""


def shown(path: str | os.PathLike[str]) -> str:
    """A path as a message shows it: at most SHOWN characters, cut in the middle."""
    text = os.fspath(path)
    if len(text) <= SHOWN:
        return text
    return f"{text[: SHOWN // 2 - 1]}…{text[-(SHOWN // 2 - 1) :]} ({len(text.encode('utf-8', 'surrogateescape')):,} bytes)"


def input_problem(path: str | os.PathLike[str]) -> str | None:
    """None if `path` is a regular file that can be read, else what is wrong with it."""
    text = os.fspath(path)
    if not text:
        return "an empty file name"
    if "\0" in text:
        return "not a file name (it holds a NUL byte)"
    try:
        st = os.stat(text)
    except FileNotFoundError:
        try:
            if stat.S_ISLNK(os.lstat(text).st_mode):
                return "a symbolic link to nothing (its target does not exist)"
        except OSError:
            pass
        return "does not exist"
    except NotADirectoryError:
        return "does not exist (a folder on the way is a file)"
    except OSError as e:
        if e.errno == errno.ENAMETOOLONG:
            longest = max(len(p.encode("utf-8", "surrogateescape")) for p in text.split("/"))
            return f"file name too long ({longest:,} bytes in one name; the system allows 255)"
        if e.errno == errno.ELOOP:
            return "a loop of symbolic links"
        return f"cannot be looked at: {(e.strerror or type(e).__name__).lower()}"
    if stat.S_ISDIR(st.st_mode):
        return "is a directory, not a file"
    if stat.S_ISFIFO(st.st_mode):
        return "is a FIFO, not a regular file"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "is a device, not a regular file"
    if stat.S_ISSOCK(st.st_mode):
        return "is a socket, not a regular file"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if not os.access(text, os.R_OK):
        return "cannot be read (permission denied)"
    return None
