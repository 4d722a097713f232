"""Schedulers written in Python: the same machine as the built-in policies (EASY and
FCFS in Python give the built-in schedules job for job on the three real logs), the
simulation's rules on what they return, their exceptions with tracebacks, and
determinism on any thread count."""

import sys
import traceback
import warnings
from pathlib import Path

import pandas.testing
import pytest

import sitesim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
sys.path.insert(0, str(EXAMPLES))

from easy import Easy  # noqa: E402
from fcfs import Fcfs  # noqa: E402


def same_run(python: sitesim.Result, builtin: sitesim.Result):
    """The two runs scheduled every job alike and agree on every figure."""
    pandas.testing.assert_frame_equal(python.jobs, builtin.jobs)
    a, b = dict(python.summary), dict(builtin.summary)
    assert a.pop("scheduler").startswith("py.")
    b.pop("scheduler")
    assert a == b


class EasyHelper(sitesim.Scheduler):
    """EASY as the view's own pass."""

    def schedule(self, view):
        return view.easy()


@pytest.mark.parametrize("scheduler, name", [(Easy, "easy"), (EasyHelper, "easy"),
                                             (Fcfs, "fcfs")])
def test_python_policies_give_the_builtin_schedules(real_log, scheduler, name):
    same_run(sitesim.replay(real_log, scheduler()),
             sitesim.replay(real_log, name, check=True))


def test_python_easy_in_the_closed_loop(kth):
    same_run(sitesim.feedback(kth, Easy()), sitesim.feedback(kth, "easy", check=True))


def test_python_replications_agree_on_any_thread_count(kth):
    runs = [sitesim.resample(kth, Easy(), replications=3, weeks=3, threads=1)]
    with pytest.warns(UserWarning, match="threads=2 ignored: a run with a Python scheduler"):
        runs.append(sitesim.resample(kth, Easy(), replications=3, weeks=3, threads=2))
    builtin = sitesim.resample(kth, "easy", replications=3, weeks=3, threads=2, check=True)
    pandas.testing.assert_frame_equal(runs[0].replications, runs[1].replications)
    pandas.testing.assert_frame_equal(runs[0].replications, builtin.replications)
    assert runs[0].summary["stats"] == builtin.summary["stats"]


def test_class_state_gives_the_same_results_on_every_run(kth):
    # State kept on the class is shared by every replication's copy; they run one after
    # another, so it is read in the same order on every run.
    class Counting(Easy):
        passes = 0

        def schedule(self, view):
            Counting.passes += 1
            # Every third pass starts one job only.
            return super().schedule(view)[: None if Counting.passes % 3 else 1]

    def run():
        Counting.passes = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sitesim.resample(kth, Counting(), replications=4, weeks=2, threads=2)

    first = run()
    for _ in range(2):
        pandas.testing.assert_frame_equal(first.replications, run().replications)


def with_python_easy(spec):
    """``spec`` with each "easy" in it replaced by EASY written in Python."""
    if spec == "easy":
        return Easy()
    if isinstance(spec, dict):
        return {k: with_python_easy(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [with_python_easy(v) for v in spec]
    return spec


@pytest.mark.parametrize("spec", [
    {"name": "pbas", "candidates": ["easy", "sjbf"]},
    {"name": "wbas", "high": "sjbf", "low": "easy"},
    {"name": "time-of-day", "day": "easy", "night": "sjbf"},
    {"name": "limits", "policy": "easy", "jobs": 4},
])
def test_python_candidates_of_adaptive_and_wrapping_policies(kth, spec):
    python = sitesim.replay(kth, with_python_easy(spec))
    builtin = sitesim.replay(kth, spec, check=True)
    pandas.testing.assert_frame_equal(python.jobs, builtin.jobs)
    assert '"py.easy"' in python.summary["scheduler"] or "=py.easy" in python.summary["scheduler"]


def test_hooks_see_every_submission_and_end(kth):
    class Counting(Fcfs):
        seen = {"submit": 0, "end": 0, "late": 0}

        def on_submit(self, job, now):
            Counting.seen["submit"] += 1
            Counting.seen["late"] += now != job.submit

        def on_end(self, job, now):
            Counting.seen["end"] += 1

    r = sitesim.replay(kth, Counting())
    assert Counting.seen == {"submit": r.summary["input"]["jobs"],
                             "end": r.summary["input"]["jobs"], "late": 0}


def test_the_instance_given_is_never_changed(kth):
    class Stateful(Fcfs):
        def __init__(self):
            self.passes = 0

        def schedule(self, view):
            self.passes += 1
            return super().schedule(view)

    s = Stateful()
    sitesim.replay(kth, s)
    assert s.passes == 0


class Oversize(sitesim.Scheduler):
    def schedule(self, view):
        return list(view.queue)


class Twice(sitesim.Scheduler):
    def schedule(self, view):
        return [view.queue[0].id, view.queue[0].id]


class Ghost(sitesim.Scheduler):
    def schedule(self, view):
        return [10**9]


class NotAJob(sitesim.Scheduler):
    def schedule(self, view):
        return ["first"]


class Never(sitesim.Scheduler):
    def schedule(self, view):
        return []


@pytest.mark.parametrize("scheduler, message", [
    (Oversize, "started job 3 of 80 processors with only 16 free"),
    (Twice, "started job 0 twice in one pass"),
    (Ghost, "started job 1000000000, which is not waiting"),
    (NotAJob, "schedule() returned first, which is not a Job or a job id"),
    (Never, "the run ended with jobs that were never started still waiting"),
])
def test_a_misbehaving_scheduler_gets_the_rule_it_broke(kth, scheduler, message):
    # The first 2000 jobs of KTH: enough for job 3 not to fit.
    log = sitesim.read_swf(kth).head(2000)
    with pytest.raises(sitesim.SitesimError) as e:
        sitesim.replay(log, scheduler())
    assert message in str(e.value)
    assert f"'py.{scheduler.__name__}'" in str(e.value)


def test_a_raising_callback_surfaces_with_its_traceback(kth):
    class Raises(Fcfs):
        def on_end(self, job, now):
            if now > 400_000:
                raise KeyError("no such user")

    with pytest.raises(KeyError) as e:
        sitesim.replay(kth, Raises())
    frames = [f.name for f in traceback.extract_tb(e.value.__traceback__)]
    assert frames[-1] == "on_end"
    assert isinstance(e.value.__cause__, sitesim.SitesimError)
    assert "its on_end() raised KeyError" in str(e.value.__cause__)


def test_the_view_and_its_helpers(kth):
    class Probe(Easy):
        views = []

        def schedule(self, view):
            if len(Probe.views) < 200 and view.running and len(view.queue) > 1:
                Probe.views.append((view, view.shadow(view.queue[0]),
                                    view.earliest_start(view.queue[0])))
            return super().schedule(view)

    sitesim.replay(kth, Probe())
    assert len(Probe.views) == 200
    for view, (shadow, extra), start in Probe.views:
        head = view.queue[0]
        assert start == shadow >= view.now
        ends = sorted(r.expected_end for r in view.running)
        assert all(r.expected_end > view.now for r in view.running)
        # The shadow time is the first end at which the head fits (or now).
        freed = view.free + sum(r.job.size for r in view.running if r.expected_end <= shadow)
        assert freed - head.size == extra >= 0
        if shadow > view.now:
            assert shadow in ends
        assert [j.id for j in view.queue] == sorted(j.id for j in view.queue)
    with pytest.raises(ValueError, match="only"):
        view.shadow(view.queue[0], starting=list(view.queue) * 100)


def test_scheduler_names_are_checked(kth):
    class Spaced(Fcfs):
        name = "has space"

    with pytest.raises(ValueError, match="a scheduler's name"):
        sitesim.replay(kth, Spaced())
    with pytest.raises(TypeError, match="a policy is"):
        sitesim.replay(kth, 42)


def test_a_scenario_takes_a_python_scheduler():
    settings = {"duration": "4w"}
    python = sitesim.run(replications=2, set={**settings, "scheduler.policy": Easy()})
    builtin = sitesim.run(replications=2, set={**settings, "scheduler.policy": "easy"})
    assert python.summary["scheduler"] == "py.easy"
    pandas.testing.assert_frame_equal(python.replications, builtin.replications)


def test_the_session_first_example_runs_checked_against_easy(kth):
    from session_first import SessionFirst, compare

    stats = compare(kth, replications=2, weeks=2)
    assert set(stats) == {"easy", "session-first"}
    assert (stats["easy"].loc["jobs_per_week", "mean"]
            != stats["session-first"].loc["jobs_per_week", "mean"])
    r = sitesim.replay(kth, SessionFirst())
    assert r.summary["counts"]["checked_passes"] == r.summary["counts"]["passes"] > 0


class Forgets(sitesim.Scheduler):
    def schedule(self, view):
        view.easy()


class Returns3(sitesim.Scheduler):
    def schedule(self, view):
        return 3


class WakesBadly(Fcfs):
    def wake_at(self):
        return "soon"


class WakeRaises(Fcfs):
    def wake_at(self):
        raise RuntimeError("no clock")


@pytest.mark.parametrize("scheduler, message", [
    (Forgets, "schedule() returned None: it returns the jobs to start now"),
    (Returns3, "schedule() returned int, not a list of jobs or job ids"),
    (WakesBadly, "wake_at() returned soon, which is not a time in seconds"),
])
def test_a_wrong_return_value_is_named_at_the_first_pass(kth, scheduler, message):
    log = sitesim.read_swf(kth).head(50)
    with pytest.raises((sitesim.SitesimError, TypeError)) as e:
        sitesim.replay(log, scheduler())
    text = str(e.value) + str(e.value.__cause__ or "")
    assert message in text, text


def test_a_raising_wake_at_is_named_as_wake_at(kth):
    log = sitesim.read_swf(kth).head(50)
    with pytest.raises(RuntimeError) as e:
        sitesim.replay(log, WakeRaises())
    assert "its wake_at() raised RuntimeError" in str(e.value.__cause__)


def test_integral_floats_are_integers(kth):
    class FloatIds(Fcfs):
        def schedule(self, view):
            return [float(j.id) for j in super().schedule(view)]

        def wake_at(self):
            return 7200.0

    log = sitesim.read_swf(kth).head(300)
    got = sitesim.replay(log, FloatIds()).jobs
    want = sitesim.replay(log, Fcfs()).jobs
    pandas.testing.assert_frame_equal(got, want)


def test_a_schedulers_prints_reach_the_console_during_a_sweep(kth, tmp_path):
    # `sweep` captures what the command prints into Result.text; the scheduler's own
    # print() goes to the console all the same.
    import subprocess
    import textwrap
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2] / "examples" / "python")!r})
        import sitesim
        from fcfs import Fcfs

        class Loud(Fcfs):
            said = False

            def schedule(self, view):
                if not Loud.said:
                    Loud.said = True
                    print("HELLO FROM THE SCHEDULER", flush=True)
                return super().schedule(view)

        r = sitesim.sweep({str(kth)!r}, [1], scheduler=Loud(), replications=1, weeks=2,
                          threads=1, out={str(tmp_path / "sweep")!r})
        print("TEXT HAS IT" if "HELLO" in r.text else "TEXT IS CLEAN")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "HELLO FROM THE SCHEDULER" in out.stdout
    assert "TEXT IS CLEAN" in out.stdout


def test_a_view_reads_only_what_is_asked_and_keeps_what_was_read(kth):
    # A pass costs what the scheduler reads: `view.easy()` and `view.waiting` read the
    # simulation directly; after the pass, what was read stays and the rest is refused.
    class Lazy(sitesim.Scheduler):
        kept = []

        def schedule(self, view):
            if len(Lazy.kept) < 50 and view.waiting > 3:
                queue = None
                if len(Lazy.kept) % 2:
                    queue, _ = view.queue, view.running  # read: kept after the pass
                Lazy.kept.append((view, queue, view.waiting, [j.id for j in view.easy()]))
            return view.easy()

    got = sitesim.replay(kth, Lazy()).jobs
    pandas.testing.assert_frame_equal(got, sitesim.replay(kth, "easy", check=True).jobs)
    assert len(Lazy.kept) == 50
    for view, queue, waiting, started in Lazy.kept:
        if queue is None:
            with pytest.raises(RuntimeError, match="pass has ended"):
                view.queue
            assert "? waiting" in repr(view)
        else:
            assert view.queue == queue and view.waiting == waiting == len(queue)
            assert [j.id for j in view.easy(list(queue))] == started


def test_each_runs_scheduler_comes_back_with_its_state(kth):
    class Counting(Easy):
        def __init__(self):
            self.passes = 0

        def schedule(self, view):
            self.passes += 1
            return super().schedule(view)

    given = Counting()
    r = sitesim.resample(kth, given, replications=3, weeks=2)
    assert given.passes == 0
    assert [type(s) for s in r.schedulers] == [Counting] * 3
    assert all(s.passes > 100 for s in r.schedulers)
    one = sitesim.replay(kth, given)
    assert len(one.schedulers) == 1 and one.schedulers[0].passes > 10_000
    assert sitesim.replay(kth).schedulers == []
