"""The CPU an environment step costs, the two threads of its hand-off together (the
environment's and its simulation's), with cores to spare and with cores shared:

* one environment alone;
* one environment per core (as many processes as cores, unpinned);
* two environments pinned to one core.

Each environment steps through whole episodes of a log, the first job always picked,
for `--seconds`; the figure is its process's CPU time (every thread) over its steps,
the median over the environments of a case, and the wall time a step took.

    .venv/bin/python python/benches/env_cpu.py ../shared/workloads/KTH-SP2-1996-2.swf
"""

import argparse
import multiprocessing as mp
import os
import statistics
import time


def stepping(log, seconds, cores, out):
    if cores is not None:
        os.sched_setaffinity(0, cores)
    from sitesim.gym import ClosedLoopEnv

    env = ClosedLoopEnv(log, "replay")
    env.reset()
    steps = 0
    cpu, wall = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        _, _, terminated, truncated, _ = env.step(0)
        steps += 1
        if terminated or truncated:
            env.reset()
    out.put(((time.process_time() - cpu) / steps, (time.perf_counter() - wall) / steps))


def case(log, seconds, placements):
    out = mp.Queue()
    procs = [mp.Process(target=stepping, args=(log, seconds, p, out)) for p in placements]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return (statistics.median(r[0] for r in results) * 1e6,
            statistics.median(r[1] for r in results) * 1e6)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--seconds", type=float, default=5.0)
    a = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    cases = [
        ("one environment alone", [None]),
        (f"one environment per core ({len(cores)})", [None] * len(cores)),
        ("two environments on one core", [{cores[0]}, {cores[0]}]),
    ]
    for name, placements in cases:
        cpu, wall = case(a.log, a.seconds, placements)
        print(f"{name:38} {cpu:7.2f} us CPU a step, {wall:7.2f} us wall")
