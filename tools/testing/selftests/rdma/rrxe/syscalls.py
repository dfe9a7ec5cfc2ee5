#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs a command and prints how many write() system calls it made.

    syscalls.py CMD [ARG...]

The count is the process's `syscw` in /proc/PID/io (write-class system calls:
write, writev, pwrite...), read once the command exited but before it is
reaped (waitid with WNOWAIT), so it costs the command nothing. Only the
command's own process is counted, not its children. Prints "syscw N" on
stderr and exits with the command's status (128 + N for a signal).
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    p = subprocess.Popen(sys.argv[1:])
    # Waits for the exit, leaving the child a zombie whose /proc/PID/io still
    # holds its counters.
    while True:
        try:
            os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
            break
        except InterruptedError:
            continue
    syscw = None
    try:
        with open(f"/proc/{p.pid}/io") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k == "syscw":
                    syscw = int(v)
    except OSError as e:
        print(f"syscalls.py: /proc/{p.pid}/io: {e}", file=sys.stderr)
    rc = p.wait()
    print(f"syscw {syscw if syscw is not None else 'unknown'}", file=sys.stderr, flush=True)
    sys.exit(rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    main()
