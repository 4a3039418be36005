"""``--workers N`` / ``--scheduler ADDRESS``: the options of every command that fans out."""

from __future__ import annotations

import argparse


def workers_count(text: str) -> int:
    """A ``--workers`` value: a whole number from 1 up to the cores here (`check_workers`)."""
    from arbitro.proofs.cluster import ClusterError, check_workers

    try:
        n = int(text)
        check_workers(n)
    except ClusterError as e:  # a count, but none this machine can start
        raise argparse.ArgumentTypeError(str(e)) from None
    except ValueError:
        why = f"--workers must be a whole number of processes, got {text[:40]!r}"
        raise argparse.ArgumentTypeError(why) from None
    return n


def scheduler_address(text: str) -> str:
    """A ``--scheduler`` value: not empty (an empty one, as an unset shell variable gives, would
    otherwise read as no scheduler and run the job in this process without a word)."""
    if not text.strip():
        why = f"--scheduler must be a Dask scheduler address (tcp://HOST:PORT), got {text!r}"
        raise argparse.ArgumentTypeError(why)
    return text.strip()


def add_fan_out(p: argparse.ArgumentParser, what: str, workers_help: str | None = None) -> None:
    """--workers N | --scheduler ADDRESS: the job's tasks over a Dask cluster (docs/scaling.md)."""
    fan = p.add_mutually_exclusive_group()
    fan.add_argument(
        "--workers",
        type=workers_count,
        default=None,
        metavar="N",
        help=workers_help
        or f"{what} over N local processes (Dask), at most one per core; the same results",
    )
    fan.add_argument(
        "--scheduler",
        type=scheduler_address,
        metavar="ADDRESS",
        help=f"{what} over the workers of a running Dask cluster (tcp://HOST:PORT)",
    )
