"""Three simple agents against EASY in the closed loop, in sitesim's Gymnasium environment.

Each agent schedules resampled populations of a log's users (the same populations for
every agent: an episode's seed draws its population, common random numbers), with EASY's
backfilling around the job it reserves. The agents:

- ``first``: always the first waiting job; with backfilling this is EASY itself;
- ``random``: a waiting job at random;
- ``shortest``: the shortest plan among the jobs that fit now, else the shortest.

It prints each agent's throughput (jobs per week) and mean wait with 95% confidence
intervals, and its paired difference from ``first`` (EASY) over the same populations:

    python examples/python/evaluate_gym.py ../shared/workloads/KTH-SP2-1996-2.swf
"""

from __future__ import annotations

import argparse
import math
import statistics

import numpy as np

from sitesim.gym import ClosedLoopEnv

# Student's t quantiles (0.975) by degrees of freedom, for 95% intervals.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def ci95(values):
    """Mean and the half-width of its 95% confidence interval."""
    n = len(values)
    if n < 2:
        return statistics.fmean(values), math.nan
    df = max(d for d in T975 if d <= n - 1)
    t = T975[df] if n - 1 <= 30 else 1.96
    return statistics.fmean(values), t * statistics.stdev(values) / math.sqrt(n)


def first(obs, mask, rng, window):
    return 0


def random_job(obs, mask, rng, window):
    return int(rng.choice(np.flatnonzero(mask)))


def shortest(obs, mask, rng, window):
    slots = obs[3:].reshape(window, 6)
    present = np.flatnonzero(mask)
    fits = [i for i in present if slots[i, 4] > 0]
    pool = fits or list(present)
    return int(min(pool, key=lambda i: slots[i, 2]))


AGENTS = {"first (EASY)": first, "random": random_job, "shortest": shortest}


def evaluate(log, episodes, weeks, population, window=16):
    results = {}
    for name, agent in AGENTS.items():
        env = ClosedLoopEnv(log, "resample", window=window, weeks=weeks, population=population)
        rng = np.random.default_rng(0)
        runs = []
        for seed in range(1, episodes + 1):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, reward, done, _, info = env.step(agent(obs, info["action_mask"], rng, window))
            replication = info["summary"]["replications"][0]
            runs.append((replication["jobs_per_week"], replication["mean_wait"] / 3600))
        env.close()
        results[name] = runs
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log")
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--weeks", type=float, default=8)
    parser.add_argument("--population", type=float, default=1.0)
    a = parser.parse_args()
    results = evaluate(a.log, a.episodes, a.weeks, a.population)
    base = results["first (EASY)"]
    print(f"{a.episodes} populations of {a.population}x the log's users, {a.weeks:g} weeks each; "
          "± is the half-width of the 95% confidence interval")
    print(f"{'agent':14} {'jobs/week':>18} {'vs EASY':>16} {'mean wait (h)':>16}")
    for name, runs in results.items():
        jobs, jobs_ci = ci95([r[0] for r in runs])
        diff, diff_ci = ci95([r[0] - b[0] for r, b in zip(runs, base)])
        wait, wait_ci = ci95([r[1] for r in runs])
        print(f"{name:14} {jobs:9.1f} ± {jobs_ci:6.1f} {diff:+7.1f} ± {diff_ci:6.1f} "
              f"{wait:8.2f} ± {wait_ci:5.2f}")


if __name__ == "__main__":
    main()
