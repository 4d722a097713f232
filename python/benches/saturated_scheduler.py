"""Python schedulers at saturation: KTH with its interarrival times scaled so that about a
thousand jobs wait (factor 0.57), under the built-in EASY and under EASY written in
Python two ways: the whole pass in Python (`examples/python/easy.py`), and the view's
helper on the queue as the simulation holds it (`view.easy()`, which makes no `Job` it
does not start). Prints the mean queue, the CPU time of each run (median of `--runs`) and its
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


def timed(log, policy, factor, runs):
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = sitesim.replay(log, policy, interarrival_factor=factor)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def mean_queue(result):
    """The time-average number of waiting jobs, from the jobs' waits over the run."""
    jobs = result.jobs
    span = (jobs["end"].max() - jobs["submit"].min()) or 1
    return jobs["wait"].sum() / span


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--factor", type=float, default=0.57)
    parser.add_argument("--runs", type=int, default=3)
    a = parser.parse_args()
    cases = [
        ("easy", "built-in EASY", None),
        (Easy(), "EASY, the pass in Python", "easy"),
        (HelperEasy(), "EASY, view.easy()", "easy"),
    ]
    builtin = {}
    for policy, label, against in cases:
        wall, cpu, result = timed(a.log, policy, a.factor, a.runs)
        line = f"{label:30} {wall:7.3f} s wall, {cpu:7.3f} s CPU"
        if against is None:
            builtin[policy] = wall
            print(f"{line} (mean queue {mean_queue(result):.0f} jobs)")
        else:
            print(f"{line}, {wall / builtin[against]:6.1f}x the built-in's wall")
