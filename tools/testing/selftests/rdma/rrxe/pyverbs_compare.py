#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compares two `run_tests.py -v` logs of rdma-core's pyverbs suite, rrxe's and
rdma_rxe's, test by test. Prints both per-module tables side by side, then TAP: one
case per module, which fails on a regression, i.e. a test that passes on rdma_rxe
but not on rrxe, or that fails or errors on rrxe only. A regression listed in the
gaps file (test id, then the reason) is reported but allowed.

Usage: pyverbs_compare.py RRXE_LOG RXE_LOG GAPS_FILE MODULE...
"""
import re
import sys

HEADER = re.compile(r"^(test_\w+) \(tests\.(\w+)\.(\w+)\.\1\)")
# The verdict follows " ... " on the header's line or a later one (a docstring, or
# warnings a test prints, may come in between).
VERDICT = re.compile(r"(?:\.\.\. |^)(ok|skipped .*|FAIL|ERROR|expected failure|unexpected success)$")
# A class or module whose fixture failed reports as "setUpClass (tests.mod.Class)".
FIXTURE = re.compile(r"^ERROR: (setUpClass|setUpModule) \(tests\.(\w+)(?:\.(\w+))?\)")


def parse(path):
    res, cur = {}, None
    for line in open(path, errors="replace").read().splitlines():
        h = HEADER.match(line)
        if h:
            cur = f"{h.group(2)}.{h.group(3)}.{h.group(1)}"
        f = FIXTURE.match(line)
        if f:
            res[f"{f.group(2)}.{f.group(3) or ''}.{f.group(1)}"] = "error"
            continue
        v = VERDICT.search(line)
        if cur and v:
            r = v.group(1)
            res[cur] = {"ok": "ok", "FAIL": "fail", "ERROR": "error"}.get(
                r, "skip" if r.startswith("skipped") else "fail")
            cur = None
    return res


def gaps(path):
    out = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            tid, _, why = line.partition(" ")
            out[tid] = why.strip()
    return out


def main():
    rrxe, rxe, known, mods = parse(sys.argv[1]), parse(sys.argv[2]), gaps(sys.argv[3]), sys.argv[4:]
    kinds = ("ok", "skip", "fail", "error")
    print("TAP version 13")
    print(f"# {'module':<16} {'rrxe ok/skip/fail/error':>24} | {'rdma_rxe ok/skip/fail/error':>28}")
    tot = {"rrxe": dict.fromkeys(kinds, 0), "rxe": dict.fromkeys(kinds, 0)}
    for mod in mods:
        cols = []
        for name, res in (("rrxe", rrxe), ("rxe", rxe)):
            c = dict.fromkeys(kinds, 0)
            for tid, k in res.items():
                if tid.startswith(mod + "."):
                    c[k] += 1
                    tot[name][k] += 1
            cols.append("/".join(str(c[k]) for k in kinds))
        print(f"# {mod:<16} {cols[0]:>24} | {cols[1]:>28}")
    print(f"# {'total':<16} {'/'.join(str(tot['rrxe'][k]) for k in kinds):>24} | "
          f"{'/'.join(str(tot['rxe'][k]) for k in kinds):>28}")
    print(f"1..{len(mods)}")
    failed = 0
    for i, mod in enumerate(mods, 1):
        ids = sorted(t for t in set(rrxe) | set(rxe) if t.startswith(mod + "."))
        bad, allowed = [], []
        for t in ids:
            a, b = rrxe.get(t, "missing"), rxe.get(t, "missing")
            regress = (b == "ok" and a != "ok") or (a in ("fail", "error", "missing") and b not in ("fail", "error", "missing"))
            if regress:
                (allowed if t in known else bad).append(f"{t}: rrxe {a}, rdma_rxe {b}" + (f" ({known[t]})" if t in known else ""))
            elif t in known and a == "ok":
                print(f"# {t} passes now: remove it from the gaps file")
        n_ok = sum(1 for t in ids if rrxe.get(t) == "ok")
        n_rxe = sum(1 for t in ids if rxe.get(t) == "ok")
        if not ids:
            print(f"not ok {i} {mod}: no results")
            failed += 1
            continue
        print(f"{'not ok' if bad else 'ok'} {i} {mod}: rrxe {n_ok} passed, rdma_rxe {n_rxe}"
              + (f", {len(allowed)} known gaps" if allowed else ""))
        failed += bool(bad)
        for line in bad + allowed:
            print(f"#   {'REGRESSION ' if line in bad else 'known gap  '}{line}")
    sys.exit(1 if failed else 0)


main()
