"""Spies on the search agents for the no-peeking tests: every value a search computes,
kept on the agent, so that two twins' searches can be compared value by value."""

import numpy as np

from agents.search import ISMCTSAgent, PIMCAgent
from agents.search.rummikub_plan import RummikubPlanAgent


def record_search_values(monkeypatch):
    """Keep on each search agent the values of every search it runs (``_values``)."""

    def spy(cls, method, summary):
        original = getattr(cls, method)

        def recorded(self, *args, **kwargs):
            out = original(self, *args, **kwargs)
            self.__dict__.setdefault("_values", []).append(summary(out))
            return out

        monkeypatch.setattr(cls, method, recorded)

    spy(PIMCAgent, "action_values", lambda v: np.asarray(v).tolist())
    spy(RummikubPlanAgent, "play_values", lambda v: np.asarray(v).tolist())
    spy(ISMCTSAgent, "search", tree_values)


def tree_values(node):
    """An ISMCTS tree as comparable values, every level: the other seats' nodes hold the
    actions legal in the worlds drawn, so a tree grown in true deals differs even where
    every playout's value is 0 (short playouts of Rummikub)."""
    return sorted((a, n.visits, n.value, n.avail, tree_values(n)) for a, n in node.children.items())
