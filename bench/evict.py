#!/usr/bin/env python3
"""Drop the page cache of every file under the given folders (posix_fadvise DONTNEED; no root
needed). Directory and inode caches stay warm. Usage: evict.py DIR..., or evict.py serve: one
JSON line {"folders": [...]} in, {"evicted": files} out, until stdin ends (a bench asks this
long-lived process instead of forking itself before each cold query: a fork leaves every page of
the forking process copy-on-write, and its next writes fault, which a timed query would pay)."""
import json
import os
import sys


def evict(tops):
    n = 0
    for top in tops:
        for folder, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    n += 1
                finally:
                    os.close(fd)
    return n


if sys.argv[1:] == ["serve"]:
    for line in sys.stdin:
        print(json.dumps({"evicted": evict(json.loads(line)["folders"])}), flush=True)
else:
    evict(sys.argv[1:])
