"""The Python API against the `sitesim` binary: the same run gives the same summary
and tables, the same errors, and results read back from a results directory."""

import json
import threading
import time
from pathlib import Path

import pandas
import pandas.testing
import pytest

import sitesim

# The debug binary always checks the scheduling invariants (the summary counts the
# checked passes), so the Python runs compared with it check them too.
CHECK = {"check": True}


def read_summary(dir: Path) -> dict:
    with open(dir / "summary.json", encoding="utf-8") as f:
        return json.load(f)


def assert_table(result_table, path: Path):
    pandas.testing.assert_frame_equal(result_table, pandas.read_csv(path))


def test_replay_equals_the_cli(kth, cli, tmp_path):
    cli("replay", "--swf", kth, "--scheduler", "conservative", "--warmup", "1w",
        "--questionable", "oversize=clamp", "--out", tmp_path)
    r = sitesim.replay(kth, "conservative", warmup="1w",
                       questionable={"oversize": "clamp"}, **CHECK)
    assert r.summary == read_summary(tmp_path)
    assert r.summary["scheduler"] == "conservative"
    assert r.summary["metrics"]["window"]["warmup"] == 7 * 24 * 3600
    assert len(r.jobs) == r.summary["input"]["jobs"] > 28000
    assert_table(r.jobs, tmp_path / "jobs.csv")
    assert r.dir is None


@pytest.mark.parametrize("scheduler", ["flex", "maui:xfactor=10", "fairshare",
                                       "limits:policy=conservative,jobs=4"])
def test_site_policies_by_name_equal_the_cli(kth, cli, tmp_path, scheduler):
    cli("replay", "--swf", kth, "--scheduler", scheduler, "--out", tmp_path)
    r = sitesim.replay(kth, scheduler, **CHECK)
    assert r.summary == read_summary(tmp_path)
    assert_table(r.jobs, tmp_path / "jobs.csv")


def test_replay_defaults_are_the_clis(kth, cli, tmp_path):
    cli("replay", "--swf", kth, "--out", tmp_path)
    assert sitesim.replay(kth, **CHECK).summary == read_summary(tmp_path)


def test_feedback_equals_the_cli(kth, cli, tmp_path):
    cli("feedback", "--swf", kth, "--scheduler", "fcfs", "--procs", "120",
        "--continuation", "off", "--out", tmp_path)
    out = tmp_path / "python"
    r = sitesim.feedback(kth, "fcfs", procs=120, continuation="off", out=out, **CHECK)
    assert r.summary == read_summary(tmp_path)
    assert r.summary["procs"] == 120
    for name in ("jobs", "users", "sessions", "cycles"):
        assert_table(r.tables[name], tmp_path / f"{name}.csv")
        assert (out / f"{name}.csv").read_bytes() == (tmp_path / f"{name}.csv").read_bytes()
    assert r.dir == out
    with pytest.raises(AttributeError, match="no replications table"):
        r.replications


def test_resample_equals_the_cli(kth, cli, tmp_path):
    cli("resample", "--swf", kth, "--weeks", "3", "--replications", "3",
        "--population", "1.5", "--threads", "2", "--out", tmp_path)
    r = sitesim.resample(kth, weeks=3, replications=3, users=1.5, threads=2, **CHECK)
    assert r.summary == read_summary(tmp_path)
    assert len(r.summary["replications"]) == 3
    assert_table(r.replications, tmp_path / "replications.csv")
    assert_table(r.weekly, tmp_path / "weekly.csv")
    assert list(r.tables) == ["replications", "weekly"]


def test_model_equals_the_cli(cli, tmp_path):
    cli("model", "--procs", "128", "--duration", "3w", "--replications", "2",
        "--busy-user", "queue", "--out", tmp_path)
    r = sitesim.model(procs=128, duration="3w", replications=2, busy_user="queue", **CHECK)
    assert r.summary == read_summary(tmp_path)
    assert_table(r.replications, tmp_path / "replications.csv")
    assert_table(r.weekly, tmp_path / "weekly.csv")


def test_a_malformed_log_names_file_line_and_field(cli, tmp_path):
    log = tmp_path / "bad.swf"
    log.write_text(
        "; MaxProcs: 16\n"
        "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"
        "2 5 0 x 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    cli_error = cli("replay", "--swf", log, check=False)
    assert cli_error.returncode != 0
    with pytest.raises(sitesim.SitesimError) as e:
        sitesim.replay(log)
    message = str(e.value)
    assert isinstance(e.value, ValueError)
    assert cli_error.stderr.strip() == f"error: {message}"
    assert message.startswith(f"{log}:3: field 4 (run time): 'x'")
    with pytest.raises(sitesim.SitesimError) as e:
        sitesim.feedback(log)
    assert str(e.value).startswith(f"{log}:3: field 4")


def test_bad_options_are_refused_as_by_the_cli(cli, tmp_path):
    log = tmp_path / "empty.swf"
    log.write_text("; MaxProcs: 16\n")
    with pytest.raises(sitesim.SitesimError, match=r"invalid value '0' for 'procs'"):
        sitesim.replay(log, procs=0)
    assert "invalid value '0' for '--procs <PROCS>'" in cli(
        "replay", "--swf", log, "--procs", "0", check=False).stderr
    with pytest.raises(sitesim.SitesimError, match="nosuch"):
        sitesim.replay(log, scheduler="nosuch")
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        sitesim.replay(log, no_such_option=1)
    with pytest.raises(sitesim.SitesimError, match="missing.swf"):
        sitesim.resample(tmp_path / "missing.swf")
    # An impossible combination, refused before the log is read, in the CLI's words.
    conflict = "the scheduler 'conservative' plans with estimates and cannot use --predictor sbh"
    with pytest.raises(sitesim.SitesimError, match=conflict.replace("--", "")):
        sitesim.replay(tmp_path / "missing.swf", "conservative", predictor="sbh")
    assert conflict in cli("replay", "--swf", tmp_path / "missing.swf", "--scheduler",
                           "conservative", "--predictor", "sbh", check=False).stderr


# A small experiment of the model-based site (nothing from outside the repository):
# two schedulers at two population multipliers, two replications of four weeks.
EXPERIMENT = {
    "name": "py-small",
    "seed": 3,
    "duration": "4w",
    "replications": 2,
    "machine": {"procs": 128},
    "scheduler": {"policy": "easy"},
    "workload": {"source": "model"},
    "metrics": {"warmup": "1w"},
    "experiment": {
        "schedulers": [{"name": "fcfs"}, {"name": "easy", "label": "EASY"}],
        "sweep": {"axis": "population", "values": [0.5, 1.0]},
    },
}


def write_scenario(path: Path, scenario: dict) -> Path:
    path.write_text(sitesim._sitesim.scenario_toml(json.dumps(scenario)))
    return path


def test_experiment_load_round_trip(cli, tmp_path):
    scenario = write_scenario(tmp_path / "small.toml", EXPERIMENT)
    cli("run", scenario, "--out", tmp_path / "cli")
    loaded = sitesim.load(tmp_path / "cli")
    assert loaded.summary == read_summary(tmp_path / "cli")
    assert loaded.summary["name"] == "py-small"
    assert len(loaded.summary["points"]) == 4
    assert len(loaded.runs) == 8
    assert_table(loaded.runs, tmp_path / "cli" / "runs.csv")
    assert loaded.plan["replications"] == 2
    assert loaded.capacity is None
    ran = sitesim.run(scenario, out=tmp_path / "py")
    assert ran.summary == loaded.summary
    assert (tmp_path / "py" / "runs.csv").read_bytes() == (tmp_path / "cli" / "runs.csv").read_bytes()
    from_dict = sitesim.run(EXPERIMENT, out=tmp_path / "dict")
    assert from_dict.summary == loaded.summary
    assert from_dict.dir == tmp_path / "dict"


def test_load_refuses_a_directory_without_results(tmp_path):
    with pytest.raises(sitesim.SitesimError, match="summary.json"):
        sitesim.load(tmp_path)
    with pytest.raises(sitesim.SitesimError, match="no such results directory"):
        sitesim.load(tmp_path / "nothing")


def test_default_scenario_with_overrides_equals_the_cli(cli, tmp_path):
    cli("run", "--replications", "2", "--seed", "5", "--set", "duration=8w",
        "--out", tmp_path)
    r = sitesim.run(replications=2, seed=5, set={"duration": "8w"})
    assert r.summary == read_summary(tmp_path)
    assert len(r.replications) == 2
    assert_table(r.replications, tmp_path / "replications.csv")
    assert r.dir is None


def test_dict_scenario_equals_the_same_file(kth, tmp_path):
    scenario = {
        "scheduler": {"policy": "easy"},
        "workload": {"source": "swf", "path": str(kth)},
        "metrics": {"warmup": "1w"},
    }
    from_dict = sitesim.run(scenario)
    from_file = sitesim.run(write_scenario(tmp_path / "s.toml", scenario))
    assert from_dict.summary == from_file.summary
    assert from_dict.summary == sitesim.replay(kth, warmup="1w").summary
    pandas.testing.assert_frame_equal(from_dict.jobs, from_file.jobs)
    with pytest.raises(sitesim.SitesimError, match="scenario \\(dict\\)"):
        sitesim.run({"workload": {"source": "nosuch"}})


def test_runs_release_the_gil():
    """While a run goes on in one thread, another Python thread keeps running."""
    counted = []
    done = threading.Event()

    def simulate():
        sitesim.run(replications=4, set={"duration": "26w"})
        done.set()

    worker = threading.Thread(target=simulate)
    started = time.perf_counter()
    worker.start()
    while not done.is_set():
        counted.append(time.perf_counter())
    worker.join()
    elapsed = time.perf_counter() - started
    assert elapsed > 0.05, "the run was too short to tell"
    # With the GIL held, this thread would get a slice every 5 ms at best; free, it
    # counts millions of times per second.
    assert len(counted) > 1000 * elapsed, (len(counted), elapsed)
