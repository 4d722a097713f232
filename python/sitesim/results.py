"""What a run leaves: its summary, its tables as DataFrames, and the results
directory they were read from."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, List, Mapping, Optional, Union

from ._sitesim import SitesimError

__all__ = ["Result", "load"]

PathLike = Union[str, "os.PathLike[str]"]

# The tables a run may write, by attribute name (each is NAME.csv in its directory).
TABLES = (
    "jobs", "users", "sessions", "cycles", "replications", "weekly", "runs", "paired", "calibrate",
)

NOT_REPLICATED = "this result has no statistics (an experiment's are in its runs table)"


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
    ``text`` is what the command printed, for those that print a report (``calibrate``,
    ``sweep``, ``merge``), else ``None``. ``schedulers`` are the instances of the Python
    schedulers the run used, each run's own copy in the state it ended in (one per run or
    replication, in their order; empty without a Python scheduler).
    """

    def __init__(
        self,
        summary: dict,
        tables: Mapping[str, Any],
        dir: Optional[Path] = None,
        plan: Optional[dict] = None,
        capacity: Optional[dict] = None,
        text: Optional[str] = None,
    ) -> None:
        self.summary = summary
        self.text = text
        self.tables = dict(tables)
        self.dir = dir
        self.plan = plan
        self.capacity = capacity
        self.schedulers: List[Any] = []

    @property
    def stats(self) -> Any:
        """The run's statistics (``summary["stats"]``) as a DataFrame, one row per metric:
        ``n``, ``mean``, ``sd``, ``ci95`` (the half-width of the 95% confidence interval
        of the mean), ``min``, ``max``. A single run has them too, with ``n`` = 1 and the
        same metric names (its ``summary["figures"]`` are a replicated run's row)."""
        rows = self.summary.get("stats")
        if rows is None:
            raise AttributeError(NOT_REPLICATED)
        import pandas

        columns = ["metric", "n", "mean", "sd", "ci95", "min", "max"]
        return pandas.DataFrame(
            [{c: row.get(c) for c in columns} for row in rows], columns=columns
        ).set_index("metric")

    def __getattr__(self, name: str) -> Any:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        if name == "stats":
            raise AttributeError(NOT_REPLICATED)
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


