"""Training a scheduling agent with REINFORCE, numpy alone: a linear policy over each
offered job's features, trained on the first decisions of a log's replay, then compared
with a random agent and with EASY (always the first job) on the same decisions.

The reward is minus the hours waited by the waiting jobs (`reward="wait"`): in a replay
every agent runs the same jobs, so only when they run tells agents apart, and in an
episode cut after `--steps` decisions the hours waited count every job, where the
default (bounded slowdowns of the jobs that end) would reward leaving long waits unended.

    python examples/python/train_reinforce.py LOG.swf [--episodes 30] [--steps 400]
"""

import argparse

import numpy as np

from sitesim.gym import ClosedLoopEnv

WINDOW = 8


def features(obs):
    """Each slot's six numbers beside the machine's three: one row per offered job."""
    machine, slots = obs[:3], obs[3:].reshape(WINDOW, 6)
    return np.hstack([slots, np.repeat(machine[None, :], WINDOW, axis=0), np.ones((WINDOW, 1))])


def probabilities(theta, x, mask):
    """The policy: a softmax over the offered jobs' scores `x @ theta`."""
    logits = np.where(mask > 0, x @ theta, -np.inf)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def episode(env, act):
    """One episode; its return, and the (features, mask, action) of each decision."""
    obs, info = env.reset()
    decisions, total, done = [], 0.0, False
    while not done:
        x, mask = features(obs), info["action_mask"]
        action = act(x, mask)
        decisions.append((x, mask, action))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    return total, decisions


def train(log, episodes=30, steps=400, rate=20.0, seed=0):
    """REINFORCE with the mean return as baseline; the trained weights."""
    rng = np.random.default_rng(seed)
    env = ClosedLoopEnv(log, "replay", window=WINDOW, max_steps=steps, reward="wait")
    theta = np.zeros(10)
    returns = []
    for _ in range(episodes):
        def sample(x, mask):
            return int(rng.choice(WINDOW, p=probabilities(theta, x, mask)))

        total, decisions = episode(env, sample)
        returns.append(total)
        advantage = (total - np.mean(returns)) / (np.std(returns) + 1e-9)
        grad = np.zeros_like(theta)
        for x, mask, action in decisions:
            p = probabilities(theta, x, mask)
            grad += x[action] - p @ np.nan_to_num(x * (mask > 0)[:, None])
        theta += rate * advantage * grad / len(decisions)
    env.close()
    return theta


def compare(log, theta, steps=400, seed=1):
    """The return of the trained agent (greedy), a random one and EASY on the same
    decisions."""
    rng = np.random.default_rng(seed)
    env = ClosedLoopEnv(log, "replay", window=WINDOW, max_steps=steps, reward="wait")
    agents = {
        "trained": lambda x, mask: int(np.argmax(np.where(mask > 0, x @ theta, -np.inf))),
        "random": lambda x, mask: int(rng.choice(np.flatnonzero(mask))),
        "EASY (first job)": lambda x, mask: 0,
    }
    results = {name: episode(env, act)[0] for name, act in agents.items()}
    env.close()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log")
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--steps", type=int, default=400)
    a = parser.parse_args()
    theta = train(a.log, a.episodes, a.steps)
    for name, total in compare(a.log, theta, a.steps).items():
        print(f"{name:18} return {total:10.1f} (minus the hours waited)")


if __name__ == "__main__":
    main()
