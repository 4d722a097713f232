"""Ctrl-C stops a running call (README, "Python"): a long resample, a long experiment
and a long single run end within a second or so of SIGINT with KeyboardInterrupt, no
new run started and the running ones abandoned (finished experiment runs stay on disk),
instead of running to the end first."""

import signal
import subprocess
import sys
import textwrap
import time


def interrupted(code: str) -> tuple[float, str]:
    """Runs `code` in a new interpreter, sends it SIGINT once it has printed `started`,
    and returns how long it took to end after the signal, and its stderr."""
    script = textwrap.dedent(code)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "started"
    time.sleep(1.5)  # well into the call
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return time.monotonic() - sent, err


def test_ctrl_c_stops_a_resample_within_a_second(kth):
    # 20,000 replications of a year take minutes; Ctrl-C ends the call at once.
    took, err = interrupted(f"""
        import sitesim
        print("started", flush=True)
        sitesim.resample({str(kth)!r}, replications=20000, threads=1)
        print("ran to the end")
    """)
    assert "KeyboardInterrupt" in err, err
    assert "ran to the end" not in err
    assert took < 5, f"{took:.1f} s after SIGINT"


def test_ctrl_c_stops_an_experiment_and_keeps_its_finished_runs(kth, tmp_path):
    out = tmp_path / "sweep"
    took, err = interrupted(f"""
        import sitesim
        print("started", flush=True)
        sitesim.sweep({str(kth)!r}, [1, 2], replications=5000, weeks=8, threads=1,
                      out={str(out)!r})
    """)
    assert "KeyboardInterrupt" in err, err
    assert took < 5, f"{took:.1f} s after SIGINT"
    # The runs finished before the signal are on disk, for a resume.
    assert any((out / "runs").rglob("*.json"))


def test_ctrl_c_stops_a_single_long_run(kth):
    # One replication of a century at six times the log's users: tens of seconds of
    # simulation in one run, which Ctrl-C abandons.
    took, err = interrupted(f"""
        import sitesim
        print("started", flush=True)
        sitesim.resample({str(kth)!r}, replications=1, weeks=5000, long_term=6,
                         temporary=6, threads=1)
        print("ran to the end")
    """)
    assert "KeyboardInterrupt" in err, err
    assert "ran to the end" not in err
    assert took < 2, f"{took:.1f} s after SIGINT"


def test_after_ctrl_c_the_next_runs_go_to_their_end(kth):
    # The interrupted call abandons its runs, not the ones after it: a replay, and a
    # gym episode (whose simulation runs outside any call), both see every job.
    took, err = interrupted(f"""
        import sys
        import sitesim
        from sitesim.gym import ClosedLoopEnv
        print("started", flush=True)
        try:
            sitesim.resample({str(kth)!r}, replications=1, weeks=5000, long_term=6,
                             temporary=6, threads=1)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
        env = ClosedLoopEnv({str(kth)!r}, "replay")
        env.reset()
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(0)
            done = terminated or truncated
        jobs = len(sitesim.replay({str(kth)!r}).jobs)
        print(f"replay {{jobs}} episode {{info['counters']['jobs']}}", file=sys.stderr)
    """)
    assert "interrupted" in err, err
    last = err.strip().splitlines()[-1].split()
    assert last[0] == "replay" and last[2] == "episode", err
    assert float(last[1]) == float(last[3]) > 28000, err


def test_ctrl_c_stops_a_callback_that_loops_or_sleeps(kth):
    # A scheduler's callbacks run on the interpreter's thread, where Ctrl-C reaches them:
    # a `while True` or a long `time.sleep` in `schedule` or `on_end` ends within a
    # second, in a single run and in parallel replications.
    for body, call in [
        ("while True: pass", "replay({log!r}, Stuck())"),
        ("time.sleep(3600)", "replay({log!r}, Stuck())"),
        ("time.sleep(3600)", "resample({log!r}, Stuck(), replications=4, threads=2)"),
    ]:
        for hook in ("schedule(self, view)", "on_end(self, job, now)"):
            took, err = interrupted(f"""
                import time
                import sitesim

                class Stuck(sitesim.Scheduler):
                    def schedule(self, view):
                        return [j for j in view.queue[:1] if j.size <= view.free]

                    def {hook}:
                        {body}

                print("started", flush=True)
                sitesim.{call.format(log=str(kth))}
                print("ran to the end")
            """)
            assert "KeyboardInterrupt" in err, (body, hook, err)
            assert took < 1.5, f"{body} in {hook}: {took:.1f} s after SIGINT"
