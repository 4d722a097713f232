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

What a reward can tell apart depends on the mode (:data:`DEFAULT_REWARD`). In ``replay``
and ``feedback`` the users submit every job of the log, whatever the agent does: it
changes only when jobs run, so over an episode ``submitted``, ``jobs`` and
``proc_hours`` add up to the same for every agent (the log's totals), and only
``bsld``, ``wait_hours`` and ``invalid`` differ; the default there is ``"bsld"`` (minus
the bounded slowdowns, as RLScheduler rewards). In ``resample`` the users submit more
when served better and give up when served worse, so the work done differs too; the
default there is ``"jobs"``. A reward whose episode return is the same for every agent
in its mode draws a warning at construction (:class:`ConstantRewardWarning`).

**Episodes** are a whole run by default. In ``replay`` and ``feedback``,
``episode_jobs=N`` or ``episode_weeks=W`` makes each episode N consecutive jobs (or the
jobs submitted in W weeks) from a start drawn by ``reset(seed=...)``, as RLScheduler
samples its trajectories; ``max_steps`` cuts an episode after that many decisions
(``truncated`` is then true, as Gymnasium's time limits do).

**Waiting**: with ``wait=True`` the action ``window`` starts nothing until the next
event (a job's end or arrival); it is offered (in the mask) only while a job runs.

**Baseline**: with ``baseline="easy"`` (or ``"fcfs"``) each episode is also run by that
policy (the first job always, with or without backfilling) on the same seed and jobs,
and the last step's reward subtracts the baseline's return: an episode's return is the
agent's minus the baseline's, positive when the agent does better
(``info["baseline_return"]`` has it). Episodes cut by ``max_steps`` are not compared. The environment
is registered as ``sitesim/Replay-v0``, ``sitesim/Feedback-v0`` and
``sitesim/Resample-v0`` for ``gymnasium.make(id, log=...)``; ``action_masks()`` gives
the mask of the current decision (as ``sb3_contrib``'s ``MaskablePPO`` asks for), and
``render()`` the machine and the offered jobs as text (``render_mode="ansi"``) or as an
image (``"rgb_array"``: one column per slot, its size, plan and wait as bars).

``reset(seed=s)`` starts a new episode; with ``mode="resample"`` the population drawn
depends on ``s`` only, so every policy evaluated with the same seeds faces the same users
(common random numbers). At the end ``info["summary"]`` is the run's summary, as
:func:`sitesim.replay` (or ``feedback``, ``resample``) gives it.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _sitesim
from .logs import Log, LogFile, read_swf
from ._argv import option

__all__ = ["ClosedLoopEnv", "COUNTERS", "ConstantRewardWarning", "DEFAULT_REWARD", "REWARDS"]

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

#: The reward of each mode when none is given: one that tells agents apart there.
DEFAULT_REWARD: Dict[str, str] = {"replay": "bsld", "feedback": "bsld", "resample": "jobs"}

#: The counters whose episode totals are the log's, whatever the agent does, by mode.
CONSTANT: Dict[str, Tuple[str, ...]] = {
    "replay": ("submitted", "jobs", "proc_hours"),
    "feedback": ("submitted", "jobs", "proc_hours"),
    "resample": (),
}


class ConstantRewardWarning(UserWarning):
    """A reward whose episode return is the same for every agent in the mode."""


def _register() -> None:
    for mode in MODES:
        gymnasium.register(
            id=f"sitesim/{mode.capitalize()}-v0",
            entry_point="sitesim.gym:ClosedLoopEnv",
            kwargs={"mode": mode},
        )


class ClosedLoopEnv(gymnasium.Env):
    """Scheduling a site as a Gymnasium environment; see the module's documentation.

    ``log`` is an SWF file or a table with SWF's columns; ``mode`` is ``"replay"``,
    ``"feedback"`` (default) or ``"resample"``; ``population`` and ``weeks`` size a
    resampled episode (``population=2.0`` is twice the log's users); ``options`` are
    further options of the command (``{"procs": 128, "threshold": "20m"}``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        log: Log,
        mode: str = "feedback",
        *,
        window: int = 16,
        backfill: bool = True,
        reward: Union[str, Mapping[str, float], None] = None,
        population: Optional[float] = None,
        weeks: Optional[float] = None,
        max_steps: Optional[int] = None,
        episode_jobs: Optional[int] = None,
        episode_weeks: Optional[float] = None,
        wait: bool = False,
        baseline: Optional[str] = None,
        options: Optional[Mapping[str, Any]] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode is one of {', '.join(MODES)}, not {mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode is 'ansi', 'rgb_array' or None, not {render_mode!r}")
        if baseline not in (None, "easy", "fcfs"):
            raise ValueError(f"baseline is 'easy', 'fcfs' or None, not {baseline!r}")
        if episode_jobs is not None and episode_weeks is not None:
            raise ValueError("give episode_jobs or episode_weeks, not both")
        if (episode_jobs is not None or episode_weeks is not None) and mode == "resample":
            raise ValueError("episode_jobs and episode_weeks sample a log's replay; a "
                             "resampled episode is sized by population and weeks")
        if episode_jobs is not None and (isinstance(episode_jobs, bool) or episode_jobs < 1
                                         or int(episode_jobs) != episode_jobs):
            raise ValueError(f"episode_jobs is a positive number of jobs, not {episode_jobs!r}")
        if episode_weeks is not None and not episode_weeks > 0:
            raise ValueError(f"episode_weeks is a positive number of weeks, not {episode_weeks!r}")
        if max_steps is not None and (isinstance(max_steps, bool) or int(max_steps) != max_steps
                                      or max_steps < 1):
            raise ValueError(f"max_steps is a positive number of decisions, not {max_steps!r}")
        if reward is None:
            reward = DEFAULT_REWARD[mode]
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
        constant = [c for c, w in weights.items() if w and c in CONSTANT[mode]]
        if constant and not any(w for c, w in weights.items() if c not in CONSTANT[mode]):
            warnings.warn(
                f"reward {reward!r}: in mode {mode!r} the users submit every job of the log "
                f"whatever the agent does, so {', '.join(constant)} add up to the log's "
                "totals and every agent's episode return is the same; reward 'bsld' or "
                "'wait' there, or use mode='resample'",
                ConstantRewardWarning,
                stacklevel=2,
            )
        if mode != "resample" and (population is not None or weeks is not None):
            raise ValueError("population and weeks size a resampled episode (mode='resample')")
        self.mode = mode
        self.wait = bool(wait)
        self.baseline = baseline
        self.episode_jobs = None if episode_jobs is None else int(episode_jobs)
        self.episode_weeks = episode_weeks
        self.baseline_return: Optional[float] = None
        self.render_mode = render_mode
        self.max_steps = None if max_steps is None else int(max_steps)
        self.window = window
        self.backfill = backfill
        self._weights = np.array([weights.get(c, 0.0) for c in COUNTERS])
        self._log = LogFile(log)
        self._table = None
        if episode_jobs is not None or episode_weeks is not None:
            self._table = log if hasattr(log, "columns") else read_swf(self._log.path)
            if episode_jobs is not None and episode_jobs > len(self._table):
                raise ValueError(f"episode_jobs={episode_jobs}: the log has {len(self._table)} jobs")
        self._argv: List[str] = []
        for key, value in (options or {}).items():
            if key in ("scheduler", "out", "replications", "threads", "seed"):
                raise ValueError(f"option {key!r} is the environment's own")
            self._argv += option(key, value)
        if mode == "resample":
            self._argv += ["--replications", "1", "--threads", "1"]
            self._argv += option("population", population) + option("weeks", weeks)
        self.observation_space = spaces.Box(0.0, 1.0, (3 + 6 * window,), np.float32)
        self.action_space = spaces.Discrete(window + int(self.wait))
        self._episode: Optional[Any] = None
        self._counters = np.zeros(len(COUNTERS))
        self._steps = 0
        self._last: Tuple[np.ndarray, Dict[str, Any]] = (
            np.zeros(self.observation_space.shape, np.float32),
            {"action_mask": np.zeros(self.action_space.n, np.int8)},
        )
        self._episode_log: Optional[LogFile] = None

    def _observe(self, step: tuple) -> Tuple[np.ndarray, float, bool, Dict[str, Any]]:
        done, obs, mask, counters, now, summary = step
        counters = np.asarray(counters)
        reward = float(self._weights @ (counters - self._counters))
        self._counters = counters
        info: Dict[str, Any] = {"now": now, "counters": dict(zip(COUNTERS, counters.tolist()))}
        if done:
            observation = np.zeros(self.observation_space.shape, np.float32)
            info["action_mask"] = np.zeros(self.action_space.n, np.int8)
            info["summary"] = json.loads(summary)
            self._episode = None
            if self.baseline_return is not None:
                reward -= self.baseline_return
                info["baseline_return"] = self.baseline_return
        else:
            observation = np.frombuffer(obs, np.float32).copy()
            info["action_mask"] = np.frombuffer(mask, np.int8).copy()
        self._last = (observation, info)
        return observation, reward, done, info

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self.close()
        argv = ["--swf", os.fspath(self._sampled().path)] + self._argv
        if self.mode == "resample":
            run_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            argv += ["--seed", str(run_seed)]
        self._counters = np.zeros(len(COUNTERS))
        self._steps = 0
        self.baseline_return = None
        if self.baseline is not None:
            autopilot = _sitesim.Episode(self.mode, argv, self.window,
                                         self.baseline == "easy", False, True)
            counters = np.asarray(autopilot.advance(None)[3])
            self.baseline_return = float(self._weights @ counters)
        self._episode = _sitesim.Episode(self.mode, argv, self.window, self.backfill, self.wait)
        observation, _, done, info = self._observe(self._episode.advance(None))
        if done:
            raise _sitesim.SitesimError("the episode has no decision to make: no job waits")
        return observation, info

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        observation, reward, done, info = self._observe(self._episode.advance(int(action)))
        self._steps += 1
        truncated = not done and self.max_steps is not None and self._steps >= self.max_steps
        if truncated:
            self.close()
        return observation, reward, done, truncated, info

    def _sampled(self) -> LogFile:
        """The log of the next episode: the whole log, or the jobs drawn from it."""
        table = self._table
        if table is None:
            return self._log
        if self.episode_jobs is not None:
            start = int(self.np_random.integers(len(table) - self.episode_jobs + 1))
            part = table.iloc[start:start + self.episode_jobs]
        else:
            submit = table[table.columns[1]] if "submit" not in table else table["submit"]
            span = int(self.episode_weeks * 7 * 86400)
            first, last = int(submit.min()), int(submit.max())
            start = first + int(self.np_random.integers(max(last - span - first, 0) + 1))
            part = table[(submit >= start) & (submit < start + span)]
            if part.empty:
                part = table[submit >= start].head(1)
        self._episode_log = LogFile(part)
        return self._episode_log

    def action_masks(self) -> np.ndarray:
        """Which actions name a job at the current decision (``bool``, one per slot)."""
        return self._last[1]["action_mask"].astype(bool)

    def render(self) -> Union[str, np.ndarray, None]:
        """The machine and the offered jobs at the current decision, as text or as an
        RGB image (``render_mode``)."""
        obs, info = self._last
        if self.render_mode == "rgb_array":
            return _image(obs, self.window)
        if self.render_mode != "ansi":
            return None
        lines = [
            f"t={info.get('now', 0)} s  free {obs[0]:.0%} of the machine  "
            f"waiting {obs[1]:.2f} (q / (q + window))",
        ]
        for slot in range(self.window):
            job = obs[3 + 6 * slot: 9 + 6 * slot]
            if job[0]:
                lines.append(
                    f"  [{slot:2}] size {job[1]:.0%}  plan {job[2]:.2f}  waited {job[3]:.2f}"
                    f"{'  fits' if job[4] else ''}{'  in session' if job[5] else ''}"
                )
        return "\n".join(lines)

    def close(self) -> None:
        if self._episode is not None:
            self._episode.close()
            self._episode = None


def _image(obs: np.ndarray, window: int) -> np.ndarray:
    """An observation as an RGB image, 64 pixels high: the left band the machine's free
    share (green) and the queue (red), then a column of three bars per slot (size blue,
    plan yellow, wait red), grey when the slot is empty."""
    height, bar = 64, 4
    image = np.full((height, 2 * bar + window * 3 * bar, 3), 255, np.uint8)

    def fill(x: int, value: float, colour: Tuple[int, int, int]) -> None:
        top = height - int(round(float(value) * height))
        image[top:, x:x + bar] = colour

    fill(0, obs[0], (40, 160, 40))
    fill(bar, obs[1], (200, 40, 40))
    for slot in range(window):
        job = obs[3 + 6 * slot: 9 + 6 * slot]
        x = 2 * bar + slot * 3 * bar
        if not job[0]:
            image[:, x:x + 3 * bar] = 220
            continue
        fill(x, job[1], (40, 80, 200))
        fill(x + bar, job[2], (220, 180, 30))
        fill(x + 2 * bar, job[3], (200, 40, 40))
    return image


_register()
