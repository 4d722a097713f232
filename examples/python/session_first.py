"""A user-aware scheduler in Python, in the closed loop against EASY: EASY's backfilling
in an order that puts first the jobs of users in a session (their latest job ended less
than 20 minutes ago), so that people waiting at their screens get their next result
sooner.

    python examples/python/session_first.py LOG.swf
"""

import sys

import sitesim


class SessionFirst(sitesim.Scheduler):
    """EASY, with the jobs of users in a session (a job ended < 20 min ago) first."""

    def __init__(self):
        self.ended = {}

    def on_end(self, job, now):
        self.ended[job.user] = now

    def schedule(self, view):
        def away(job):
            return view.now - self.ended.get(job.user, -1e9) > 20 * 60

        return view.easy(sorted(view.queue, key=away))


def compare(log, replications=10, weeks=8, population=1.0):
    """Each policy's resampled runs: the scheduler's label and its statistics."""
    return {
        policy if isinstance(policy, str) else "session-first": sitesim.resample(
            log, policy, replications=replications, weeks=weeks, users=population
        ).stats
        for policy in ("easy", SessionFirst())
    }


if __name__ == "__main__":
    for name, stats in compare(sys.argv[1], population=1.5).items():
        jobs, wait = stats.loc["jobs_per_week"], stats.loc["mean_wait"]
        print(f"{name:14} {jobs['mean']:7.1f} ± {jobs['ci95']:5.1f} jobs/week   "
              f"mean wait {wait['mean'] / 3600:5.2f} ± {wait['ci95'] / 3600:4.2f} h (95% CI)")
