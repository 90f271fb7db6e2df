"""How often a Crazy Rummy policy takes a heuristic style's action, by kind of decision.

    python docs/results/selfplay-crazy/agreement.py docs/results/selfplay-crazy/model.pt 30 heuristic:style=hold_wilds

Plays DEALS rounds of ``crazy_rummy_v0`` (3 players, seeds 1000..1000+DEALS-1), the policy (its
most likely legal action) in one seat (seat ``deal % 3``) against two default heuristics, and at
each of the policy's decisions asks TEACHER what it would play.  Decisions are grouped by the
teacher's kind of action (draw, meld, layoff, swap, discard); prints per kind the decisions and
the agreements, the most common disagreements (teacher's kind, policy's kind) and the policy's
rounds with the lowest penalty (R-CRAZY-12).
"""

import sys
from collections import Counter

from agents import make_agent
from agents.policy import PolicyAgent
from experiments.common import load_variant
from rummy_env.games.crazy_rummy.actions import DRAW_STOCK, LAYOFF, MELD, SWAP


def kind(action: int) -> str:
    """The kind of a Crazy Rummy action id (``rummy_env.games.crazy_rummy.actions``)."""
    if action < DRAW_STOCK:
        return "discard"
    if action < MELD:
        return "draw"
    if action < LAYOFF:
        return "meld"
    return "layoff" if action < SWAP else "swap"


def main(path: str, deals: int, teacher_name: str) -> None:
    env = load_variant("crazy_rummy_v0").env(num_players=3)
    policy = PolicyAgent(path)
    seen, agreed, results, confused = Counter(), Counter(), Counter(), Counter()
    for deal in range(deals):
        env.reset(seed=1000 + deal)
        mine = env.possible_agents[deal % 3]
        other = make_agent("heuristic", env, seed=0)
        teacher = make_agent(teacher_name, env, seed=0)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if name == mine:
                    results["lowest" if reward > 0 else "not lowest"] += 1
                env.step(None)
                continue
            if name != mine:
                env.step(other.act(obs))
                continue
            action, wanted = policy.act(obs), teacher.act(obs)
            seen[kind(wanted)] += 1
            agreed[kind(wanted)] += int(action == wanted)
            if action != wanted:
                confused[(kind(wanted), kind(action))] += 1
            env.step(action)
    for k in sorted(seen):
        print(f"teacher {k}: {agreed[k]} of {seen[k]} agree ({agreed[k] / seen[k]:.3f})")
    total = sum(seen.values())
    print(f"all: {sum(agreed.values())} of {total} agree ({sum(agreed.values()) / total:.3f})")
    print("disagreements (teacher's kind, policy's kind):", confused.most_common(6))
    print(f"policy: lowest penalty in {results['lowest']} of {deals} rounds")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
