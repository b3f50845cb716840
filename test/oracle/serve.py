#!/usr/bin/python3
"""Serve oracle calls to one test process over stdin/stdout, so GDAL and numpy are imported once
per process instead of once per call (~0.45 CPU-s each, ~150 calls a suite run).

A request is one JSON line: ["gdal_oracle.py" | "history_oracle.py", arg, ...]. The answer is a
line "<n>" then n bytes (what the script printed), or "E<n>" then n bytes of the traceback.
Requests are answered one at a time, in order."""
import contextlib
import io
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdal_oracle  # noqa: E402
import history_oracle  # noqa: E402

RUN = {'gdal_oracle.py': gdal_oracle.run, 'history_oracle.py': lambda args: history_oracle.main(*args)}

out = sys.stdout.buffer
for line in sys.stdin:
    script, *args = json.loads(line)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            RUN[script](args)
        tag, data = b'', printed.getvalue().encode()
    except BaseException:  # noqa: B036 (a SystemExit of a script is an answer too)
        tag, data = b'E', traceback.format_exc().encode()
    out.write(tag + str(len(data)).encode() + b'\n' + data)
    out.flush()
