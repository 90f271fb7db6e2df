"""Whether the champion and ``pimc:model=1`` play the same moves in both seatings of a deal.

    PYTHONPATH=. python docs/results/champion-rummikub/same_moves.py DEALS [FIRST_SEED]

Each deal (reset seed ``FIRST_SEED + k``, default 1000) is played twice on ``rummikub_v0``,
the champion in seat 0 and then in seat 1, each agent seeded as the jobs seat it
(``agents.registry.seat_seed``).  A deal whose two games hold the same action ids in the
same order was played identically by both agents, so its seat, not the agents, decided it.
Prints, per deal, the two games' lengths and the index of their first different action.
"""

import sys

from agents.registry import make_agent, seat_seed
from rummy_env import rummikub_v0


def moves(names: list[str], seed: int) -> list[int]:
    """The action ids of one game on the deal of ``seed``, ``names[i]`` in seat ``i``."""
    env = rummikub_v0.env()
    env.reset(seed=seed)
    seats = enumerate(zip(env.possible_agents, names, strict=True))
    agents = {agent: make_agent(name, env, seed=seat_seed(seed, i)) for i, (agent, name) in seats}
    played = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        action = None if terminated or truncated else agents[agent].act(observation, info)
        if action is not None:
            played.append(int(action))
        env.step(action)
    return played


deals, first = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1000
same = 0
for seed in range(first, first + deals):
    a, b = moves(["champion", "pimc:model=1"], seed), moves(["pimc:model=1", "champion"], seed)
    shorter = min(len(a), len(b))
    differ = next((i for i in range(shorter) if a[i] != b[i]), None if len(a) == len(b) else shorter)
    same += differ is None
    print(f"seed {seed}: {len(a)} / {len(b)} actions, first different action: {differ}", flush=True)
print(f"the same actions in both seatings on {same} of {deals} deals")
