"""Self-play masked PPO on the batched simulator ``rummy_env.vector`` (CleanRL style).

    python -m experiments.selfplay --variant gin_rummy --minutes 50 --out results/selfplay-gin
    python -m experiments.selfplay --variant rummy --env-option num_players=2 --minutes 50
    python -m experiments.selfplay --out results/selfplay-gin --resume      # continue a run
    python -m experiments.selfplay --recipe gin                                # a recipe of settings
    python -m experiments.selfplay --recipe rummikub --out results/selfplay-rummikub  # Rummikub, 2 players
    python -m experiments.train --algo selfplay --variant gin_rummy ...      # the same job

One policy plays every seat of ``num_envs`` games stepped together by the variant's batched
engine (``rummy_env.vector``).  Illegal actions get logit :data:`agents.torch_policy.ILLEGAL_LOGIT`, so
probability exactly 0.  In a share of the games (``--pool-share``) one seat, alternating
from game to game, is played by a past snapshot of the policy drawn from a pool instead:
the learner meets older versions of itself and does not chase its own tail.
In another share (``--heuristic-share``) that seat is the variant's heuristic, run on the
batch's observation rows like any agent.  Kickstarting (``--kickstart``, Schmitt et al.
2018): for the learner's decisions in ``--kickstart-share`` of the games the loss adds a
cross-entropy to the heuristic's action (or another agent's, ``--teacher-agent``, e.g.
Rummikub's patient policy ``heuristic:style=patient``), its weight decaying to
``--kickstart-floor``.  With
``--teacher-labels`` the teacher is a search instead (:mod:`~experiments.selfplay.teacher`:
positions labelled by ``pimc``, expert iteration), and the heuristic teaches only the games
of ``--random-share``, where one seat plays uniformly random legal actions.  The
network reads the observation plus features computed from it (``agents.policy_features``).

**Per-seat trajectories.**  Seats alternate and a turn takes several steps, so a
decision's successor is the next decision *of the same seat in the same game*, not the
next step of the env.  A decision's reward is everything that seat receives from its
action up to its next decision (the opponent's moves in between included, the final
reward when the game ends during the opponent's turn), and the value target bootstraps
from the value of the seat's own next observation, or 0 when the game ends first.  GAE
runs backwards over the rollout along each (game, seat) chain (:func:`per_seat_gae`).
A decision whose successor falls beyond the rollout bootstraps from the final batch if
that batch is its seat's turn, and is left out of the update otherwise (a few tail
decisions per game and rollout).

**Shaping** (``--shaping``, annealed linearly to 0 over ``--shaping-anneal`` of the
run): the potential-based term ``c * (gamma * phi(s') - phi(s))`` along each seat's
chain, with ``phi`` minus the seat's deadwood (Gin, the observation's ``deadwood`` field)
or minus its hand's card points (Rummy; Rummikub: its rack's tiles, a joker 30, R-RK-10)
over 100, and ``phi = 0`` at the end of a game.
Potential-based shaping leaves the optimal policy unchanged (Ng, Harada, Russell 1999).

The job writes to ``--out``: ``scalars.csv`` (losses, KL, entropy, steps/s, time shares
per update), ``eval.csv`` (win rates against the heuristic and random on the
tournament's duplicate deals, with 95% intervals, by wall-clock time and steps),
``curve.png``, ``checkpoint.pt`` (everything ``--resume`` needs), ``model.pt`` (the
final policy: ``--agents policy:<out>/model.pt`` in ``experiments.tournament``) and
``summary.json``.  Needs the ``train`` extra (torch) and the ``fast`` extra (numba).

The run reads top to bottom in :mod:`~experiments.selfplay.run` (CleanRL's shape); its parts
are imported, each in a module named for what it holds: :mod:`~experiments.selfplay.config`
(the settings, their checks and recipes), :mod:`~experiments.selfplay.cli` (their flags),
:mod:`~experiments.selfplay.learner` (network, optimizer, pool, counters: what a checkpoint
saves), :mod:`~experiments.selfplay.opponents` (who plays the other seats),
:mod:`~experiments.selfplay.rollout`, :mod:`~experiments.selfplay.returns` (per-seat GAE),
:mod:`~experiments.selfplay.update` (the PPO loss), :mod:`~experiments.selfplay.checkpoint`,
:mod:`~experiments.selfplay.logs` (evaluations, CSVs, curves),
:mod:`~experiments.selfplay.critic` (the privileged critic),
:mod:`~experiments.selfplay.teacher` (search labels) and
:mod:`~experiments.selfplay.duplicate` (the duplicate baseline).
"""

from experiments.selfplay.cli import parse_args
from experiments.selfplay.config import Config, check_config, load_recipe, vector_class
from experiments.selfplay.learner import Learner
from experiments.selfplay.run import main, train

__all__ = ["Config", "Learner", "check_config", "load_recipe", "main", "parse_args", "train", "vector_class"]
