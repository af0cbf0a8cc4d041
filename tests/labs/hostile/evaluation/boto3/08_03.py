"""Process control that Landlock does not scope: it starts a sleeper child (its argv carries the marker, the first
event), then renices, pins to one CPU, gives SCHED_IDLE, an idle I/O class and lower rlimits (RLIMIT_SIGPENDING,
and RLIMIT_CPU of 1 s, which has the kernel kill a process that used more: the service, with no signal sent) to
its parent (the template, in mode none) and to every pid in the other events (the service and its processes),
renices every process of its uid (PRIO_USER), and counts the host's pids it can see by the calls that name one.
Answers what succeeded and how many pids each call saw."""

import ctypes
import json
import os
import resource
import sys

IOPRIO_SET = {"x86_64": 251, "aarch64": 30}.get(os.uname().machine)
IOPRIO_WHO_PROCESS, IOPRIO_IDLE = 1, 3 << 13
PIDS = range(1, 1 << 15)  # every pid there can be here (pid_max 32768)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def ioprio_idle(pid):
    if IOPRIO_SET is None or libc.syscall(ctypes.c_long(IOPRIO_SET), IOPRIO_WHO_PROCESS, pid, IOPRIO_IDLE) < 0:
        raise OSError(ctypes.get_errno(), "ioprio_set")


def controls(pid):
    return {
        "setpriority": lambda: os.setpriority(os.PRIO_PROCESS, pid, 7),
        "sched_setaffinity": lambda: os.sched_setaffinity(pid, {0}),
        "sched_setscheduler": lambda: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)),
        "sched_setparam": lambda: os.sched_setparam(pid, os.sched_param(0)),
        "ioprio_set": lambda: ioprio_idle(pid),
        "prlimit SIGPENDING": lambda: resource.prlimit(pid, resource.RLIMIT_SIGPENDING, (4242, 4242)),
        "prlimit CPU": lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1)),
    }


def seen_by(probe):
    count = 0
    for pid in PIDS:
        if pid == os.getpid():
            continue
        try:
            probe(pid)
            count += 1
        except OSError:
            pass
    return count


async def run(session, context, logger):
    ids = [e["id"] for e in context["events"]]
    marker, named = ids[0], [int(i) for i in ids[1:]]
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", marker])
    done = []
    for pid in {os.getppid(), *named} - {0}:
        for call, attempt in controls(pid).items():
            try:
                attempt()
                done.append(f"{call} {pid}")
            except OSError:
                pass
    try:
        os.setpriority(os.PRIO_USER, 0, 7)
        done.append("setpriority PRIO_USER")
    except OSError:
        pass
    seen = {
        "getpriority": seen_by(lambda pid: os.getpriority(os.PRIO_PROCESS, pid)),
        "getpgid": seen_by(os.getpgid),
        "getsid": seen_by(os.getsid),
        "sched_getaffinity": seen_by(os.sched_getaffinity),
        "sched_getscheduler": seen_by(os.sched_getscheduler),
        "prlimit": seen_by(lambda pid: resource.prlimit(pid, resource.RLIMIT_NOFILE)),
    }
    message = json.dumps({"done": done, "seen": seen})
    return {
        "validated": [{"name": "sched_03", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "08.03", "issue": message, "hint_context": ""},
    }
