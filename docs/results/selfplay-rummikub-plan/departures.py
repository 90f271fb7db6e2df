"""Where the learned policy departs from the patient policy, its teacher, against that teacher.

    python docs/results/selfplay-rummikub-plan/departures.py docs/results/selfplay-rummikub-plan/model.pt 30

Plays DEALS hands of ``rummikub_v0`` (2 players, seeds 0..DEALS-1), the policy (its most
likely legal action) against ``heuristic:style=patient``, the policy's seat alternating, and
prints each decision where the patient policy would act otherwise: the rack, play and table
sizes, the initial-meld flags, both actions, the pool size and both rack totals (read from the
engine for this report only, a joker 30: R-RK-11), then each hand's result.
"""

import sys

import numpy as np

from agents import make_agent
from agents.policy import PolicyAgent
from experiments.common import load_variant
from rummy_env.games.rummikub.actions import COMMIT, DRAW

VALUES = np.array([(t % 13) + 1 for t in range(52)] + [30])
NAMES = {COMMIT: "COMMIT", DRAW: "DRAW"}


def main(path: str, deals: int) -> None:
    env = load_variant("rummikub_v0").env()
    layout = env.unwrapped.layout
    policy = PolicyAgent(path)
    for seed in range(deals):
        env.reset(seed=seed)
        mine = env.possible_agents[seed % 2]
        other = make_agent("heuristic:style=patient", env, seed=0)
        teacher = make_agent("heuristic:style=patient", env, seed=0)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if name == mine:
                    print(f"seed {seed}: {'win' if reward > 0 else 'loss'}")
                env.step(None)
                continue
            if name != mine:
                env.step(other.act(obs))
                continue
            action, taught = policy.act(obs), teacher.act(obs)
            if action != taught:
                x = obs["observation"]
                state = env.unwrapped.game_state
                me = env.possible_agents.index(name)
                totals = [int(VALUES @ state.racks[p]) for p in range(2)]
                sizes = " ".join(f"{f} {x[layout.slice(f)].sum():.0f}" for f in ("rack", "play", "table"))
                print(
                    f"  seed {seed} {sizes} melded {x[layout.slice('initial_meld')].tolist()} "
                    f"policy {NAMES.get(action, action)} teacher {NAMES.get(taught, taught)} "
                    f"pool {len(state.pool)} my total {totals[me]} their total {totals[1 - me]}"
                )
            env.step(action)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
