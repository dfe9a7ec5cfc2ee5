#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instruction profile of a scripts/vm --insn-profile run (guest.sh).

  report.py RUNDIR [--top N] [--module] [--by-time]
  report.py RUNDIR --blocks LABEL SYMBOL --ko rrxe.ko
  report.py RUNDIR --callers LABEL FUNCTION --ko rrxe.ko

For every LABEL with snapshots LABEL-a and LABEL-b: the guest instructions
executed between them, in user space and in the kernel, per unit (a packet
received by the busier of the two devices: a stream's data packets, which for
a READ of at most one MTU is one per READ), the CPU time split from /proc/stat, the
device counters that moved, and the kernel symbols that executed the most
(or, with --by-time, took the most host time: the plugin's 100 us samples,
which show what TCG spends outside the translated code).
Then, for each test run on both drivers, rrxe's kernel instructions per unit
over rdma_rxe's.

With --blocks, the disassembly (objdump) of the module function whose name
contains SYMBOL, each translation block marked with its share of the function's
instructions in LABEL's window. With --callers, the module's call sites of a
kernel function (memcpy, memset), each with the times it was called per unit
and its constant size argument if it has one.
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


def load_snapshot(path, executions=None, on=None):
    """Instructions and time samples per kernel block, and user space's; with
    a Counter for `executions`, the times each block was entered too; with two
    Counters for `on`, the samples taken on vCPU 0 and 1 (user space's under
    the key 'user')."""
    counts, samples, user, user_samples = collections.Counter(), collections.Counter(), 0, 0
    with open(path) as f:
        for line in f:
            # Older snapshots lack the last fields.
            a, n, t, e, t0, t1 = (line.split() + ['0'] * 4)[:6]
            key = 'user' if a == 'user' else int(a, 16)
            if a == 'user':
                user, user_samples = int(n), int(t)
            else:
                counts[key] += int(n)
                samples[key] += int(t)
                if executions is not None:
                    executions[key] += int(e)
            if on is not None:
                on[0][key] += int(t0)
                on[1][key] += int(t1)
    return counts, samples, user, user_samples


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


def profile(rundir, label, syms, top, module_only, by_time):
    addrs = [s[0] for s in syms]
    on_a = [collections.Counter(), collections.Counter()]
    on_b = [collections.Counter(), collections.Counter()]
    a, ta, ua, uta = load_snapshot(os.path.join(rundir, f'snap-{label}-a.txt'), on=on_a)
    b, tb, ub, utb = load_snapshot(os.path.join(rundir, f'snap-{label}-b.txt'), on=on_b)
    # Samples on vCPU 0 per symbol, and each vCPU's kernel and user samples.
    sym_on0 = collections.Counter()
    cpu_split = [[0, 0], [0, 0]]
    for c in (0, 1):
        cpu_split[c][1] = on_b[c]['user'] - on_a[c]['user']
    per_sym, per_mod = collections.Counter(), collections.Counter()
    sym_time, mod_time = collections.Counter(), collections.Counter()
    for va in b.keys() | tb.keys():
        n, t = b[va] - a.get(va, 0), tb[va] - ta.get(va, 0)
        if n <= 0 and t <= 0:
            continue
        i = bisect.bisect_right(addrs, va) - 1
        name, mod = (syms[i][1], syms[i][2]) if i >= 0 else ('?', '?')
        per_sym[(name, mod)] += max(n, 0)
        per_mod[mod] += max(n, 0)
        sym_time[(name, mod)] += max(t, 0)
        mod_time[mod] += max(t, 0)
        for c in (0, 1):
            tc = max(on_b[c][va] - on_a[c][va], 0)
            cpu_split[c][0] += tc
            if c == 0:
                sym_on0[(name, mod)] += tc
    kernel, user = sum(per_mod.values()), ub - ua
    ktime, utime = sum(mod_time.values()), utb - uta
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
    if ktime + utime:
        # Host time from the plugin's samples (100 us each, per vCPU).
        print(f'   time samples: kernel {ktime} ({ktime / max(units, 1) * 100:.1f} us/unit, '
              f'{kernel / max(ktime, 1) / 1e3:.0f}k instructions/sample), user {utime}; by module: '
              + ', '.join(f'{m} {100 * t / max(ktime, 1):.1f}%' for m, t in mod_time.most_common(6)))
        if sum(map(sum, cpu_split)):
            print('   time samples by vCPU (kernel/user): ' + ', '.join(
                f'vCPU{c} {k}/{u}' for c, (k, u) in enumerate(cpu_split)))
    print('   instr%  instr/unit  time%  us/unit  instr/sample  on vCPU0  symbol')

    def on0(name, mod, t):
        # Snapshots from before the per-vCPU samples have none.
        if not t or not sum(map(sum, cpu_split)):
            return '-'
        return f'{100 * sym_on0[(name, mod)] / t:.0f}%'

    shown = 0
    order = sym_time if by_time else per_sym
    for (name, mod), _ in order.most_common():
        if shown >= top:
            break
        if module_only and mod not in ('rrxe', 'rdma_rxe'):
            continue
        n, t = per_sym[(name, mod)], sym_time[(name, mod)]
        print(f'   {100 * n / max(kernel, 1):5.2f}% {n / max(units, 1):9.0f}  '
              f'{100 * t / max(ktime, 1):5.2f}% {t * 100 / max(units, 1):7.2f}  '
              f'{n / t if t else 0:10.0f}  {on0(name, mod, t):>8}  {name} [{mod}]')
        shown += 1
    return kernel / max(units, 1)


def blocks(rundir, label, symbol, ko, syms):
    matches = [(i, s) for i, s in enumerate(syms) if symbol in s[1] and s[2] != 'kernel']
    if len(matches) != 1:
        raise SystemExit(f'{len(matches)} module symbols match {symbol!r}')
    i, (start, name, _) = matches[0]
    end = next((s[0] for s in syms[i + 1:] if s[0] > start), start + 4096)
    a = load_snapshot(os.path.join(rundir, f'snap-{label}-a.txt'))[0]
    b = load_snapshot(os.path.join(rundir, f'snap-{label}-b.txt'))[0]
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


def callers(rundir, label, callee, ko, syms):
    """The module's calls of `callee` in LABEL's window, by how often each
    returned: a call ends a translation block, so the block at its return
    address is entered once per call."""
    ea, eb = collections.Counter(), collections.Counter()
    load_snapshot(os.path.join(rundir, f'snap-{label}-a.txt'), ea)
    load_snapshot(os.path.join(rundir, f'snap-{label}-b.txt'), eb)
    ma = load_marks(os.path.join(rundir, f'ctr-{label}-a'))
    mb = load_marks(os.path.join(rundir, f'ctr-{label}-b'))
    units = max(max((mb[k] - ma.get(k, 0) for k in mb if k.endswith('/rcvd_pkts')), default=0), 1)
    runtime = {s[1]: s[0] for s in syms}
    dis = subprocess.run(['objdump', '-d', '-r', '-j', '.text', '--no-show-raw-insn', ko],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    fn, base, sites, pending, recent = None, 0, [], None, []
    for line in dis:
        if m := re.match(r'([0-9a-f]+) <(.+)>:$', line):
            fn, base, pending, recent = m.group(2), int(m.group(1), 16), None, []
            continue
        if 'R_X86_64_' in line:  # a relocation, of the instruction before
            if re.search(rf'R_X86_64_PLT32\s+{re.escape(callee)}-0x4$', line) and fn:
                pending = next((m.group(1) for i in reversed(recent[:-1])
                                if (m := re.match(r'mov\s+\$(0x[0-9a-f]+),%[re]?dx$', i))), '?')
            continue
        if m := re.match(r'\s+([0-9a-f]+):\s+(.*)', line):
            addr, insn = int(m.group(1), 16), m.group(2)
            if pending is not None:
                sites.append((fn, base, addr, pending))
                pending = None
            recent = (recent + [insn.strip()])[-6:]
    entered = eb.get(runtime.get(callee, -1), 0) - ea.get(runtime.get(callee, -1), 0)
    print(f'{label}: {callee} entered {entered / units:.2f} times per unit; the module\'s calls:')
    rows = []
    for fn, base, ret, size in sites:
        if fn not in runtime:
            continue
        va = runtime[fn] + ret - base
        n = eb.get(va, 0) - ea.get(va, 0)
        if n > 0:
            rows.append((n, size, fn, ret - base))
    for n, size, fn, off in sorted(rows, reverse=True):
        print(f'   {n / units:6.2f}/unit  size {size:>6}  {fn}+{off:#x}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('rundir')
    ap.add_argument('--top', type=int, default=25, help='symbols to list per run')
    ap.add_argument('--module', action='store_true', help='list only rrxe and rdma_rxe symbols')
    ap.add_argument('--by-time', action='store_true', help='order symbols by time samples')
    ap.add_argument('--blocks', nargs=2, metavar=('LABEL', 'SYMBOL'),
                    help="a function's hot blocks in a run")
    ap.add_argument('--callers', nargs=2, metavar=('LABEL', 'FUNCTION'),
                    help="the module's calls of a kernel function (memcpy) in a run, by count")
    ap.add_argument('--ko', help='the module the run loaded (for --blocks and --callers)')
    args = ap.parse_args()
    syms = load_symbols(args.rundir)
    if args.callers:
        if not args.ko:
            raise SystemExit('--callers needs --ko')
        callers(args.rundir, *args.callers, args.ko, syms)
        return
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
    per_unit = {l: profile(args.rundir, l, syms, args.top, args.module, args.by_time) for l in labels}
    for l in labels:
        if l.startswith('rrxe-') and 'rxe-' + l[5:] in per_unit:
            print(f'{l[5:]}: rrxe/rxe kernel instructions per unit '
                  f'{per_unit[l] / max(per_unit["rxe-" + l[5:]], 1):.2f}')


if __name__ == '__main__':
    main()
