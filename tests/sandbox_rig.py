"""A process under the address families our systemd units allow, enforced as
systemd enforces RestrictAddressFamilies=: a seccomp filter in the kernel that
fails socket() and socketpair() of any other family with EAFNOSUPPORT. No
systemd runs in a test; the kernel's filter is the same, and it needs no root.

`unit_address_families(*unit_files)` reads the allow-list as systemd merges
it (a unit, then its drop-ins: each assignment adds families, an empty one
starts again); `restricted(families)` is a preexec_fn for subprocess.Popen.
"""

import ctypes
import errno
import os
import platform
import socket

# (socket, socketpair) system call numbers and the seccomp architecture, by `uname -m`.
SYSCALLS = {"x86_64": (41, 53, 0xC000003E), "aarch64": (198, 199, 0xC00000B7)}
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
# classic BPF: load a word at an offset of struct seccomp_data (nr 0, arch 4, args[0] 16), compare, return
LOAD, JUMP_IF_EQUAL, RETURN = 0x20, 0x15, 0x06


class Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]


def missing():
    """Why the kernel's filter cannot be used here, or None."""
    if platform.system() != "Linux" or platform.machine() not in SYSCALLS:
        return "the address-family sandbox needs Linux on x86_64 or aarch64 (seccomp), not %s %s" % (
            platform.system(), platform.machine())
    return None


def unit_address_families(*unit_files):
    """The families RestrictAddressFamilies= allows in these files, read in order; None: no restriction."""
    families = None
    for path in unit_files:
        for line in open(path, encoding="utf-8"):
            key, _, value = line.strip().partition("=")
            if key != "RestrictAddressFamilies":
                continue
            if value.startswith("~"):
                raise ValueError("%s: a deny-list (%s) is not read here" % (path, value))
            families = set() if not value else (families or set()) | set(value.split())
    return families


def restricted(families):
    """A preexec_fn: the child's socket() and socketpair() refused for any family but `families` (names)."""
    allowed = [getattr(socket, name) for name in sorted(families)]
    socket_call, pair_call, arch = SYSCALLS[platform.machine()]
    fail = SECCOMP_RET_ERRNO | errno.EAFNOSUPPORT
    code = [(LOAD, 0, 0, 4), (JUMP_IF_EQUAL, 0, 5 + len(allowed), arch),        # another architecture: allowed
            (LOAD, 0, 0, 0), (JUMP_IF_EQUAL, 1, 0, socket_call), (JUMP_IF_EQUAL, 0, 2 + len(allowed), pair_call),
            (LOAD, 0, 0, 16)]
    code += [(JUMP_IF_EQUAL, len(allowed) - n, 0, family) for n, family in enumerate(allowed)]
    code += [(RETURN, 0, 0, fail), (RETURN, 0, 0, SECCOMP_RET_ALLOW)]
    instructions = (Instruction * len(code))(*[Instruction(*each) for each in code])
    program = Program(len(code), instructions)

    def apply():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or \
                libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0):
            os._exit(121)
    return apply
