"""Passes a tag to an evaluation running beside it through locks on a file both may open read-only (issue 31):
flock, fcntl's record and open-file-description locks, a lease, a directory watch; or through the machine's free
memory, which sysinfo(2) reads and another evaluation moves by holding memory. Reports what each call did."""

import ctypes
import fcntl
import json
import os
import struct


def attempt(call):
    try:
        call()
        return "held"
    except OSError as exc:
        return f"errno {exc.errno}"


async def run(session, context, logger):
    shared = os.__file__  # the standard library's: every evaluation opens it read-only
    found = {}
    with open(shared, "rb") as handle:
        fd = handle.fileno()
        lock = struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0)
        found["flock"] = attempt(lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB))
        found["F_SETLK"] = attempt(lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock))
        found["F_GETLK"] = attempt(lambda: fcntl.fcntl(fd, fcntl.F_GETLK, lock))
        found["F_OFD_SETLK"] = attempt(lambda: fcntl.fcntl(fd, 37, lock))
        found["F_SETLEASE"] = attempt(lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))
    directory = os.open(os.path.dirname(shared), os.O_RDONLY)
    try:
        found["F_NOTIFY"] = attempt(lambda: fcntl.fcntl(directory, 1026, 0x1))
    finally:
        os.close(directory)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.sysinfo(ctypes.create_string_buffer(256)) == 0:
        found["sysinfo"] = "held"
    else:
        found["sysinfo"] = f"errno {ctypes.get_errno()}"
    return {
        "validated": [{"name": "locks_02", "type": "AWS::S3::Bucket", "id": "locks", "status": "not_found"}],
        "success": False,
        "message": json.dumps(found),
    }
