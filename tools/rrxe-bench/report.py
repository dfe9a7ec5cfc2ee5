#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench-guest.sh's runs (JSON lines) into bench.json, a ratio table and a
PNG plot.

usage: report.py RUNS.jsonl OUTDIR [KEY=VALUE ...]   (KEY=VALUE go into "meta")

The drivers: "rrxe-db" (rrxe with the rxe provider patched for its doorbell),
"rrxe-db2" and "rrxe-db3" (the same with doorbell=2, the idle-time poller,
and doorbell=3, the dedicated poller), "rrxe" (rrxe with rdma-core's stock
provider) and "rxe" (rdma_rxe, stock provider). Older bench.jsonl files have
only "rrxe" and "rxe"; any subset works, and only the comparisons whose two
drivers both ran are made: rrxe-db/rxe, rrxe/rxe, rrxe-db/rrxe, and each
poller's against rxe and against rrxe-db.

For each point the median over rounds is taken per driver. A ratio is always
A/B as named: for bandwidth above 1 favours A, for latency below 1 does. A
comparison with a failed run in either of its drivers has no ratio and is
listed as failed. Each round runs every driver back to back, so each round
also gives a ratio of its own: the table shows their range. Whether one
driver is ahead is decided on those paired rounds by an exact one-sided
Wilcoxon signed-rank test of the rounds' log ratios (A's advantage:
log(A/B) for bandwidth, its negative for latency): A or B when that driver is
ahead at the 5 % level, "even" when neither is. The "p" column is the p-value
of the side the median favours. Under TCG one run can differ from the next by
2x, so a few rounds tell little: with fewer than 5 rounds no point can reach
5 % (the smallest one-sided p of n rounds is 1/2^n), and every point is
"even".

"w/WR" is the client's write() system calls per posted work request, per
driver the median over runs: syscw (/proc/PID/io, syscalls.py) over the WRs.
A latency run posts its #iterations (-n). A bandwidth run (-D) reports as
#iterations only the WRs completed in perftest's measured window, the
duration less a margin at each end (duration/4 by default), while it posts
through the whole duration; its WRs are taken as #iterations *
duration / (duration - 2 * margin), the scaling perftest's own
bytes_validated uses. syscw also counts the client's set-up and tear-down, a
few dozen writes (more with 8 QPs): negligible against the thousands of WRs of
a run, it is not subtracted. So the stock provider shows about 1.00 (one
POST_SEND per WR) and the doorbell near 0 where the kernel watches the ring.

Goals (issue 53), flagged per point where they apply:
  - streams: rrxe-db makes at most 0.01 write() per WR (bandwidth points);
  - 64 B write and send bandwidth (1 QP): rrxe-db/rxe >= 2.0;
  - send and write latency at 2 B: rrxe-db/rxe <= 0.3;
  - no point worse than rrxe without the doorbell: the rrxe-db/rrxe verdict
    is not "rrxe" (fewer than 5 rounds cannot find it worse).
Ratios in the goals are those of the medians.

"poll" is the poller's CPU time (rrxe's db_poll_ns on both devices) over the
run's wall time, per driver the median over runs: 1.00 is one CPU busy
polling for the whole run. Runs that did not record it show "-".

Each run also records its user and kernel ticks per vCPU. The "mix" column
gives, per driver, the median over runs of how much the vCPUs mixed the two:
the sum over vCPUs of 2 * min(user, kernel), over all their busy ticks. 0
means every vCPU ran only user or only kernel work (the way a SEND stream,
with a polling process at each end, tends to run fastest: the driver's work
on one vCPU, the processes on the other), 1 that each ran as much of one as
of the other (Documentation/benchmarking.rst, "Which way a stream runs").

The plot needs matplotlib (the build root has it); without it only the PNG is
missing.
"""
import json
import math
import statistics
import sys

# The level at which a driver is called ahead.
ALPHA = 0.05
# The drivers in column order, and the comparisons made when both ran.
DRIVERS = ("rrxe-db", "rrxe-db2", "rrxe-db3", "rrxe", "rxe")
COMPARISONS = (("rrxe-db", "rxe"), ("rrxe", "rxe"), ("rrxe-db", "rrxe"),
               ("rrxe-db2", "rxe"), ("rrxe-db2", "rrxe-db"),
               ("rrxe-db3", "rxe"), ("rrxe-db3", "rrxe-db"))
# Goals (issue 53).
GOAL_WPW = 0.01      # rrxe-db's write() per WR in a stream, at most
GOAL_BW = 2.0        # rrxe-db/rxe, 64 B write and send bandwidth, at least
GOAL_LAT = 0.3       # rrxe-db/rxe, 2 B send and write latency, at most


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def drivers_of(runs):
    """The drivers that ran, known ones in column order, then any other."""
    seen = []
    for r in runs:
        if r["driver"] not in seen:
            seen.append(r["driver"])
    return [d for d in DRIVERS if d in seen] + [d for d in seen if d not in DRIVERS]


def comparisons_of(drivers):
    return [(a, b) for a, b in COMPARISONS if a in drivers and b in drivers]


def cname(a, b):
    return f"{a}/{b}"


def summarise(runs):
    drivers = drivers_of(runs)
    comps = comparisons_of(drivers)
    points = []
    keys = []
    for r in runs:
        k = (r["test"], r["size"], r["kind"], r.get("qps", 1))
        if k not in keys:
            keys.append(k)
    for test, size, kind, qps in keys:
        metric = "bw_mib_s" if kind == "bw" else "typical_us"
        p = {"test": test, "size": size, "kind": kind, "qps": qps, "metric": metric,
             "drivers": drivers}
        good_drv = {}
        for drv in drivers:
            mine = [r for r in runs
                    if (r["test"], r["size"], r.get("qps", 1), r["driver"]) == (test, size, qps, drv)]
            good = [r for r in mine if r.get("ok")]
            p[drv + "_runs"] = len(mine)
            p[drv + "_failed"] = len(mine) - len(good)
            good_drv[drv] = bool(good) and len(good) == len(mine)
            p[drv] = statistics.median(r[metric] for r in good) if good else None
            # perftest can finish "successfully" having moved nothing (rdma_rxe's
            # send_bw under TCG does): kept in the median, and said.
            p[drv + "_zero"] = sum(1 for r in good if r[metric] == 0)
            mixes = [x for x in map(mix, good) if x is not None]
            p[drv + "_mix"] = round(statistics.median(mixes), 2) if mixes else None
            polls = [x for x in map(poll_share, good) if x is not None]
            p[drv + "_poll"] = round(statistics.median(polls), 3) if polls else None
            wpws = [x for x in map(writes_per_wr, good) if x is not None]
            p[drv + "_wpw"] = round(statistics.median(wpws), 4) if wpws else None
            # Whether the runs counted write() at all (older files did not).
            p[drv + "_counted"] = any("syscw" in r for r in mine)
        p["ok"] = all(good_drv.values())
        p["comparisons"] = {}
        for a, b in comps:
            c = compare(runs, p, a, b, good_drv[a] and good_drv[b])
            p["comparisons"][cname(a, b)] = c
            if (a, b) == ("rrxe", "rxe"):
                # The keys of the two-driver bench.json, kept for its readers.
                for k in ("ratio", "round_ratios", "p_ahead", "p_behind", "verdict"):
                    p[k] = c[k]
        p["goals"] = goals(p)
        points.append(p)
    return points


def compare(runs, p, a, b, ok):
    """A comparison a/b at point p: ratio of the medians, the rounds' ratios,
    the signed-rank p-values and the verdict."""
    c = {"a": a, "b": b, "ok": ok}
    c["ratio"] = round(p[a] / p[b], 3) if ok and p[b] else None
    ratios = paired_ratios(runs, p["test"], p["size"], p["qps"], p["metric"], a, b) if ok else []
    c["round_ratios"] = sorted(round(r, 3) for r in ratios)
    # Tested unrounded: rounding makes ties and zeros of its own.
    sign = 1 if p["kind"] == "bw" else -1
    advantage = [sign * math.log(r) for r in ratios if r > 0]
    c["p_ahead"], c["p_behind"] = signed_rank_p(advantage)
    c["verdict"] = verdict(c, a, b) if ok else "failed"
    return c


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


def verdict(c, a="rrxe", b="rxe"):
    """Which driver is ahead at ALPHA over the paired rounds, or "even"."""
    if c["p_ahead"] < ALPHA:
        return a
    if c["p_behind"] < ALPHA:
        return b
    return "even"


def mix(run):
    """How much a run's vCPUs mixed user and kernel work (0 to 1), or None."""
    pairs = list(zip(run.get("cpu_user") or [], run.get("cpu_kernel") or []))
    busy = sum(u + k for u, k in pairs)
    return sum(2 * min(u, k) for u, k in pairs) / busy if busy > 0 else None


def poll_share(run):
    """The poller's CPU time over the run's wall time, or None."""
    ns, wall = run.get("poll_ns"), run.get("wall_ns")
    if ns is None or not wall:
        return None
    return ns / wall


def writes_per_wr(run):
    """The client's write() calls per posted WR in a run, or None (module
    doc string: a bandwidth run's #iterations cover only perftest's measured
    window and are scaled to the whole duration)."""
    syscw, iters = run.get("syscw"), run.get("iters")
    if syscw is None or not iters:
        return None
    wrs = iters
    secs, margin = run.get("secs"), run.get("margin_s") or 0
    if run.get("kind") == "bw" and secs and secs > 2 * margin:
        wrs = iters * secs / (secs - 2 * margin)
    return syscw / wrs


def paired_ratios(runs, test, size, qps, metric, a="rrxe", b="rxe"):
    """a/b of each round in which both drivers ran the point."""
    by_round = {}
    for r in runs:
        if (r["test"], r["size"], r.get("qps", 1)) == (test, size, qps) and r.get("ok"):
            by_round.setdefault(r.get("round"), {})[r["driver"]] = r[metric]
    return [d[a] / d[b] for d in by_round.values() if d.get(b) and a in d]


def goals(p):
    """The issue's goals that apply at point p: a list of {"goal", "value",
    "met"}; "met" is None when the point cannot tell (a failed run, or a
    write() count that could not be read)."""
    out = []
    drivers = p["drivers"]
    comps = p["comparisons"]
    if "rrxe-db" in drivers and p["kind"] == "bw" and p.get("rrxe-db_counted"):
        v = p.get("rrxe-db_wpw")
        out.append({"goal": f"rrxe-db w/WR <= {GOAL_WPW}", "value": v,
                    "met": None if v is None else v <= GOAL_WPW})
    c = comps.get("rrxe-db/rxe")
    if c is not None and p["size"] == 64 and p["qps"] == 1 and p["test"] in ("ib_write_bw", "ib_send_bw"):
        v = c["ratio"]
        out.append({"goal": f"rrxe-db/rxe >= {GOAL_BW}", "value": v,
                    "met": None if v is None else v >= GOAL_BW})
    if c is not None and p["size"] == 2 and p["test"] in ("ib_send_lat", "ib_write_lat"):
        v = c["ratio"]
        out.append({"goal": f"rrxe-db/rxe <= {GOAL_LAT}", "value": v,
                    "met": None if v is None else v <= GOAL_LAT})
    c = comps.get("rrxe-db/rrxe")
    if c is not None:
        out.append({"goal": "rrxe-db not behind rrxe", "value": c["verdict"],
                    "met": None if c["verdict"] == "failed" else c["verdict"] != "rrxe"})
    return out


def label(p):
    size = p["size"]
    s = f"{size // 1024}K" if size >= 1024 else f"{size}B"
    qps = p.get("qps", 1)
    return f"{p['test'].replace('ib_', '')} {s}" + (f" x{qps} QPs" if qps > 1 else "")


def goal_text(g):
    met = {True: "met", False: "MISSED", None: "unknown"}[g["met"]]
    v = g["value"]
    shown = f"{v:.3f}" if isinstance(v, float) else str(v)
    return f"{g['goal']}: {met} ({shown})"


def table(points):
    """Two tables: the medians, w/WR and mix per driver; then each
    comparison's ratio, range of the rounds, p and verdict. Goal flags follow
    the line they are about."""
    if not points:
        return ""
    drivers = points[0].get("drivers") or ["rrxe", "rxe"]
    fmt = lambda v: "failed" if v is None else f"{v:.2f}"
    slash = "/".join(drivers)
    w = max(11, len(drivers) * 6)
    # w/WR only where runs recorded syscw (not in older files).
    has_wpw = any(p.get(d + "_wpw") is not None for p in points for d in drivers)
    # The poller's CPU only for the pollers' drivers, where runs recorded it.
    polled = [d for d in drivers if d.startswith("rrxe-db") and d != "rrxe-db"
              and any(p.get(d + "_poll") is not None for p in points)]
    pslash = "/".join(polled)
    lines = [(f"{'point':<24} {'unit':<6}" + "".join(f" {d:>10}" for d in drivers)
              + (f"  {'w/WR ' + slash:<{w}}" if has_wpw else "")
              + (f"  {'poll ' + pslash:<{max(11, len(pslash) + 5)}}" if polled else "")
              + f"  {'mix ' + slash:<{w}}  notes").rstrip()]
    for p in points:
        unit = "MiB/s" if p["kind"] == "bw" else "us"
        wpw = "/".join("-" if p.get(d + "_wpw") is None else f"{p[d + '_wpw']:.3f}" for d in drivers)
        mixes = "/".join("-" if p.get(d + "_mix") is None else f"{p[d + '_mix']:.2f}" for d in drivers)
        polls = "/".join("-" if p.get(d + "_poll") is None else f"{p[d + '_poll']:.2f}" for d in polled)
        notes = [f"{d}: {p[d + '_zero']}/{p[d + '_runs']} runs moved nothing"
                 for d in drivers if p.get(d + "_zero")]
        flags = [goal_text(g) for g in p.get("goals", []) if g["goal"].startswith("rrxe-db w/WR")]
        tail = "; ".join(flags + notes)
        lines.append((f"{label(p):<24} {unit:<6}" + "".join(f" {fmt(p.get(d)):>10}" for d in drivers)
                      + (f"  {wpw:<{w}}" if has_wpw else "")
                      + (f"  {polls:<{max(11, len(pslash) + 5)}}" if polled else "")
                      + f"  {mixes:<{w}}  {tail}").rstrip())
    lines.append("")
    lines.append(f"{'point':<24} {'ratio':<13} {'value':>6} {'rounds':>11} {'p':>6}  {'ahead':<8} goal")
    for p in points:
        first = True
        for name, c in p.get("comparisons", {}).items():
            rr = c.get("round_ratios") or []
            spread = f"{rr[0]:.2f}-{rr[-1]:.2f}" if rr else "-"
            if c["ratio"] is None:
                ratio, pval = "-", "-"
            else:
                ratio = f"{c['ratio']:.2f}"
                # The p-value of the side the median favours.
                ahead = c["ratio"] >= 1 if p["kind"] == "bw" else c["ratio"] <= 1
                pval = f"{c['p_ahead'] if ahead else c['p_behind']:.3f}"
            flags = [goal_text(g) for g in p.get("goals", [])
                     if g["goal"].startswith(name + " ") or
                     (name == "rrxe-db/rrxe" and g["goal"] == "rrxe-db not behind rrxe")]
            lines.append(f"{label(p) if first else '':<24} {name:<13} {ratio:>6} {spread:>11} {pval:>6}  "
                         f"{c['verdict']:<8} {'; '.join(flags)}".rstrip())
            first = False
    summary = goal_summary(points)
    if summary:
        lines.append("")
        lines.append(summary)
    return "\n".join(lines)


def goal_summary(points):
    """One line: how many goal flags were met, missed or unknown."""
    flags = [g for p in points for g in p.get("goals", [])]
    if not flags:
        return ""
    met = sum(1 for g in flags if g["met"] is True)
    missed = [f"{label(p)}: {g['goal']}" for p in points for g in p.get("goals", []) if g["met"] is False]
    unknown = sum(1 for g in flags if g["met"] is None)
    s = f"goals: {met} of {len(flags)} met"
    if unknown:
        s += f", {unknown} unknown"
    if missed:
        s += "; missed: " + ", ".join(missed)
    return s


COLOURS = {"rrxe-db": "tab:red", "rrxe-db2": "tab:purple", "rrxe-db3": "tab:brown",
           "rrxe": "tab:orange", "rxe": "tab:blue"}


def plot(points, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib is missing, no plot", file=sys.stderr)
        return False
    drivers = points[0].get("drivers") or ["rrxe", "rxe"]
    # The bars' labels: the ratios against rdma_rxe (rrxe-db's first), and
    # rrxe-db/rrxe.
    shown = [n for n in ("rrxe-db/rxe", "rrxe/rxe", "rrxe-db/rrxe", "rrxe-db2/rxe", "rrxe-db3/rxe")
             if n in points[0].get("comparisons", {})]
    bw = [p for p in points if p["kind"] == "bw"]
    lat = [p for p in points if p["kind"] == "lat"]
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / len(drivers)
    for ax, ps, ylabel in ((axes[0], bw, "bandwidth, MiB/s (log)"), (axes[1], lat, "latency, µs (typical)")):
        xs = range(len(ps))
        for i, drv in enumerate(drivers):
            off = (i - (len(drivers) - 1) / 2) * width
            ax.bar([x + off for x in xs], [p.get(drv) or 0 for p in ps], width, label=drv,
                   color=COLOURS.get(drv))
        for x, p in zip(xs, ps):
            top = max(p.get(d) or 0 for d in drivers)
            cs = p.get("comparisons", {})
            text = "\n".join("failed" if cs[n]["ratio"] is None else f"×{cs[n]['ratio']:.2f}" for n in shown)
            ax.annotate(text, (x, top), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([label(p) for p in ps], rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        if ps is bw:
            ax.set_yscale("log")
        # Room above the bars for the labels.
        highest = max([p.get(d) or 0 for p in ps for d in drivers] or [0])
        if highest > 0:
            ax.set_ylim(top=highest * (1.2 + 0.25 * len(shown) if ps is bw else 1 + 0.08 * len(shown)))
    # One legend for both axes, under the title, clear of the bars.
    handles, names = axes[0 if bw else 1].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0.95), ncol=len(drivers), fontsize=8)
    fig.suptitle(title + "  (labels, top down: " + ", ".join(shown) + ")")
    fig.tight_layout(rect=(0, 0, 1, 0.9))
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
        json.dump({"meta": meta, "drivers": drivers_of(runs), "points": points, "runs": runs}, f, indent=1)
    print(table(points))
    title = ("rrxe (doorbell/stock provider) vs rdma_rxe, perftest, " + meta.get("flavour", "?")
             + " kernel under " + meta.get("accel", "?"))
    plot(points, f"{outdir}/bench.png", title)
    return 0 if all(p["ok"] for p in points) else 1


if __name__ == "__main__":
    sys.exit(main())
