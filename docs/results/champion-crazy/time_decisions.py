"""ms per decision (2+ legal actions) of a Crazy Rummy agent in one seat against two copies of another.

Usage: time_decisions.py AGENT OPPONENT DEALS SEED [KEY=VALUE ...] (options of env(), e.g. episode=game)."""

import sys
import time

import numpy as np

from agents import make_agent
from experiments.common import load_variant, play_episode
from experiments.common.jobs import parse_env_options
from experiments.search_budget import TimedAgent, warm_up
from experiments.tournament import deal_seed

spec, opp, deals, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
variant = "crazy_rummy_v0"
warm_up(variant)
env = load_variant(variant).env(**{"num_players": 3, **parse_env_options(sys.argv[5:])})
times = []
t0 = time.time()
for d in range(deals):
    for rot in range(3):
        a = TimedAgent(make_agent(spec, env, seed=d))
        others = [make_agent(opp, env, seed=d + 99 + k) for k in range(2)]
        seats = others[:rot] + [a] + others[rot:]
        play_episode(env, seats, seed=deal_seed(seed, variant, d))
        times += a.times
ts = np.array(times) * 1000
summary = f"ms mean {ts.mean():.1f} median {np.median(ts):.1f} p99 {np.percentile(ts, 99):.1f} max {ts.max():.1f}"
print(f"{spec}: {len(ts)} decisions, {summary}; {time.time() - t0:.1f} s")
