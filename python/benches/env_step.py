"""The cost of an environment step: sitesim's own (the episode's `advance`: the action
crossing to the simulation's thread, the simulation up to the next decision, the
observation crossing back) and the whole `ClosedLoopEnv.step` (with the reward, the numpy
arrays and the info dict), per step, over whole episodes of a log with the first job
always picked. Prints the median of five episodes of each.

    .venv/bin/python python/benches/env_step.py ../shared/workloads/KTH-SP2-1996-2.swf
"""

import statistics
import sys
import time

from sitesim import _sitesim
from sitesim.gym import ClosedLoopEnv


def own(log, mode):
    episode = _sitesim.Episode(mode, ["--swf", log], 16, True)
    step, steps = episode.advance(None), 0
    start = time.perf_counter()
    while not step[0]:
        step = episode.advance(0)
        steps += 1
    return (time.perf_counter() - start) / steps, steps


def whole(log, mode):
    env = ClosedLoopEnv(log, mode)
    env.reset()
    steps, done = 0, False
    start = time.perf_counter()
    while not done:
        done = env.step(0)[2]
        steps += 1
    return (time.perf_counter() - start) / steps, steps


if __name__ == "__main__":
    log = sys.argv[1]
    for mode in ("replay", "feedback"):
        for name, measure in (("sitesim's own", own), ("ClosedLoopEnv.step", whole)):
            runs = [measure(log, mode) for _ in range(5)]
            per_step = statistics.median(r[0] for r in runs) * 1e6
            print(f"{mode:9} {name:19} {per_step:6.2f} us a step ({runs[0][1]} steps)")
