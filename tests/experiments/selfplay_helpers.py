"""One rollout of a self-play run built from its settings, as ``experiments.selfplay.run`` starts one."""

from experiments import selfplay
from experiments.common import load_variant
from experiments.selfplay.opponents import Opponents
from experiments.selfplay.rollout import RECENT, collect
from experiments.selfplay.run import make_vec


def first_rollout(cfg: selfplay.Config, learner: selfplay.Learner | None = None):
    """``(learner, opponents, vec, buffer, last batch)`` after the first rollout of a run of ``cfg``
    (or of ``learner``, e.g. restored from a checkpoint)."""
    learner = learner or selfplay.Learner(cfg)
    opponents = Opponents(learner, load_variant(learner.cfg.variant).env(**learner.cfg.env_options))
    vec = make_vec(learner.cfg, learner.updates)
    opponents.bind(vec)
    buf, last = collect(learner, opponents, vec, vec.reset(), dict.fromkeys(RECENT, 0))
    return learner, opponents, vec, buf, last
