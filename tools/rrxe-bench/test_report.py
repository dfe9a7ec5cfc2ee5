#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of report.py's verdict: the exact signed-rank test and which
driver a point calls ahead; the three drivers' pairing, verdicts, write() per
WR and goal flags; old two-driver files; bench-guest.sh's driver order. Run by
scripts/test (stage 1)."""
import contextlib
import io
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def brute_force(diffs):
    """signed_rank_p by enumerating every sign assignment, for checking."""
    d = [x for x in diffs if x != 0]
    if not d:
        return 1.0, 1.0
    mags = sorted(abs(x) for x in d)

    def rank(m):
        first = mags.index(m) + 1
        last = len(mags) - mags[::-1].index(m)
        return (first + last) / 2

    ranks = [rank(abs(x)) for x in d]
    w = sum(r for r, x in zip(ranks, d) if x > 0)
    sums = [sum(r for r, s in zip(ranks, signs) if s)
            for signs in itertools.product((False, True), repeat=len(d))]
    return (sum(1 for s in sums if s >= w) / len(sums),
            sum(1 for s in sums if s <= w) / len(sums))


def runs_of(kind, pairs):
    """bench.jsonl records of one point: pairs of (rrxe, rxe) values, a round each."""
    test, metric = ("ib_write_bw", "bw_mib_s") if kind == "bw" else ("ib_write_lat", "typical_us")
    out = []
    for rnd, values in enumerate(pairs, 1):
        for drv, v in zip(("rrxe", "rxe"), values):
            out.append({"driver": drv, "test": test, "size": 4096, "qps": 1, "kind": kind,
                        "round": rnd, "ok": True, metric: v})
    return out


class SignedRank(unittest.TestCase):
    def test_all_rounds_one_way_give_one_over_two_to_the_n(self):
        self.assertEqual(report.signed_rank_p([0.1, 0.2, 0.3, 0.4, 0.5]), (1 / 32, 1.0))
        self.assertEqual(report.signed_rank_p([-0.1, -0.2, -0.3, -0.4, -0.5]), (1.0, 1 / 32))

    def test_small_case_by_hand(self):
        # Ranks 1, 2, 3; W+ = 1 + 3 = 4. Over the 8 sign assignments W+ is
        # 0, 1, 2, 3, 3, 4, 5, 6: 3 are >= 4 and 6 are <= 4.
        self.assertEqual(report.signed_rank_p([1, -2, 3]), (3 / 8, 6 / 8))

    def test_tied_magnitudes_share_their_mean_rank(self):
        # Each rank is 2; W+ is 2 per positive: 0, 2, 4, 6 with 1, 3, 3, 1 ways.
        self.assertEqual(report.signed_rank_p([1, 1, -1]), (4 / 8, 7 / 8))

    def test_zero_differences_are_dropped(self):
        self.assertEqual(report.signed_rank_p([0.0, 0.3]), (0.5, 1.0))
        self.assertEqual(report.signed_rank_p([0.0, 0.0]), (1.0, 1.0))
        self.assertEqual(report.signed_rank_p([]), (1.0, 1.0))

    def test_matches_enumeration(self):
        rng = random.Random(4791)
        for _ in range(200):
            n = rng.randint(1, 9)
            # Few distinct magnitudes, so that ties and zeros come up.
            diffs = [rng.choice((-1, 1)) * rng.choice((0, 1, 2, 3, 5)) for _ in range(n)]
            got = report.signed_rank_p(diffs)
            want = brute_force(diffs)
            self.assertAlmostEqual(got[0], want[0], msg=diffs)
            self.assertAlmostEqual(got[1], want[1], msg=diffs)


class Verdict(unittest.TestCase):
    def point(self, kind, pairs):
        (p,) = report.summarise(runs_of(kind, pairs))
        return p

    def test_bandwidth_ahead_in_five_rounds(self):
        p = self.point("bw", [(11, 10), (12, 10), (10.5, 10), (13, 10), (10.1, 10)])
        self.assertEqual(p["verdict"], "rrxe")
        self.assertAlmostEqual(p["p_ahead"], 1 / 32)

    def test_bandwidth_behind_in_five_rounds(self):
        p = self.point("bw", [(9, 10), (8, 10), (9.5, 10), (7, 10), (9.9, 10)])
        self.assertEqual(p["verdict"], "rxe")

    def test_latency_lower_is_ahead(self):
        p = self.point("lat", [(20, 30), (25, 30), (21, 30), (29, 30), (10, 30)])
        self.assertEqual(p["verdict"], "rrxe")
        p = self.point("lat", [(40, 30), (35, 30), (31, 30), (60, 30), (33, 30)])
        self.assertEqual(p["verdict"], "rxe")

    def test_three_rounds_never_decide(self):
        p = self.point("bw", [(20, 10), (30, 10), (40, 10)])
        self.assertEqual(p["verdict"], "even")
        self.assertEqual(p["p_ahead"], 1 / 8)

    def test_rounds_that_disagree_are_even(self):
        p = self.point("bw", [(11, 10), (9, 10), (12, 10), (8, 10), (10.5, 10), (9.5, 10)])
        self.assertEqual(p["verdict"], "even")

    def test_a_failed_run_fails_the_point(self):
        runs = runs_of("bw", [(11, 10)] * 5)
        runs[3]["ok"] = False
        (p,) = report.summarise(runs)
        self.assertEqual(p["verdict"], "failed")
        self.assertIsNone(p["ratio"])
        self.assertIn("failed", report.table([p]))


THREE = ("rrxe-db", "rrxe", "rxe")


def runs3(kind, rows, test=None, size=None, qps=1, drivers=THREE):
    """bench.jsonl records of one point with the drivers in DRIVERS: rows of
    values in that order, a round each (None: that driver did not run)."""
    metric = "bw_mib_s" if kind == "bw" else "typical_us"
    test = test or ("ib_write_bw" if kind == "bw" else "ib_send_lat")
    size = size or (64 if kind == "bw" else 2)
    out = []
    for rnd, values in enumerate(rows, 1):
        for slot, (drv, v) in enumerate(zip(drivers, values)):
            if v is None:
                continue
            out.append({"driver": drv, "test": test, "size": size, "qps": qps, "kind": kind,
                        "round": rnd, "ok": True, metric: v, "slot": slot})
    return out


# Six rounds in which rrxe-db is well ahead of rdma_rxe (2.2x the bandwidth,
# 0.25x the latency) and of rrxe (1.72x, 0.4x).
BW_AHEAD = [(22, 13, 10), (23, 14, 10.5), (21, 12, 9.8), (22.5, 12.5, 10.2), (24, 13.5, 11), (21.5, 12.2, 9.9)]
LAT_AHEAD = [(7, 12, 30), (7.5, 11, 31), (8, 12.5, 29), (7.2, 11.8, 30.5), (6.9, 12.2, 28), (7.4, 11.5, 30)]


class ThreeDrivers(unittest.TestCase):
    def point(self, runs):
        (p,) = report.summarise(runs)
        return p

    def test_every_comparison_is_made(self):
        p = self.point(runs3("bw", BW_AHEAD))
        self.assertEqual(p["drivers"], list(THREE))
        self.assertEqual(list(p["comparisons"]), ["rrxe-db/rxe", "rrxe/rxe", "rrxe-db/rrxe"])
        self.assertEqual(p["rrxe-db"], 22.25)
        self.assertAlmostEqual(p["comparisons"]["rrxe-db/rxe"]["ratio"], round(22.25 / 10.1, 3))
        self.assertAlmostEqual(p["comparisons"]["rrxe-db/rrxe"]["ratio"], round(22.25 / 12.75, 3))
        self.assertTrue(p["ok"])

    def test_rounds_are_paired_by_round_not_by_position(self):
        runs = runs3("bw", [(30, 20, 10), (60, 30, 20), (12, 6, 4)])
        random.Random(7).shuffle(runs)
        p = self.point(runs)
        self.assertEqual(p["comparisons"]["rrxe-db/rxe"]["round_ratios"], [3.0, 3.0, 3.0])
        self.assertEqual(p["comparisons"]["rrxe/rxe"]["round_ratios"], [1.5, 1.5, 2.0])
        self.assertEqual(p["comparisons"]["rrxe-db/rrxe"]["round_ratios"], [1.5, 2.0, 2.0])

    def test_a_round_missing_a_driver_pairs_only_the_others(self):
        p = self.point(runs3("bw", [(30, 20, 10), (40, None, 10), (12, 6, None)]))
        self.assertEqual(p["comparisons"]["rrxe-db/rxe"]["round_ratios"], [3.0, 4.0])
        self.assertEqual(p["comparisons"]["rrxe/rxe"]["round_ratios"], [2.0])
        self.assertEqual(p["comparisons"]["rrxe-db/rrxe"]["round_ratios"], [1.5, 2.0])

    def test_verdicts_name_the_driver_ahead(self):
        p = self.point(runs3("bw", BW_AHEAD))
        self.assertEqual({n: c["verdict"] for n, c in p["comparisons"].items()},
                         {"rrxe-db/rxe": "rrxe-db", "rrxe/rxe": "rrxe", "rrxe-db/rrxe": "rrxe-db"})
        self.assertAlmostEqual(p["comparisons"]["rrxe-db/rrxe"]["p_ahead"], 1 / 64)
        # The two-driver keys stay those of rrxe/rxe.
        self.assertEqual(p["verdict"], "rrxe")
        self.assertEqual(p["ratio"], p["comparisons"]["rrxe/rxe"]["ratio"])

    def test_latency_lower_is_ahead_in_each_comparison(self):
        p = self.point(runs3("lat", LAT_AHEAD))
        self.assertEqual({n: c["verdict"] for n, c in p["comparisons"].items()},
                         {"rrxe-db/rxe": "rrxe-db", "rrxe/rxe": "rrxe", "rrxe-db/rrxe": "rrxe-db"})
        # Reversed: the doorbell slower than stock, in every round.
        p = self.point(runs3("lat", [(b, a, c) for a, b, c in LAT_AHEAD]))
        self.assertEqual(p["comparisons"]["rrxe-db/rrxe"]["verdict"], "rrxe")
        self.assertEqual(p["comparisons"]["rrxe/rxe"]["verdict"], "rrxe")

    def test_a_failed_run_fails_only_its_drivers_comparisons(self):
        runs = runs3("bw", BW_AHEAD)
        bad = next(r for r in runs if r["driver"] == "rrxe-db" and r["round"] == 3)
        bad["ok"] = False
        del bad["bw_mib_s"]
        p = self.point(runs)
        self.assertFalse(p["ok"])
        self.assertEqual(p["rrxe-db_failed"], 1)
        self.assertEqual(p["comparisons"]["rrxe-db/rxe"]["verdict"], "failed")
        self.assertIsNone(p["comparisons"]["rrxe-db/rrxe"]["ratio"])
        self.assertEqual(p["comparisons"]["rrxe/rxe"]["verdict"], "rrxe")
        self.assertIn("failed", report.table([p]))

    def test_a_subset_compares_only_what_ran(self):
        runs = runs3("bw", [(a, b) for a, b, _ in BW_AHEAD], drivers=("rrxe-db", "rrxe"))
        p = self.point(runs)
        self.assertEqual(list(p["comparisons"]), ["rrxe-db/rrxe"])
        self.assertNotIn("verdict", p)
        self.assertIn("rrxe-db/rrxe", report.table([p]))


class Pollers(unittest.TestCase):
    DRV = ("rrxe-db", "rrxe-db2", "rrxe-db3", "rxe")

    def runs(self):
        runs = runs3("bw", [(22, 24, 30, 10)] * 6, drivers=self.DRV)
        for r in runs:
            if r["driver"] == "rrxe-db3":
                r["poll_ns"], r["wall_ns"] = 4_500_000_000, 5_000_000_000
            elif r["driver"] != "rxe":
                r["poll_ns"], r["wall_ns"] = 0, 5_000_000_000
        return runs

    def test_each_poller_is_compared_with_rxe_and_the_doorbell(self):
        (p,) = report.summarise(self.runs())
        self.assertEqual(p["drivers"], list(self.DRV))
        self.assertEqual(list(p["comparisons"]), ["rrxe-db/rxe", "rrxe-db2/rxe", "rrxe-db2/rrxe-db",
                                                  "rrxe-db3/rxe", "rrxe-db3/rrxe-db"])
        self.assertEqual(p["comparisons"]["rrxe-db3/rrxe-db"]["verdict"], "rrxe-db3")
        self.assertAlmostEqual(p["comparisons"]["rrxe-db2/rrxe-db"]["ratio"], round(24 / 22, 3))

    def test_poller_cpu_is_its_time_over_the_wall_time(self):
        (p,) = report.summarise(self.runs())
        self.assertEqual(p["rrxe-db3_poll"], 0.9)
        self.assertEqual(p["rrxe-db2_poll"], 0.0)
        self.assertIsNone(p["rxe_poll"])
        t = report.table([p])
        self.assertIn("poll rrxe-db2/rrxe-db3", t)
        self.assertIn("0.00/0.90", t)

    def test_no_poll_column_without_a_poller(self):
        (p,) = report.summarise(runs3("bw", BW_AHEAD))
        self.assertNotIn("poll ", report.table([p]))


class WritesPerWr(unittest.TestCase):
    def test_bandwidth_iterations_are_scaled_to_the_whole_run(self):
        # -D 4: perftest's margin is 1 s at each end; its #iterations cover 2 s.
        run = {"kind": "bw", "syscw": 20000, "iters": 10000, "secs": 4, "margin_s": 1}
        self.assertAlmostEqual(report.writes_per_wr(run), 1.0)
        run.update(secs=2, margin_s=0)
        self.assertAlmostEqual(report.writes_per_wr(run), 2.0)

    def test_latency_is_per_iteration(self):
        self.assertAlmostEqual(report.writes_per_wr({"kind": "lat", "syscw": 520, "iters": 500}), 1.04)

    def test_unknown_without_a_count(self):
        self.assertIsNone(report.writes_per_wr({"kind": "lat", "iters": 500}))
        self.assertIsNone(report.writes_per_wr({"kind": "lat", "syscw": None, "iters": 500}))
        self.assertIsNone(report.writes_per_wr({"kind": "bw", "syscw": 10, "iters": 0}))

    def test_median_per_driver(self):
        runs = runs3("bw", BW_AHEAD[:3])
        for r in runs:
            r.update(iters=1000, secs=4, margin_s=1,
                     syscw={"rrxe-db": 4, "rrxe": 2000, "rxe": 2010}[r["driver"]] + r["round"])
        (p,) = report.summarise(runs)
        self.assertAlmostEqual(p["rrxe-db_wpw"], 0.003)
        self.assertAlmostEqual(p["rrxe_wpw"], 1.001)
        self.assertIn("0.003/1.001/1.006", report.table([p]))


class Goals(unittest.TestCase):
    def goals(self, runs):
        (p,) = report.summarise(runs)
        return {g["goal"]: g["met"] for g in p["goals"]}

    def test_64b_write_and_send_bandwidth_twice_rxe(self):
        for test in ("ib_write_bw", "ib_send_bw"):
            g = self.goals(runs3("bw", BW_AHEAD, test=test))
            self.assertIs(g["rrxe-db/rxe >= 2.0"], True)
            g = self.goals(runs3("bw", [(19, b, c) for _, b, c in BW_AHEAD], test=test))
            self.assertIs(g["rrxe-db/rxe >= 2.0"], False)
        # Not at other points.
        for kw in ({"size": 4096}, {"test": "ib_read_bw"}, {"qps": 8}):
            self.assertNotIn("rrxe-db/rxe >= 2.0", self.goals(runs3("bw", BW_AHEAD, **kw)))

    def test_2b_send_and_write_latency_a_third_of_rxe(self):
        for test in ("ib_send_lat", "ib_write_lat"):
            g = self.goals(runs3("lat", LAT_AHEAD, test=test))
            self.assertIs(g["rrxe-db/rxe <= 0.3"], True)
            g = self.goals(runs3("lat", [(10, b, c) for _, b, c in LAT_AHEAD], test=test))
            self.assertIs(g["rrxe-db/rxe <= 0.3"], False)
        self.assertNotIn("rrxe-db/rxe <= 0.3", self.goals(runs3("lat", LAT_AHEAD, test="ib_read_lat")))

    def test_not_behind_rrxe(self):
        self.assertIs(self.goals(runs3("bw", BW_AHEAD))["rrxe-db not behind rrxe"], True)
        even = [(12, 12.5, 10), (13, 12.5, 10), (12.4, 12.5, 10), (12.6, 12.5, 10), (12, 12.1, 10)]
        self.assertIs(self.goals(runs3("bw", even))["rrxe-db not behind rrxe"], True)
        behind = [(b, a, c) for a, b, c in BW_AHEAD]
        self.assertIs(self.goals(runs3("bw", behind))["rrxe-db not behind rrxe"], False)
        # Three rounds cannot find it behind.
        self.assertIs(self.goals(runs3("bw", behind[:3]))["rrxe-db not behind rrxe"], True)

    def test_a_failed_run_leaves_a_goal_unknown(self):
        runs = runs3("bw", BW_AHEAD)
        runs[0]["ok"] = False
        g = self.goals(runs)
        self.assertIsNone(g["rrxe-db/rxe >= 2.0"])
        self.assertIsNone(g["rrxe-db not behind rrxe"])

    def test_streams_write_per_wr(self):
        runs = runs3("bw", BW_AHEAD, size=4096)
        for r in runs:
            r.update(iters=10000, secs=4, margin_s=1, syscw=30 if r["driver"] == "rrxe-db" else 20030)
        self.assertIs(self.goals(runs)["rrxe-db w/WR <= 0.01"], True)
        for r in runs:
            r["syscw"] = 2000
        self.assertIs(self.goals(runs)["rrxe-db w/WR <= 0.01"], False)
        # Counted, but syscalls.py could not read the count: unknown.
        for r in runs:
            r["syscw"] = None
        self.assertIsNone(self.goals(runs)["rrxe-db w/WR <= 0.01"])
        # Not counted at all (a file from before the doorbell): no such goal.
        for r in runs:
            del r["syscw"]
        self.assertNotIn("rrxe-db w/WR <= 0.01", self.goals(runs))
        # Ping-pongs ring each post, as designed: no such goal.
        self.assertNotIn("rrxe-db w/WR <= 0.01", self.goals(runs3("lat", LAT_AHEAD)))

    def test_the_table_flags_them(self):
        points = report.summarise(runs3("bw", [(19, b, c) for _, b, c in BW_AHEAD]) + runs3("lat", LAT_AHEAD))
        text = report.table(points)
        self.assertIn("rrxe-db/rxe >= 2.0: MISSED (1.881)", text)
        self.assertIn("rrxe-db/rxe <= 0.3: met", text)
        self.assertIn("rrxe-db not behind rrxe: met", text)
        self.assertIn("goals: 3 of 4 met; missed: write_bw 64B: rrxe-db/rxe >= 2.0", text)


class OldFiles(unittest.TestCase):
    def test_two_drivers_give_rrxe_over_rxe_only(self):
        runs = runs_of("bw", [(11, 10), (12, 10), (10.5, 10), (13, 10), (10.1, 10)])
        (p,) = report.summarise(runs)
        self.assertEqual(p["drivers"], ["rrxe", "rxe"])
        self.assertEqual(list(p["comparisons"]), ["rrxe/rxe"])
        self.assertEqual(p["goals"], [])
        self.assertEqual(p["verdict"], "rrxe")
        self.assertIsNone(p["rrxe_wpw"])
        text = report.table([p])
        self.assertNotIn("rrxe-db", text)
        self.assertNotIn("w/WR", text)
        self.assertNotIn("goals:", text)

    def test_main_writes_bench_json(self):
        runs = runs3("bw", BW_AHEAD) + runs3("lat", LAT_AHEAD)
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/bench.jsonl", "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in runs)
            argv, sys.argv = sys.argv, ["report.py", f"{d}/bench.jsonl", d, "flavour=perf"]
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                    rc = report.main()
            finally:
                sys.argv = argv
            self.assertEqual(rc, 0)
            with open(f"{d}/bench.json") as f:
                doc = json.load(f)
        self.assertEqual(doc["drivers"], list(THREE))
        self.assertEqual(doc["meta"], {"flavour": "perf"})
        self.assertEqual(len(doc["points"]), 2)
        self.assertIn("rrxe-db/rrxe", out.getvalue())


class DriverOrder(unittest.TestCase):
    """bench-guest.sh's order_of, run by bash on its own."""

    def orders(self, drivers, rounds):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-guest.sh")
        with open(script) as f:
            text = f.read()
        start = text.index("order_of() {")
        func = text[start:text.index("\n}\n", start) + 3]
        prog = func + 'for r in $(seq %d); do order_of $r; done' % rounds
        out = subprocess.run(["bash", "-c", 'read -r -a drivers <<<"$1"; ' + prog, "-", drivers],
                             capture_output=True, text=True, check=True).stdout
        return [tuple(line.split()) for line in out.splitlines()]

    def test_three_drivers_take_all_six_orders_in_six_rounds(self):
        orders = self.orders("rrxe-db rrxe rxe", 6)
        self.assertEqual(sorted(orders), sorted(itertools.permutations(THREE)))
        self.assertEqual(orders[0], THREE)

    def test_two_drivers_alternate(self):
        self.assertEqual(self.orders("rrxe rxe", 4), [("rrxe", "rxe"), ("rxe", "rrxe")] * 2)

    def test_one_driver(self):
        self.assertEqual(self.orders("rrxe-db", 2), [("rrxe-db",)] * 2)


if __name__ == "__main__":
    unittest.main()
