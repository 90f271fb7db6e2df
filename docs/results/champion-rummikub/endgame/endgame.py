"""The champion with a two-ply search once the pool is empty: an agent factory for
``experiments.evaluate --agent endgame:make`` (this folder on ``PYTHONPATH``; see the
README one level up, "endgame/").

Why: with two players and the pool empty (R-RK-11) nothing is hidden any more (the tiles
neither on the table nor on one's rack are the other rack), and no tile is drawn: the
rest of the hand is a game of perfect information.  The champion (``pimc:model=mix``)
searches one ply there, each of its candidate plays rolled out with max-play for both
seats; this agent also tries the other player's candidate replies to each of its plays
and keeps the play whose worst reply is best (minimax over two plies, max-play rollouts
after them).  Elsewhere it is the champion.
"""

from agents.search.rummikub_plan import MIX, RummikubPlanAgent
from agents.search.rummikub_plays import World, candidate_plays, playout

#: candidate plays tried per ply (the first is the default play)
WIDTH = 6


class EndgameAgent(RummikubPlanAgent):
    """``pimc:model=mix`` whose turns with an empty pool, two players, search two plies."""

    def plan(self, state, seat, view):
        if state.num_players != 2 or view.pool_size > 0:
            return super().plan(state, seat, view)
        world = World(state.resample(seat, self.rng))  # the pool is empty: the true position
        mine = candidate_plays(self.rules, view.table, view.rack, view.initial_meld[0], WIDTH)
        if len(mine) == 1 or int(mine[0].sum()) == int(view.rack.sum()):
            return mine[0]
        best, best_value = mine[0], -1.0
        other = 1 - seat
        for play in mine:
            after = world.copy()
            after.apply(play, self.rules.max_turns)
            if after.over:
                value = 1.0 if seat in after.winners else 0.0
            else:
                replies = candidate_plays(self.rules, after.table, after.racks[other], after.melded[other], WIDTH)
                value = 1.0
                for reply in replies:
                    trial = after.copy()
                    trial.apply(reply, self.rules.max_turns)
                    value = min(value, playout(trial, self.rules, seat, self.depth, "heuristic"))
                    if value <= best_value:
                        break  # this play cannot beat the best one found
            if value > best_value:
                best, best_value = play, value
        return best


def make(env, seed=None):
    """The agent for ``experiments.evaluate`` (``module:factory``)."""
    return EndgameAgent(env, model=MIX, seed=seed)
