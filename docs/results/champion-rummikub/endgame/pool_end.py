"""How many hands between two patient players run the pool out (R-RK-11) before anyone
goes out: ``PYTHONPATH=. python docs/results/champion-rummikub/endgame/pool_end.py``
(prints the count over the hands dealt with seeds 0..59)."""

from agents import make_agent
from rummy_env import rummikub_v0

env = rummikub_v0.env()
ran_out = 0
for deal in range(60):
    env.reset(seed=deal)
    players = [make_agent("heuristic:style=patient", env, seed=deal * 2 + i) for i in range(2)]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else players[env.possible_agents.index(agent)].act(obs))
    ran_out += not env.unwrapped.game_state.pool
print(f"{ran_out} of 60 hands ran the pool out")
