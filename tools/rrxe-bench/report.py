#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench-guest.sh's runs (JSON lines) into bench.json, a ratio table and a
PNG plot.

usage: report.py RUNS.jsonl OUTDIR [KEY=VALUE ...]   (KEY=VALUE go into "meta")

For each point the median over rounds is taken per driver. The ratio is always
rrxe/rxe: for bandwidth above 1 is better, for latency below 1 is better. A point
with a failed run in either driver has no ratio and is listed as failed. Each
round runs both drivers back to back, so each round also gives a ratio of its
own: the table shows their range. Whether one driver is ahead is decided on
those paired rounds by an exact one-sided Wilcoxon signed-rank test of the
rounds' log ratios (rrxe's advantage: log(rrxe/rxe) for bandwidth, its negative
for latency): "rrxe" or "rxe" when that driver is ahead at the 5 % level, "even"
when neither is. The "p" column is the p-value of the side the median favours.
Under TCG one run can differ from the next by 2x, so a few rounds tell little:
with fewer than 5 rounds no point can reach 5 % (the smallest one-sided p of n
rounds is 1/2^n), and every point is "even".

Each run also records its user and kernel ticks per vCPU. The "mix" column
gives, per driver (rrxe/rxe), the median over runs of how much the vCPUs mixed
the two: the sum over vCPUs of 2 * min(user, kernel), over all their busy
ticks. 0 means every vCPU ran only user or only kernel work (the way a SEND
stream, with a polling process at each end, tends to run fastest: the driver's
work on one vCPU, the processes on the other), 1 that each ran as much of one
as of the other (Documentation/benchmarking.rst, "Which way a stream
runs").

The plot needs matplotlib (the build root has it); without it only the PNG is
missing.
"""
import json
import math
import statistics
import sys

# The level at which a driver is called ahead.
ALPHA = 0.05


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarise(runs):
    points = []
    keys = []
    for r in runs:
        k = (r["test"], r["size"], r["kind"], r.get("qps", 1))
        if k not in keys:
            keys.append(k)
    for test, size, kind, qps in keys:
        p = {"test": test, "size": size, "kind": kind, "qps": qps}
        ok = True
        for drv in ("rrxe", "rxe"):
            mine = [r for r in runs
                    if (r["test"], r["size"], r.get("qps", 1), r["driver"]) == (test, size, qps, drv)]
            good = [r for r in mine if r.get("ok")]
            p[drv + "_runs"] = len(mine)
            p[drv + "_failed"] = len(mine) - len(good)
            if not good or len(good) != len(mine):
                ok = False
            metric = "bw_mib_s" if kind == "bw" else "typical_us"
            p["metric"] = metric
            p[drv] = statistics.median(r[metric] for r in good) if good else None
            # perftest can finish "successfully" having moved nothing (rdma_rxe's
            # send_bw under TCG does): kept in the median, and said.
            p[drv + "_zero"] = sum(1 for r in good if r[metric] == 0)
            mixes = [x for x in map(mix, good) if x is not None]
            p[drv + "_mix"] = round(statistics.median(mixes), 2) if mixes else None
        p["ok"] = ok
        p["ratio"] = round(p["rrxe"] / p["rxe"], 3) if ok and p["rxe"] else None
        ratios = paired_ratios(runs, test, size, qps, p["metric"]) if ok else []
        p["round_ratios"] = sorted(round(r, 3) for r in ratios)
        # Tested unrounded: rounding makes ties and zeros of its own.
        sign = 1 if kind == "bw" else -1
        advantage = [sign * math.log(r) for r in ratios if r > 0]
        p["p_ahead"], p["p_behind"] = signed_rank_p(advantage)
        p["verdict"] = verdict(p) if ok else "failed"
        points.append(p)
    return points


def signed_rank_p(diffs):
    """Exact one-sided Wilcoxon signed-rank p-values of paired differences:
    (P(W+ >= w), P(W+ <= w)) for the observed sum w of the positive
    differences' ranks, under the null hypothesis that each difference is as
    likely positive as negative. Zero differences are dropped; tied magnitudes
    share their mean rank. With no non-zero difference both are 1."""
    d = [x for x in diffs if x != 0]
    if not d:
        return 1.0, 1.0
    order = sorted(range(len(d)), key=lambda i: abs(d[i]))
    # Ranks doubled, so that mean ranks of ties stay integers.
    rank2 = [0] * len(d)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(d[order[j + 1]]) == abs(d[order[i]]):
            j += 1
        for k in range(i, j + 1):
            rank2[order[k]] = i + j + 2  # 2 * mean of ranks i+1 .. j+1
        i = j + 1
    w = sum(r for r, x in zip(rank2, d) if x > 0)
    # counts[s]: sign assignments whose positive ranks (doubled) sum to s.
    counts = [1] + [0] * sum(rank2)
    for r in rank2:
        for s in range(len(counts) - 1, r - 1, -1):
            counts[s] += counts[s - r]
    total = 2 ** len(d)
    return sum(counts[w:]) / total, sum(counts[: w + 1]) / total


def verdict(p):
    """Which driver is ahead at ALPHA over the paired rounds, or "even"."""
    if p["p_ahead"] < ALPHA:
        return "rrxe"
    if p["p_behind"] < ALPHA:
        return "rxe"
    return "even"


def mix(run):
    """How much a run's vCPUs mixed user and kernel work (0 to 1), or None."""
    pairs = list(zip(run.get("cpu_user") or [], run.get("cpu_kernel") or []))
    busy = sum(u + k for u, k in pairs)
    return sum(2 * min(u, k) for u, k in pairs) / busy if busy > 0 else None


def paired_ratios(runs, test, size, qps, metric):
    """rrxe/rxe of each round in which both drivers ran the point."""
    by_round = {}
    for r in runs:
        if (r["test"], r["size"], r.get("qps", 1)) == (test, size, qps) and r.get("ok"):
            by_round.setdefault(r.get("round"), {})[r["driver"]] = r[metric]
    return [d["rrxe"] / d["rxe"] for d in by_round.values() if d.get("rxe") and "rrxe" in d]


def label(p):
    size = p["size"]
    s = f"{size // 1024}K" if size >= 1024 else f"{size}B"
    qps = p.get("qps", 1)
    return f"{p['test'].replace('ib_', '')} {s}" + (f" x{qps} QPs" if qps > 1 else "")


def table(points):
    lines = [f"{'point':<24} {'unit':<7} {'rrxe':>10} {'rxe':>10} {'rrxe/rxe':>9} "
             f"{'rounds':>11} {'p':>6} {'mix':>9}  ahead"]
    for p in points:
        unit = "MiB/s" if p["kind"] == "bw" else "us"
        fmt = lambda v: "failed" if v is None else f"{v:.2f}"
        rr = p.get("round_ratios") or []
        spread = f"{rr[0]:.2f}-{rr[-1]:.2f}" if rr else "-"
        if p["ratio"] is None:
            ratio, pval = "-", "-"
        else:
            ratio = f"{p['ratio']:.2f}"
            # The p-value of the side the median favours.
            ahead = p["ratio"] >= 1 if p["kind"] == "bw" else p["ratio"] <= 1
            pval = f"{p['p_ahead'] if ahead else p['p_behind']:.3f}"
        mixes = "/".join("-" if p.get(d + "_mix") is None else f"{p[d + '_mix']:.2f}"
                         for d in ("rrxe", "rxe"))
        notes = [f"{d}: {p[d + '_zero']}/{p[d + '_runs']} runs moved nothing"
                 for d in ("rrxe", "rxe") if p.get(d + "_zero")]
        lines.append(f"{label(p):<24} {unit:<7} {fmt(p['rrxe']):>10} {fmt(p['rxe']):>10} {ratio:>9} {spread:>11} "
                     f"{pval:>6} {mixes:>9}  {p['verdict']}{'  (' + '; '.join(notes) + ')' if notes else ''}")
    return "\n".join(lines)


def plot(points, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib is missing, no plot", file=sys.stderr)
        return False
    bw = [p for p in points if p["kind"] == "bw"]
    lat = [p for p in points if p["kind"] == "lat"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 1]})
    for ax, ps, ylabel in ((axes[0], bw, "bandwidth, MiB/s (log)"), (axes[1], lat, "latency, µs (typical)")):
        xs = range(len(ps))
        for off, drv, colour in ((-0.2, "rrxe", "tab:orange"), (0.2, "rxe", "tab:blue")):
            ax.bar([x + off for x in xs], [p[drv] or 0 for p in ps], 0.4, label=drv, color=colour)
        for x, p in zip(xs, ps):
            top = max(p["rrxe"] or 0, p["rxe"] or 0)
            text = "failed" if p["ratio"] is None else f"×{p['ratio']:.2f}"
            ax.annotate(text, (x, top), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([label(p) for p in ps], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        if ps is bw:
            ax.set_yscale("log")
        ax.legend()
    fig.suptitle(title + "  (labels: rrxe/rxe)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    outdir = sys.argv[2]
    meta = dict(a.split("=", 1) for a in sys.argv[3:])
    if not runs:
        sys.exit("report: no runs recorded")
    points = summarise(runs)
    with open(f"{outdir}/bench.json", "w") as f:
        json.dump({"meta": meta, "points": points, "runs": runs}, f, indent=1)
    print(table(points))
    title = "rrxe vs rdma_rxe, perftest, " + meta.get("flavour", "?") + " kernel under " + meta.get("accel", "?")
    plot(points, f"{outdir}/bench.png", title)
    return 0 if all(p["ok"] for p in points) else 1


if __name__ == "__main__":
    sys.exit(main())
