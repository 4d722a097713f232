"""Keyword arguments as the command line's options."""

from __future__ import annotations

import os
from typing import Any, List, Mapping


def option(name: str, value: Any) -> List[str]:
    """One keyword argument as command-line arguments: ``procs=128`` is
    ``--procs=128`` (and so is ``procs=128.0``), ``check=True`` is ``--check`` (``False`` and ``None`` give nothing), a
    list repeats the option and a dict gives ``--name key=value`` per item."""
    flag = "--" + name.replace("_", "-")
    if value is None or value is False:
        return []
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        # An integral float (`weeks=4.0`, as arithmetic gives) is the integer: options
        # that take integers refuse "4.0", and those that take numbers read "4".
        value = int(value)
    if value is True:
        return [flag]
    # `--name=value`, so that a value that looks like an option (`-1`) is still its value.
    if isinstance(value, Mapping):
        return [f"{flag}={k}={v}" for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [f"{flag}={fspath(v)}" for v in value]
    return [f"{flag}={fspath(value)}"]


def fspath(value: Any) -> str:
    """A path or a value as text."""
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
