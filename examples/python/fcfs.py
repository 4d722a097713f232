"""First come, first served in Python: it gives the built-in FCFS's schedule job for job.

    python examples/python/fcfs.py LOG.swf
"""

import sys

import sitesim


class Fcfs(sitesim.Scheduler):
    """Start waiting jobs in submission order while the first fits."""

    name = "fcfs"

    def schedule(self, view):
        free, starts = view.free, []
        for job in view.queue:
            if job.size > free:
                break
            starts.append(job)
            free -= job.size
        return starts


if __name__ == "__main__":
    result = sitesim.replay(sys.argv[1], Fcfs())
    jobs = result.summary["metrics"]["jobs"]
    print(f"{result.summary['scheduler']}: {jobs['jobs']} jobs, mean wait {jobs['wait']['mean']:.1f} s")
