"""A Gymnasium environment in which an agent schedules a site whose users react.

An episode is a whole run of sitesim: a replay of a log (open loop), a feedback replay
(the log's users wait for their results before their next jobs) or a resampled population
of the log's users (closed loop, ``population`` times the log's, for ``weeks``). The agent
is the scheduler: whenever jobs wait and none is reserved, it picks one of the first
``window`` waiting jobs (in submission order). The job starts now if it fits; otherwise it
is reserved and starts as soon as enough processors are free, while (with
``backfill=True``, the default) later jobs that do not delay it start by EASY's rule. An
action naming an empty slot picks the first job and is counted as invalid
(``info["action_mask"]`` says which slots hold a job).

**Observation** (``float32``, all in [0, 1], ``3 + 6 * window`` numbers):

- ``[0]`` free processors / machine size; ``[1]`` waiting jobs ``q`` as ``q / (q + window)``;
  ``[2]`` time of day of the simulated clock (seconds since midnight / 86400);
- then for each of the ``window`` slots, six numbers: 1 if it holds a job; its
  processors / machine size; its plan (estimate or prediction) and the time it has
  waited, each as ``ln(1 + seconds) / ln(1 + 30 days)`` capped at 1; 1 if it fits now;
  1 if its user is in a session (a job running, or the latest one ended within 20
  minutes). Empty slots are zeros.

**Reward**: a weighted sum of what changed since the previous decision, with weights
``reward`` (a dict, or one of the names in :data:`REWARDS`) over the counters
``submitted`` (jobs the users submitted: sessions continuing), ``jobs`` (jobs ended),
``proc_hours`` (processor-hours of the jobs ended), ``bsld`` (sum of their bounded
slowdowns, 10 s bound), ``wait_hours`` (hours waited by all waiting jobs) and
``invalid`` (invalid actions). The last step adds what happened after the last decision.

``reset(seed=s)`` starts a new episode; with ``mode="resample"`` the population drawn
depends on ``s`` only, so every policy evaluated with the same seeds faces the same users
(common random numbers). At the end ``info["summary"]`` is the run's summary, as
:func:`sitesim.replay` (or ``feedback``, ``resample``) gives it.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _sitesim
from .logs import Log, LogFile
from ._argv import option

__all__ = ["ClosedLoopEnv", "COUNTERS", "REWARDS"]

#: The counters a reward weighs, in the order the simulation reports them.
COUNTERS = ("submitted", "jobs", "proc_hours", "bsld", "wait_hours", "invalid")

#: Named rewards: their weights over :data:`COUNTERS`.
REWARDS: Dict[str, Dict[str, float]] = {
    "jobs": {"jobs": 1.0},
    "proc_hours": {"proc_hours": 1.0},
    "wait": {"wait_hours": -1.0},
    "bsld": {"bsld": -1.0},
    "sessions": {"submitted": 1.0},
}

MODES = ("replay", "feedback", "resample")


class ClosedLoopEnv(gymnasium.Env):
    """Scheduling a site as a Gymnasium environment; see the module's documentation.

    ``log`` is an SWF file or a table with SWF's columns; ``mode`` is ``"replay"``,
    ``"feedback"`` (default) or ``"resample"``; ``population`` and ``weeks`` size a
    resampled episode (``population=2.0`` is twice the log's users); ``options`` are
    further options of the command (``{"procs": 128, "threshold": "20m"}``).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        log: Log,
        mode: str = "feedback",
        *,
        window: int = 16,
        backfill: bool = True,
        reward: Union[str, Mapping[str, float]] = "jobs",
        population: Optional[float] = None,
        weeks: Optional[float] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode is one of {', '.join(MODES)}, not {mode!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window is a positive number of jobs, not {window!r}")
        weights = REWARDS.get(reward) if isinstance(reward, str) else dict(reward)
        if weights is None:
            raise ValueError(f"reward is one of {', '.join(REWARDS)} or a dict, not {reward!r}")
        unknown = set(weights) - set(COUNTERS)
        if unknown:
            raise ValueError(
                f"reward weights {sorted(unknown)}: the counters are {', '.join(COUNTERS)}"
            )
        if mode != "resample" and (population is not None or weeks is not None):
            raise ValueError("population and weeks size a resampled episode (mode='resample')")
        self.mode = mode
        self.window = window
        self.backfill = backfill
        self._weights = np.array([weights.get(c, 0.0) for c in COUNTERS])
        self._log = LogFile(log)
        self._argv = ["--swf", os.fspath(self._log.path)]
        for key, value in (options or {}).items():
            if key in ("scheduler", "out", "replications", "threads", "seed"):
                raise ValueError(f"option {key!r} is the environment's own")
            self._argv += option(key, value)
        if mode == "resample":
            self._argv += ["--replications", "1", "--threads", "1"]
            if population is not None:
                self._argv += ["--population", str(population)]
            if weeks is not None:
                self._argv += ["--weeks", str(weeks)]
        self.observation_space = spaces.Box(0.0, 1.0, (3 + 6 * window,), np.float32)
        self.action_space = spaces.Discrete(window)
        self._episode: Optional[Any] = None
        self._counters = np.zeros(len(COUNTERS))

    def _observe(self, step: tuple) -> Tuple[np.ndarray, float, bool, Dict[str, Any]]:
        done, obs, mask, counters, now, summary = step
        counters = np.asarray(counters)
        reward = float(self._weights @ (counters - self._counters))
        self._counters = counters
        info: Dict[str, Any] = {"now": now, "counters": dict(zip(COUNTERS, counters.tolist()))}
        if done:
            observation = np.zeros(self.observation_space.shape, np.float32)
            info["action_mask"] = np.zeros(self.window, np.int8)
            info["summary"] = json.loads(summary)
            self._episode = None
        else:
            observation = np.frombuffer(obs, np.float32).copy()
            info["action_mask"] = np.frombuffer(mask, np.int8).copy()
        return observation, reward, done, info

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self.close()
        argv = list(self._argv)
        if self.mode == "resample":
            run_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            argv += ["--seed", str(run_seed)]
        self._counters = np.zeros(len(COUNTERS))
        self._episode = _sitesim.Episode(self.mode, argv, self.window, self.backfill)
        observation, _, done, info = self._observe(self._episode.advance(None))
        if done:
            raise _sitesim.SitesimError("the episode has no decision to make: no job waits")
        return observation, info

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        observation, reward, done, info = self._observe(self._episode.advance(int(action)))
        return observation, reward, done, False, info

    def close(self) -> None:
        if self._episode is not None:
            self._episode.close()
            self._episode = None
