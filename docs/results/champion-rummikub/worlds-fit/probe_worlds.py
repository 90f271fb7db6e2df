"""How often the champion's sampled worlds let the other seat go out at once (its whole rack
on the table, R-RK-10) on the turns the champion searches: such a world fits a patient
opponent's draw badly, and rejecting it would be the patient analogue of ``model=0``.

Usage: PYTHONPATH=. python docs/results/champion-rummikub/worlds-fit/probe_worlds.py DEALS SEED
(``pimc:model=mix`` against ``pimc:model=1`` on DEALS duplicate deals; at each searched turn
20 extra worlds are drawn with ``state.resample`` and tested with ``can_go_out``; the counts
are printed after each deal)."""

import sys

from agents import make_agent
from agents.search import rummikub_plan as rp
from agents.search.rummikub_mix import hand_turns
from agents.search.rummikub_plays import can_go_out
from experiments.common import load_variant, play_episode
from experiments.tournament import deal_seed

stats = {"turns": 0, "worlds": 0, "out": 0, "drew_turns": 0, "drew_worlds": 0, "drew_out": 0}
orig = rp.RummikubPlanAgent.play_values


def play_values(self, state, seat, plays):
    turns = hand_turns(state)
    # the other seat's last turn was a draw after its initial meld (a patient player could not go out)
    drew = bool(turns) and not turns[-1][1] and state.initial_meld[turns[-1][0]]
    stats["turns"] += 1
    stats["drew_turns"] += bool(drew)
    for _ in range(20):
        w = state.resample(seat, self.rng)
        q = 1 - seat
        o = can_go_out(w.table, w.racks[q])
        stats["worlds"] += 1
        stats["out"] += o
        if drew:
            stats["drew_worlds"] += 1
            stats["drew_out"] += o
    return orig(self, state, seat, plays)


rp.RummikubPlanAgent.play_values = play_values
env = load_variant("rummikub_v0").env()
deals, seed = int(sys.argv[1]), int(sys.argv[2])
for d in range(deals):
    for rot in (0, 1):
        a = make_agent("pimc:model=mix", env, seed=d)
        b = make_agent("pimc:model=1", env, seed=d + 99)
        play_episode(env, [a, b] if rot == 0 else [b, a], seed=deal_seed(seed, "rummikub_v0", d))
    print(d, stats, flush=True)
