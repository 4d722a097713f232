"""EASY backfilling written in Python on the view's helpers (Mu'alem and Feitelson 2001,
§2.2): it gives sitesim's built-in EASY's schedule job for job (python/tests/test_scheduler.py).

    python examples/python/easy.py LOG.swf
"""

import sys

import sitesim


class Easy(sitesim.Scheduler):
    """Start waiting jobs in order while they fit; reserve for the first that does not;
    backfill later jobs that end by its shadow time or use only the extra processors."""

    name = "easy"

    def schedule(self, view):
        queue, free, starts = view.queue, view.free, []
        i = 0
        while i < len(queue) and queue[i].size <= free:
            starts.append(queue[i])
            free -= queue[i].size
            i += 1
        if i == len(queue):
            return starts
        shadow, extra = view.shadow(queue[i], starts)
        for job in queue[i + 1:]:
            if free == 0:
                break
            if job.size > free:
                continue
            ends_in_time = view.now + job.plan <= shadow
            if not ends_in_time:
                if job.size > min(free, extra):
                    continue
                extra -= job.size
            free -= job.size
            starts.append(job)
        return starts


if __name__ == "__main__":
    result = sitesim.replay(sys.argv[1], Easy())
    jobs = result.summary["metrics"]["jobs"]
    print(f"{result.summary['scheduler']}: {jobs['jobs']} jobs, mean wait {jobs['wait']['mean']:.1f} s")
