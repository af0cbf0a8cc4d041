"""Looks for a channel to an evaluation running beside it through the namespaces evaluations may share (the
template's UTS, IPC and network namespaces): as `hold-TAG` it tries to take the abstract unix socket name TAG (bind,
and the autobind of passing credentials) and keeps it 2 s; as `probe-TAG`, 0.5 s in, it connects to TAG and tries to
bind it too; either way it reports its host name, network interfaces, whether `lo` is up and may be brought up, and what each SysV and
POSIX IPC call and each write of the shared settings did."""

import ctypes
import errno
import fcntl
import json
import os
import socket
import struct
import time

IPC_PRIVATE, IPC_CREAT, IPC_INFO = 0, 0o1000, 3
SIOCGIFNAME, SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8910, 0x8913, 0x8914, 0x1
SO_PASSCRED, SO_PASSPIDFD = 16, 76
MQ_UNLINK = {"x86_64": 241, "aarch64": 181}


def attempt(call):
    try:
        call()
        return "done"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def libc_call(name, *args):
    def call():
        libc = ctypes.CDLL(None, use_errno=True)
        if getattr(libc, name)(*args) < 0:
            raise OSError(ctypes.get_errno(), name)

    return attempt(call)


def write(path, text):
    def call():
        with open(path, "w") as setting:
            setting.write(text)

    return attempt(call)


def interfaces(any_socket):
    names = []
    for index in range(1, 65):
        try:
            name = fcntl.ioctl(any_socket.fileno(), SIOCGIFNAME, struct.pack("16si20x", b"", index))[:16]
        except OSError:
            continue
        names.append(name.rstrip(b"\0").decode())
    return names


def abstract(tag):
    return "\0stepeval-" + tag


def hold(tag, found):
    sockets = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(4)]
    found["bind"] = attempt(lambda: sockets[0].bind(abstract(tag)))
    if found["bind"] == "done":
        sockets[0].listen()
    found["autobind"] = attempt(lambda: sockets[1].bind(""))  # an address of the family alone: the kernel names it
    for index, option in ((2, SO_PASSCRED), (3, SO_PASSPIDFD)):
        found[f"option {option}"] = attempt(lambda: sockets[index].setsockopt(socket.SOL_SOCKET, option, 1))
        attempt(lambda: sockets[index].connect(abstract(tag + "-nowhere")))  # autobinds where passing credentials
    found["names"] = [repr(s.getsockname()) for s in sockets if s.getsockname()]
    time.sleep(2)
    return sockets


def probe(tag, found):
    time.sleep(0.5)
    found["at"] = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as visitor:
        found["connect"] = attempt(lambda: visitor.connect(abstract(tag)))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as squatter:
        found["bind"] = attempt(lambda: squatter.bind(abstract(tag)))


def shared_namespaces(found):
    found["hostname"] = socket.gethostname()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as any_socket:  # if_nameindex asks netlink: refused
        found["interfaces"] = interfaces(any_socket)
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(any_socket.fileno(), SIOCGIFFLAGS, request))[1]
        found["lo up"] = bool(flags & IFF_UP)
        up = struct.pack("16sH22x", b"lo", flags | IFF_UP)  # a no-op where it is up already (the host's, mode none)
        found["bring lo up"] = attempt(lambda: fcntl.ioctl(any_socket.fileno(), SIOCSIFFLAGS, up))
    found["sethostname"] = libc_call("sethostname", b"owned", 5)
    found["setdomainname"] = libc_call("setdomainname", b"owned", 5)
    found["write hostname"] = write("/proc/sys/kernel/hostname", "owned")
    found["write shmmni"] = write("/proc/sys/kernel/shmmni", "4096")
    found["write sem"] = write("/proc/sys/kernel/sem", "250 32000 32 128")
    found["write somaxconn"] = write("/proc/sys/net/core/somaxconn", "7")
    buffer = ctypes.create_string_buffer(256)
    found["ipc"] = {
        "shmget": libc_call("shmget", IPC_PRIVATE, 4096, IPC_CREAT | 0o600),
        "msgget": libc_call("msgget", IPC_PRIVATE, IPC_CREAT | 0o600),
        "semget": libc_call("semget", IPC_PRIVATE, 1, IPC_CREAT | 0o600),
        "semop": libc_call("semop", 0, buffer, 1),
        "semctl": libc_call("semctl", 0, 0, IPC_INFO, buffer),
        "msgctl": libc_call("msgctl", 0, IPC_INFO, buffer),
        "msgrcv": libc_call("msgrcv", 0, buffer, 64, 0, 0o4000),  # IPC_NOWAIT
        "mq_open": libc_call("mq_open", b"/stepeval", 0o100 | 0o2, 0o600, None),  # O_CREAT | O_RDWR
        # the call itself: glibc's mq_unlink says EACCES for the kernel's EPERM
        "mq_unlink": libc_call("syscall", MQ_UNLINK[os.uname().machine], b"stepeval"),
    }


async def run(session, context, logger):
    role, _, tag = context["events"][0]["id"].partition("-")
    found = {"role": role, "start": time.monotonic()}
    shared_namespaces(found)
    held = hold(tag, found) if role == "hold" else probe(tag, found)
    found["end"] = time.monotonic()
    for sock in held or []:
        sock.close()
    return {
        "validated": [{"name": "shared_09", "type": "AWS::S3::Bucket", "id": "shared", "status": "not_found"}],
        "success": False,
        "message": json.dumps(found),
    }
