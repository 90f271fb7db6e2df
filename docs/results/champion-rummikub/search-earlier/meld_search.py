"""The champion (``pimc:model=mix``) searching its turns before its initial meld too: an
agent factory for ``experiments.evaluate --agent meld_search:make`` (the folder on
``PYTHONPATH``; see the folder's README one level up, "search-earlier/")."""

from agents import make_agent


def make(env, seed=None):
    """``pimc:model=mix`` whose search also runs while the player has not melded."""
    agent = make_agent("pimc:model=mix", env, seed=seed)
    late = agent.late_in_hand
    agent.late_in_hand = lambda view: late(view) or not view.initial_meld[0]
    return agent
