"""A loopback FTP archive for the fetch tests (Debian's python3-pyftpdlib, a real FTP server).

Usage: ftp-archive.py <root> <state-dir>. Serves <root> read-only to `anonymous` and to user
`snow` (password `pw`) on 127.0.0.1, prints the port on stdout, then serves until killed.
Faults: <state-dir>/faults.json maps a served path to a list of faults, one taken per RETR
({"kind": "short"|"reset", "after": bytes}, or {"kind": "endless"}: the file's bytes then zeros
without end, or {"kind": "drip"}: one byte every 0.2 s); <state-dir>/noanon refuses anonymous logins.
Every RETR is appended to <state-dir>/log.jsonl as {"path", "rest", "user"}, every login that
succeeds to <state-dir>/logins.jsonl as {"user"}.
"""
import json
import os
import sys
import time

from pyftpdlib.authorizers import AuthenticationFailed, DummyAuthorizer
from pyftpdlib.filesystems import AbstractedFS
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer

root, state = sys.argv[1], sys.argv[2]


def take_fault(path):
    """The next fault planned for `path`, removed from the plan; None when there is none."""
    p = os.path.join(state, "faults.json")
    try:
        with open(p) as f:
            plan = json.load(f)
    except FileNotFoundError:
        return None
    queue = plan.get(path) or []
    if not queue:
        return None
    fault = queue.pop(0)
    with open(p, "w") as f:
        json.dump(plan, f)
    return fault


class Cut:
    """A file that ends (short) or fails (reset) after `after` bytes, never ends, or drips."""

    def __init__(self, f, fault):
        self._f, self._kind, self._left = f, fault["kind"], fault.get("after", 0)

    def read(self, n=-1):
        if self._kind == "endless":
            return self._f.read(n) or b"\0" * (n if n > 0 else 65536)
        if self._kind == "drip":
            time.sleep(0.2)
            return self._f.read(1)
        if self._left <= 0:
            if self._kind == "reset":
                raise OSError("connection reset by the test archive")
            return b""
        data = self._f.read(min(n, self._left) if n >= 0 else self._left)
        self._left -= len(data)
        return data

    def __getattr__(self, name):
        return getattr(self._f, name)


class FaultyFS(AbstractedFS):
    def open(self, filename, mode):
        f = super().open(filename, mode)
        fault = getattr(self.cmd_channel, "pending_fault", None)
        self.cmd_channel.pending_fault = None
        return Cut(f, fault) if fault else f


class Authorizer(DummyAuthorizer):
    def validate_authentication(self, username, password, handler):
        if username == "anonymous" and os.path.exists(os.path.join(state, "noanon")):
            raise AuthenticationFailed("anonymous logins are refused")
        return super().validate_authentication(username, password, handler)


class Handler(FTPHandler):
    abstracted_fs = FaultyFS
    use_sendfile = False  # faults cut what read() gives; sendfile would bypass it
    auth_failed_timeout = 0  # answer a refused login at once (the default waits 3 s)
    pending_fault = None

    def on_login(self, username):
        with open(os.path.join(state, "logins.jsonl"), "a") as log:
            log.write(json.dumps({"user": username}) + "\n")

    def ftp_RETR(self, file):
        path = self.fs.fs2ftp(file)
        with open(os.path.join(state, "log.jsonl"), "a") as log:
            log.write(json.dumps({"path": path, "rest": self._restart_position, "user": self.username}) + "\n")
        self.pending_fault = take_fault(path)
        return super().ftp_RETR(file)


authorizer = Authorizer()
authorizer.add_anonymous(root)
authorizer.add_user("snow", "pw", root, perm="elr")
Handler.authorizer = authorizer
server = FTPServer(("127.0.0.1", 0), Handler)
print(server.socket.getsockname()[1], flush=True)
server.serve_forever(handle_exit=True)
