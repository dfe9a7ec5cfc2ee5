#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of report.py's verdict: the exact signed-rank test and which
driver a point calls ahead. Run by scripts/test (stage 1)."""
import itertools
import os
import random
import sys
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


if __name__ == "__main__":
    unittest.main()
