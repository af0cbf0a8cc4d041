"""Reports its own nice, CPU affinity, scheduling policy, I/O priority and rlimits (all but RLIMIT_NPROC, which
counts the uid's tasks where the uid is shared): what 08.03 would have changed for the evaluations after it."""

import ctypes
import json
import os
import resource

IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)
LIMITS = ("CPU", "SIGPENDING", "NOFILE", "AS", "FSIZE", "CORE", "MSGQUEUE", "MEMLOCK", "STACK", "NICE", "RTPRIO")


async def run(session, context, logger):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    own = {
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "affinity": sorted(os.sched_getaffinity(0)),
        "policy": os.sched_getscheduler(0),
        "ioprio": libc.syscall(ctypes.c_long(IOPRIO_GET), 1, 0) if IOPRIO_GET else None,
        "rlimits": {name: resource.getrlimit(getattr(resource, f"RLIMIT_{name}")) for name in LIMITS},
    }
    message = json.dumps(own, sort_keys=True)
    return {
        "validated": [{"name": "own_04", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "08.04", "issue": message, "hint_context": ""},
    }
