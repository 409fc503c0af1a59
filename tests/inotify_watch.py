"""A directory watch with Linux inotify (through ctypes, no package): which entries of a
directory were opened or read while it was installed. Used by the canary tests of issue 39
(item 1): an engine given one file must open nothing else in its directory.

    with Watch(directory) as watch:
        ...               # run the engine (in this process or a child: the kernel sees all)
    watch.opened          # the names of the entries opened or read, in order of first event
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from types import TracebackType

IN_ACCESS, IN_OPEN = 0x00000001, 0x00000020
IN_NONBLOCK = os.O_NONBLOCK
HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


def available() -> bool:
    return sys.platform.startswith("linux")


class Watch:
    """Collects the names of the entries of `directory` opened or read (IN_OPEN, IN_ACCESS);
    the directory's own events (a listing) are kept apart in `listed`."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = os.fspath(directory)
        self.opened: list[str] = []
        self.listed = 0
        self.fd = -1

    def __enter__(self) -> Watch:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(IN_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        wd = libc.inotify_add_watch(self.fd, os.fsencode(self.directory), IN_OPEN | IN_ACCESS)
        if wd < 0:
            os.close(self.fd)
            raise OSError(ctypes.get_errno(), f"inotify_add_watch({self.directory}) failed")
        return self

    def collect(self) -> None:
        """Read every queued event."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                _, _mask, _, length = HEADER.unpack_from(data, offset)
                offset += HEADER.size
                name = data[offset:offset + length].rstrip(b"\0").decode("utf-8", "replace")
                offset += length
                if not name:
                    self.listed += 1
                elif name not in self.opened:
                    self.opened.append(name)

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.collect()
        os.close(self.fd)
