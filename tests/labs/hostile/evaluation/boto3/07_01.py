"""Holds memory where its address-space limit does not count it: SysV shared memory (a segment outlives its
attachment), POSIX shared memory, a memfd, a file in /tmp or /dev/shm, pipes grown to their maximum. Answers how many
bytes it holds in each (all zero when the kernel caps every way)."""

import ctypes
import json
import mmap
import os

SIZE = 256 * 1024 * 1024
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
F_SETPIPE_SZ = 1031


def sysv():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    held = 0
    for _ in range(3):
        segment = libc.shmget(IPC_PRIVATE, SIZE, IPC_CREAT | 0o600)
        if segment < 0:
            break
        address = libc.shmat(segment, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            break
        ctypes.memset(address, 1, SIZE)
        libc.shmdt(ctypes.c_void_p(address))
        held += SIZE
    return held


def in_file(fd):
    try:
        os.ftruncate(fd, SIZE)
        with mmap.mmap(fd, SIZE) as view:
            view[:] = b"\1" * SIZE
        return SIZE
    except (OSError, ValueError):
        try:
            return os.write(fd, b"\1" * (1 << 20))
        except OSError:
            return 0


def memfd():
    try:
        return in_file(os.memfd_create("hoard"))
    except OSError:
        return 0


def files():
    held = 0
    for path in ("/dev/shm/hoard", "/tmp/hoard"):
        try:
            held += in_file(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        except OSError:
            continue
    return held


def posix_shm():
    try:
        from multiprocessing import shared_memory

        block = shared_memory.SharedMemory(create=True, size=SIZE)
        block.buf[: 1 << 20] = b"\1" * (1 << 20)
        return SIZE
    except (OSError, ValueError):
        return 0


def pipes():
    held = 0
    for _ in range(16):
        try:
            _, w = os.pipe()
            import fcntl

            size = fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
            os.set_blocking(w, False)
            while True:
                os.write(w, b"\1" * 65536)
        except BlockingIOError:
            held += size if size > 65536 else 0
        except OSError:
            break
    return held


async def run(session, context, logger):
    held = {"sysv": sysv(), "memfd": memfd(), "files": files(), "posix_shm": posix_shm(), "pipes": pipes()}
    message = json.dumps(held, sort_keys=True)
    return {
        "validated": [{"name": "hoard_01", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "07.01", "issue": message, "hint_context": ""},
    }
