"""An adapter that misbehaves in one chosen way, to test that `arbitro conform` gives it one line
and exit 3 (or stops at its deadline), and ends it. It needs nothing but Python:

    python hostile.py MODE

MODE is one of: error-hello, error-start, error-legal, error-apply-position (an error answer);
garbage (a line that is not JSON), not-an-object, wrong-id, bad-legal (legal not an array),
bad-position (start answered with a position that lacks fields), surrogate (`hello` naming the
engine with an escaped lone surrogate), long-line (an answer of 17 MB with no newline); crash
(exits at `start` with a message on stderr), early-exit (exits 0 after `hello`), hang (never
answers `legal`), detached (leaves a child in a session of its own holding stdout for 60 s,
then exits), detached-hang (the same child, and the adapter itself hangs), forks (leaves a child
in its own process group, sleeping), flood (100 MB on stderr without a newline, then a crash),
slow (answers `legal` after 0.3 s: a live engine, only slow). With $HOSTILE_LOG set it appends
a line to that file for each `legal` it answers; with $HOSTILE_PIDS, its pid and its children's.
"""

import json
import os
import sys
import time

MODE = sys.argv[1]
DEAL = {"hands": [[], []], "table": [], "piles": [[], []], "to_move": 0}


def say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def note(what: str) -> None:
    # what it has answered, for a test that waits for it rather than for a length of time
    if os.environ.get("HOSTILE_LOG"):
        with open(os.environ["HOSTILE_LOG"], "a") as f:
            f.write(f"{what}\n")


def note_pid(pid: int) -> None:
    # where the test finds the processes to check (and to end what escaped the group)
    if os.environ.get("HOSTILE_PIDS"):
        with open(os.environ["HOSTILE_PIDS"], "a") as f:
            f.write(f"{pid}\n")


def detach() -> None:
    child = os.fork()
    if child == 0:
        os.setsid()  # out of the adapter's process group: signals to the group miss it
        time.sleep(60)
        os._exit(0)
    note_pid(child)


note_pid(os.getpid())


for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req["id"]
    if op == "quit":
        break
    if "error-" + op == MODE:
        say({"id": rid, "ok": False, "error": {"type": "error", "message": f"no {op} here"}})
        continue
    if op == "hello":
        if MODE == "garbage":
            print("ready to play!", flush=True)
            continue
        if MODE == "not-an-object":
            say([1, 2, 3])
            continue
        if MODE == "wrong-id":
            say({"id": rid + 7, "ok": True, "result": {"protocol": "arbitro-adapter/1"}})
            continue
        if MODE == "surrogate":
            head = '{"id": ' + str(rid) + ', "ok": true, "result": {"protocol": '
            sys.stdout.write(head + '"arbitro-adapter/1", "engine": "x\\ud800y"}}\n')
            sys.stdout.flush()
            continue
        if MODE == "long-line":
            sys.stdout.write("[" * (17 * 1024 * 1024))
            sys.stdout.flush()
            time.sleep(60)
        if MODE == "early-exit":
            say({"id": rid, "ok": True, "result": {"protocol": "arbitro-adapter/1"}})
            sys.exit(0)
        if MODE == "detached":
            say({"id": rid, "ok": True, "result": {"protocol": "arbitro-adapter/1"}})
            detach()
            sys.exit(0)
        if MODE == "detached-hang":
            detach()
            time.sleep(60)
        if MODE == "forks" and os.fork() == 0:
            note_pid(os.getpid())
            time.sleep(60)
            os._exit(0)
        if MODE == "flood":
            chunk = "x" * (1 << 20)
            for _ in range(100):
                sys.stderr.write(chunk)
            sys.stderr.flush()
            sys.exit(4)
        say({"id": rid, "ok": True, "result": {"protocol": "arbitro-adapter/1", "engine": MODE}})
    elif op == "start":
        if MODE == "crash":
            sys.stderr.write("engine: cannot deal\n")
            sys.exit(3)
        if MODE == "bad-position":
            say({"id": rid, "ok": True, "result": {"hands": []}})
            continue
        # a plausible deal: the hands as dealt, the four face-up cards after them
        order, hands = req["order"], req["dealt"]["hands"]
        dealt = sum(len(h) for h in hands)
        table = order[dealt : dealt + 4]
        seat = (req["dealer"] - 1) % len(hands)
        result = {"hands": hands, "table": table, "piles": [[] for _ in hands], "to_move": seat}
        say({"id": rid, "ok": True, "result": result})
    elif op == "legal":
        if MODE == "hang":
            time.sleep(60)
        if MODE == "bad-legal":
            say({"id": rid, "ok": True, "result": {"moves": []}})
            continue
        if MODE == "slow":
            time.sleep(0.3)
        say({"id": rid, "ok": True, "result": []})
        note(op)
    else:
        say({"id": rid, "ok": False, "error": {"type": "error", "message": "not supported"}})
