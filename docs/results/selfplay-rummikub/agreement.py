"""How often the learned policy takes the patient policy's action, by kind of decision.

    python docs/results/selfplay-rummikub/agreement.py docs/results/selfplay-rummikub/model.pt 20 [OPPONENT]

Plays DEALS hands of ``rummikub_v0`` (2 players, seeds 0..DEALS-1), the policy (its most
likely legal action) against OPPONENT (an agent name; max-play, ``heuristic``, by default),
the policy's seat alternating, and at
each of the policy's decisions asks ``heuristic:style=patient`` what it would play.  Decisions
are grouped by: start of a turn or inside a play; initial meld made (R-RK-07); the ``rk_out``
flags (going out possible, the play holds the whole rack).  Prints per group the decisions,
the agreements and the policy's wins.
"""

import sys
from collections import Counter

import numpy as np

from agents import make_agent
from agents.policy import PolicyAgent
from agents.policy_features import Featurizer
from experiments.common import load_variant


def main(path: str, deals: int, opponent: str = "heuristic") -> None:
    env = load_variant("rummikub_v0").env()
    layout = env.unwrapped.layout
    policy, featurize = PolicyAgent(path), Featurizer("rk_out", "rummikub_v0", layout)
    seen, agreed, results = Counter(), Counter(), Counter()
    for seed in range(deals):
        env.reset(seed=seed)
        mine = env.possible_agents[seed % 2]
        other = make_agent(opponent, env, seed=0)
        teacher = make_agent("heuristic:style=patient", env, seed=0)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if name == mine:
                    results["win" if reward > 0 else "loss"] += 1
                env.step(None)
                continue
            if name != mine:
                env.step(other.act(obs))
                continue
            action = policy.act(obs)
            x = obs["observation"].astype(np.float32)
            can_out, full = featurize(x[None])[0, -2:]
            kind = (
                ("start" if x[layout.slice("play")].sum() == 0 else "inside a play")
                + (", melded" if x[layout.offset("initial_meld")] else ", before the initial meld")
                + f", going out possible {int(can_out)}, play holds the rack {int(full)}"
            )
            seen[kind] += 1
            agreed[kind] += int(action == teacher.act(obs))
            env.step(action)
    for kind in sorted(seen):
        print(f"{kind}: {agreed[kind]} of {seen[kind]} agree ({agreed[kind] / seen[kind]:.3f})")
    print(f"policy: {results['win']} wins, {results['loss']} losses against {opponent}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *sys.argv[3:4])
