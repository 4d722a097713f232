"""Schedulers written in Python, run by sitesim wherever a policy is.

Subclass :class:`Scheduler` and pass an instance wherever a function takes a policy
(``sitesim.replay(log, MyScheduler())``), or as a candidate of an adaptive policy
(``{"name": "pbas", "candidates": ["easy", MyScheduler()]}``). Each run uses its own
``copy.deepcopy`` of the instance, so the instance given is never changed and every
replication starts from the same state.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Union

from . import _sitesim
from ._sitesim import Job, RunningJob, View

__all__ = ["Job", "Policy", "RunningJob", "Scheduler", "View"]


class Scheduler:
    """A scheduling policy written in Python: the Rust ``Scheduler`` trait's callbacks.

    sitesim calls :meth:`schedule` once per scheduling pass in which a waiting job fits in
    the free processors (after all arrivals and ends of that second), with a read-only
    :class:`View` of the machine: ``view.now``, ``view.free``, ``view.total``,
    ``view.queue`` (the waiting :class:`Job` s in submission order, each with ``id``,
    ``user``, ``size``, ``estimate``, ``plan`` and ``submit``), ``view.running`` (each
    with ``job``, ``start`` and ``expected_end``), and the backfillers' helpers
    ``view.shadow(job, starting)`` (EASY's shadow time and extra processors),
    ``view.earliest_start(job, starting)`` and ``view.easy(order)`` (EASY's whole pass
    over the jobs in ``order``, the queue by default). A scheduler sees only estimates (or a
    predictor's ``plan``), never a job's runtime before it ends.

    The jobs it returns start now, in order; each must be waiting, named once, and fit in
    what the jobs before it left free. Anything else ends the run with a
    :class:`SitesimError` naming the job and the rule; an exception in a callback ends it
    and is raised again with its traceback.

    ``name`` (default: the class's name) names the policy in results as ``py.NAME``.
    """

    name: Optional[str] = None

    def schedule(self, view: View) -> Iterable[Union[Job, int]]:
        """The scheduling pass: the jobs (or their ids) to start now."""
        raise NotImplementedError(f"{type(self).__name__} must define schedule(view)")

    def on_submit(self, job: Job, now: int) -> None:
        """A job has joined the queue at time ``now`` (optional)."""

    def on_end(self, job: Job, now: int) -> None:
        """A running job has ended at time ``now`` (optional)."""

    def sync(self, view: View) -> None:
        """Adopt the state in ``view``, forgetting what earlier events taught (optional;
        an adaptive policy calls it when it hands control to this scheduler)."""

    def wake_at(self) -> Optional[int]:
        """A time at which this scheduler needs a pass even if no job arrives or ends
        then; asked after every pass (optional)."""
        return None


# What a function takes wherever a policy is: a name or spec ("easy",
# "creasy:alpha=0.5"), a Scheduler, or a spec as a dict whose values may hold either
# ({"name": "pbas", "candidates": ["easy", MyScheduler()]}).
Policy = Union[str, Scheduler, Mapping[str, Any]]

_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def _hooks(s: Scheduler) -> tuple:
    cls = type(s)
    return tuple(
        getattr(cls, hook) is not getattr(Scheduler, hook)
        for hook in ("on_submit", "on_end", "sync", "wake_at")
    )


def _register(s: Scheduler, registrations: List[Any]) -> str:
    label = s.name or type(s).__name__
    if not isinstance(label, str) or not _NAME.fullmatch(label):
        raise ValueError(f"a scheduler's name is letters, digits, '_', '.' and '-', not {label!r}")
    if not callable(getattr(s, "schedule", None)):
        raise TypeError(f"{type(s).__name__} has no schedule(view) method")
    registration = _sitesim.register_scheduler("py." + label, s, _hooks(s))
    registrations.append(registration)
    return registration.name


def _toml(value: Any, registrations: List[Any]) -> str:
    """A policy parameter as the TOML value of a ``NAME:key=value`` spec."""
    if isinstance(value, (Scheduler, Mapping)):
        return json.dumps(policy_spec(value, registrations))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Sequence):
        return "[" + ",".join(_toml(v, registrations) for v in value) + "]"
    raise TypeError(f"a policy parameter is a number, a string, a list or a policy, not {value!r}")


def policy_spec(policy: Policy, registrations: List[Any]) -> str:
    """The spec string of ``policy``; each Python scheduler in it is registered (and its
    registration appended to ``registrations``)."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, Scheduler):
        return _register(policy, registrations)
    if isinstance(policy, Mapping):
        params = dict(policy)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise ValueError(f"a policy given as a dict needs a 'name': {policy!r}")
        if not params:
            return name
        return name + ":" + ",".join(f"{k}={_toml(v, registrations)}" for k, v in params.items())
    raise TypeError(
        f"a policy is a name, a sitesim.Scheduler or a dict, not {type(policy).__name__}"
    )


def raise_callback_error(registrations: List[Any], error: BaseException) -> None:
    """After a run failed with ``error``: raises the exception a Python scheduler's
    callback raised (with its traceback, ``error`` as its cause), if one did."""
    for registration in registrations:
        exc = registration.take_error()
        if exc is not None:
            raise exc from error


def used_instances(registrations: List[Any]) -> List["Scheduler"]:
    """The instances of the Python schedulers that a run used (each run's deep copy,
    with the state it ended in), in the order the runs made them."""
    return [obj for registration in registrations for obj in registration.take_instances()]
