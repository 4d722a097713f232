"""Every command as a function: signatures written from the command line's definition
(and kept in step with it), tables as logs, and each command's result."""

import importlib.util
import inspect
import json
from pathlib import Path

import pandas
import pandas.testing
import pytest

import sitesim

PYTHON = Path(__file__).resolve().parents[1]


def test_the_signatures_are_the_command_lines():
    spec = importlib.util.spec_from_file_location("generate_api", PYTHON / "generate_api.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    written = (PYTHON / "sitesim" / "commands.py").read_text(encoding="utf-8")
    assert written == generator.render(), (
        "python/sitesim/commands.py is not what the command line defines now: "
        "run .venv/bin/python python/generate_api.py"
    )
    for command in generator.COMMANDS:
        function = getattr(sitesim, command)
        parameters = inspect.signature(function).parameters
        _, options = sitesim._sitesim.options(command)
        fixed = generator.COMMANDS[command][2]
        assert set(parameters) == {o[0] for o in options} - set(fixed)
        assert all(p.annotation != inspect.Parameter.empty for p in parameters.values())
        assert function.__doc__ and "Parameters" in function.__doc__


def test_an_unknown_keyword_is_a_type_error(kth):
    for function in (sitesim.replay, sitesim.calibrate, sitesim.sweep, sitesim.analyze):
        with pytest.raises(TypeError, match="unexpected keyword argument 'prcs'"):
            function(kth, prcs=10)


def test_a_table_is_a_log(kth, tmp_path):
    table = sitesim.read_swf(kth)
    assert list(table.columns) == list(sitesim.SWF_COLUMNS)
    assert table.attrs["header"]["MaxProcs"] == "100"
    for command in (sitesim.replay, sitesim.feedback):
        from_file, from_table = command(kth), command(table)
        pandas.testing.assert_frame_equal(from_file.jobs, from_table.jobs)
        # The same but where the log's file is named.
        a = json.dumps(from_file.summary).replace(str(kth), "LOG")
        b = json.dumps(from_table.summary)
        b = b.replace(from_table.summary["input"]["file"], "LOG")
        assert a == b
    # Columns in SWF's order, without names or header, with the machine given.
    bare = pandas.DataFrame(table.to_numpy())
    r = sitesim.replay(bare, procs=100)
    pandas.testing.assert_frame_equal(r.jobs, sitesim.replay(kth).jobs)
    sitesim.write_swf(table, tmp_path / "copy.swf")
    assert (tmp_path / "copy.swf").read_bytes().count(b"\n") == len(kth.read_bytes().splitlines())


def test_a_table_without_swfs_columns_is_refused():
    with pytest.raises(ValueError, match="lacks submit"):
        sitesim.replay(pandas.DataFrame({"job": [1], "runtime": [5]}))
    with pytest.raises(TypeError, match="a log is a path"):
        sitesim.replay(42)


def test_replicated_statistics_are_a_table(kth):
    r = sitesim.resample(kth, replications=3, weeks=2)
    stats = r.stats
    assert list(stats.columns) == ["n", "mean", "sd", "ci95", "min", "max"]
    assert stats.loc["jobs_per_week", "n"] == 3
    assert stats.loc["jobs_per_week", "mean"] == pytest.approx(
        r.replications["jobs_per_week"].mean())


def test_every_run_has_one_shape(kth):
    # A single run has the replicated run's metric names, statistics (n = 1) and weekly
    # series: code written for one reads the other.
    replicated = sitesim.resample(kth, replications=2, weeks=2)
    for single in (sitesim.replay(kth), sitesim.feedback(kth)):
        stats = single.stats
        assert list(stats.columns) == list(replicated.stats.columns)
        assert set(stats.index) <= set(replicated.stats.index)
        assert (stats["n"] == 1).all()
        jobs = single.summary["metrics"]["jobs"]
        assert stats.loc["mean_wait", "mean"] == pytest.approx(jobs["wait"]["mean"])
        assert stats.loc["mean_bsld", "mean"] == pytest.approx(jobs["bounded_slowdown"]["mean"])
        assert single.summary["figures"]["mean_wait"] == stats.loc["mean_wait", "mean"]
        assert list(single.weekly.columns) == list(replicated.weekly.columns)
        assert (single.weekly["replication"] == 0).all() and len(single.weekly) > 40
    assert "sessions" not in sitesim.replay(kth).stats.index
    assert sitesim.feedback(kth).stats.loc["sessions", "mean"] > 1000


def test_calibrate(kth, tmp_path):
    r = sitesim.calibrate(kth, replications=3, weeks=2, out=tmp_path)
    assert r.summary == json.loads((tmp_path / "calibrate.json").read_text())
    assert {"calibrate", "users"} <= set(r.tables)
    assert "95%" in r.text or "±" in r.text


def test_sweep_report_and_merge(kth, tmp_path):
    args = dict(populations=[1, 2], replications=2, weeks=2)
    whole = sitesim.sweep(kth, out=tmp_path / "whole", **args)
    assert len(whole.runs) == 4 and whole.dir == tmp_path / "whole"  # 2 points x 2 replications
    shards = [sitesim.sweep(kth, out=tmp_path / f"s{k}", shard=f"{k}/2", **args) for k in (1, 2)]
    assert all(s.dir is not None for s in shards)
    merged = sitesim.merge(tmp_path / "merged", [tmp_path / "s1", tmp_path / "s2"])
    pandas.testing.assert_frame_equal(merged.runs, whole.runs)
    page = sitesim.report(tmp_path / "whole")
    assert (page / "index.html").is_file()
    assert sitesim.sweep(kth, **args).dir is None


def test_analyze_fit_export_generate_estimates(kth, tmp_path):
    analysis = sitesim.analyze(kth)
    assert analysis["jobs"] and analysis["users"]
    model = sitesim.fit(kth, out=tmp_path / "model.toml")
    assert model.is_file() and "[" in model.read_text()
    workload = sitesim.export(swf=kth, batsim="5")
    assert workload["nb_res"] == 100 and len(workload["jobs"]) > 28000
    assert sitesim.export(swf=kth, batsim="4", output=tmp_path / "w.json") == tmp_path / "w.json"
    log = sitesim.generate(jobs=50, procs=32, out=tmp_path / "g.swf")
    assert len(sitesim.read_swf(log)) == 50
    assert "1000 jobs" in sitesim.estimates(jobs=1000, max="18h")


def test_a_refused_command_names_the_option(kth):
    with pytest.raises(sitesim.SitesimError, match="invalid value '-1' for 'weeks'"):
        sitesim.calibrate(kth, weeks=-1)


def test_every_results_folder_has_its_report(kth, tmp_path):
    replayed = sitesim.replay(kth, out=tmp_path / "replay", report=True)
    assert (replayed.dir / "report" / "schedule.svg").is_file()
    page = sitesim.report(tmp_path / "replay", colour="class", schedule_length="2h")
    assert page == tmp_path / "replay" / "report" and (page / "index.html").is_file()
    sitesim.resample(kth, replications=3, weeks=2, out=tmp_path / "resample")
    assert (sitesim.report(tmp_path / "resample") / "hist-jobs-per-week.svg").is_file()
    sitesim.calibrate(kth, replications=3, weeks=2, out=tmp_path / "calibrate")
    assert sitesim.report(tmp_path / "calibrate") == tmp_path / "calibrate" / "report"
    sitesim.replay(kth, "fcfs", out=tmp_path / "fcfs")
    both = sitesim.report(tmp_path / "fcfs", others=[tmp_path / "replay"], out=tmp_path / "cmp")
    assert both == tmp_path / "cmp" and (both / "diff-gantt-2.svg").is_file()
    with pytest.raises(ValueError, match="give out"):
        sitesim.replay(kth, report=True)
    with pytest.raises(sitesim.SitesimError, match="not a results directory"):
        sitesim.report(tmp_path)


def test_the_policies_are_listed():
    listed = sitesim.policies()
    assert {"easy", "conservative", "fairshare", "flex"} <= set(listed)
    assert "backfilling" in listed["easy"]


def test_errors_speak_python(kth):
    # A table's errors name the table and its row, not a temporary file; options are
    # keyword arguments; a NaN column is named at once; a bad continuation says what
    # the option takes.
    table = sitesim.read_swf(kth).head(100)
    headerless = table.copy()
    headerless.attrs = {}
    with pytest.raises(sitesim.SitesimError) as e:
        sitesim.replay(headerless)
    assert "procs=" in str(e.value) and "--procs" not in str(e.value)
    assert "the table given as swf" in str(e.value) and "/tmp/" not in str(e.value)
    broken = table.copy()
    broken.loc[5, "runtime"] = -7
    broken.loc[5, "wait"] = -1
    with pytest.raises(sitesim.SitesimError) as e:
        sitesim.replay(broken, questionable={"negative-runtime": "error"})
    assert "the table given as swf, row 5" in str(e.value) and "/tmp/" not in str(e.value)
    nan = table.copy()
    nan["submit"] = float("nan")
    with pytest.raises(ValueError, match="column 'submit' of the table has 100 missing values"):
        sitesim.replay(nan)
    with pytest.raises(sitesim.SitesimError, match="3.5: No such file.*continuation takes a curve file"):
        sitesim.feedback(kth, continuation=3.5)
