"""The Gymnasium environment: it passes gymnasium's checker, always picking the first
job (with backfilling) is EASY, seeds give common random numbers, and the rewards are the
counters' changes."""

import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sitesim
import gymnasium

from sitesim.gym import COUNTERS, DEFAULT_REWARD, ClosedLoopEnv, ConstantRewardWarning

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def play(env, policy, seed=None):
    """One episode (cut at the environment's `max_steps`, if any); its observations'
    count, total reward and last info."""
    obs, info = env.reset(seed=seed)
    steps, total, done = 0, 0.0, False
    while not done:
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(policy(obs, info))
        assert not truncated or env.max_steps is not None
        done = terminated or truncated
        steps += 1
        total += reward
    return steps, total, info


def test_the_environment_passes_gymnasiums_checker(kth):
    check_env(ClosedLoopEnv(kth, "feedback", window=8), skip_render_check=True)


@pytest.mark.parametrize("mode", ["replay", "feedback"])
def test_the_first_job_with_backfilling_is_easy(kth, mode):
    with pytest.warns(ConstantRewardWarning, match="every agent's episode return is the same"):
        env = ClosedLoopEnv(kth, mode, reward="jobs")
    steps, total, info = play(env, lambda obs, info: 0)
    easy = getattr(sitesim, mode)(kth, "easy")
    agent = summary(info)
    builtin = dict(easy.summary)
    builtin.pop("scheduler")
    assert agent == builtin
    # The reward "jobs" is one per ended job.
    assert total == info["counters"]["jobs"] == len(easy.jobs)
    assert steps > 1000


def summary(info):
    """The summary of an episode, but the agent's name (each episode's own)."""
    s = dict(info["summary"])
    assert s.pop("scheduler").startswith("gym.agent-")
    return s


def test_resampled_episodes_have_common_random_numbers(kth):
    env = ClosedLoopEnv(kth, "resample", weeks=3.0, population=1.5)  # integral floats too
    first = summary(play(env, lambda obs, info: 0, seed=7)[2])
    shortest = summary(play(env, lambda obs, info: int(np.argmin(
        np.where(info["action_mask"] > 0, obs[3:].reshape(-1, 6)[:, 2], 2))), seed=7)[2])
    again = summary(play(env, lambda obs, info: 0, seed=7)[2])
    assert first == again
    assert first["replications"] != shortest["replications"]
    assert first["replications"][0]["seed"] == shortest["replications"][0]["seed"]
    easy = sitesim.resample(kth, "easy", replications=1, weeks=3, users=1.5, seed=7)
    assert first["replications"] == easy.summary["replications"]


def test_invalid_actions_pick_the_first_job_and_are_counted(kth):
    env = ClosedLoopEnv(kth, "replay", window=4, reward={"invalid": -1.0})
    steps, total, info = play(env, lambda obs, info: 3 if info["action_mask"][3] == 0 else 0)
    assert info["counters"]["invalid"] == -total > 0
    # An empty slot picks the first job, so this is still EASY.
    assert info["summary"]["metrics"]["jobs"]["wait"]["mean"] == pytest.approx(
        sitesim.replay(kth, "easy").summary["metrics"]["jobs"]["wait"]["mean"])


def test_rewards_weigh_the_counters(kth):
    env = ClosedLoopEnv(kth, "replay", reward={"wait_hours": -1.0, "proc_hours": 0.5})
    steps, total, info = play(env, lambda obs, info: 0)
    c = info["counters"]
    assert total == pytest.approx(-c["wait_hours"] + 0.5 * c["proc_hours"])
    easy = sitesim.replay(kth, "easy")
    waited = easy.jobs["start"] - easy.jobs["submit"]
    assert c["wait_hours"] == pytest.approx(waited.sum() / 3600)
    assert set(c) == set(COUNTERS)


def test_observations_describe_the_offered_jobs(kth):
    env = ClosedLoopEnv(kth, "replay", window=4)
    obs, info = env.reset()
    for _ in range(500):
        slots = obs[3:].reshape(4, 6)
        assert (slots[:, 0] == info["action_mask"]).all()
        assert (slots[info["action_mask"] == 0] == 0).all()
        assert 0 <= obs[0] <= 1
        obs, _, done, _, info = env.step(0)
        assert not done


def test_closing_or_resetting_mid_episode_stops_the_run(kth):
    env = ClosedLoopEnv(kth, "feedback")
    env.reset()
    for _ in range(10):
        env.step(0)
    env.reset()
    env.step(0)
    env.close()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_options_are_checked(kth):
    with pytest.raises(ValueError, match="mode"):
        ClosedLoopEnv(kth, "open")
    with pytest.raises(ValueError, match="counters are"):
        ClosedLoopEnv(kth, reward={"jobz": 1})
    with pytest.raises(ValueError, match="environment's own"):
        ClosedLoopEnv(kth, options={"scheduler": "easy"})
    with pytest.raises(ValueError, match="resampled"):
        ClosedLoopEnv(kth, "replay", weeks=2)
    with pytest.raises(sitesim.SitesimError, match="procs"):
        ClosedLoopEnv(kth, options={"procs": -1}).reset()


def test_the_evaluation_example_runs(kth):
    sys.path.insert(0, str(EXAMPLES))
    from evaluate_gym import evaluate

    results = evaluate(kth, episodes=2, weeks=2, population=1.0)
    assert set(results) == {"first (EASY)", "random", "shortest"}
    assert all(len(runs) == 2 and runs[0][0] > 0 for runs in results.values())


@pytest.mark.parametrize("mode", ["replay", "feedback", "resample"])
def test_each_mode_rewards_by_default_what_tells_agents_apart(kth, mode, recwarn):
    sized = {"weeks": 2} if mode == "resample" else {}
    env = ClosedLoopEnv(kth, mode, max_steps=None if mode == "resample" else 3000, **sized)
    assert not [w for w in recwarn if issubclass(w.category, ConstantRewardWarning)]
    first = play(env, lambda obs, info: 0, seed=3)
    shortest = play(env, lambda obs, info: int(np.argmin(
        np.where(info["action_mask"] > 0, obs[3:].reshape(-1, 6)[:, 2], 2))), seed=3)
    weights = {"bsld": -1.0} if DEFAULT_REWARD[mode] == "bsld" else {"jobs": 1.0}
    for _, total, info in (first, shortest):
        counters = info["counters"]
        assert total == pytest.approx(sum(w * counters[c] for c, w in weights.items()))
    assert first[1] != shortest[1]


def test_the_gym_conventions(kth):
    env = gymnasium.make("sitesim/Replay-v0", log=kth, window=4, max_steps=50,
                         render_mode="ansi")
    obs, info = env.reset()
    assert (env.unwrapped.action_masks() == info["action_mask"].astype(bool)).all()
    text = env.render()
    assert text.startswith("t=") and "[ 0] size" in text
    steps, truncated = 0, False
    while not truncated:
        obs, reward, terminated, truncated, info = env.step(0)
        assert not terminated
        steps += 1
    assert steps == 50
    check_env(ClosedLoopEnv(kth, "replay", window=4, render_mode="ansi").unwrapped)
    for mode in ("Feedback", "Resample"):
        assert gymnasium.make(f"sitesim/{mode}-v0", log=kth).unwrapped.mode == mode.lower()


def test_a_reinforce_agent_learns_to_beat_random(kth):
    sys.path.insert(0, str(EXAMPLES))
    from train_reinforce import compare, train

    for seed in (0, 1):
        returns = compare(kth, train(kth, episodes=30, steps=400, seed=seed))
        assert returns["trained"] > returns["random"], returns


def test_a_baseline_makes_the_return_relative(kth):
    # Always the first job with backfilling is EASY: relative to EASY, its return is 0.
    env = ClosedLoopEnv(kth, "replay", baseline="easy", episode_jobs=400)
    _, total, info = play(env, lambda obs, info: 0, seed=5)
    assert info["baseline_return"] < 0
    assert total == pytest.approx(0.0, abs=1e-6 * abs(info["baseline_return"]))
    shortest = play(env, lambda obs, info: int(np.argmin(
        np.where(info["action_mask"] > 0, obs[3:].reshape(-1, 6)[:, 2], 2))), seed=5)
    assert shortest[2]["baseline_return"] == info["baseline_return"]
    assert shortest[1] != 0.0


def test_sampled_episodes_and_waiting(kth):
    env = ClosedLoopEnv(kth, "replay", episode_jobs=300, wait=True, window=4)
    assert env.action_space.n == 5
    firsts = []
    for seed in (1, 2, 1):
        obs, info = env.reset(seed=seed)
        firsts.append(info["now"])
        assert len(info["action_mask"]) == 5
        done, steps, waited = False, 0, 0
        while not done:
            can_wait = info["action_mask"][4] == 1
            obs, _, terminated, truncated, info = env.step(4 if can_wait else 0)
            waited += can_wait
            steps += 1
            done = terminated or truncated
        assert info["counters"]["jobs"] == 300 and waited > 0
        # Waiting whenever it may, the agent starts a job only on an idle machine.
        assert info["summary"]["metrics"]["utilization"] < 0.5
    assert firsts[0] == firsts[2] != firsts[1]
    weeks = ClosedLoopEnv(kth, "feedback", episode_weeks=2)
    _, _, info = play(weeks, lambda obs, info: 0, seed=3)
    assert 0 < info["counters"]["jobs"] < 5000


def test_the_rgb_rendering(kth):
    env = ClosedLoopEnv(kth, "replay", window=4, render_mode="rgb_array")
    env.reset()
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (64, 56, 3)
    assert (image != 255).any()
