#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instruction profile of a scripts/vm --insn-profile run (guest.sh).

  report.py RUNDIR [--top N] [--module]
  report.py RUNDIR --blocks LABEL SYMBOL --ko rrxe.ko

For every LABEL with snapshots LABEL-a and LABEL-b: the guest instructions
executed between them, in user space and in the kernel, per unit (a packet
received by the busier of the two devices: a stream's data packets, which for
a READ of at most one MTU is one per READ), the CPU time split from /proc/stat, the
device counters that moved, and the kernel symbols that executed the most.
Then, for each test run on both drivers, rrxe's kernel instructions per unit
over rdma_rxe's.

With --blocks, the disassembly (objdump) of the module function whose name
contains SYMBOL, each translation block marked with its share of the function's
instructions in LABEL's window.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess

STAT_FIELDS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq']


def load_symbols(rundir):
    syms = []
    with open(os.path.join(rundir, 'kallsyms.txt')) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in 'tTwW' or p[2].startswith('__pfx_'):
                continue
            syms.append((int(p[0], 16), p[2], p[3].strip('[]') if len(p) > 3 else 'kernel'))
    syms.sort()
    return syms


def load_snapshot(path):
    counts, user = collections.Counter(), 0
    with open(path) as f:
        for line in f:
            a, n = line.split()
            if a == 'user':
                user = int(n)
            else:
                counts[int(a, 16)] += int(n)
    return counts, user


def load_marks(path):
    """Device counters ("rrxe0/rcvd_pkts") and CPU ticks ("cpu0/idle")."""
    out, dev = {}, '?'
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == 'stat':
                for k, v in zip(STAT_FIELDS, p[2:]):
                    out[f'{p[1]}/{k}'] = int(v)
                continue
            if p and p[0] == 'sched':
                out[f'sched/{p[1].rstrip(":")}'] = int(p[2])
                continue
            if p and p[0] == 'link':
                dev, p = p[1].split('/')[0], p[2:]
            for k, v in zip(p[0::2], p[1::2]):
                if v.isdigit():
                    out[f'{dev}/{k}'] = int(v)
    return out


def profile(rundir, label, syms, top, module_only):
    addrs = [s[0] for s in syms]
    a, ua = load_snapshot(os.path.join(rundir, f'snap-{label}-a.txt'))
    b, ub = load_snapshot(os.path.join(rundir, f'snap-{label}-b.txt'))
    per_sym, per_mod = collections.Counter(), collections.Counter()
    for va, n in b.items():
        n -= a.get(va, 0)
        if n <= 0:
            continue
        i = bisect.bisect_right(addrs, va) - 1
        name, mod = (syms[i][1], syms[i][2]) if i >= 0 else ('?', '?')
        per_sym[(name, mod)] += n
        per_mod[mod] += n
    kernel, user = sum(per_mod.values()), ub - ua
    ma = load_marks(os.path.join(rundir, f'ctr-{label}-a'))
    mb = load_marks(os.path.join(rundir, f'ctr-{label}-b'))
    moved = {k: mb[k] - ma.get(k, 0) for k in mb if mb[k] != ma.get(k, 0)}
    units = max((v for k, v in moved.items() if k.endswith('/rcvd_pkts')), default=0)
    print(f'== {label}: {units} units; instructions per unit: kernel {kernel / max(units, 1):.0f}, '
          f'user {user / max(units, 1):.0f}')
    cpus = sorted({k.split('/')[0] for k in moved if k.startswith('cpu')})
    for c in cpus:
        ticks = {f: moved.get(f'{c}/{f}', 0) for f in STAT_FIELDS}
        total = max(sum(ticks.values()), 1)
        print(f'   {c}: ' + ', '.join(f'{f} {100 * v / total:.0f}%' for f, v in ticks.items() if v))
    sched = [f'{k[6:]} {v / max(units, 1):.3f}' for k, v in sorted(moved.items())
             if k.startswith('sched/')]
    if sched:
        print('   per unit: ' + ', '.join(sched))
    print('   counters: ' + ', '.join(f'{k} +{v}' for k, v in sorted(moved.items())
                                      if not k.startswith(('cpu', 'sched/'))))
    print('   kernel instructions by module: ' + ', '.join(
        f'{m} {100 * n / max(kernel, 1):.1f}%' for m, n in per_mod.most_common(6)))
    shown = 0
    for (name, mod), n in per_sym.most_common():
        if shown >= top:
            break
        if module_only and mod not in ('rrxe', 'rdma_rxe'):
            continue
        print(f'   {100 * n / max(kernel, 1):5.2f}% {n / max(units, 1):7.0f}/unit  {name} [{mod}]')
        shown += 1
    return kernel / max(units, 1)


def blocks(rundir, label, symbol, ko, syms):
    matches = [(i, s) for i, s in enumerate(syms) if symbol in s[1] and s[2] != 'kernel']
    if len(matches) != 1:
        raise SystemExit(f'{len(matches)} module symbols match {symbol!r}')
    i, (start, name, _) = matches[0]
    end = next((s[0] for s in syms[i + 1:] if s[0] > start), start + 4096)
    a, _ = load_snapshot(os.path.join(rundir, f'snap-{label}-a.txt'))
    b, _ = load_snapshot(os.path.join(rundir, f'snap-{label}-b.txt'))
    nm = subprocess.run(['nm', ko], capture_output=True, text=True, check=True).stdout
    base = next((int(p[0], 16) for p in map(str.split, nm.splitlines()) if p[-1] == name), None)
    if base is None:
        raise SystemExit(f'{name} is not in {ko}: give the module the run loaded')
    counts = {va - start + base: b[va] - a.get(va, 0) for va in b if start <= va < end}
    total = max(sum(counts.values()), 1)
    dis = subprocess.run(['objdump', '-d', '-j', '.text', '--no-show-raw-insn', f'--start-address={base}',
                          f'--stop-address={base + end - start}', ko],
                         capture_output=True, text=True, check=True).stdout
    print(f'{name}: {total} instructions in {label}')
    for line in dis.splitlines():
        m = re.match(r'\s+([0-9a-f]+):', line)
        if m and counts.get(int(m.group(1), 16)):
            print(f'---- block: {100 * counts[int(m.group(1), 16)] / total:.1f}%')
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('rundir')
    ap.add_argument('--top', type=int, default=25, help='symbols to list per run')
    ap.add_argument('--module', action='store_true', help='list only rrxe and rdma_rxe symbols')
    ap.add_argument('--blocks', nargs=2, metavar=('LABEL', 'SYMBOL'),
                    help="a function's hot blocks in a run")
    ap.add_argument('--ko', help='the module the run loaded (for --blocks)')
    args = ap.parse_args()
    syms = load_symbols(args.rundir)
    if args.blocks:
        if not args.ko:
            raise SystemExit('--blocks needs --ko')
        blocks(args.rundir, *args.blocks, args.ko, syms)
        return
    labels = sorted({m.group(1) for f in os.listdir(args.rundir)
                     if (m := re.match(r'snap-(.+)-a\.txt$', f))
                     and os.path.exists(os.path.join(args.rundir, f'snap-{m.group(1)}-b.txt'))})
    if not labels:
        raise SystemExit(f'no snapshot pairs in {args.rundir}')
    per_unit = {l: profile(args.rundir, l, syms, args.top, args.module) for l in labels}
    for l in labels:
        if l.startswith('rrxe-') and 'rxe-' + l[5:] in per_unit:
            print(f'{l[5:]}: rrxe/rxe kernel instructions per unit '
                  f'{per_unit[l] / max(per_unit["rxe-" + l[5:]], 1):.2f}')


if __name__ == '__main__':
    main()
