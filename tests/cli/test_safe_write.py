"""arbitro.safe_write: only regular files replaced, nothing left behind, every refusal one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arbitro.safe_write import WriteError, check_target, open_atomic, write_text


def _leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".tmp"))


def test_a_new_file_is_written_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    write_text(target, "hello\n")
    assert target.read_text(encoding="utf-8") == "hello\n"
    assert _leftovers(tmp_path) == []


def test_an_existing_file_needs_force_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    with pytest.raises(WriteError, match="exists; pass --force"):
        write_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    write_text(target, "new\n", force=True)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_failure_while_writing_leaves_the_target_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), open_atomic(target, force=True) as f:
        f.write("half")
        raise RuntimeError("interrupted")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_symlink_is_refused_even_with_force_and_names_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("keep\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(WriteError) as info:
        write_text(link, "x", force=True)
    assert "is a symbolic link to" in str(info.value) and str(real) in str(info.value)
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "keep\n"
    write_text(real, "changed\n", force=True)  # resolved on purpose: the file itself is named
    assert link.read_text(encoding="utf-8") == "changed\n" and link.is_symlink()


def test_a_fifo_a_device_and_a_directory_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="is a FIFO, not a regular file"):
        write_text(fifo, "x", force=True)
    assert fifo.exists() and not fifo.is_file()
    with pytest.raises(WriteError, match="is a device, not a regular file"):
        write_text("/dev/null", "x", force=True)
    with pytest.raises(WriteError, match="is a directory"):
        write_text(tmp_path, "x", force=True)
    assert _leftovers(tmp_path) == []


def test_a_missing_directory_and_a_read_only_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="no directory"):
        check_target(tmp_path / "nope" / "x.txt")
    ro = tmp_path / "ro.txt"
    ro.write_text("keep\n", encoding="utf-8")
    ro.chmod(0o444)
    with pytest.raises(WriteError, match="is read-only"):
        write_text(ro, "x", force=True)
    assert ro.read_text(encoding="utf-8") == "keep\n"
    not_dir = tmp_path / "file"
    not_dir.write_text("", encoding="utf-8")
    with pytest.raises(WriteError, match="is not a directory"):
        check_target(not_dir / "x.txt")


def test_every_refusal_is_one_line_and_an_oserror(tmp_path: Path) -> None:
    for bad in ("", "a\0b", str(tmp_path / "nope" / "x")):
        with pytest.raises(WriteError) as info:
            check_target(bad)
        assert "\n" not in str(info.value)
        assert isinstance(info.value, OSError)
