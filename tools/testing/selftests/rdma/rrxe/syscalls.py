#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs a command and prints how many write() system calls it made.

    syscalls.py [--window DEV FROM TO] CMD [ARG...]

The count is the process's `syscw` in /proc/PID/io (write-class system calls:
write, writev, pwrite...), read once the command exited but before it is
reaped (waitid with WNOWAIT), so it costs the command nothing. Only the
command's own process is counted, not its children. Prints "syscw N" on
stderr and exits with the command's status (128 + N for a signal).

With --window, it also samples the count every 20 ms beside RDMA device DEV's
sent_pkts (sysfs hw_counters, port 1), and prints "window_syscw N" and
"window_pkts N": the write() calls made while DEV sent its FROM-th to its
TO-th packet since the start, a steady state that leaves out the command's
start-up and end; and "pkts N", the packets DEV sent while the command ran.
Each end of the window is where the count stood between two reads of syscw
around one read of sent_pkts (their mean), so it is off by at most one call
per end and a few packets. A window the command did not reach prints
"window_syscw unknown".
"""
import os
import subprocess
import sys
import time


def read_syscw(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k == "syscw":
                return int(v)
    raise OSError(f"no syscw in /proc/{pid}/io")


def read_pkts(dev):
    with open(f"/sys/class/infiniband/{dev}/ports/1/hw_counters/sent_pkts") as f:
        return int(f.read())


def main():
    args = sys.argv[1:]
    window = None
    if args[:1] == ["--window"]:
        if len(args) < 5:
            sys.exit(__doc__)
        window = (args[1], int(args[2]), int(args[3]))
        args = args[4:]
    if not args:
        sys.exit(__doc__)
    if window:
        dev, lo, hi = window
        pkts0 = read_pkts(dev)
        ends = []  # (syscw, pkts) at the window's two ends
    p = subprocess.Popen(args)
    while window and len(ends) < 2:
        try:
            # The exit is polled without reaping: WNOHANG with WNOWAIT.
            if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG):
                break
            s0 = read_syscw(p.pid)
            n = read_pkts(dev) - pkts0
            s1 = read_syscw(p.pid)
        except (OSError, ValueError):
            break
        if n >= (lo if not ends else hi):
            ends.append(((s0 + s1) / 2, n))
        time.sleep(0.02)
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
        syscw = read_syscw(p.pid)
    except OSError as e:
        print(f"syscalls.py: /proc/{p.pid}/io: {e}", file=sys.stderr)
    rc = p.wait()
    if window:
        if len(ends) == 2:
            print(f"window_syscw {ends[1][0] - ends[0][0]:g}", file=sys.stderr)
            print(f"window_pkts {ends[1][1] - ends[0][1]}", file=sys.stderr)
        else:
            print("window_syscw unknown", file=sys.stderr)
        print(f"pkts {read_pkts(dev) - pkts0}", file=sys.stderr)
    print(f"syscw {syscw if syscw is not None else 'unknown'}", file=sys.stderr, flush=True)
    sys.exit(rc if rc >= 0 else 128 - rc)


if __name__ == "__main__":
    main()
