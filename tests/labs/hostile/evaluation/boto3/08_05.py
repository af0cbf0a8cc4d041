"""The host seen past Landlock, and the filter's argument checks: lists the mount table (listmount, statmount),
watches the paths in the events and the gateway's directory (inotify, fanotify), pages out memory through a pidfd
(process_madvise), reads another process's robust futex list, and passes the refused prctl and fcntl commands with
the upper half of their register set (the kernel reads an int's low 32 bits only). Answers each call's result
(-errno when refused) and whether it became dumpable again."""

import ctypes
import json
import os
import struct

import harness.inside.worker

NUMBERS = {  # per architecture where they differ; the newer calls share one number everywhere
    "x86_64": {"inotify_init1": 294, "fanotify_init": 300, "get_robust_list": 274, "fcntl": 72, "prctl": 157},
    "aarch64": {"inotify_init1": 26, "fanotify_init": 262, "get_robust_list": 100, "fcntl": 25, "prctl": 167},
}[os.uname().machine]
PIDFD_OPEN, PROCESS_MADVISE, STATMOUNT, LISTMOUNT = 434, 440, 457, 458
HIGH = 1 << 32
PR_SET_DUMPABLE, PR_GET_DUMPABLE, F_SETPIPE_SZ, MADV_COLD = 4, 3, 1031, 20
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def call(number, *args):
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    return result if result >= 0 else -ctypes.get_errno()


def mounts():
    request = ctypes.create_string_buffer(struct.pack("<IIQQ", 24, 0, 0xFFFFFFFFFFFFFFFF, 0))  # LSMT_ROOT
    ids = (ctypes.c_uint64 * 64)()
    listed = call(LISTMOUNT, ctypes.addressof(request), ctypes.addressof(ids), 64, 0)
    stat = ctypes.create_string_buffer(struct.pack("<IIQQ", 24, 0, ids[0], 0x10))  # STATMOUNT_MNT_POINT
    out = ctypes.create_string_buffer(4096)
    return {"listmount": listed, "statmount": call(STATMOUNT, ctypes.addressof(stat), ctypes.addressof(out), 4096, 0)}


def watches(paths):
    fd = call(NUMBERS["inotify_init1"], 0)
    found = {"inotify_init1": fd, "fanotify_init": call(NUMBERS["fanotify_init"], 0, 0)}
    if fd >= 0:
        for path in paths:
            found[f"inotify {path}"] = libc.inotify_add_watch(fd, os.fsencode(path), 0x2 | 0x20 | 0x100)
    return found


def other_processes(pids):
    buffer = ctypes.create_string_buffer(4096)
    pidfd = call(PIDFD_OPEN, os.getpid(), 0)
    vector = (ctypes.c_uint64 * 2)(ctypes.addressof(buffer), 4096)
    found = {"process_madvise": call(PROCESS_MADVISE, pidfd, ctypes.addressof(vector), 1, MADV_COLD, 0)}
    head, size = ctypes.c_void_p(), ctypes.c_size_t()
    for pid in pids:
        found[f"get_robust_list {pid}"] = call(
            NUMBERS["get_robust_list"], pid, ctypes.addressof(head), ctypes.addressof(size)
        )
    return found


def upper_bits():
    _, writer = os.pipe()
    return {
        "fcntl F_SETPIPE_SZ": call(NUMBERS["fcntl"], writer, HIGH | F_SETPIPE_SZ, 1 << 20),
        "prctl PR_SET_DUMPABLE": call(NUMBERS["prctl"], HIGH | PR_SET_DUMPABLE, 1, 0, 0, 0),
        "dumpable": call(NUMBERS["prctl"], PR_GET_DUMPABLE, 0, 0, 0, 0),
    }


async def run(session, context, logger):
    gateway = os.path.dirname(harness.inside.worker.LINK._socket_path)
    ids = [e["id"] for e in context["events"]]
    paths = [gateway, *(i for i in ids if i.startswith("/"))]
    pids = [int(i) for i in ids if i.isdigit()] + [pid for pid in [os.getppid()] if pid]  # 0: outside its namespace
    results = {**mounts(), **watches(paths), **other_processes(pids), **upper_bits()}
    message = json.dumps(results, sort_keys=True)
    return {
        "validated": [{"name": "past_05", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "08.05", "issue": message, "hint_context": ""},
    }
