"""sitesim from Python: the simulator's commands as functions returning their results.

Each function runs what the ``sitesim`` command of the same name runs, with the same
options, defaults and errors: a keyword argument is the command line's option of that
name (``procs=128`` is ``--procs 128``, ``bsld_threshold=10`` is ``--bsld-threshold 10``,
``check=True`` is ``--check``, a list or a dict repeats the option:
``questionable={"oversize": "clamp"}`` is ``--questionable oversize=clamp``). The run
itself releases the GIL.

Each returns a :class:`Result`: ``.summary`` is the dict the command writes as
``summary.json``, and its tables (``.jobs``, ``.users``, ``.sessions``, ``.cycles``,
``.replications``, ``.runs``, as the run has them) are pandas DataFrames, or pyarrow
tables when pandas is absent. An input or option the command refuses raises
:class:`SitesimError` (a ``ValueError``) with the command's message, which names the file,
line and field of a malformed log.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from . import _sitesim
from ._sitesim import SitesimError

__all__ = ["Result", "SitesimError", "feedback", "load", "replay", "resample", "run"]

PathLike = Union[str, "os.PathLike[str]"]

# The tables a run may write, by attribute name (each is NAME.csv in its directory).
TABLES = ("jobs", "users", "sessions", "cycles", "replications", "runs", "paired")


def _read_table(path: Path) -> Any:
    """A CSV file as a pandas DataFrame, or as a pyarrow table without pandas."""
    try:
        import pandas
    except ImportError:
        try:
            from pyarrow import csv
        except ImportError as e:
            raise ImportError("sitesim's tables need pandas or pyarrow") from e
        return csv.read_csv(path)
    return pandas.read_csv(path)


class Result:
    """What a run produced: its summary, its tables and, for an experiment, its plan.

    ``summary`` is the dict of ``summary.json``; each table is an attribute (``jobs``,
    ``users``, ...), and ``tables`` maps every table's name to it. ``dir`` is the
    results directory when the run was written to one that is kept (``out=``, a
    scenario's ``[output] dir``, an experiment's results directory, or :func:`load`),
    else ``None``. An experiment also has ``plan`` (``experiment.json``) and, for a
    capacity search, ``capacity`` (``capacity.json``); they are ``None`` otherwise.
    """

    def __init__(
        self,
        summary: dict,
        tables: Mapping[str, Any],
        dir: Optional[Path] = None,
        plan: Optional[dict] = None,
        capacity: Optional[dict] = None,
    ) -> None:
        self.summary = summary
        self.tables = dict(tables)
        self.dir = dir
        self.plan = plan
        self.capacity = capacity

    def __getattr__(self, name: str) -> Any:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        if name in TABLES:
            have = ", ".join(sorted(tables)) or "none"
            raise AttributeError(f"this run has no {name} table (its tables: {have})")
        raise AttributeError(name)

    def __repr__(self) -> str:
        where = f" in {self.dir}" if self.dir else ""
        return f"<sitesim.Result{where}: summary, tables {sorted(self.tables)}>"


def _tables(dir: Path) -> dict:
    """Every table a run wrote into ``dir``."""
    return {
        name: _read_table(dir / f"{name}.csv")
        for name in TABLES
        if (dir / f"{name}.csv").is_file()
    }


def _read_json(path: Path) -> Optional[dict]:
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load(results_dir: PathLike) -> Result:
    """The results a run or an experiment wrote into ``results_dir``.

    Reads ``summary.json``, every table (``runs.csv`` of an experiment, ``jobs.csv``,
    ``replications.csv``, ...), and an experiment's ``experiment.json`` (``plan``) and
    ``capacity.json`` (``capacity``).
    """
    dir = Path(results_dir)
    summary = _read_json(dir / "summary.json")
    if summary is None:
        if not dir.is_dir():
            raise SitesimError(f"{dir}: no such results directory")
        raise SitesimError(
            f"{dir}/summary.json: not found (an experiment writes it once every run is there)"
        )
    return Result(
        summary,
        _tables(dir),
        dir=dir,
        plan=_read_json(dir / "experiment.json"),
        capacity=_read_json(dir / "capacity.json"),
    )


def _option(name: str, value: Any) -> list:
    """One keyword argument as command-line arguments."""
    flag = "--" + name.replace("_", "-")
    if value is None or value is False:
        return []
    if value is True:
        return [flag]
    if isinstance(value, Mapping):
        return [a for k, v in value.items() for a in (flag, f"{k}={v}")]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in (flag, str(v))]
    return [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]


def _command(name: str, swf: PathLike, scheduler: str, options: dict) -> Result:
    """Runs the command ``name`` on the log ``swf``; its tables are read from ``out``
    (kept) or from a temporary directory (removed)."""
    argv = ["--swf", os.fspath(swf), "--scheduler", scheduler]
    for key, value in options.items():
        if key != "out":
            argv += _option(key, value)
    out = options.get("out")
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        dir = Path(out) if out is not None else Path(scratch)
        summary = json.loads(getattr(_sitesim, name)(argv + ["--out", os.fspath(dir)]))
        return Result(summary, _tables(dir), dir=dir if out is not None else None)


def replay(swf: PathLike, scheduler: str = "easy", **options: Any) -> Result:
    """``sitesim replay``: the log ``swf`` replayed open-loop under ``scheduler``.

    ``options`` are ``sitesim replay``'s (``procs``, ``overrun``, ``estimates``,
    ``predictor``, ``seed``, ``questionable``, ``bsld``, ``bsld_threshold``, ``warmup``,
    ``cooldown``, ``check``, ``interarrival_factor``, ``out``), with its defaults.
    Tables: ``jobs``.
    """
    return _command("replay", swf, scheduler, options)


def feedback(swf: PathLike, scheduler: str = "easy", **options: Any) -> Result:
    """``sitesim feedback``: the log's users replayed with feedback under ``scheduler``.

    ``options`` are ``sitesim feedback``'s (those of :func:`replay` but
    ``interarrival_factor``, and ``threshold``, ``session_rule``, ``continuation``,
    ``patience``, ``strikes``, ``time_zone``, ``unknown_waits``, ...).
    Tables: ``jobs``, ``users``, ``sessions``, ``cycles``.
    """
    return _command("feedback", swf, scheduler, options)


def resample(swf: PathLike, scheduler: str = "easy", **options: Any) -> Result:
    """``sitesim resample``: replications of populations resampled from the log's users.

    ``options`` are ``sitesim resample``'s (those of :func:`feedback`, and ``weeks``,
    ``replications``, ``population``, ``long_term``, ``temporary``, ``threads``,
    ``no_feedback``, ...). Tables: ``replications``.
    """
    return _command("resample", swf, scheduler, options)


def run(
    scenario: Union[PathLike, Mapping[str, Any], None] = None,
    *,
    out: Optional[PathLike] = None,
    replications: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    set: Optional[Mapping[str, Any]] = None,
) -> Result:
    """``sitesim run``: a scenario file, a scenario given as a dict (the TOML file's
    tables as dicts; its paths are taken from the working directory), or the built-in
    default scenario.

    ``replications``, ``seed``, ``threads`` and ``set`` (``{"population.users": 2}``)
    override the scenario's keys as ``--replications``, ``--seed``, ``--threads`` and
    ``--set`` do. An experiment runs into ``out``, else its ``[output] dir``, else
    ``results/NAME`` (resuming what is there), and is read back by :func:`load`; any
    other scenario gives its summary and tables (``jobs``, ... or ``replications``).
    """
    settings = [
        (key, json.dumps(value) if isinstance(value, (bool, int, float, list)) else str(value))
        for key, value in (
            ("replications", replications),
            ("seed", seed),
            ("threads", threads),
            *((set or {}).items()),
        )
        if value is not None
    ]
    path, text, name = None, None, "scenario (dict)"
    if isinstance(scenario, Mapping):
        text = _sitesim.scenario_toml(json.dumps(scenario))
    elif scenario is not None:
        path = os.fspath(scenario)
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        dir, summary = _sitesim.run(
            path, text, name, settings, None if out is None else os.fspath(out), scratch
        )
        dir = Path(dir)
        if summary is None:
            return load(dir)
        kept = None if dir == Path(scratch) else dir
        return Result(json.loads(summary), _tables(dir), dir=kept)
