"""sitesim from Python: a closed-loop, site-level simulator for parallel job scheduling.

Every command of the ``sitesim`` binary is a function here, with the same options,
defaults and errors (:mod:`sitesim.commands`, written from the command line's own
definition): :func:`replay`, :func:`feedback`, :func:`resample`, :func:`model`, :func:`calibrate`,
:func:`sweep`, :func:`analyze`, :func:`fit`, :func:`export`, :func:`report`,
:func:`merge`, :func:`generate`, :func:`estimates`, and :func:`run` for scenarios. A run
releases the GIL.

- A **log** is a path (SWF, plain or gzip, or a Batsim workload) or a pandas DataFrame
  with SWF's columns (:func:`read_swf` reads one, :func:`write_swf` writes one).
- A **policy** is a name or spec (``"easy"``, ``"creasy:alpha=0.5"``), a dict
  (``{"name": "pbas", "candidates": ["easy", MyScheduler()]}``) or an instance of a
  :class:`Scheduler` subclass written in Python, which then runs under the invariant
  checker, in the closed loop like any built-in policy.
- A run gives a :class:`Result`: ``.summary`` (the dict of ``summary.json``), its tables
  as DataFrames (``.jobs``, ``.users``, ``.replications``, ``.weekly``, ...) and
  ``.stats``, the metrics under the same names for a single run (``n`` = 1) as for a
  replicated one. :func:`load` reads a results directory back. :func:`policies` lists
  the built-in scheduling policies.
- An input or option the command refuses raises :class:`SitesimError` (a ``ValueError``)
  with the command's message, which names the file, line and field of a malformed log;
  an unknown keyword is a ``TypeError``.

:mod:`sitesim.gym` has a Gymnasium environment in which an agent schedules the site.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from . import _run
from ._run import PathLike
from ._sitesim import SitesimError
from .commands import (
    analyze,
    calibrate,
    estimates,
    export,
    feedback,
    fit,
    generate,
    merge,
    model,
    replay,
    report,
    resample,
    sweep,
)
from .logs import SWF_COLUMNS, Log, read_swf, write_swf
from .results import Result, load
from .scheduler import Job, Policy, RunningJob, Scheduler, View

__all__ = [
    "Job",
    "Log",
    "Policy",
    "Result",
    "RunningJob",
    "SWF_COLUMNS",
    "Scheduler",
    "SitesimError",
    "View",
    "analyze",
    "calibrate",
    "estimates",
    "export",
    "feedback",
    "fit",
    "generate",
    "load",
    "merge",
    "model",
    "policies",
    "read_swf",
    "replay",
    "report",
    "resample",
    "run",
    "sweep",
    "write_swf",
]


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

    ``replications``, ``seed``, ``threads`` and ``set`` (``{"population.users": 2}``,
    ``{"scheduler.policy": MyScheduler()}``) override the scenario's keys as
    ``--replications``, ``--seed``, ``--threads`` and ``--set`` do. An experiment runs
    into ``out``, else its ``[output] dir``, else ``results/NAME`` (resuming what is
    there), and is read back by :func:`load`; any other scenario gives its summary and
    tables (``jobs``, ... or ``replications``).
    """
    settings = [("replications", replications), ("seed", seed), ("threads", threads)]
    settings += list((set or {}).items())
    return _run.run(scenario, out, settings)


def policies() -> dict:
    """The built-in scheduling policies: each name with what it does and its parameters,
    as ``sitesim policies`` lists them (a policy written in Python is a
    :class:`Scheduler`)."""
    listed = {}
    for line in _run.printed("policies", {}).splitlines():
        name, _, about = line.partition(" ")
        if name:
            listed[name] = about.strip()
    return listed
