"""Python schedulers at saturation: KTH with its interarrival times scaled so that about a
thousand jobs wait, under the built-in EASY and SJF-backfill and under the same policies
written in Python, three ways: the whole pass in Python (`examples/python/easy.py`), a
sort in Python and the pass by the view's helper (`view.easy(order)`), and the helper on
the queue as the simulation holds it (`view.easy()`, which reads no `Job` it does not
start). Prints the mean queue, the CPU time of each run (median of `--runs`) and its
ratio to the built-in policy.

    .venv/bin/python python/benches/saturated_scheduler.py ../shared/workloads/KTH-SP2-1996-2.swf
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import sitesim

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
from easy import Easy  # noqa: E402


class HelperEasy(sitesim.Scheduler):
    """EASY by the view's helper, over the queue as the simulation holds it."""

    name = "helper-easy"

    def schedule(self, view):
        return view.easy()


class SjfBackfill(sitesim.Scheduler):
    """Shortest plan first, with EASY's backfilling: a sort in Python, the pass by the
    helper."""

    name = "sjf-backfill"

    def schedule(self, view):
        return view.easy(sorted(view.queue, key=lambda j: (j.plan, j.id)))


def cpu(log, policy, factor, runs):
    times = []
    for _ in range(runs):
        start = time.process_time()
        result = sitesim.replay(log, policy, interarrival_factor=factor)
        times.append(time.process_time() - start)
    return statistics.median(times), result


def mean_queue(result):
    """The time-average number of waiting jobs, from the jobs' waits over the run."""
    jobs = result.jobs
    span = (jobs["end"].max() - jobs["submit"].min()) or 1
    return jobs["wait"].sum() / span


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--factor", type=float, default=0.62)
    parser.add_argument("--runs", type=int, default=3)
    a = parser.parse_args()
    cases = [
        ("easy", "built-in EASY", None),
        (Easy(), "EASY, the pass in Python", "easy"),
        (HelperEasy(), "EASY, view.easy()", "easy"),
        ("sjbf", "built-in SJF-backfill", None),
        (SjfBackfill(), "SJF-backfill, sort in Python", "sjbf"),
    ]
    builtin = {}
    for policy, label, against in cases:
        took, result = cpu(a.log, policy, a.factor, a.runs)
        if against is None:
            builtin[policy] = took
            print(f"{label:30} {took:7.3f} s CPU (mean queue {mean_queue(result):.0f} jobs)")
        else:
            print(f"{label:30} {took:7.3f} s CPU, {took / builtin[against]:6.1f}x the built-in")
