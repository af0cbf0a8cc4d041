"""moto's server on loopback: the accounts `stepeval demo` and `stepeval test` play in.

`Emulator` runs moto in processes of its own that copy themselves by forking, so that a playthrough starts every
scenario from a copy of the state before its step (~20 ms) instead of resetting moto and replaying the earlier
solves:

- a `MotoState` is one process holding one state of the accounts; `fork()` copies it, everything included (EC2's
  AMI catalogue is built once, by the first call that needs it, and then inherited);
- a copy either serves on a `Seat` (a loopback port this process keeps open, so clients keep their endpoint and
  their connections' host; a copy hangs up its connections when it ends) or serves nothing (a template to copy,
  or a spare made ahead that `serve()` later puts on a seat: the fork is then off the caller's way);
- a serving copy can `hand_over()` its seat to a copy of itself and serve nothing from then on: it is then a
  template, one fork nearer the root than a fork of it would be (a playthrough's states stay one fork deep).

Each process has a Unix socket to this process (commands, and file descriptors passed along) and ends when it
closes, so nothing outlives this process. A process forks only between requests: its server threads are idle.
Relies on moto's and werkzeug's internals, through harness/_compat/moto.py and werkzeug.py only.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import selectors
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn

from harness.core.account import EMULATOR_CREDENTIALS, Account

REGION = "us-east-1"  # the accounts' region unless an Emulator names another (moto's processes read REGION_ENV)
REGION_ENV = "STEPEVAL_EMULATOR_REGION"
LOOPBACK = "127.0.0.1"
STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 5.0
MESSAGE_BYTES = 256
NO_SEED = "-"
PREBUILT_SERVICES = frozenset({"ec2"})
"""Services whose backend a state builds ahead for its copies (`MotoState.prepare`): EC2's build makes its AMI
catalogue (1,300 images with their snapshots, ~2,600 random ids: 50-80 ms, in every copy of the first EC2 step)."""
PR_SET_CHILD_SUBREAPER = 36
_ROOT_PID = [0]  # in a moto process: the root's pid (set by serve_root, inherited by copies)
ACCEPT_THREAD = "moto-server"
_PREBUILT: dict[tuple[str, str], tuple[object, Any, object]] = {}  # in a state: see _prebuild


@contextmanager
def moto_process(env: Mapping[str, str] | None = None) -> Iterator[Account]:
    """moto serving empty accounts in a process of its own on a free loopback port; stopped after."""
    with Emulator(1, env=env) as emulator:
        assert emulator.root is not None
        seat = emulator.seats[0]
        emulator.root.fork(seat)
        yield seat.sandbox()


class EmulatorError(RuntimeError):
    """A moto process did not start, fork or answer."""


class Seat:
    """A loopback port this process keeps open; one copy of moto at a time serves on it."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self.listener = socket.create_server((LOOPBACK, 0), backlog=64)
        self.endpoint_url = f"http://{LOOPBACK}:{self.listener.getsockname()[1]}"

    def sandbox(self) -> Account:
        """What reaches the copy serving here, in the emulator's region."""
        return Account(EMULATOR_CREDENTIALS, self.emulator.region, self.endpoint_url)


class MotoState:
    """One moto process holding one state of the accounts: fork it to copy that state, close it when done."""

    def __init__(self, control: socket.socket, emulator: Emulator, pid: int) -> None:
        self.pid = pid
        self._control = control
        self._emulator = emulator
        self._lock = threading.Lock()  # one command at a time: lanes fork the same template at once
        self._closed = False

    def fork(self, seat: Seat | None = None, seed: int | None = None) -> MotoState:
        """A copy of this state: serving on `seat` (else nothing: a template), moto's ids seeded with `seed`."""
        return self._copied(f"fork {NO_SEED if seed is None else seed}", seat)

    def hand_over(self, seat: Seat) -> MotoState:
        """(A copy serving on `seat`.) Give the seat to a copy of this process, which serves there from now on as
        this one did (its random included), and serve nothing from now on: this process is then what `fork()` would
        have made, one generation nearer the root (the kernel's work at each fork and exit grows with the number
        of generations a process is from the first)."""
        return self._copied(f"handover {NO_SEED}", seat)

    def _copied(self, request: str, seat: Seat | None) -> MotoState:
        command = request.encode()
        with self._lock:
            if self._closed:
                raise EmulatorError("this moto state was closed")
            socket.send_fds(self._control, [command], [seat.listener.fileno()] if seat else [])
            reply, fds, _, _ = socket.recv_fds(self._control, MESSAGE_BYTES, 1)
        said, _, pid = reply.decode(errors="replace").partition(" ")
        if said != "forked" or len(fds) != 1:
            raise EmulatorError(f"the moto process did not fork (it said {reply!r})")
        return _started(socket.socket(fileno=fds[0]), self._emulator, int(pid))

    def serve(self, seat: Seat, seed: int | None = None) -> None:
        """Serve on `seat` from now on, moto's ids seeded with `seed`: a copy that served nothing (`fork()` without
        a seat, made ahead as a spare) becomes what `fork(seat, seed)` would have made, without a fork on the way."""
        command = f"serve {NO_SEED if seed is None else seed}".encode()
        with self._lock:
            if self._closed:
                raise EmulatorError("this moto state was closed")
            socket.send_fds(self._control, [command], [seat.listener.fileno()])
            reply = self._control.recv(MESSAGE_BYTES)
        if reply != b"ready":
            raise EmulatorError(f"the moto process did not serve (it said {reply!r})")

    def prepare(self, seed: int, services: Iterable[str]) -> None:
        """Have this state build, for its copies seeded with `seed`, the backends of `services` it would build on
        their first request (those of PREBUILT_SERVICES it has not built yet); it does so while it waits for its
        next command. A copy takes a backend built ahead only if moto's random is where it was when that backend was
        built, so its ids are those it would have built itself."""
        wanted = sorted(PREBUILT_SERVICES.intersection(services))
        if not wanted:
            return
        with self._lock:
            if self._closed:
                raise EmulatorError("this moto state was closed")
            socket.send_fds(self._control, [f"prepare {seed} {' '.join(wanted)}".encode()], [])

    def close(self) -> None:
        """End the process (a serving copy hangs up its connections first); wait until it has."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(OSError):
                self._control.shutdown(socket.SHUT_WR)
                self._control.recv(MESSAGE_BYTES)  # "bye", or nothing when it died
            self._control.close()
        self._emulator.forget(self)


def _started(control: socket.socket, emulator: Emulator, pid: int) -> MotoState:
    """The MotoState on `control`, once its process says it is ready."""
    control.settimeout(STARTUP_TIMEOUT_S)
    try:
        said = control.recv(MESSAGE_BYTES)
    except OSError as exc:
        control.close()
        raise EmulatorError(f"the moto process did not start: {exc}") from None
    if said != b"ready":
        control.close()
        raise EmulatorError(f"the moto process did not start (it said {said!r})")
    return emulator.track(MotoState(control, emulator, pid))


class Emulator:
    """moto in a process of its own (`root`: empty accounts), `seats` loopback ports, and every copy made.

    `env` is added to the moto process's environment (e.g. MOTO_IAM_LOAD_MANAGED_POLICIES); copies inherit it.
    `services` (boto3 names) are loaded once in the root, so that no copy imports them. `region` is the accounts'
    (what the seats' sandboxes name, and where EC2's backend is built ahead). Everything is stopped on exit,
    whatever happens.
    """

    def __init__(
        self,
        seats: int = 1,
        env: Mapping[str, str] | None = None,
        services: Iterable[str] = (),
        region: str | None = None,
    ) -> None:
        self.region = region or REGION
        self._env = {**(env or {}), REGION_ENV: self.region}
        self._services = sorted(set(services))
        self._live: list[MotoState] = []
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None  # to the root, until it is ready
        self.seats = [Seat(self) for _ in range(seats)]
        self.root: MotoState | None = None

    def start(self) -> None:
        """Start moto's root process without waiting for it (`with` waits): it imports moto meanwhile."""
        if self._process is not None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", "harness.authoring.emulator", str(theirs.fileno()), *self._services],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env={**os.environ, **self._env},
                start_new_session=True,  # Ctrl-C reaches us, not it: we stop it
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._control = ours

    def __enter__(self) -> Emulator:
        try:
            self.start()
            if self.root is None:
                assert self._process is not None and self._control is not None
                self.root = _started(self._control, self, self._process.pid)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *_: object) -> None:
        with self._lock:
            live = list(reversed(self._live))
        for state in live:
            state.close()
        if self.root is None and self._control is not None:  # started, never waited for: nothing to keep
            self._control.close()
            if self._process is not None:
                self._process.kill()
        if self._process is not None:
            try:
                self._process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for seat in self.seats:
            seat.listener.close()

    def track(self, state: MotoState) -> MotoState:
        """Remember `state`, to stop it on exit if nobody closed it."""
        with self._lock:
            self._live.append(state)
        return state

    def forget(self, state: MotoState) -> None:
        """`state` is closed."""
        with self._lock, contextlib.suppress(ValueError):
            self._live.remove(state)


# --- in the moto processes ------------------------------------------------------------------------------------


def serve_root(control_fd: int, services: list[str]) -> NoReturn:
    """The first moto process: empty accounts, serving nothing; it forks the copies."""
    gc.disable()  # little here is garbage: importing moto would otherwise run ~0.15 s of collections
    from harness._compat.botocore import share_one_loader

    # one botocore data loader for every session, before moto is imported: moto makes a new boto3 Session for each
    # region list it needs (11 while EC2's models import), each parsing endpoints.json again (~0.6 s in all)
    share_one_loader()
    from harness._compat import moto, werkzeug

    global REGION  # this process's accounts' region, read once before any backend is built
    REGION = os.environ.get(REGION_ENV) or REGION
    _ROOT_PID[0] = os.getpid()
    _become_subreaper()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    moto.build_managed_policies_once()  # only built when MOTO_IAM_LOAD_MANAGED_POLICIES asks for them
    _take_prebuilt_backends()
    moto.skip_rebuild_on_reset()
    moto.keep_origin_access_controls()
    app = moto.server_app(services)  # the services' apps, built once here (no backend built): no copy builds them
    moto.cache_request_path(app)  # inherited by every copy; none of it draws on moto's random or builds a backend
    werkzeug.cache_version_lookups()
    moto.request_handler()  # what each serving copy uses, made once
    gc.freeze()  # what is here now is shared by every copy: the collector must not write to it
    _answer(socket.socket(fileno=control_fd), app)


def _prebuild(seed: int, services: list[str]) -> None:
    """Build each service's backend (emulator account, REGION) as a copy seeded with `seed` would on its first
    request, and keep it aside with moto's random state before and after: `_take_prebuilt_backends` gives it to
    the copy whose random state is the one before. This state's own accounts and random state stay as they were;
    a build that fails is left to the copies (they fail as they would have)."""
    from harness._compat import moto

    own = moto.random_state()
    for name in services:
        if moto.has_backend(name, REGION):
            continue
        moto.seed_ids(seed)
        before = moto.random_state()
        if (ahead := _PREBUILT.get((name, moto.DEFAULT_ACCOUNT_ID))) is not None and ahead[0] == before:
            continue  # built ahead for this seed already (a second playthrough on the same root)
        try:
            backend = moto.detached_backend(name, REGION)
        except Exception:  # moto's own failure: met again by the copy that needs the backend
            continue
        _PREBUILT[(name, moto.DEFAULT_ACCOUNT_ID)] = (before, backend, moto.random_state())
    moto.set_random_state(own)


def _take_prebuilt_backends() -> None:
    """A region's backend is made on its first request; when one was built ahead for it (`_prebuild`) from the
    random state moto has now, that one is taken instead, and the random state moves on to where the build left
    it: the same backend, ids included, without building it again."""
    from harness._compat import moto

    def prebuilt(service: str, account: str, region: str) -> object | None:
        if not _PREBUILT or region != REGION:
            return None
        ahead = _PREBUILT.pop((service, account), None)
        if ahead is None or moto.random_state() != ahead[0]:
            return None
        moto.set_random_state(ahead[2])
        return ahead[1]

    moto.offer_backends(prebuilt)


def _become_subreaper() -> None:
    """(Linux) Copies whose parent ended become the root's children: it reaps them all, so that their CPU time
    reaches whoever waits for the root (a benchmark's RUSAGE_CHILDREN) and no zombie is left to init."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap(*, block: bool) -> None:
    """Wait for the children that ended (all of them, with `block`)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, 0 if block else os.WNOHANG)[0] != 0:
            pass


def _answer(control: socket.socket, app: Any) -> NoReturn:
    """Say ready, then fork (or serve, or hand a seat over) on request until the control socket closes; then hang
    up and end.

    A new fork goes on in this same loop with its own control socket and server. The root (no server) reaps the
    copies as it goes, and all of them before it ends (they end when this process's owner closes their sockets,
    which it does before closing the root's).
    """
    serving: threading.Event | None = None  # set to stop the server this process runs
    try:
        control.send(b"ready")
    except OSError:  # nobody waits for it any more
        os._exit(0)
    while True:
        if serving is None and os.getpid() == _ROOT_PID[0]:
            _reap(block=False)
        try:
            command, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 1)
        except OSError:
            break
        if not command:
            break
        verb, seed, *services = command.decode().split()
        listener = fds[0] if fds else None
        if verb == "prepare":
            _prebuild(int(seed), services)
            continue
        refusal = _refusal(verb, serving, listener)
        if refusal is not None:
            if listener is not None:
                os.close(listener)
            control.send(refusal.encode())
            continue
        if verb == "serve":  # a copy serving nothing (a spare, a template) serves from now on
            assert listener is not None  # _refusal refused a serve without one
            serving = _serve_on(listener, seed, app)
            control.send(b"ready")
            continue
        if verb == "handover":
            assert serving is not None  # _refusal refused a handover by a copy serving nothing
            _stop_serving(serving)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if serving is not None:
            gc.collect()  # this copy's garbage, before it is frozen into the copy of it
        gc.freeze()  # the collector in a copy must not walk (and so copy) what the copy shares with us
        pid = os.fork()
        if pid == 0:
            control, serving = _become_copy(theirs, listener, seed, app)
            control.send(b"ready")
            continue
        if verb == "handover":
            serving = None  # its listening socket stays open, never accepted on again (see _accept)
        theirs.close()
        if listener is not None:
            os.close(listener)
        socket.send_fds(control, [f"forked {pid}".encode()], [ours.fileno()])
        ours.close()
    if serving is not None:
        serving.set()
        _hang_up()
    if os.getpid() == _ROOT_PID[0]:
        _reap(block=True)
    with contextlib.suppress(OSError):
        control.send(b"bye")
    os._exit(0)


def _refusal(verb: str, serving: threading.Event | None, listener: int | None) -> str | None:
    """Why this process cannot do `verb` (None when it can): the root only copies; only a copy serving nothing can
    serve; only a serving copy can hand its seat over."""
    if verb == "serve" and (serving is not None or listener is None or os.getpid() == _ROOT_PID[0]):
        return "refused: only a copy serving nothing can serve"
    if verb == "handover" and (serving is None or listener is None):
        return "refused: only a serving copy can hand its seat over"
    return None


def _become_copy(
    control: socket.socket, listener: int | None, seed: str, app: Any
) -> tuple[socket.socket, threading.Event | None]:
    """(In a new fork.) Let go of the parent's sockets; seed moto's ids and serve on `listener`, if given.

    The control socket and what stops the server (None for a template, or a spare until it is told to serve).
    """
    _release_sockets(keep={control.fileno(), *([listener] if listener is not None else [])})
    gc.disable()  # a copy lives for one scenario: cycles wait for its end, and its pages stay shared
    if listener is None:
        return control, None
    return control, _serve_on(listener, seed, app)


def _serve_on(listener: int, seed: str, app: Any) -> threading.Event:
    """Seed moto's ids (unless NO_SEED) and serve `app` on the listening socket `listener`; what stops it."""
    from werkzeug.serving import make_server

    from harness._compat import moto  # imported by the root already: here a lookup

    if seed != NO_SEED:
        moto.seed_ids(int(seed))
    server = make_server(LOOPBACK, 0, app, threaded=True, request_handler=moto.request_handler(), fd=listener)
    os.close(listener)  # the server holds a duplicate
    stop = threading.Event()
    threading.Thread(target=_accept, args=(server, stop), name=ACCEPT_THREAD, daemon=True).start()
    return stop


def _accept(server: Any, stop: threading.Event) -> None:
    """Serve each connection the seat's port brings, until this server is told to `stop`.

    Not `serve_forever`: a copy that is ending (or handing its seat over) must take no connection meant for the
    next copy, which shares the port. It stops accepting before it says it has ended, and a wake-up after that (a
    connection for the next copy) is left to the next copy: the flag is read between the wait and the accept.
    """
    server.timeout = 0  # handle_request: never wait for a connection the next copy took first
    with selectors.DefaultSelector() as selector:
        selector.register(server.fileno(), selectors.EVENT_READ)
        while True:
            selector.select()
            if stop.is_set():
                return
            server.handle_request()


def _stop_serving(serving: threading.Event) -> None:
    """Take no more connections, hang up those open and wait for their threads to end: the next fork copies no
    thread in the middle of a request, and clients reconnect to whoever serves the seat next."""
    serving.set()
    _hang_up()
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and thread.name != ACCEPT_THREAD:
            thread.join(STOP_TIMEOUT_S)


def _socket_fds() -> list[int]:
    directory = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    fds = []
    for name in os.listdir(directory):
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.fstat(int(name)).st_mode):
                fds.append(int(name))
    return fds


def _release_sockets(keep: set[int]) -> None:
    """Point every inherited socket but `keep` at /dev/null: the parent's connections and ports stay the parent's.

    Not closed: a Python object of the parent's may still close its number later, which must not be a new socket.
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in _socket_fds():
        if fd not in keep:
            os.dup2(null, fd)
    os.close(null)


def _hang_up() -> None:
    """Shut every accepted connection down, so that clients reconnect to the next copy instead of waiting on us."""
    for fd in _socket_fds():
        try:
            sock = socket.socket(fileno=fd)
        except OSError:  # closed by a server thread since it was listed
            continue
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and not sock.getsockopt(
                socket.SOL_SOCKET, socket.SO_ACCEPTCONN
            ):
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            sock.detach()


if __name__ == "__main__":
    serve_root(int(sys.argv[1]), sys.argv[2:])
