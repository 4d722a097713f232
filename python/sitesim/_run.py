"""How each command runs from Python: the functions of :mod:`sitesim.commands` (written
from the command line's definition) hand their arguments to these."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from . import _sitesim
from ._argv import fspath, option
from ._sitesim import SitesimError
from .logs import LogFile
from .results import Result, _read_json, _tables, load
from .scheduler import Scheduler, policy_spec, raise_callback_error, used_instances

PathLike = Union[str, "os.PathLike[str]"]

# Options whose value is a log (a path or a table).
LOGS = ("swf",)
# Options whose value is a policy (a name, a spec, a dict or a sitesim.Scheduler).
POLICIES = ("scheduler", "schedulers")


def _argv(args: Mapping[str, Any], keep: List[Any], registrations: List[Any]) -> List[str]:
    """The command line of ``args`` (a function's parameters); the log files made from
    tables are appended to ``keep`` (they live as long as it), each with the argument
    that gave it."""
    argv: List[str] = []
    for name, value in args.items():
        if value is None:
            continue
        if name in LOGS:
            values = value if isinstance(value, (list, tuple)) else [value]
            files = [LogFile(v) for v in values]
            keep.extend((name, f) for f in files)
            value = [f.path for f in files] if isinstance(value, (list, tuple)) else files[0].path
        elif name in POLICIES:
            if isinstance(value, (list, tuple)):
                value = [policy_spec(v, registrations) for v in value]
            else:
                value = policy_spec(value, registrations)
        argv += option(name, value)
    return argv


@functools.lru_cache(maxsize=None)
def _options(name: str) -> frozenset:
    return frozenset(o[0] for o in _sitesim.options(name)[1])


def _takes_threads(name: str) -> bool:
    return "threads" in _options(name)


def _in_python_terms(error: SitesimError, name: str, keep: List[Any]) -> SitesimError:
    """``error`` in the terms of the Python call: a table's temporary file as the table
    (a line as its row), ``--procs`` as ``procs=``."""
    text = str(error)
    for argument, log in keep:
        if log.index is None:
            continue
        table = f"the table given as {argument}"
        path = re.escape(str(log.path))
        text = re.sub(path + r":(\d+)", lambda m: f"{table}, row {log.row_of(int(m[1]))!r}", text)
        text = text.replace(str(log.path), table)
    options = _options(name)

    def keyword(m: "re.Match[str]") -> str:
        key = (m["quoted"] or m["bare"]).replace("-", "_")
        if key not in options:
            return m[0]
        if m["quoted"]:
            return f"'{key}'"  # clap's "'--weeks <WEEKS>'" names the argument: "'weeks'"
        # "--procs" ending a phrase is the argument to give, "procs="; followed by its
        # value ("--predictor sbh"), the keyword alone.
        return key if m["then"] == " " else f"{key}="

    pattern = (r"'--(?P<quoted>[a-z][a-z0-9-]*)(?: <[^>]*>)?'"
               r"|(?<![\w-])--(?P<bare>[a-z][a-z0-9-]*)(?=(?P<then> ?))")
    return SitesimError(re.sub(pattern, keyword, text))


IN_ORDER = (
    "a run with a Python scheduler runs its replications one after another (threads=1): "
    "its callbacks run one at a time on this thread, holding the GIL, so more threads "
    "would not make it faster, and class or module state the scheduler keeps would be "
    "read in a different order on every run, giving different results"
)


def _in_order(name: str, argv: List[str], registrations: List[Any]) -> List[str]:
    """``argv`` with ``--threads 1`` when a Python scheduler runs (warning when more
    threads were asked for)."""
    if not registrations or not _takes_threads(name):
        return argv
    asked = [a for a in argv if a.startswith("--threads=")]
    if asked and asked[-1] != "--threads=1":
        warnings.warn(f"threads={asked[-1].split('=', 1)[1]} ignored: {IN_ORDER}",
                      stacklevel=4)
    argv = [a for a in argv if not a.startswith("--threads=")]
    return argv + ["--threads=1"]


@contextlib.contextmanager
def _captured() -> Iterator[List[str]]:
    """What the command prints on standard output (file descriptor 1) while inside;
    the text is the list's one item afterwards. A Python scheduler's own prints still go
    to the console: ``sys.stdout``, when it writes to descriptor 1, writes meanwhile to a
    copy of the console's descriptor."""
    text: List[str] = []
    sys.stdout.flush()
    with tempfile.TemporaryFile() as f:
        saved = os.dup(1)
        console = sys.stdout
        try:
            to_fd1 = console.fileno() == 1
        except (AttributeError, OSError, ValueError):
            to_fd1 = False
        try:
            os.dup2(f.fileno(), 1)
            if to_fd1:
                sys.stdout = open(saved, "w", buffering=1, closefd=False,
                                  encoding=console.encoding, errors=console.errors)
            yield text
        finally:
            if to_fd1:
                sys.stdout.flush()
                sys.stdout = console
            os.dup2(saved, 1)
            os.close(saved)
            f.seek(0)
            text.append(f.read().decode("utf-8", "replace"))


def _call(name: str, args: Mapping[str, Any], positional: Tuple[str, ...] = ()) -> str:
    """Runs ``sitesim NAME`` with ``args`` in this process; what it printed. A Python
    scheduler's exception is raised again."""
    keep: List[Any] = []
    registrations: List[Any] = []
    args = dict(args)
    tail = [fspath(v) for p in positional for v in _listed(args.pop(p, None))]
    argv = [name, "--quiet", *_in_order(name, _argv(args, keep, registrations), registrations),
            *tail]
    if registrations and "--check" not in argv:
        argv.append("--check")
    with _captured() as text:
        try:
            _sitesim.cli(argv)
        except SitesimError as e:
            raise_callback_error(registrations, e)
            raise _in_python_terms(e, name, keep) from None
    return text[0]


def _listed(value: Any) -> List[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def log_command(name: str, args: Dict[str, Any]) -> Result:
    """``replay``, ``feedback``, ``resample`` or ``model``: the summary, and the tables read from
    ``out`` (kept) or a temporary directory (removed). A Python scheduler always runs
    under the invariant checker."""
    keep: List[Any] = []
    registrations: List[Any] = []
    out = args.pop("out", None)
    if args.get("report") and out is None:
        raise ValueError("report=True writes the report into out=: give out")
    argv = _in_order(name, _argv(args, keep, registrations), registrations)
    if registrations and "--check" not in argv:
        argv.append("--check")
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        dir = Path(out) if out is not None else Path(scratch)
        try:
            text = getattr(_sitesim, name)(argv + ["--out", os.fspath(dir)])
        except SitesimError as e:
            raise_callback_error(registrations, e)
            raise _in_python_terms(e, name, keep) from None
        result = Result(json.loads(text), _tables(dir), dir=dir if out is not None else None)
        result.schedulers = used_instances(registrations)
        return result


def calibrate(args: Dict[str, Any]) -> Result:
    """``calibrate``: ``calibrate.json`` as the summary, its tables, and the text."""
    out = args.pop("out", None)
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        dir = Path(out) if out is not None else Path(scratch)
        text = _call("calibrate", {**args, "out": dir})
        return Result(
            _read_json(dir / "calibrate.json") or {},
            _tables(dir),
            dir=dir if out is not None else None,
            text=text,
        )


def experiment(name: str, args: Dict[str, Any]) -> Result:
    """``sweep`` or ``merge``: the experiment's results, read back from ``out`` (kept), or
    from a temporary directory (removed). A shard's result has its plan and no summary
    (:func:`sitesim.merge` makes it)."""
    out = args.pop("out", None)
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        dir = Path(out) if out is not None else Path(scratch) / name
        text = _call(name, {**args, "out": dir}, positional=("shards",))
        if args.get("shard") is not None:
            # A shard has its runs and plan; its summary comes with `merge`.
            result = Result({}, _tables(dir), dir=dir, plan=_read_json(dir / "experiment.json"))
        else:
            result = load(dir)
        result.text = text
        if out is None:
            result.dir = None
        return result


def analyze(args: Dict[str, Any]) -> dict:
    """``analyze --json``: the analysis as a dict."""
    return json.loads(_call("analyze", {**args, "json": True}))


def export(args: Dict[str, Any]) -> Union[dict, str, Path]:
    """``export``: the Batsim workload as a dict, a run's jobs as Batsim's _jobs.csv
    text, or the path either was written to."""
    text = _call("export", args)
    output = args.get("output")
    if output is not None:
        return Path(output)
    return text if args.get("batsim_jobs") else json.loads(text)


def written(name: str, args: Dict[str, Any], path: str) -> Path:
    """A command that writes a file: its path (the option ``path``)."""
    _call(name, args)
    return Path(args[path])


def report(args: Dict[str, Any]) -> Path:
    """``report``: the directory of the report's page (``index.html``): ``DIR/report``
    (``report`` beside Batsim's _jobs.csv); with ``others``, the comparison's ``out``
    (``compare`` in the current directory by default)."""
    _call("report", args, positional=("dir", "others"))
    if args.get("others"):
        return Path(args["out"]) if args.get("out") is not None else Path("compare")
    dir = Path(args["dir"])
    return dir.parent / "report" if dir.is_file() else dir / "report"


def printed(name: str, args: Dict[str, Any]) -> str:
    """A command whose result is what it prints."""
    return _call(name, args)


def run(
    scenario: Union[PathLike, Mapping[str, Any], None],
    out: Optional[PathLike],
    settings: List[Tuple[str, Any]],
) -> Result:
    """``run``: see :func:`sitesim.run`."""
    registrations: List[Any] = []
    pairs = []
    for key, value in settings:
        if value is None:
            continue
        if isinstance(value, Scheduler) or (key.endswith("policy") and isinstance(value, Mapping)):
            value = policy_spec(value, registrations)
        pairs.append(
            (key, json.dumps(value) if isinstance(value, (bool, int, float, list)) else str(value))
        )
    if registrations:
        # A Python scheduler always runs under the invariant checker, its replications
        # one after another.
        pairs.append(("site.check", "true"))
        asked = [v for k, v in pairs if k == "threads"]
        if asked and asked[-1] != "1":
            warnings.warn(f"threads={asked[-1]} ignored: {IN_ORDER}", stacklevel=3)
        pairs.append(("threads", "1"))
    path, text, name = None, None, "scenario (dict)"
    if isinstance(scenario, Mapping):
        text = _sitesim.scenario_toml(json.dumps(scenario))
    elif scenario is not None:
        path = os.fspath(scenario)
    with tempfile.TemporaryDirectory(prefix="sitesim-") as scratch:
        try:
            dir, summary = _sitesim.run(
                path, text, name, pairs, None if out is None else os.fspath(out), scratch
            )
        except SitesimError as e:
            raise_callback_error(registrations, e)
            raise
        dir = Path(dir)
        if summary is None:
            result = load(dir)
        else:
            kept = None if dir == Path(scratch) else dir
            result = Result(json.loads(summary), _tables(dir), dir=kept)
        result.schedulers = used_instances(registrations)
        return result
