"""Looks for a channel to an evaluation beside it through what the kernel counts per uid or for the whole machine,
which no namespace divides: as `send-TAG` it holds about 1,100 pipes (in 10 children: the uid's pipe pages past
`fs.pipe-user-pages-soft`), about 500 descriptors in flight on a unix socket it never reads (the uid's
`unix_inflight` past its RLIMIT_NOFILE) and realtime signals queued to itself until refused (the uid's pending
signals past its RLIMIT_SIGPENDING), and starts threads and asks new sockets' cookies without pause (the machine's
counts of pids made, which a pidfd's inode number is, and of socket cookies, where the filter allows it), for 3 s;
as `recv-TAG` it waits 1 s, then reports the size of a new pipe, whether it may pass one descriptor on a socket pair and queue one signal, how
many pids and socket cookies the machine made in 1 s, and what it reads of the shared network namespace's lists; as
`leave-TAG` it leaves 500 descriptors in flight in a cycle of two sockets (for a later evaluation)."""

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import threading
import time

F_GETPIPE_SZ = 1032
SO_COOKIE = 57
HOLD_S = 3.0


def attempt(call):
    try:
        call()
        return "done"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def pipes(count):
    held = []
    for _ in range(count):
        try:
            held.append(os.pipe())
        except OSError:
            break
    return held


def in_flight():
    """Descriptors sent and never received: each counts in the uid's unix_inflight until the socket closes."""
    ours, theirs = socket.socketpair()
    sent = 0
    for _ in range(4):
        try:
            socket.send_fds(ours, [b"x"], [theirs.fileno()] * 250)
            sent += 250
        except OSError:
            break
    return (ours, theirs), sent


def queue_signals(number, most):
    """Realtime signals queued to itself, blocked: each counts in the uid's pending signals (RLIMIT_SIGPENDING)."""
    libc = ctypes.CDLL(None, use_errno=True)
    signal.signal(number, lambda *_: None)
    signal.pthread_sigmask(signal.SIG_BLOCK, [number])
    queued = 0
    while queued < most and libc.sigqueue(os.getpid(), number, ctypes.c_long(0)) == 0:
        queued += 1
    return queued, errno.errorcode.get(ctypes.get_errno(), "none") if queued < most else "none"


def leave_cycle():
    """Two sockets each in flight in the other's queue, 500 descriptors in all: garbage only the kernel's collector
    frees, after the process is gone."""
    one, other = socket.socketpair()
    sent = 0
    for sender, itself in ((one, one), (other, other)):
        try:
            socket.send_fds(sender, [b"x"], [itself.fileno()] * 250)
            sent += 250
        except OSError:
            break
    one.detach()
    other.detach()
    return sent


def pid_mark():
    """The inode number of a pidfd on a new child: pidfs numbers every pid the machine makes, in order."""
    child = os.fork()
    if child == 0:
        os._exit(0)
    try:
        with open(os.pidfd_open(child), closefd=True) as pidfd:
            return os.fstat(pidfd.fileno()).st_ino
    finally:
        os.waitpid(child, 0)


def cookie():
    """A new socket's cookie (SO_COOKIE): the kernel numbers the sockets asked for one, for the whole machine; None
    where the filter refuses it."""
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            return int.from_bytes(sock.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8), "little")
        except PermissionError:
            return None


def churn(until):
    started = 0
    while time.monotonic() < until:
        thread = threading.Thread(target=int)
        thread.start()
        thread.join()
        for _ in range(4):
            cookie()
        started += 1
    return started


def send(found):
    until = time.monotonic() + HOLD_S
    held, found["in_flight"] = in_flight()
    found["signals"], found["signals_stop"] = queue_signals(signal.SIGRTMIN, 1_000_000)
    children = []
    for _ in range(10):
        child = os.fork()
        if child == 0:
            pipes(120)
            time.sleep(HOLD_S)
            os._exit(0)
        children.append(child)
    found["pipes"] = len(pipes(120))
    found["threads"] = churn(until)
    for child in children:
        os.waitpid(child, 0)
    for sock in held:
        sock.close()


SHARED_FILES = ("/proc/net/sockstat", "/proc/net/unix", "/proc/self/net/protocols", "/sys/class/net/lo/flags")


def read(path):
    try:
        with open(path) as shared:
            return shared.read()[:200]
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def receive(found):
    time.sleep(1.0)
    read_end, write_end = os.pipe()
    found["pipe_size"] = fcntl.fcntl(read_end, F_GETPIPE_SZ)
    os.close(read_end)
    os.close(write_end)
    ours, theirs = socket.socketpair()
    found["pass_fd"] = attempt(lambda: socket.send_fds(ours, [b"x"], [theirs.fileno()]))
    ours.close()
    theirs.close()
    found["reads"] = {path: read(path) for path in SHARED_FILES}
    found["queue_signal"] = queue_signals(signal.SIGRTMIN + 1, 1)[1]
    first, first_cookie = pid_mark(), cookie()
    time.sleep(1.0)
    last_cookie = cookie()
    found["cookies_in_1s"] = "EPERM" if None in (first_cookie, last_cookie) else last_cookie - first_cookie
    found["pids_in_1s"] = pid_mark() - first


async def run(session, context, logger):
    role, _, _tag = context["events"][0]["id"].partition("-")
    found = {"role": role, "start": time.monotonic()}
    if role == "leave":
        found["left_in_flight"] = leave_cycle()
    else:
        send(found) if role == "send" else receive(found)
    found["end"] = time.monotonic()
    return {
        "validated": [{"name": "counted_10", "type": "AWS::S3::Bucket", "id": "counted", "status": "not_found"}],
        "success": False,
        "message": json.dumps(found),
    }
