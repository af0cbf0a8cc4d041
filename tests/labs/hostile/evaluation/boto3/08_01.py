"""What Landlock does not govern: a file's mode, owner, times and extended attributes. On the gateway's directory
and socket, its own lab and the paths in the events (the service's ~/.aws/credentials, home, working directory:
all of the service's uid in mode none) it tries every call that changes them, then chmod 000 on the gateway's
directory and socket (every later evaluation would fail to connect). Answers what succeeded."""

import ctypes
import json
import os

import harness.inside.worker

MARK = b"left-by-08.01"
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
FCHMODAT2, SETXATTRAT = 452, 463  # the same number on every architecture
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def raw(number, *args):
    if libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args]) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


class XattrArgs(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("size", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


def opened(path):
    try:
        return os.open(path, os.O_RDONLY)  # where Landlock lets it read (its own lab)
    except OSError:
        return None


def attempts(path):
    st = os.stat(path)
    mode = st.st_mode & 0o7777
    name = ctypes.create_string_buffer(os.fsencode(path))
    key = ctypes.create_string_buffer(b"user.stepeval-hostile")
    value = ctypes.create_string_buffer(MARK)
    xattr = XattrArgs(ctypes.addressof(value), len(MARK), 0)
    empty = ctypes.create_string_buffer(b"")
    handle = os.open(path, os.O_PATH)  # no read right needed: Landlock does not check O_PATH
    fd = opened(path)
    found = {
        "chmod": lambda: os.chmod(path, mode),
        "lchmod": lambda: os.chmod(path, mode, follow_symlinks=False),
        "fchmodat2": lambda: raw(FCHMODAT2, AT_FDCWD, ctypes.addressof(name), mode, 0),
        "fchmodat2 O_PATH": lambda: raw(FCHMODAT2, handle, ctypes.addressof(empty), mode, AT_EMPTY_PATH),
        "chown": lambda: os.chown(path, st.st_uid, st.st_gid),
        "lchown": lambda: os.lchown(path, st.st_uid, st.st_gid),
        "utime": lambda: os.utime(path, ns=(0, 0)),
        "utime now": lambda: os.utime(path),
        "setxattr": lambda: os.setxattr(path, "user.stepeval-hostile", MARK),
        "lsetxattr": lambda: os.setxattr(path, "user.stepeval-hostile", MARK, follow_symlinks=False),
        "setxattrat": lambda: raw(
            SETXATTRAT, AT_FDCWD, ctypes.addressof(name), 0, ctypes.addressof(key), ctypes.addressof(xattr), 16
        ),
        "removexattr": lambda: os.removexattr(path, "user.stepeval-hostile"),
    }
    if fd is not None:
        found |= {
            "fchmod": lambda: os.chmod(fd, mode),
            "fchown": lambda: os.chown(fd, st.st_uid, st.st_gid),
            "futimens": lambda: os.utime(fd, ns=(0, 0)),
            "fsetxattr": lambda: os.setxattr(fd, "user.stepeval-hostile", MARK),
        }
    return found


async def run(session, context, logger):
    gateway = harness.inside.worker.LINK._socket_path
    here = os.path.dirname(os.path.abspath(__file__))
    targets = [os.path.dirname(gateway), gateway, here, *(e["id"] for e in context["events"])]
    done = []
    for path in targets:
        try:
            calls = attempts(path)
        except OSError:
            continue
        for call, attempt in calls.items():
            try:
                attempt()
                done.append(f"{call} {path}")
            except OSError:
                pass
    for path in (gateway, os.path.dirname(gateway)):
        try:
            os.chmod(path, 0)
            done.append(f"chmod 000 {path}")
        except OSError:
            pass
    message = json.dumps({"gateway": gateway, "done": done})
    return {
        "validated": [{"name": "meta_01", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "08.01", "issue": message, "hint_context": ""},
    }
