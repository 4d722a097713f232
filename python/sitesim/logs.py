"""Logs as tables: an SWF file read into a pandas DataFrame, and any table with SWF's
columns written as a log, so that a DataFrame is a log wherever a path is."""

from __future__ import annotations

import os
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Union

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["SWF_COLUMNS", "Log", "read_swf", "write_swf"]

#: The 18 fields of the Standard Workload Format, in order (Chapin et al. 1999; the
#: Parallel Workloads Archive's names).
SWF_COLUMNS = (
    "job",
    "submit",
    "wait",
    "runtime",
    "procs",
    "cpu",
    "memory",
    "req_procs",
    "req_time",
    "req_memory",
    "status",
    "user",
    "group",
    "app",
    "queue",
    "partition",
    "preceding",
    "think",
)

#: A log: the path of an SWF file (plain or gzip) or a Batsim workload, or a table with
#: SWF's columns (a pandas DataFrame).
Log = Union[str, "os.PathLike[str]", "pandas.DataFrame"]


def read_swf(path: Union[str, "os.PathLike[str]"]) -> "pandas.DataFrame":
    """An SWF log as a DataFrame with the columns :data:`SWF_COLUMNS`; its header's
    fields (``MaxProcs``, ``TimeZoneString``, ...) are in ``attrs["header"]``, and its
    lines as they are in ``attrs["header_lines"]``, which :func:`write_swf` writes back
    (so that errors name the same lines)."""
    import pandas

    header: Dict[str, str] = {}
    lines = []
    opener: Any = open
    if os.fspath(path).endswith(".gz"):
        import gzip

        opener = gzip.open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith(";") and line.strip():
                break
            lines.append(line.rstrip("\n"))
            key, sep, value = line[1:].partition(":")
            if line.startswith(";") and sep and key.strip() and " " not in key.strip():
                header[key.strip()] = value.strip()
    table = pandas.read_csv(
        path, sep=r"\s+", comment=";", header=None, names=list(SWF_COLUMNS), engine="c"
    )
    table.attrs["header"] = header
    table.attrs["header_lines"] = lines
    return table


def _columns(table: Any) -> list:
    columns = [str(c) for c in table.columns]
    if all(c in columns for c in SWF_COLUMNS):
        return list(SWF_COLUMNS)
    if len(columns) == len(SWF_COLUMNS):
        return list(table.columns)
    missing = [c for c in SWF_COLUMNS if c not in columns]
    raise ValueError(
        f"a table is a log with SWF's 18 columns, named {', '.join(SWF_COLUMNS)} or in that "
        f"order; this one has {len(columns)} and lacks {', '.join(missing)}"
    )


def write_swf(table: Any, path: Union[str, "os.PathLike[str]"]) -> None:
    """Writes ``table`` (a DataFrame with SWF's columns, by name or in order) as an SWF
    log, its ``attrs["header_lines"]`` (else its ``attrs["header"]`` fields) as the
    header. Every value is written as an integer, as SWF has them; a missing value is
    -1."""
    columns = _columns(table)
    attrs = getattr(table, "attrs", {})
    lines = attrs.get("header_lines")
    if lines is None:
        lines = [f"; {key}: {value}" for key, value in attrs.get("header", {}).items()]
    for column in ("job", "submit", "runtime", "procs"):
        at = columns[SWF_COLUMNS.index(column)]
        missing = table[at].isna()
        if missing.any():
            raise ValueError(
                f"column {at!r} of the table has {int(missing.sum())} missing values (NaN), "
                f"the first in row {table.index[missing.argmax()]!r}: a job needs its "
                "number, submit time, runtime and processors (SWF writes an unknown "
                "value as -1: fillna(-1) if that is what they mean)"
            )
    data = table[columns].fillna(-1).round().astype("int64")
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(f"{line}\n")
        data.to_csv(f, sep=" ", header=False, index=False)


class LogFile:
    """A log as a file: the path given, or a temporary SWF file holding a table (removed
    when this object is). For a table, ``index`` is its index and ``header_lines`` the
    lines written before its first row, so that an error's line names a row."""

    def __init__(self, log: Log) -> None:
        self.index: Any = None
        self.header_lines = 0
        if isinstance(log, (str, os.PathLike)):
            self.path = Path(log)
            return
        if not hasattr(log, "columns"):
            raise TypeError(
                f"a log is a path or a table with SWF's columns, not {type(log).__name__}"
            )
        fd, name = tempfile.mkstemp(prefix="sitesim-log-", suffix=".swf")
        os.close(fd)
        self.path = Path(name)
        weakref.finalize(self, _remove, name)
        write_swf(log, name)
        self.index = log.index
        attrs = getattr(log, "attrs", {})
        self.header_lines = len(attrs.get("header_lines") or attrs.get("header", {}))

    def row_of(self, line: int) -> Any:
        """The table's row (its index label) that the file's ``line`` (from 1) holds."""
        at = line - self.header_lines - 1
        return self.index[at] if 0 <= at < len(self.index) else f"line {line}"


def _remove(name: str) -> None:
    try:
        os.remove(name)
    except OSError:
        pass


def log_path(log: Log) -> LogFile:
    """The log as a file (see :class:`LogFile`)."""
    return LogFile(log)
