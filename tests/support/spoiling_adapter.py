"""An adapter that answers with arbitro's reference engine and spoils, on the pipe, the answers a
plan names: `python spoiling_adapter.py PLAN` where PLAN is JSON mapping a request number (from 1)
to one of the ways below. Used by tests/fuzz/test_adapter_pipe.py.

split      the answer in two writes, a pause between them
double     the answer written twice
blank      an empty line before the answer
crlf       the answer ending in CR LF
pad        the answer padded with 2 MB of spaces before its newline
burst      3 MB on stderr (no newline) before the answer
noeol      the answer without its newline, then the output closed and the adapter gone
tail       the answer, then half of it again with no newline, then a pause
exit       nothing: the adapter exits with status 5
"""

from __future__ import annotations

import io
import json
import sys
import time

from arbitro.conformance.conform_adapter import Reference, serve_reference


def main() -> int:
    plan: dict[str, str] = json.loads(sys.argv[1])
    engine = Reference()
    out, err = sys.stdout.buffer, sys.stderr.buffer
    for n, line in enumerate(sys.stdin.buffer, start=1):
        buf = io.BytesIO()
        serve_reference(io.BytesIO(line), buf, engine)
        answer = buf.getvalue().rstrip(b"\n")
        how = plan.get(str(n))
        if how == "exit":
            return 5
        if how == "split":
            out.write(answer[: len(answer) // 2])
            out.flush()
            time.sleep(0.05)
            out.write(answer[len(answer) // 2 :] + b"\n")
        elif how == "double":
            out.write(answer + b"\n" + answer + b"\n")
        elif how == "blank":
            out.write(b"\n" + answer + b"\n")
        elif how == "crlf":
            out.write(answer + b"\r\n")
        elif how == "pad":
            out.write(answer + b" " * (2 << 20) + b"\n")
        elif how == "burst":
            err.write(b"e" * (3 << 20))
            err.flush()
            out.write(answer + b"\n")
        elif how == "noeol":
            out.write(answer)
            out.flush()
            return 0
        elif how == "tail":
            out.write(answer + b"\n" + answer[: len(answer) // 2])
            out.flush()
            time.sleep(0.05)
        else:
            out.write(answer + b"\n")
        out.flush()
        if b'"result":"bye"' in answer:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
