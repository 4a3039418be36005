"""One deal's state graph split over workers: states partitioned by hash, level by level.

As distributed TLC does, each partition owns the states whose packed form hashes to it: it keeps
their visited set, expands its part of each level's frontier, and sends every successor to the
partition that owns it. A level ends when every partition has received the successors meant for
it; the next level is what each received and had not seen. The walk is breadth first, as one
process walks, so it finds the same states, edges, terminal states, score distribution and
deadlocks (the tests compare them).

States are kept packed (`Packer`): an Escoba state is one integer, its fields bit-packed, its stock
the deal's order (only its length kept) when it is; any other model's state is its canonical JSON
as bytes. Visited sets and frontiers hold those, never state objects.

Witnesses. One process's deadlock witness is the path through the parent that first reached each
state, which in breadth-first order is the shortest path with the least action numbers, read as a
sequence. A partition cannot know that parent without the others' order, so it carries that path
itself: each successor travels with its path, and a partition keeps the least. Paths cost memory
and exchange, so they are carried only when needed: with ``max_states`` (which states a bounded
level keeps is decided by the same order), and in a second walk made only when the first found a
deadlock or a broken invariant (to name the first five of them, as one process does).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import itertools
import pickle
import resource
import time
import zlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from arbitro.model.errors import ArbitroError
from arbitro.model.escoba import packing
from arbitro.model.escoba.state import EscobaState
from arbitro.model.family import family_holding
from arbitro.model.game import Game, GameModel
from arbitro.proofs.cluster import wait_gather, wait_result
from arbitro.proofs.explore import (
    ExploreError,
    Result,
    Symmetry,
    _outcome,
    _probes,
    canonizer,
    deal_order,
    witness,
)
from arbitro.proofs.explore_config import Config, model_of

R = TypeVar("R")
S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)

# ---------------------------------------------------------------- packing


class Packer(Protocol):
    """A state as a compact canonical value (equal states, equal values) and back."""

    def pack(self, state: Any) -> Hashable: ...

    def unpack(self, packed: Any) -> Any: ...

    def owner(self, packed: Any, parts: int) -> int: ...


_ONE = (1, b"")
"""The weight and path of every state without symmetry and paths."""
_MIX = 0x9E3779B97F4A7C15
_M64 = (1 << 64) - 1


class EscobaPacker:
    """An Escoba state as one integer (`arbitro.model.escoba.packing`, compiled with the engine):
    the 30 bytes of a two-player state in play make an integer of 240 bits. A value that does
    not fit raises `ExploreError`."""

    def __init__(self, root: EscobaState) -> None:
        self.players = len(root.hands)
        self.sides = len(root.piles)
        stock = root.stock
        if len(stock) >= 64:
            raise ExploreError("an Escoba stock of 64 cards or more does not pack")
        self.suffix = {stock[len(stock) - n :]: 128 + n for n in range(len(stock) + 1)}
        self.by_length = {n: stock[len(stock) - n :] for n in range(len(stock) + 1)}
        self.misc = packing.misc_of(root)
        self.texts: dict[tuple[Any, ...], bytes] = {}
        self.parsed: dict[bytes, tuple[Any, ...]] = {}

    def pack(self, s: EscobaState) -> int:
        try:
            return packing.pack(s, self.suffix, self.misc, self.texts)
        except (OverflowError, ValueError, TypeError):
            raise ExploreError(
                "an Escoba state out of the packed ranges; explore it in one process"
            ) from None

    def unpack(self, v: int) -> EscobaState:
        return packing.unpack(v, self.players, self.sides, self.by_length, self.misc, self.parsed)

    def owner(self, v: int, parts: int) -> int:
        return (((hash(v) * _MIX) & _M64) >> 32) % parts


class JsonPacker:
    """Any model's state as its canonical JSON (sorted keys, no spaces) in UTF-8 bytes."""

    def __init__(self, model: Game[R, S, A], rules: R) -> None:
        import json

        self.model = model
        self.rules = rules
        self.dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
        self.loads = json.loads

    def pack(self, state: Any) -> bytes:
        return self.dumps(self.model.state_to_json(state)).encode()

    def unpack(self, packed: bytes) -> Any:
        return self.model.state_from_json(self.rules, self.loads(packed))

    def owner(self, packed: bytes, parts: int) -> int:
        return zlib.crc32(packed) % parts


PACKERS: dict[str, Callable[[Any], Packer]] = {"escoba": EscobaPacker}
"""A family's (`GameFamily.name`) own packing of its states, smaller than their JSON."""


def packer_for(model: Game[R, S, A], rules: R, root: S) -> Packer:
    """The compact packing of this model's states: its family's own, else its JSON."""
    family = family_holding(root)
    packer = PACKERS.get(family.name) if family is not None else None
    return packer(root) if packer is not None else JsonPacker(model, rules)


# ---------------------------------------------------------------- one partition


def _step(path: bytes, k: int) -> bytes:
    if k >= 65536:
        raise ExploreError("a state with more than 65,536 legal actions: paths cannot number them")
    return path + k.to_bytes(2, "big")


class Partition:
    """The states of one deal whose packed form hashes to ``part`` of ``parts``.

    A level is `expand` (the frontier's successors, grouped by owner and pickled), `receive`
    (the successors sent here: those not seen before are candidates) and `commit` (the candidates
    become the next frontier, all of them or those a bounded run keeps).
    """

    def __init__(
        self,
        config: Config,
        seed: int,
        part: int,
        parts: int,
        *,
        max_states: int | None = None,
        symmetry: bool = False,
        paths: bool = False,
        model: GameModel | None = None,
    ) -> None:
        self.model = model = model or model_of(config)
        self.config = config
        self.rules = rules = config.rules
        self.part = part
        self.parts = parts
        self.max_states = max_states
        self.paths = paths
        self.res = Result(config.name, [seed], symmetry=symmetry)
        self.sym = Symmetry.of(config) if symmetry else Symmetry((), ({},))
        self.reduced = len(self.sym.perms) > 1
        before = model.new_game(rules, config.seating)
        self.order = deal_order(model, config, seed)
        root = model.deal(rules, before, self.order)
        self.used = getattr(model, "clauses_used", None)
        self.res.clauses_known = self.used is not None
        self.keyed = getattr(model, "clauses_key", None) if self.used is not None else None
        self.keys_seen: set[Hashable] = set()
        self.refusable = getattr(model, "refusal_clauses", None)
        self.covered: Any = None
        if self.used is not None and part == 0:
            with contextlib.suppress(ArbitroError, TypeError):
                self.res.clauses |= self.used(rules, before, self.order)
        self.canon = canonizer(model, rules, self.sym, root)
        start, size = self.canon(root)
        self.packer = packer_for(model, rules, start)
        self.progress = getattr(model, "progress", None)
        self.progress_root = self.progress(start) if self.progress is not None else 0
        # a model that numbers its states' progress never meets a state at two depths: only the
        # level being reached is kept, else every state seen (see explore.py)
        self.visited: set[Any] | None = None if self.progress is not None else set()
        self.depth = 0
        # the level being expanded, and the one being received: packed state -> (weight, path),
        # or without symmetry and paths (every weight 1, no path) a set of packed states
        self.plain = not paths and not self.reduced
        self.frontier: dict[Any, tuple[int, bytes]] | set[Any] = self._empty()
        self.incoming: dict[Any, tuple[int, bytes]] | set[Any] = self._empty()
        p = self.packer.pack(start)
        if self.packer.owner(p, parts) == part:
            if isinstance(self.incoming, set):
                self.incoming.add(p)
            else:
                self.incoming[p] = (size, b"")
        self.orbits = 0  # states this partition committed
        self.peak_held = 0  # the most states held at once (frontier, level received, visited)
        self.sent = [0] * parts  # successors sent to each partition
        self.sent_bytes = [0] * parts  # and their pickled size
        self.deadlock_paths: list[tuple[int, bytes]] = []
        self.violation_paths: list[tuple[int, bytes, dict[str, Any]]] = []
        self.cpu = 0.0
        # what the levels expanded so far found, as of the last two (see `levels_done`)
        self.done: list[tuple[int, Result]] = [(0, copy.deepcopy(self.res))]

    def _empty(self) -> dict[Any, tuple[int, bytes]] | set[Any]:
        return set() if self.plain else {}

    def incoming_count(self) -> int:
        return len(self.incoming)

    def candidates(self) -> list[bytes]:
        """The paths of the states received for the next level, sorted (a bounded level's cut)."""
        assert isinstance(self.incoming, dict)
        return sorted(path for _, path in self.incoming.values())

    def commit(self, keep: int | None = None, last: bytes | None = None) -> tuple[int, int]:
        """The received states become the frontier: all of them (``keep`` None), none (``keep``
        0), or those whose path is at most ``last``. Returns (states, their weight)."""
        if keep == 0:
            self.incoming = self._empty()
        elif last is not None:
            assert isinstance(self.incoming, dict)
            self.incoming = {p: wp for p, wp in self.incoming.items() if wp[1] <= last}
        self.frontier = self.incoming
        self.incoming = self._empty()
        if self.visited is not None:
            self.visited.update(self.frontier)
        self.orbits += len(self.frontier)
        self.peak_held = max(self.peak_held, self.held())
        if isinstance(self.frontier, set):
            return len(self.frontier), len(self.frontier)
        return len(self.frontier), sum(w for w, _ in self.frontier.values())

    def held(self) -> int:
        seen = len(self.visited) if self.visited is not None else 0
        return len(self.frontier) + len(self.incoming) + seen

    def expand(self) -> list[bytes]:
        """Walk the frontier (depth ``self.depth``): check and count each state, and group its
        successors by owner; returns each owner's batch, pickled."""
        enabled = gc.isenabled()
        gc.disable()
        cpu = time.process_time()
        try:
            sent = self._expand()
        finally:
            self.cpu += time.process_time() - cpu
            if enabled:
                gc.enable()
        self.res.cpu_seconds = self.cpu
        self.done = [*self.done[-1:], (self.depth, copy.deepcopy(self.res))]
        return sent

    def _expand(self) -> list[bytes]:
        model, rules, res, depth = self.model, self.rules, self.res, self.depth
        legal_actions, apply, violations, phase = (
            model.legal_actions, model.apply, model.violations, model.phase,
        )  # fmt: skip
        unpack, pack, owner, parts = (
            self.packer.unpack, self.packer.pack, self.packer.owner, self.parts,
        )  # fmt: skip
        used, keyed, refusable, keys_seen = self.used, self.keyed, self.refusable, self.keys_seen
        progress, reduced, paths = self.progress, self.reduced, self.paths
        out: list[dict[Any, tuple[int, bytes]]] = [{} for _ in range(parts)]
        plain = [set[Any]() for _ in range(parts)]
        frontier = self.frontier
        items = (
            zip(frontier, itertools.repeat(_ONE)) if isinstance(frontier, set) else frontier.items()
        )
        while len(res.per_depth) <= depth:
            res.per_depth.append(0)
        level = 0
        edges = 0
        for packed, (w, path) in items:
            state = unpack(packed)
            level += w
            if progress is not None and progress(state) != self.progress_root + depth:
                raise ExploreError(
                    f"the model's progress of a state at depth {depth} is {progress(state)}, not"
                    f" {self.progress_root + depth}: it must grow by one with every transition"
                )
            broken = violations(rules, state)
            if broken:
                res.violations.update(broken)
                self.violation_paths.append(
                    (depth, path, {"clauses": broken, "state": model.state_to_json(state)})
                )
                self.violation_paths.sort(key=lambda t: (t[0], t[1]))
                del self.violation_paths[5:]
            if phase(state) != "play":
                res.terminal += w
                result = model.last_hand(state)
                if result is not None:
                    res.scores[tuple(result.scores)] += w
                    res.outcomes[_outcome(tuple(result.scores))] += w
                continue
            actions = legal_actions(rules, state)
            if not actions:
                res.deadlock_count += w
                self.deadlock_paths.append((depth, path))
                self.deadlock_paths.sort()
                del self.deadlock_paths[5:]
                continue
            named = refusable(rules, state) if refusable is not None else None
            if named is None or (named is not self.covered and not named <= res.clauses):
                for probe in _probes(model, rules, state, actions):
                    with contextlib.suppress(ArbitroError):
                        res.clauses.update(e.clause for e in model.refusals(rules, state, probe))
            elif named is not self.covered:
                self.covered = named
            edges += w * len(actions)
            for k, a in enumerate(actions):
                child = apply(rules, state, a)
                if keyed is not None:
                    key = keyed(rules, state, a, child)
                    if key not in keys_seen:
                        keys_seen.add(key)
                        res.clauses |= used(rules, state, a)  # type: ignore[misc]
                elif used is not None:
                    res.clauses |= used(rules, state, a)
                if reduced:
                    rep, size = self.canon(child)
                else:
                    rep, size = child, 1
                p = pack(rep)
                if self.plain:
                    plain[owner(p, parts)].add(p)
                    continue
                batch = out[owner(p, parts)]
                if paths:
                    step = _step(path, k)
                    had = batch.get(p)
                    if had is None or step < had[1]:
                        batch[p] = (size, step)
                elif p not in batch:
                    batch[p] = (size, b"")
        res.per_depth[depth] += level
        res.edges += edges
        del items, frontier  # the level walked is let go before its successors are pickled
        self.frontier = self._empty()
        self.depth += 1
        sent = []
        for j in range(parts):
            # weights are sent only with symmetry, paths only when carried
            batch = out[j]
            if self.plain:
                data = pickle.dumps(list(plain[j]), protocol=5)
                n = len(plain[j])
                plain[j] = set()
            elif paths:
                data = pickle.dumps(list(batch.items()), protocol=5)
                n = len(batch)
            else:
                data = pickle.dumps([(p, w) for p, (w, _) in batch.items()], protocol=5)
                n = len(batch)
            out[j] = {}
            self.sent[j] += n
            self.sent_bytes[j] += len(data)
            sent.append(data)
        return sent

    def receive(self, batches: Sequence[bytes]) -> int:
        """Take the successors the partitions sent here; returns how many are new candidates."""
        cpu = time.process_time()
        incoming, visited = self.incoming, self.visited
        for data in batches:
            items = pickle.loads(data)
            if isinstance(incoming, set):
                incoming.update(items if visited is None else set(items) - visited)
            elif self.paths:
                for p, (w, path) in items:
                    if visited is not None and p in visited:
                        continue
                    had = incoming.get(p)
                    if had is None or path < had[1]:
                        incoming[p] = (w, path)
            elif self.reduced:
                for p, w in items:
                    if (visited is None or p not in visited) and p not in incoming:
                        incoming[p] = (w, b"")
        self.peak_held = max(self.peak_held, self.held())
        self.cpu += time.process_time() - cpu
        return len(incoming)

    def levels_done(self) -> list[tuple[int, Result]]:
        """(levels expanded, what they found) as of the last level expanded and the one before:
        a walk stopped by Ctrl-C reports the levels every partition had expanded (partitions
        expand a level side by side, so none is more than one level ahead of another)."""
        return list(self.done)

    def finish(self) -> dict[str, Any]:
        """What this partition found, and what it held and sent."""
        self.res.cpu_seconds = self.cpu
        return {
            "result": self.res,
            "deadlocks": self.deadlock_paths,
            "violations": self.violation_paths,
            "worker": {
                "partition": self.part,
                "states": self.orbits,
                "peak_states_held": self.peak_held,
                "peak_memory_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                "cpu_seconds": round(self.cpu, 3),
                "sent_states": sum(self.sent) - self.sent[self.part],
                "sent_bytes": sum(self.sent_bytes) - self.sent_bytes[self.part],
                "kept_states": self.sent[self.part],
            },
        }


# ---------------------------------------------------------------- running the partitions


@dataclass(frozen=True)
class Walk:
    """What every partition of one walk is made from."""

    config: Config
    seed: int
    max_states: int | None
    symmetry: bool
    paths: bool

    def partition(self, part: int, parts: int, model: GameModel | None = None) -> Partition:
        return Partition(
            self.config, self.seed, part, parts, max_states=self.max_states,
            symmetry=self.symmetry, paths=self.paths, model=model,
        )  # fmt: skip


class Runner(Protocol):
    """Where the partitions live: this process (`InlineRunner`) or Dask workers (`DaskRunner`)."""

    parts: int

    def start(self, walk: Walk) -> None: ...

    def exchange(self) -> list[int]:
        """Every partition expands its frontier and receives its successors; the candidates
        each now holds."""
        ...

    def call(self, part: int, method: str, *args: Any) -> Any: ...

    def levels_done(self) -> list[list[tuple[int, Result]]]:
        """Each partition's `Partition.levels_done`, asked even while it expands a level (after
        an interrupt)."""
        ...

    def stop(self, wait: bool = True) -> None:
        """Drop the partitions: once they finished (``wait``), or at once (an interrupt)."""
        ...


class InlineRunner:
    """Every partition in this process, one after another (tests, and the reference); ``model``
    is the engine they play (by default the rulebook's)."""

    def __init__(self, parts: int, model: GameModel | None = None) -> None:
        self.parts = parts
        self.model = model
        self.live: list[Partition] = []

    def start(self, walk: Walk) -> None:
        self.live = [walk.partition(i, self.parts, self.model) for i in range(self.parts)]

    def exchange(self) -> list[int]:
        out = [p.expand() for p in self.live]
        return [p.receive([o[j] for o in out]) for j, p in enumerate(self.live)]

    def call(self, part: int, method: str, *args: Any) -> Any:
        return getattr(self.live[part], method)(*args)

    def levels_done(self) -> list[list[tuple[int, Result]]]:
        return [p.levels_done() for p in self.live]

    def stop(self, wait: bool = True) -> None:
        self.live = []


_LIVE: dict[str, Partition] = {}
"""In a Dask worker: the partitions it holds, by walk and partition."""


def _make(key: str, walk: Walk, part: int, parts: int) -> None:
    _LIVE[key] = walk.partition(part, parts)


def _call(key: str, method: str, *args: Any) -> Any:
    return getattr(_LIVE[key], method)(*args)


def _pick(batches: list[bytes], j: int) -> bytes:
    return batches[j]


def _drop(key: str) -> None:
    _LIVE.pop(key, None)


async def _levels_done_run(run: str) -> dict[str, list[tuple[int, Result]]]:
    """Run in a worker's event loop, beside the level it may be expanding."""
    return {k: p.levels_done() for k, p in list(_LIVE.items()) if k.startswith(run)}


async def _drop_run(run: str) -> None:
    for key in [k for k in _LIVE if k.startswith(run)]:
        del _LIVE[key]


class DaskRunner:
    """One partition on each worker of a Dask cluster. A partition's batch for another goes from
    worker to worker (Dask moves a task's input to where the task runs), never through here."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
        self.parts = len(self.workers)
        self.keys: list[str] = []

    def _submit(self, part: int, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, workers=[self.workers[part]], pure=False)

    def start(self, walk: Walk) -> None:
        import uuid

        run = uuid.uuid4().hex
        self.keys = [f"{run}-{i}" for i in range(self.parts)]
        futures = [self._submit(i, _make, k, walk, i, self.parts) for i, k in enumerate(self.keys)]
        wait_gather(self.client, futures)

    def exchange(self) -> list[int]:
        n = self.parts
        out = [self._submit(i, _call, self.keys[i], "expand") for i in range(n)]
        picks = [[self._submit(i, _pick, out[i], j) for j in range(n)] for i in range(n)]
        got = [
            self._submit(j, _call, self.keys[j], "receive", [picks[i][j] for i in range(n)])
            for j in range(n)
        ]
        counts: list[int] = wait_gather(self.client, got)
        return counts

    def call(self, part: int, method: str, *args: Any) -> Any:
        return wait_result(self._submit(part, _call, self.keys[part], method, *args))

    def levels_done(self) -> list[list[tuple[int, Result]]]:
        # on each worker's event loop (a task would wait for the level being expanded), and
        # bounded: after Ctrl-C a worker that does not answer soon is not waited for
        client, run = self.client, self.keys[0].split("-")[0]
        got = client.sync(client._run, _levels_done_run, run, callback_timeout=LEVELS_DONE_WAIT)
        held = {k: v for by_key in got.values() for k, v in by_key.items()}
        return [held[k] for k in self.keys]

    def stop(self, wait: bool = True) -> None:
        with contextlib.suppress(Exception):  # a cluster going down takes its partitions along
            if wait:
                self.client.gather([self._submit(i, _drop, k) for i, k in enumerate(self.keys)])
            elif self.keys:
                # beside the task a worker may still be running, not after it
                self.client.run(_drop_run, self.keys[0].split("-")[0], wait=False)
        self.keys = []


def explore_partitioned(
    config: Config,
    seed: int,
    runner: Runner,
    *,
    max_states: int | None = None,
    symmetry: bool = False,
    paths: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """Deal ``seed`` explored over ``runner``'s partitions, the same result as `explore_deal`.

    ``progress`` is told what `explore_deal`'s ``levels`` is told, after each level: the depth
    about to be walked and the states (orbits weighed) of the levels before it. The result's
    ``partitions`` says what each partition held, and how much it sent to the others.
    """
    # paths are carried only when needed: a walk that reaches its bound is made again with them
    carry = bool(paths)
    started = time.perf_counter()
    parts = runner.parts
    orbits = 0
    truncated = False
    levels = 0
    reached: list[int] = []  # states (orbits weighed) committed at each level
    runner.start(Walk(config, seed, max_states, symmetry, carry))
    stopped = False
    try:
        held = [runner.call(i, "incoming_count") for i in range(parts)]
        while True:
            total = sum(held)
            keep: int | None = None
            last: bytes | None = None
            if max_states is not None and orbits + total > max_states:
                if not carry:
                    stopped = True
                    runner.stop()
                    return explore_partitioned(
                        config, seed, runner, max_states=max_states, symmetry=symmetry,
                        paths=True, progress=progress,
                    )  # fmt: skip
                truncated = True
                room = max_states - orbits
                if room <= 0:
                    keep = 0
                else:
                    every = sorted(p for i in range(parts) for p in runner.call(i, "candidates"))
                    last = every[room - 1]
            kept = [runner.call(i, "commit", keep, last) for i in range(parts)]
            level = sum(n for n, _ in kept)
            if not level:
                break
            orbits += level
            levels += 1
            reached.append(sum(w for _, w in kept))
            if progress is not None:
                progress(levels, sum(reached))
            held = runner.exchange()
        finished = [runner.call(i, "finish") for i in range(parts)]
    except KeyboardInterrupt:
        # what the levels finished so far reached; the rest of the walk is not known
        done = None
        with contextlib.suppress(Exception):  # a partition that cannot say leaves its part out
            done = runner.levels_done()
        runner.stop(wait=False)
        stopped = True
        partial = Result(config.name, [seed], symmetry=symmetry, interrupted=True)
        if done is not None:
            # what every partition's expanded levels found (checks, edges, terminal states,
            # scores, deadlocks, clauses), as one process reports the states it walked
            walked = min(d[-1][0] for d in done)
            for part in done:
                found = next(r for n, r in part if n == walked)
                partial.merge(dataclasses.replace(found, deals=[], per_depth=[]))
        else:
            partial.clauses_known = False  # unknown, not none
        partial.orbits, partial.per_depth = orbits, reached
        partial.states, partial.depth = sum(reached), max(levels - 1, 0)
        partial.seconds = partial.walk_seconds = time.perf_counter() - started
        return partial
    finally:
        if not stopped:
            runner.stop()
    res = Result(config.name, [seed], symmetry=symmetry)
    for f in finished:
        r: Result = f["result"]
        r.deals = []
        res.merge(r)
    res.deals = [seed]
    res.truncated = truncated
    res.orbits = orbits
    res.states = sum(res.per_depth)
    res.depth = levels - 1
    res.partitions = [f["worker"] for f in finished]
    if res.deadlock_count or res.violations:
        # the first five of each as one process names them: by their least paths, which a walk
        # carrying paths knows (and without symmetry for deadlocks, whose paths in the orbit
        # walk would run through renamed deals)
        if carry:
            vs = sorted((v for f in finished for v in f["violations"]), key=lambda t: t[:2])
            res.violation_examples = [v[2] for v in vs[:5]]
            ds = sorted(d for f in finished for d in f["deadlocks"])[:5]
            model = getattr(runner, "model", None) or model_of(config)
            res.deadlocks = [_replay(model, config, seed, p) for _, p in ds]
            if symmetry and res.deadlock_count:
                res.deadlocks = explore_partitioned(config, seed, runner, paths=True).deadlocks
        else:
            again = explore_partitioned(
                config, seed, runner, max_states=max_states, symmetry=symmetry, paths=True
            )
            res.violation_examples, res.deadlocks = again.violation_examples, again.deadlocks
    res.seconds = res.walk_seconds = time.perf_counter() - started
    return res


LEVELS_DONE_WAIT = 10
"""Seconds to wait, after Ctrl-C, for the workers to say what their expanded levels found."""


def _replay(model: GameModel, config: Config, seed: int, path: bytes) -> dict[str, Any]:
    """A deadlock's path (action numbers, two bytes each) as a witness."""
    rules = config.rules
    order = deal_order(model, config, seed)
    state = model.deal(rules, model.new_game(rules, config.seating), order)
    actions = []
    for i in range(0, len(path), 2):
        a = model.legal_actions(rules, state)[int.from_bytes(path[i : i + 2], "big")]
        actions.append(a)
        state = model.apply(rules, state, a)
    return witness(model, config, order, actions)
