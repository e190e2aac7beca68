"""The live connection: stream snapshots to a receiver (the refscope app or
`refscope-cli listen`) while the program runs (docs/protocol.md).

    import refscope
    refscope.connect("unix:/run/user/1000/refscope-Ab12Cd/live.sock",
                     token_file="/run/user/1000/refscope-Ab12Cd/token")

or without changing the program:

    REFSCOPE_CONNECT=unix:/.../live.sock REFSCOPE_TOKEN_FILE=/.../token \\
        python -m refscope run app.py          # or any program that imports refscope
    python -m refscope attach PID --address unix:/.../live.sock --token-file /.../token

The program connects out; it never listens. A thread of the probe's own
(not a Python thread) owns the socket and answers a fixed set of commands:
take a snapshot (optionally after gc.collect()), ping, set the label,
disconnect. Nothing received is ever executed. The thread holds the GIL only
while it walks the heap; encoding and sending happen without it, and a
receiver that stops reading costs the connection, not the program's time.
A forked child does not inherit the connection.
"""

import atexit
import os
import stat
import sys

from . import _probe

ENV_ADDRESS = "REFSCOPE_CONNECT"
ENV_TOKEN = "REFSCOPE_TOKEN"
ENV_TOKEN_FILE = "REFSCOPE_TOKEN_FILE"
ENV_LABEL = "REFSCOPE_LABEL"
ENV_SEND_TIMEOUT = "REFSCOPE_SEND_TIMEOUT"

_atexit_registered = [False]


def read_token_file(path):
    """The token stored in `path`; refused if anyone but the owner may read it."""
    mode = os.stat(path).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise PermissionError(
            "refscope: token file %s has mode %04o; it must be readable by its owner only (chmod 600)"
            % (path, stat.S_IMODE(mode)))
    with open(path, "r", encoding="ascii", errors="replace") as token_file:
        return token_file.read(256).strip()


def find_token(token=None, token_file=None):
    """The token to present: `token` if given, else the one stored in
    token_file or $REFSCOPE_TOKEN_FILE, else $REFSCOPE_TOKEN (None if none)."""
    if token is not None:
        return token
    token_file = token_file or os.environ.get(ENV_TOKEN_FILE)
    return read_token_file(token_file) if token_file else os.environ.get(ENV_TOKEN)


def _shutdown():
    try:
        _probe._live_shutdown()
    except Exception:  # exiting: nothing sensible to do
        pass


def connect(address=None, token=None, *, token_file=None, label="", timeout=5.0,
            send_timeout=None, _attached=False):
    """Connect this process to a refscope receiver.

    address: "unix:/path/to/live.sock", an absolute socket path, or
        "tcp:127.0.0.1:PORT"; default: $REFSCOPE_CONNECT.
    token: the receiver's 32-hex-digit token; default: read from token_file,
        $REFSCOPE_TOKEN_FILE (a 0600 file), or $REFSCOPE_TOKEN.
    label: shown by the receiver and stored in each snapshot's header;
        default: $REFSCOPE_LABEL.
    timeout: seconds to wait for the receiver's handshake.
    send_timeout: seconds the receiver may stop reading before the
        connection is dropped (default 10, or $REFSCOPE_SEND_TIMEOUT).

    Raises ValueError (no address or token, malformed ones), ConnectionError
    (receiver unreachable, or it refused: wrong token...), RuntimeError
    (already connected). Returns None once connected.
    """
    if address is None:
        address = os.environ.get(ENV_ADDRESS)
    if not address:
        raise ValueError("refscope.connect: no address given and %s is not set" % ENV_ADDRESS)
    token = find_token(token, token_file)
    if not token:
        raise ValueError("refscope.connect: no token: pass token= or token_file=, or set %s or %s"
                         % (ENV_TOKEN_FILE, ENV_TOKEN))
    if not label:
        label = os.environ.get(ENV_LABEL, "")
    if send_timeout is None:
        send_timeout = float(os.environ.get(ENV_SEND_TIMEOUT, "10"))
    if not _atexit_registered[0]:
        # Before the interpreter finalizes, the connection's thread must be
        # told to stop taking the GIL and be waited for.
        atexit.register(_shutdown)
        _atexit_registered[0] = True
    _probe._live_connect(str(address), str(token), str(label), bool(_attached), float(timeout),
                         float(send_timeout))


def disconnect():
    """Close the connection (the receiver is told why). True if one was open."""
    return _probe._live_disconnect("disconnect() called")


def connection_status():
    """None if this process never connected, else a dict: connected,
    address, label, requests, snapshots_sent, bytes_sent, last_error,
    closed_reason."""
    return _probe._live_status()


def _running_as_refscope_main():
    """True in `python -m refscope ...`: its own commands decide whether to
    connect (run: after sys.argv is the program's; attach: never)."""
    argv = getattr(sys, "orig_argv", None)
    if argv is None:
        try:
            with open("/proc/self/cmdline", "rb") as cmdline:
                argv = [a.decode("utf-8", "replace") for a in cmdline.read().split(b"\0") if a]
        except OSError:
            return False
    words = iter(argv[1:])
    for word in words:
        if word == "-m":
            return next(words, "") == "refscope"
        if word.startswith("-m"):
            return word[2:] == "refscope"
        if word in ("-X", "-W", "-Q"):
            next(words, None)
        elif not word.startswith("-") or word == "-" or word == "-c":
            return False
    return False


def _connect_from_environment():
    """`import refscope` with REFSCOPE_CONNECT set: connect, and never let a
    failure to connect stop the program (one line on stderr instead)."""
    address = os.environ.get(ENV_ADDRESS)
    if not address:
        return
    status = connection_status()
    if status is not None and status["connected"]:
        return
    try:
        connect(address)
    except Exception as error:
        print("refscope: not connected to %s: %s" % (address, error), file=sys.stderr)
