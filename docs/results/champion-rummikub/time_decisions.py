"""Mean / median / p99 / max ms per decision (2+ legal actions) of two agents playing each other.

Usage: time_decisions.py VARIANT AGENT OPPONENT DEALS SEED [KEY=VALUE ...] (options of env(),
e.g. episode=game)."""

import sys
import time

import numpy as np

from agents import make_agent
from experiments.common import load_variant, play_episode
from experiments.common.jobs import parse_env_options
from experiments.search_budget import TimedAgent, warm_up
from experiments.tournament import deal_seed

variant, spec, opp, deals, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
warm_up(variant)
env = load_variant(variant).env(**parse_env_options(sys.argv[6:]))
times = {spec: [], opp: []}
t0 = time.time()
for d in range(deals):
    for rot in (0, 1):
        a = TimedAgent(make_agent(spec, env, seed=d))
        b = TimedAgent(make_agent(opp, env, seed=d + 99))
        seats = [a, b] if rot == 0 else [b, a]
        play_episode(env, seats, seed=deal_seed(seed, variant, d))
        times[spec] += a.times
        times[opp] += b.times
for k, v in times.items():
    ts = np.array(v) * 1000
    mean, median, p99 = ts.mean(), np.median(ts), np.percentile(ts, 99)
    print(f"{k}: {len(ts)} decisions, ms mean {mean:.1f} median {median:.1f} p99 {p99:.1f} max {ts.max():.1f}")
print(f"{time.time() - t0:.1f} s")
