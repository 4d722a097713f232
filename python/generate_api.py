"""Writes python/sitesim/commands.py: one function per `sitesim` command, its parameters
the command line's options (names, types, defaults and help from the CLI's own
definition), so that `help()`, an editor and a type checker show them, and an unknown
keyword is Python's TypeError. python/tests/test_signatures.py fails when the file is not
what this script writes now:

    .venv/bin/python python/generate_api.py
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import keyword
import sys
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "sitesim"
OUT = PACKAGE / "commands.py"


def _extension():
    """The extension module, loaded from its file without the package (whose
    ``__init__`` imports the file this script writes)."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = PACKAGE / f"_sitesim{suffix}"
        if path.is_file():
            spec = importlib.util.spec_from_file_location("_sitesim", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    sys.exit(f"no built extension in {PACKAGE}: run python/test.sh (maturin develop) first")


_sitesim = _extension()

# Each function: the command, what it returns, how it runs (a call into sitesim._run),
# and the options the function sets itself.
COMMANDS = {
    "replay": ("Result", '_run.log_command("replay", args)', ()),
    "feedback": ("Result", '_run.log_command("feedback", args)', ()),
    "resample": ("Result", '_run.log_command("resample", args)', ()),
    "model": ("Result", '_run.log_command("model", args)', ()),
    "calibrate": ("Result", "_run.calibrate(args)", ()),
    "sweep": ("Result", '_run.experiment("sweep", args)', ()),
    "merge": ("Result", '_run.experiment("merge", args)', ()),
    "analyze": ("dict", "_run.analyze(args)", ("json",)),
    "fit": ("Path", '_run.written("fit", args, "out")', ()),
    "generate": ("Path", '_run.written("generate", args, "out")', ()),
    "export": ("Union[dict, str, Path]", "_run.export(args)", ()),
    "report": ("Path", "_run.report(args)", ()),
    "estimates": ("str", '_run.printed("estimates", args)', ()),
}

RETURNS = {
    "Result": "A :class:`sitesim.Result`: the summary, the tables as DataFrames, "
    "``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.",
    "dict": "The analysis, as ``--json`` prints it.",
    "Path": "The path written.",
    "Union[dict, str, Path]": "The Batsim workload as a dict, Batsim's _jobs.csv as text, "
    "or the ``output`` path it was written to.",
    "str": "What the command prints.",
}


def annotation(name: str, kind: str, choices: list, repeated: bool) -> str:
    if name == "swf":
        base = "Log"
    elif name in ("scheduler", "schedulers"):
        base = "Policy"
    elif choices:
        base = "Literal[" + ", ".join(repr(c) for c in choices) + "]"
    else:
        base = {
            "bool": "bool",
            "int": "int",
            "duration": "Union[int, str]",
            "float": "float",
            "path": "PathLike",
            "str": "str",
        }[kind]
    if repeated:
        if kind == "str" and name not in ("schedulers",):
            return "Union[Sequence[str], Mapping[str, Any]]"
        return f"Sequence[{base}]"
    return base


def render() -> str:
    out = [
        '"""sitesim\'s commands as functions (written by python/generate_api.py from the',
        "command line's definition: do not edit).",
        "",
        "Each function runs the `sitesim` command of its name in this process, with the same",
        "options, defaults and errors: a parameter is the option of that name (``procs=128``",
        "is ``--procs 128``; ``check=True`` is ``--check``; a list repeats an option; a dict",
        "gives ``key=value`` per item: ``questionable={\"oversize\": \"clamp\"}``). ``None``",
        "leaves an option to the command's default. A log is a path or a DataFrame with",
        "SWF's columns; a policy is a name, a dict or a :class:`sitesim.Scheduler`.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from pathlib import Path",
        "from typing import Any, Literal, Mapping, Optional, Sequence, Union",
        "",
        "from . import _run",
        "from ._run import PathLike",
        "from .logs import Log",
        "from .results import Result",
        "from .scheduler import Policy",
        "",
        "__all__ = [" + ", ".join(f'"{c}"' for c in sorted(COMMANDS)) + "]",
        "",
    ]
    for command, (returns, call, fixed) in COMMANDS.items():
        about, options = _sitesim.options(command)
        options = [o for o in options if o[0] not in fixed]
        required = [o for o in options if o[5]]
        optional = [o for o in options if not o[5]]
        # The policy comes second, as a positional parameter with its default.
        lead = [o for o in optional if o[0] == "scheduler"]
        rest = [o for o in optional if o[0] != "scheduler"]
        params = []
        docs = []
        for name, kind, help, default, choices, req, positional, repeated in required + lead + rest:
            if keyword.iskeyword(name):
                sys.exit(f"option {name} of {command} is a Python keyword")
            hint = annotation(name, kind, choices, repeated)
            if req:
                params.append(f"    {name}: {hint},")
            elif kind == "bool":
                params.append(f"    {name}: bool = False,")
            elif name == "scheduler":
                params.append(f"    {name}: {hint} = {default!r},")
            else:
                params.append(f"    {name}: Optional[{hint}] = None,")
            text = " ".join(help.split()) or "(no help)"
            if default is not None and kind != "bool" and "[default" not in text:
                text += f" [default: {default}]"
            docs.append(textwrap.fill(f"{name}: {text}", 84, initial_indent="    ",
                                      subsequent_indent="        ", break_on_hyphens=False,
                                      break_long_words=False))
        split = len(required) + len(lead)
        if split < len(params):
            params.insert(split, "    *,")
        out += [
            f"def {command}(",
            *params,
            f") -> {returns}:",
            '    """' + " ".join(about.split()),
            "",
            "    Parameters:",
            "",
            *docs,
            "",
            "    Returns: " + RETURNS[returns],
            '    """',
            "    args = dict(locals())",
            f"    return {call}",
            "",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
