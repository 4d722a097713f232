"""sitesim's commands as functions (written by python/generate_api.py from the
command line's definition: do not edit).

Each function runs the `sitesim` command of its name in this process, with the same
options, defaults and errors: a parameter is the option of that name (``procs=128``
is ``--procs 128``; ``check=True`` is ``--check``; a list repeats an option; a dict
gives ``key=value`` per item: ``questionable={"oversize": "clamp"}``). ``None``
leaves an option to the command's default. A log is a path or a DataFrame with
SWF's columns; a policy is a name, a dict or a :class:`sitesim.Scheduler`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Mapping, Optional, Sequence, Union

from . import _run
from ._run import PathLike
from .logs import Log
from .results import Result
from .scheduler import Policy

__all__ = ["analyze", "calibrate", "estimates", "export", "feedback", "fit", "generate", "merge", "model", "replay", "report", "resample", "sweep"]

def replay(
    swf: Log,
    scheduler: Policy = 'easy',
    *,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    estimates: Optional[str] = None,
    seed: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
    interarrival_factor: Optional[float] = None,
) -> Result:
    """Replay a log open-loop: every job is submitted at its logged time

    Parameters:

    swf: The log, in the Standard Workload Format
    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    estimates: The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]),
        scaled:K (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir
        et al.) [default: log]
    seed: Seed of the estimate models' randomness [default: 1]
    questionable: What to do with one kind of questionable job, as KIND=ACTION;
        repeatable. Kinds and actions (first is the default):
        negative-runtime=skip|error, zero-runtime=keep|skip|error,
        bad-size=fallback|skip|error, oversize=skip|clamp|error,
        missing-estimate=runtime|max-runtime|skip|error
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    out: Write summary.json, jobs.csv and schedule.swf (and, for feedback,
        users.csv, sessions.csv and cycles.csv) into this directory
    report: Also write the report of --out (DIR/report/index.html), as `sitesim
        report DIR` does
    interarrival_factor: Multiply every interarrival time by this factor (below 1
        raises the load). Caveat: this also compresses the daily and weekly cycles
        of the log, so a higher load obtained this way is not what more users would
        produce [default: 1]

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.log_command("replay", args)


def feedback(
    swf: Log,
    scheduler: Policy = 'easy',
    *,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    estimates: Optional[str] = None,
    seed: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
    threshold: Optional[Union[int, str]] = None,
    session_rule: Optional[Literal['previous', 'latest']] = None,
    dependence: Optional[Literal['think', 'sessions', 'submit', 'start']] = None,
    window_end: Optional[Literal['last-submit', 'last-end']] = None,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
    opening_think: Optional[Literal['calendar', 'keep-lead', 'original', 'capped', 'zero']] = None,
    negative_think: Optional[Literal['spacing', 'together']] = None,
    flow_forward: Optional[Literal['any', 'next']] = None,
    calendar_shift: Optional[Literal['moves', 'fixed']] = None,
    away: Optional[Literal['usual-hour', 'next-window']] = None,
    continuation: Optional[str] = None,
    patience: Optional[str] = None,
    strikes: Optional[int] = None,
) -> Result:
    """Replay a log with feedback: each user submits its jobs in log order, each once the jobs it depends on have ended on the simulated machine, inside its session windows

    Parameters:

    swf: The log, in the Standard Workload Format
    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    estimates: The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]),
        scaled:K (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir
        et al.) [default: log]
    seed: Seed of the estimate models' randomness [default: 1]
    questionable: What to do with one kind of questionable job, as KIND=ACTION;
        repeatable. Kinds and actions (first is the default):
        negative-runtime=skip|error, zero-runtime=keep|skip|error,
        bad-size=fallback|skip|error, oversize=skip|clamp|error,
        missing-estimate=runtime|max-runtime|skip|error
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    out: Write summary.json, jobs.csv and schedule.swf (and, for feedback,
        users.csv, sessions.csv and cycles.csv) into this directory
    report: Also write the report of --out (DIR/report/index.html), as `sitesim
        report DIR` does
    threshold: Session threshold: a think time this long or longer starts a new
        session [default: 20m]
    session_rule: Think time measured from the previous job's end (previous) or from
        the latest end among all earlier jobs (latest) [default: previous]
    dependence: The earlier results a job waits for: the one its think time is
        measured from (think), the last to end in each earlier session (sessions,
        the seed's shortcut), every one that had ended by its submission (submit) or
        by its start (start, the seed's literal wording) [default: think]
    window_end: Session windows end at the last end of the session's jobs (last-end)
        or at its last submission (last-submit) [default: last-end]
    time_zone: The site's time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC) [default: the log header's TimeZoneString, else TimeZone, else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]
    opening_think: The think time of jobs that opened a session in the log: calendar
        (the session keeps its logged start: the break shortens down to the session
        threshold after a late result and lengthens by as much at most after an
        early one), keep-lead (as calendar for a late result, the logged break after
        an early one), capped (the logged break, at most the threshold), original
        (the logged break) or zero [default: calendar]
    negative_think: Jobs submitted while the user's previous job still ran keep
        their logged spacing from the previous submission (spacing) or are submitted
        with it (together) [default: spacing]
    flow_forward: A job may flow forward into any earlier window its ready time
        falls in (any), or only into the session before its own (next) [default:
        any]
    calendar_shift: A user's calendar moves with the time it gains by going on where
        the log broke off, or loses by breaking off where the log went on (moves),
        or stays the log's, the next break making it up (fixed) [default: moves]
    away: Where a user whose next job is ready outside its session windows comes
        back: at its next usual hour of the week (from the log) or its next window
        if sooner (usual-hour), or at its next window (next-window, the seed's text
        taken literally) [default: usual-hour]
    continuation: How users react to service: the continuation curve that breaks
        sessions after long responses and extends them after short ones ('fit':
        fitted from the log, the default, or for a model site the curve fitted from
        KTH that is built in; a file such as models/continuation-kth.toml; 'off': no
        reaction, every session keeps its logged jobs, and its length in time
        follows the service) [default: fit]
    patience: A user whose jobs wait longer than the log's own service gave them by
        more than this, --strikes times, leaves for good (frustrated): 'fit' (the
        default), the log's longest wait, at least the session threshold; a
        duration; or 'off' [default: fit]
    strikes: Waits over --patience after which a user leaves [default: 3]

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.log_command("feedback", args)


def resample(
    swf: Log,
    scheduler: Policy = 'easy',
    *,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    estimates: Optional[str] = None,
    seed: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
    threshold: Optional[Union[int, str]] = None,
    session_rule: Optional[Literal['previous', 'latest']] = None,
    dependence: Optional[Literal['think', 'sessions', 'submit', 'start']] = None,
    window_end: Optional[Literal['last-submit', 'last-end']] = None,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
    opening_think: Optional[Literal['calendar', 'keep-lead', 'original', 'capped', 'zero']] = None,
    negative_think: Optional[Literal['spacing', 'together']] = None,
    flow_forward: Optional[Literal['any', 'next']] = None,
    calendar_shift: Optional[Literal['moves', 'fixed']] = None,
    away: Optional[Literal['usual-hour', 'next-window']] = None,
    continuation: Optional[str] = None,
    patience: Optional[str] = None,
    strikes: Optional[int] = None,
    weeks: Optional[int] = None,
    replications: Optional[int] = None,
    users: Optional[float] = None,
    long_term: Optional[float] = None,
    temporary: Optional[float] = None,
    regenerate_after: Optional[Union[int, str]] = None,
    regenerate_from: Optional[Literal['finish', 'calendar']] = None,
    start_week: Optional[Literal['activity', 'cycle']] = None,
    long_term_share: Optional[float] = None,
    edge: Optional[Union[int, str]] = None,
    weight: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    flurry_weight: Optional[float] = None,
    no_feedback: bool = False,
    threads: Optional[int] = None,
) -> Result:
    """Resample a log's users into new populations (long-term users kept, temporary ones arriving every week), run with feedback in parallel replications

    Parameters:

    swf: The log, in the Standard Workload Format
    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    estimates: The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]),
        scaled:K (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir
        et al.) [default: log]
    seed: Seed of the estimate models' randomness [default: 1]
    questionable: What to do with one kind of questionable job, as KIND=ACTION;
        repeatable. Kinds and actions (first is the default):
        negative-runtime=skip|error, zero-runtime=keep|skip|error,
        bad-size=fallback|skip|error, oversize=skip|clamp|error,
        missing-estimate=runtime|max-runtime|skip|error
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    out: Write summary.json, jobs.csv and schedule.swf (and, for feedback,
        users.csv, sessions.csv and cycles.csv) into this directory
    report: Also write the report of --out (DIR/report/index.html), as `sitesim
        report DIR` does
    threshold: Session threshold: a think time this long or longer starts a new
        session [default: 20m]
    session_rule: Think time measured from the previous job's end (previous) or from
        the latest end among all earlier jobs (latest) [default: previous]
    dependence: The earlier results a job waits for: the one its think time is
        measured from (think), the last to end in each earlier session (sessions,
        the seed's shortcut), every one that had ended by its submission (submit) or
        by its start (start, the seed's literal wording) [default: think]
    window_end: Session windows end at the last end of the session's jobs (last-end)
        or at its last submission (last-submit) [default: last-end]
    time_zone: The site's time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC) [default: the log header's TimeZoneString, else TimeZone, else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]
    opening_think: The think time of jobs that opened a session in the log: calendar
        (the session keeps its logged start: the break shortens down to the session
        threshold after a late result and lengthens by as much at most after an
        early one), keep-lead (as calendar for a late result, the logged break after
        an early one), capped (the logged break, at most the threshold), original
        (the logged break) or zero [default: calendar]
    negative_think: Jobs submitted while the user's previous job still ran keep
        their logged spacing from the previous submission (spacing) or are submitted
        with it (together) [default: spacing]
    flow_forward: A job may flow forward into any earlier window its ready time
        falls in (any), or only into the session before its own (next) [default:
        any]
    calendar_shift: A user's calendar moves with the time it gains by going on where
        the log broke off, or loses by breaking off where the log went on (moves),
        or stays the log's, the next break making it up (fixed) [default: moves]
    away: Where a user whose next job is ready outside its session windows comes
        back: at its next usual hour of the week (from the log) or its next window
        if sooner (usual-hour), or at its next window (next-window, the seed's text
        taken literally) [default: usual-hour]
    continuation: How users react to service: the continuation curve that breaks
        sessions after long responses and extends them after short ones ('fit':
        fitted from the log, the default, or for a model site the curve fitted from
        KTH that is built in; a file such as models/continuation-kth.toml; 'off': no
        reaction, every session keeps its logged jobs, and its length in time
        follows the service) [default: fit]
    patience: A user whose jobs wait longer than the log's own service gave them by
        more than this, --strikes times, leaves for good (frustrated): 'fit' (the
        default), the log's longest wait, at least the session threshold; a
        duration; or 'off' [default: fit]
    strikes: Waits over --patience after which a user leaves [default: 3]
    weeks: Measured weeks, after the --warmup and before a cool-down (--cooldown,
        one week when 0) that are simulated too [default: 52]
    replications: Replications (seeds derived from --seed), at most 100000 [default:
        10; calibrate: 100, per resampled row]
    users: Multiplier on the whole population: a resampled run's long-term users and
        temporary arrivals (unless --long-term or --temporary say otherwise), a
        model site's start-up users and new users per week (also --population)
        [default: 1]
    long_term: Multiplier on the long-term users [default: --users]
    temporary: Multiplier on the temporary users and their weekly arrivals [default:
        --users]
    regenerate_after: A long-term user whose trace ended comes back after at least
        this long [default: the time it was inactive in the log]
    regenerate_from: That time runs from the user's actual finish, ahead of its log
        or behind (finish), or from the end of its trace on the log's calendar, or
        its actual finish if later (calendar) [default: finish]
    start_week: Long-term users start in a random week of their activity (activity,
        the seed's) or at a random point of their cycle of activity and regeneration
        interval (cycle) [default: activity]
    long_term_share: A user is long-term when its activity spans at least this share
        of the log [default: 0.5]
    edge: Users whose whole activity lies within this long of either end of the log
        are left out [default: 2 weeks, or a 24th of the log's span if that is
        shorter]
    weight: Weight of one log user, as USER=WEIGHT (0 leaves it out, 3 draws it
        three times as often); repeatable. As a key, a table: `weight = { "17" = 0
        }`
    flurry_weight: Weight of every user with a flurry (a week of more than twice the
        jobs of every other user's busiest week, as `analyze` lists them) not given
        one by --weight: 0 leaves them out (Feitelson 2021, Fig. 6) [default: 1,
        like any user]
    no_feedback: Users submit at their logged times (shifted with them), without
        feedback
    threads: Worker threads [default: all cores]

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.log_command("resample", args)


def model(
    scheduler: Policy = 'easy',
    *,
    model: Optional[PathLike] = None,
    jobs: Optional[PathLike] = None,
    daily_cycle: bool = False,
    work_hours: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    work_hours_for: Optional[Literal['sessions', 'jobs']] = None,
    cpu_work: Optional[float] = None,
    load: Optional[float] = None,
    calibrate: Optional[Literal['submitted', 'generated', 'off']] = None,
    collision_room: Optional[Literal['submissions', 'own-duration', 'class-median']] = None,
    busy_user: Optional[Literal['waiting', 'give-up', 'queue', 'skip']] = None,
    user_lifetime: Optional[Union[int, str]] = None,
    continuation: Optional[str] = None,
    patience: Optional[str] = None,
    strikes: Optional[int] = None,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    users: Optional[float] = None,
    duration: Optional[Union[int, str]] = None,
    replications: Optional[int] = None,
    threads: Optional[int] = None,
    seed: Optional[int] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
) -> Result:
    """Run a model-based site (Talby 2006, as `docs/MODELS.md` describes it): users and sessions drawn from the model, each user with feedback, in parallel replications; a scenario's `source = "model"`

    Parameters:

    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    model: The user and session layers [default: the shipped models/talby2006.toml]
    jobs: The job layer (`sitesim fit`) [default: the shipped
        models/kth-sessions.toml]
    daily_cycle: Sessions start by their class's daily cycle; false: at any hour
        alike
    work_hours: Sessions start only in these local hours, FROM,TO (8,18: 08:00 to
        18:00), at any of them alike
    work_hours_for: What keeps to --work-hours: sessions (their openings) or jobs
        (every arrival: Feitelson 2021, Fig. 21's simple model) [default: sessions]
    cpu_work: Median CPU work per job, seconds; with --load, parameterizes the model
        instead of the machine size alone
    load: CPU load, with --cpu-work
    calibrate: Fit the user counts and the job layer's runtimes to the jobs per day,
        median CPU work and load: of what the users submit in the closed loop
        (submitted), of what the plan generates (generated), or not at all (off: the
        thesis's user counts and the fitted runtimes). A scenario also takes true
        (submitted) and false (off) [default: submitted]
    collision_room: What a planned session occupies in the collision rule (Talby
        2006, Listing 5) [default: submissions]
    busy_user: What a user does with a session due while it is busy [default:
        waiting]
    user_lifetime: Weeks of activity after which a user leaves for good, the site
        starting with the users of that many weeks of arrivals; never: the thesis's
        first year of a site [default: 52w]
    continuation: How users react to service: the continuation curve that breaks
        sessions after long responses and extends them after short ones ('fit':
        fitted from the log, the default, or for a model site the curve fitted from
        KTH that is built in; a file such as models/continuation-kth.toml; 'off': no
        reaction, every session keeps its logged jobs, and its length in time
        follows the service) [default: fit]
    patience: A user whose jobs wait longer than the log's own service gave them by
        more than this, --strikes times, leaves for good (frustrated): 'fit' (the
        default), the log's longest wait, at least the session threshold; a
        duration; or 'off' [default: fit]
    strikes: Waits over --patience after which a user leaves [default: 3]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    users: Multiplier of the model's users (start-up and new ones), as `[population]
        users` [default: 1]
    duration: Simulated time, warm-up and cool-down included [default: 52w]
    replications: Replications (seeds derived from --seed), at most 100000 [default:
        10]
    threads: Worker threads [default: all cores]
    seed: Seed of the replications [default: 1]
    out: Write summary.json and replications.csv into this directory
    report: Also write the report of --out (DIR/report/index.html)

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.log_command("model", args)


def calibrate(
    swf: Log,
    scheduler: Policy = 'easy',
    *,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    estimates: Optional[str] = None,
    seed: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
    threshold: Optional[Union[int, str]] = None,
    session_rule: Optional[Literal['previous', 'latest']] = None,
    dependence: Optional[Literal['think', 'sessions', 'submit', 'start']] = None,
    window_end: Optional[Literal['last-submit', 'last-end']] = None,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
    opening_think: Optional[Literal['calendar', 'keep-lead', 'original', 'capped', 'zero']] = None,
    negative_think: Optional[Literal['spacing', 'together']] = None,
    flow_forward: Optional[Literal['any', 'next']] = None,
    calendar_shift: Optional[Literal['moves', 'fixed']] = None,
    away: Optional[Literal['usual-hour', 'next-window']] = None,
    continuation: Optional[str] = None,
    patience: Optional[str] = None,
    strikes: Optional[int] = None,
    weeks: Optional[int] = None,
    replications: Optional[int] = None,
    users: Optional[float] = None,
    long_term: Optional[float] = None,
    temporary: Optional[float] = None,
    regenerate_after: Optional[Union[int, str]] = None,
    regenerate_from: Optional[Literal['finish', 'calendar']] = None,
    start_week: Optional[Literal['activity', 'cycle']] = None,
    long_term_share: Optional[float] = None,
    edge: Optional[Union[int, str]] = None,
    weight: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    flurry_weight: Optional[float] = None,
    no_feedback: bool = False,
    threads: Optional[int] = None,
) -> Result:
    """The check before a closed-loop study of a log: the log's own figures beside its users fed the log's own service (which must give back the log), resampled under that service, under a scheduler with and without feedback, and what makes the congestion of resampled workloads (Feitelson 2021, Figs. 15, 17)

    Parameters:

    swf: The log, in the Standard Workload Format
    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    estimates: The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]),
        scaled:K (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir
        et al.) [default: log]
    seed: Seed of the estimate models' randomness [default: 1]
    questionable: What to do with one kind of questionable job, as KIND=ACTION;
        repeatable. Kinds and actions (first is the default):
        negative-runtime=skip|error, zero-runtime=keep|skip|error,
        bad-size=fallback|skip|error, oversize=skip|clamp|error,
        missing-estimate=runtime|max-runtime|skip|error
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    out: Write summary.json, jobs.csv and schedule.swf (and, for feedback,
        users.csv, sessions.csv and cycles.csv) into this directory
    report: Also write the report of --out (DIR/report/index.html), as `sitesim
        report DIR` does
    threshold: Session threshold: a think time this long or longer starts a new
        session [default: 20m]
    session_rule: Think time measured from the previous job's end (previous) or from
        the latest end among all earlier jobs (latest) [default: previous]
    dependence: The earlier results a job waits for: the one its think time is
        measured from (think), the last to end in each earlier session (sessions,
        the seed's shortcut), every one that had ended by its submission (submit) or
        by its start (start, the seed's literal wording) [default: think]
    window_end: Session windows end at the last end of the session's jobs (last-end)
        or at its last submission (last-submit) [default: last-end]
    time_zone: The site's time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC) [default: the log header's TimeZoneString, else TimeZone, else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]
    opening_think: The think time of jobs that opened a session in the log: calendar
        (the session keeps its logged start: the break shortens down to the session
        threshold after a late result and lengthens by as much at most after an
        early one), keep-lead (as calendar for a late result, the logged break after
        an early one), capped (the logged break, at most the threshold), original
        (the logged break) or zero [default: calendar]
    negative_think: Jobs submitted while the user's previous job still ran keep
        their logged spacing from the previous submission (spacing) or are submitted
        with it (together) [default: spacing]
    flow_forward: A job may flow forward into any earlier window its ready time
        falls in (any), or only into the session before its own (next) [default:
        any]
    calendar_shift: A user's calendar moves with the time it gains by going on where
        the log broke off, or loses by breaking off where the log went on (moves),
        or stays the log's, the next break making it up (fixed) [default: moves]
    away: Where a user whose next job is ready outside its session windows comes
        back: at its next usual hour of the week (from the log) or its next window
        if sooner (usual-hour), or at its next window (next-window, the seed's text
        taken literally) [default: usual-hour]
    continuation: How users react to service: the continuation curve that breaks
        sessions after long responses and extends them after short ones ('fit':
        fitted from the log, the default, or for a model site the curve fitted from
        KTH that is built in; a file such as models/continuation-kth.toml; 'off': no
        reaction, every session keeps its logged jobs, and its length in time
        follows the service) [default: fit]
    patience: A user whose jobs wait longer than the log's own service gave them by
        more than this, --strikes times, leaves for good (frustrated): 'fit' (the
        default), the log's longest wait, at least the session threshold; a
        duration; or 'off' [default: fit]
    strikes: Waits over --patience after which a user leaves [default: 3]
    weeks: Measured weeks, after the --warmup and before a cool-down (--cooldown,
        one week when 0) that are simulated too [default: 52]
    replications: Replications (seeds derived from --seed), at most 100000 [default:
        10; calibrate: 100, per resampled row]
    users: Multiplier on the whole population: a resampled run's long-term users and
        temporary arrivals (unless --long-term or --temporary say otherwise), a
        model site's start-up users and new users per week (also --population)
        [default: 1]
    long_term: Multiplier on the long-term users [default: --users]
    temporary: Multiplier on the temporary users and their weekly arrivals [default:
        --users]
    regenerate_after: A long-term user whose trace ended comes back after at least
        this long [default: the time it was inactive in the log]
    regenerate_from: That time runs from the user's actual finish, ahead of its log
        or behind (finish), or from the end of its trace on the log's calendar, or
        its actual finish if later (calendar) [default: finish]
    start_week: Long-term users start in a random week of their activity (activity,
        the seed's) or at a random point of their cycle of activity and regeneration
        interval (cycle) [default: activity]
    long_term_share: A user is long-term when its activity spans at least this share
        of the log [default: 0.5]
    edge: Users whose whole activity lies within this long of either end of the log
        are left out [default: 2 weeks, or a 24th of the log's span if that is
        shorter]
    weight: Weight of one log user, as USER=WEIGHT (0 leaves it out, 3 draws it
        three times as often); repeatable. As a key, a table: `weight = { "17" = 0
        }`
    flurry_weight: Weight of every user with a flurry (a week of more than twice the
        jobs of every other user's busiest week, as `analyze` lists them) not given
        one by --weight: 0 leaves them out (Feitelson 2021, Fig. 6) [default: 1,
        like any user]
    no_feedback: Users submit at their logged times (shifted with them), without
        feedback
    threads: Worker threads [default: all cores]

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.calibrate(args)


def sweep(
    swf: Log,
    populations: Sequence[float],
    scheduler: Policy = 'easy',
    *,
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    overrun: Optional[Literal['kill', 'extend', 'overrun']] = None,
    check: bool = False,
    estimates: Optional[str] = None,
    seed: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    bsld: Optional[Literal['clamped', 'unclamped']] = None,
    bsld_threshold: Optional[Union[int, str]] = None,
    warmup: Optional[Union[int, str]] = None,
    cooldown: Optional[Union[int, str]] = None,
    out: Optional[PathLike] = None,
    report: bool = False,
    threshold: Optional[Union[int, str]] = None,
    session_rule: Optional[Literal['previous', 'latest']] = None,
    dependence: Optional[Literal['think', 'sessions', 'submit', 'start']] = None,
    window_end: Optional[Literal['last-submit', 'last-end']] = None,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
    opening_think: Optional[Literal['calendar', 'keep-lead', 'original', 'capped', 'zero']] = None,
    negative_think: Optional[Literal['spacing', 'together']] = None,
    flow_forward: Optional[Literal['any', 'next']] = None,
    calendar_shift: Optional[Literal['moves', 'fixed']] = None,
    away: Optional[Literal['usual-hour', 'next-window']] = None,
    continuation: Optional[str] = None,
    patience: Optional[str] = None,
    strikes: Optional[int] = None,
    weeks: Optional[int] = None,
    replications: Optional[int] = None,
    users: Optional[float] = None,
    long_term: Optional[float] = None,
    temporary: Optional[float] = None,
    regenerate_after: Optional[Union[int, str]] = None,
    regenerate_from: Optional[Literal['finish', 'calendar']] = None,
    start_week: Optional[Literal['activity', 'cycle']] = None,
    long_term_share: Optional[float] = None,
    edge: Optional[Union[int, str]] = None,
    weight: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    flurry_weight: Optional[float] = None,
    no_feedback: bool = False,
    threads: Optional[int] = None,
    shard: Optional[str] = None,
    schedulers: Optional[Sequence[Policy]] = None,
) -> Result:
    """Resampled runs over a grid of population multipliers and schedulers: where added users stop adding load. An experiment, as a scenario's `[experiment.sweep] axis = "population"` over `source = "resample"` gives: its results directory is --out [default: results/sweep-LOG]; an interrupted sweep resumes, --shard splits it

    Parameters:

    swf: The log, in the Standard Workload Format
    populations: Population multipliers, comma-separated; each multiplies the base
        population (--long-term, --temporary, both 1 by default)
    scheduler: The scheduling policy, `NAME[:key=value,...]` (`sitesim policies`
        lists them) [default: easy]
    predictor: Plan with a runtime predictor instead of estimates, as
        NAME[:key=value,...]: perfect, estimate, constant, infoless, ruh, easy++,
        sbh, sbh-noest (see models/predictors.toml for the settings). Not with
        conservative
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    overrun: What happens to jobs that run longer than their estimate [default:
        kill]
    check: Verify the scheduling invariants after every pass (always on in debug
        builds)
    estimates: The jobs' estimates: log, exact, uniform:F (uniform in [r, F*r]),
        scaled:K (K times the log's), or modal[:max=DURATION,share=PERCENT] (Tsafrir
        et al.) [default: log]
    seed: Seed of the estimate models' randomness [default: 1]
    questionable: What to do with one kind of questionable job, as KIND=ACTION;
        repeatable. Kinds and actions (first is the default):
        negative-runtime=skip|error, zero-runtime=keep|skip|error,
        bad-size=fallback|skip|error, oversize=skip|clamp|error,
        missing-estimate=runtime|max-runtime|skip|error
    bsld: Bounded slowdown form [default: clamped]
    bsld_threshold: Bounded slowdown threshold, seconds [default: 10]
    warmup: Exclude jobs submitted during this long after the first submission (e.g.
        1w) [default: 0]
    cooldown: Exclude jobs submitted during this long before the last submission
        (e.g. 1w) [default: 0]
    out: Write summary.json, jobs.csv and schedule.swf (and, for feedback,
        users.csv, sessions.csv and cycles.csv) into this directory
    report: Also write the report of --out (DIR/report/index.html), as `sitesim
        report DIR` does
    threshold: Session threshold: a think time this long or longer starts a new
        session [default: 20m]
    session_rule: Think time measured from the previous job's end (previous) or from
        the latest end among all earlier jobs (latest) [default: previous]
    dependence: The earlier results a job waits for: the one its think time is
        measured from (think), the last to end in each earlier session (sessions,
        the seed's shortcut), every one that had ended by its submission (submit) or
        by its start (start, the seed's literal wording) [default: think]
    window_end: Session windows end at the last end of the session's jobs (last-end)
        or at its last submission (last-submit) [default: last-end]
    time_zone: The site's time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC) [default: the log header's TimeZoneString, else TimeZone, else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]
    opening_think: The think time of jobs that opened a session in the log: calendar
        (the session keeps its logged start: the break shortens down to the session
        threshold after a late result and lengthens by as much at most after an
        early one), keep-lead (as calendar for a late result, the logged break after
        an early one), capped (the logged break, at most the threshold), original
        (the logged break) or zero [default: calendar]
    negative_think: Jobs submitted while the user's previous job still ran keep
        their logged spacing from the previous submission (spacing) or are submitted
        with it (together) [default: spacing]
    flow_forward: A job may flow forward into any earlier window its ready time
        falls in (any), or only into the session before its own (next) [default:
        any]
    calendar_shift: A user's calendar moves with the time it gains by going on where
        the log broke off, or loses by breaking off where the log went on (moves),
        or stays the log's, the next break making it up (fixed) [default: moves]
    away: Where a user whose next job is ready outside its session windows comes
        back: at its next usual hour of the week (from the log) or its next window
        if sooner (usual-hour), or at its next window (next-window, the seed's text
        taken literally) [default: usual-hour]
    continuation: How users react to service: the continuation curve that breaks
        sessions after long responses and extends them after short ones ('fit':
        fitted from the log, the default, or for a model site the curve fitted from
        KTH that is built in; a file such as models/continuation-kth.toml; 'off': no
        reaction, every session keeps its logged jobs, and its length in time
        follows the service) [default: fit]
    patience: A user whose jobs wait longer than the log's own service gave them by
        more than this, --strikes times, leaves for good (frustrated): 'fit' (the
        default), the log's longest wait, at least the session threshold; a
        duration; or 'off' [default: fit]
    strikes: Waits over --patience after which a user leaves [default: 3]
    weeks: Measured weeks, after the --warmup and before a cool-down (--cooldown,
        one week when 0) that are simulated too [default: 52]
    replications: Replications (seeds derived from --seed), at most 100000 [default:
        10; calibrate: 100, per resampled row]
    users: Multiplier on the whole population: a resampled run's long-term users and
        temporary arrivals (unless --long-term or --temporary say otherwise), a
        model site's start-up users and new users per week (also --population)
        [default: 1]
    long_term: Multiplier on the long-term users [default: --users]
    temporary: Multiplier on the temporary users and their weekly arrivals [default:
        --users]
    regenerate_after: A long-term user whose trace ended comes back after at least
        this long [default: the time it was inactive in the log]
    regenerate_from: That time runs from the user's actual finish, ahead of its log
        or behind (finish), or from the end of its trace on the log's calendar, or
        its actual finish if later (calendar) [default: finish]
    start_week: Long-term users start in a random week of their activity (activity,
        the seed's) or at a random point of their cycle of activity and regeneration
        interval (cycle) [default: activity]
    long_term_share: A user is long-term when its activity spans at least this share
        of the log [default: 0.5]
    edge: Users whose whole activity lies within this long of either end of the log
        are left out [default: 2 weeks, or a 24th of the log's span if that is
        shorter]
    weight: Weight of one log user, as USER=WEIGHT (0 leaves it out, 3 draws it
        three times as often); repeatable. As a key, a table: `weight = { "17" = 0
        }`
    flurry_weight: Weight of every user with a flurry (a week of more than twice the
        jobs of every other user's busiest week, as `analyze` lists them) not given
        one by --weight: 0 leaves them out (Feitelson 2021, Fig. 6) [default: 1,
        like any user]
    no_feedback: Users submit at their logged times (shifted with them), without
        feedback
    threads: Worker threads [default: all cores]
    shard: Run only shard K of N of the sweep's runs (1 <= K <= N); merge the
        shards' directories with `sitesim merge`
    schedulers: A scheduler to compare, `NAME[:key=value,...]`; repeat the option
        for more [default: --scheduler]

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.experiment("sweep", args)


def merge(
    out: PathLike,
    shards: Sequence[PathLike],
) -> Result:
    """Merge the results directories of an experiment's shards into one

    Parameters:

    out: The merged results directory
    shards: The shards' results directories

    Returns: A :class:`sitesim.Result`: the summary, the tables as DataFrames, ``stats`` for a replicated run, and ``dir`` when ``out`` keeps it.
    """
    args = dict(locals())
    return _run.experiment("merge", args)


def analyze(
    swf: Log,
    *,
    threshold: Optional[Union[int, str]] = None,
    session_rule: Optional[Literal['previous', 'latest']] = None,
    dependence: Optional[Literal['think', 'sessions', 'submit', 'start']] = None,
    window_end: Optional[Literal['last-submit', 'last-end']] = None,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
    procs: Optional[int] = None,
    questionable: Optional[Union[Sequence[str], Mapping[str, Any]]] = None,
    flurry_factor: Optional[float] = None,
    long_term_share: Optional[float] = None,
    edge: Optional[Union[int, str]] = None,
    fit_continuation: Optional[PathLike] = None,
    plot_continuation: Optional[PathLike] = None,
    report: bool = False,
    out: Optional[PathLike] = None,
    figure_width: Optional[int] = None,
    figure_height: Optional[int] = None,
    font_scale: Optional[float] = None,
    figure_format: Optional[Literal['svg', 'png', 'pdf']] = None,
) -> dict:
    """Analyse a log's users: sessions, think times, daily and weekly cycles, flurries, and the pools resampling draws from

    Parameters:

    swf: The log, in the Standard Workload Format
    threshold: Session threshold: a think time this long or longer starts a new
        session [default: 20m]
    session_rule: Think time measured from the previous job's end (previous) or from
        the latest end among all earlier jobs (latest) [default: previous]
    dependence: The earlier results a job waits for: the one its think time is
        measured from (think), the last to end in each earlier session (sessions,
        the seed's shortcut), every one that had ended by its submission (submit) or
        by its start (start, the seed's literal wording) [default: think]
    window_end: Session windows end at the last end of the session's jobs (last-end)
        or at its last submission (last-submit) [default: last-end]
    time_zone: The site's time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC) [default: the log header's TimeZoneString, else TimeZone, else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]
    procs: Processors of the simulated machine [default: the log's MaxProcs]
    questionable: What to do with one kind of questionable job, as KIND=ACTION (see
        `replay`)
    flurry_factor: A user's week is a flurry when it has more than this many times
        the jobs of every other user's busiest week [default: 2]
    long_term_share: Resampling pools: a user is long-term when its activity spans
        at least this share of the log [default: 0.5]
    edge: Resampling pools: users whose whole activity lies within this long of
        either end of the log are left out [default: 2 weeks, or a 24th of the log's
        span if that is shorter]
    fit_continuation: Write the continuation curve fitted from the log to this file
        (TOML)
    plot_continuation: Plot the continuation curve (Feitelson 2021, Fig. 18) to this
        SVG file: the share of continued sessions by response time with the
        logistic, and by slowdown to the same name ending in -slowdown.svg
    report: Write the workload's report: DIR/report/index.html with its figures
        (runtimes, sizes, interarrival times, estimates, daily and weekly cycles,
        the calendar, sessions and think times, the top users)
    out: The report's directory [default: results/analyze-STEM, STEM the log's file
        name without its extensions]
    figure_width: Every figure's width, pixels [default: 800]
    figure_height: Every figure's height, pixels [default: 450]
    font_scale: Every text of the figures, times its default size (0.5 to 4)
        [default: 1]
    figure_format: Each figure's file besides its SVG (which the page shows): png
        (its pixels the figure's width and height) or pdf (vector, a pixel a point)
        [default: svg]

    Returns: The analysis, as ``--json`` prints it.
    """
    args = dict(locals())
    return _run.analyze(args)


def fit(
    swf: Sequence[Log],
    out: PathLike,
    *,
    time_zone: Optional[str] = None,
    unknown_waits: Optional[str] = None,
) -> Path:
    """Fit the job layer of the session model (per session class: start times, jobs per session, repetitions, runtimes, sizes, estimates, think times) from logs

    Parameters:

    swf: A log, in the Standard Workload Format; repeat to pool several (each keeps
        its own machine size and clock)
    out: The model file to write (TOML)
    time_zone: The sites' time zone (UTC, an IANA name, +HH:MM or seconds east of
        UTC), for every log [default: each header's TimeZoneString, else TimeZone,
        else UTC]
    unknown_waits: Jobs whose logged wait is unknown (-1): refuse the log (error),
        take them as 0 (zero), or estimate them by an open-loop replay under a
        policy (replay[:POLICY], EASY by default) [default: error]

    Returns: The path written.
    """
    args = dict(locals())
    return _run.written("fit", args, "out")


def generate(
    jobs: int,
    procs: int,
    out: PathLike,
    *,
    load: Optional[float] = None,
    seed: Optional[int] = None,
    model: Optional[PathLike] = None,
) -> Path:
    """Write a synthetic log (a simple benchmark workload, not a published model)

    Parameters:

    jobs: Number of jobs
    procs: Machine size
    out: Output file
    load: Offered load [default: 0.8]
    seed: Random seed [default: 1]
    model: Model file [default: the shipped models/synthetic.toml]

    Returns: The path written.
    """
    args = dict(locals())
    return _run.written("generate", args, "out")


def export(
    *,
    swf: Optional[Log] = None,
    run: Optional[PathLike] = None,
    batsim: Optional[Literal['4', '5']] = None,
    batsim_jobs: bool = False,
    output: Optional[PathLike] = None,
) -> Union[dict, str, Path]:
    """Write a log (SWF, plain or gzip, or a Batsim workload) as a Batsim JSON workload, or a run's jobs as Batsim's _jobs.csv

    Parameters:

    swf: The log: SWF, plain or gzip (a feedback run's schedule.swf, the workload
        its users generated, among them), or a Batsim workload
    run: A run's results directory (the --out of replay or feedback), or its
        jobs.csv: its jobs, with the processors each held, written as Batsim's
        _jobs.csv (--batsim-jobs), which Evalys draws
    batsim: Write a Batsim JSON workload, its delay profiles typed as Batsim VERSION
        names them: 4, "delay" (what released Batsim, 4.x, reads and its SWF
        converter writes; the default), or 5, "DelayProfile" (batprotocol's name,
        for a Batsim built from its development branch). Jobs Batsim cannot run
        (unknown submit time, runtime or size; zero runtime) are left out and
        counted
    batsim_jobs: Write the run's jobs (--run) as Batsim's _jobs.csv: Batsim's
        columns, times in seconds, each job's processors as an interval set (0-3 8
        10-11), its user in metadata
    output: The file written [default: standard output]

    Returns: The Batsim workload as a dict, Batsim's _jobs.csv as text, or the ``output`` path it was written to.
    """
    args = dict(locals())
    return _run.export(args)


def report(
    dir: PathLike,
    *,
    others: Optional[Sequence[PathLike]] = None,
    out: Optional[PathLike] = None,
    schedule_from: Optional[Union[int, str]] = None,
    schedule_length: Optional[Union[int, str]] = None,
    colour: Optional[Literal['user', 'class']] = None,
    figure_width: Optional[int] = None,
    figure_height: Optional[int] = None,
    font_scale: Optional[float] = None,
    figure_format: Optional[Literal['svg', 'png', 'pdf']] = None,
) -> Path:
    """Write a results directory's report: SVG plots and one HTML page, in DIR/report; or, given several directories, one page comparing their runs, in --out

    Parameters:

    dir: A results directory: an experiment's, or the --out of replay, feedback,
        resample, calibrate or run; or Batsim's _jobs.csv (or a directory holding
        one), reported as a run into report/ beside it
    others: More results directories: with them, one page comparing every
        directory's runs (runs with their jobs, or replicated runs), written to
        --out
    out: Where the page comparing several directories is written [default: compare,
        in the current directory]
    schedule_from: Where a run's schedule view starts, from the first submission
        (e.g. 12d) [default: the day in which most jobs waited]
    schedule_length: How long a span the schedule view shows [default: 1d]
    colour: What colours the jobs of one run's schedule view [default: user] (a
        comparison colours each run its own)
    figure_width: Every figure's width, pixels [default: 800]
    figure_height: Every figure's height, pixels [default: 450]
    font_scale: Every text of the figures, times its default size (0.5 to 4)
        [default: 1]
    figure_format: Each figure's file besides its SVG (which the page shows): png
        (its pixels the figure's width and height) or pdf (vector, a pixel a point)
        [default: svg]

    Returns: The path written.
    """
    args = dict(locals())
    return _run.report(args)


def estimates(
    *,
    swf: Optional[Log] = None,
    jobs: Optional[int] = None,
    max: Optional[Union[int, str]] = None,
    share: Optional[float] = None,
    seed: Optional[int] = None,
) -> str:
    """Print the modal estimate model's values and shares, for a log or for given inputs

    Parameters:

    swf: Take the job count, maximum and its share from this log
    jobs: Number of jobs
    max: Maximal estimate (e.g. 4h)
    share: Percent of jobs at the maximum [default: the model's own]
    seed: Seed of the pool algorithm and the tail permutation [default: 1]

    Returns: What the command prints.
    """
    args = dict(locals())
    return _run.printed("estimates", args)
