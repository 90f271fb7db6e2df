"""Self-play masked PPO on the batched simulator ``rummy_env.vector`` (CleanRL style, one file).

    python -m experiments.selfplay --variant gin_rummy --minutes 50 --out results/selfplay-gin
    python -m experiments.selfplay --variant rummy --env-option num_players=2 --minutes 50
    python -m experiments.selfplay --out results/selfplay-gin --resume      # continue a run
    python -m experiments.train --algo selfplay --variant gin_rummy ...      # the same job

One policy plays every seat of ``num_envs`` games stepped together by ``GinRummyVec`` /
``RummyVec``.  Illegal actions get logit :data:`agents.torch_policy.ILLEGAL_LOGIT`, so
probability exactly 0.  In a share of the games (``--pool-share``) one seat, alternating
from game to game, is played by a past snapshot of the policy drawn from a pool instead:
the learner meets older versions of itself and does not chase its own tail.
In another share (``--heuristic-share``) that seat is the variant's heuristic, run on the
batch's observation rows like any agent.  Kickstarting (``--kickstart``, Schmitt et al.
2018): for the learner's decisions in ``--kickstart-share`` of the games the loss adds a
cross-entropy to the heuristic's action, its weight decaying to ``--kickstart-floor``.  With
``--teacher-labels`` the teacher is a search instead (``experiments.selfplay_teacher``:
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
or minus its hand's card points (Rummy) over 100, and ``phi = 0`` at the end of a game.
Potential-based shaping leaves the optimal policy unchanged (Ng, Harada, Russell 1999).

The job writes to ``--out``: ``scalars.csv`` (losses, KL, entropy, steps/s, time shares
per update), ``eval.csv`` (win rates against the heuristic and random on the
tournament's duplicate deals, with 95% intervals, by wall-clock time and steps),
``curve.png``, ``checkpoint.pt`` (everything ``--resume`` needs), ``model.pt`` (the
final policy: ``--agents policy:<out>/model.pt`` in ``experiments.tournament``) and
``summary.json``.  Needs the ``train`` extra (torch) and the ``fast`` extra (numba).
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from agents.policy_features import FEATURES
from experiments.common import load_variant, parse_env_options, program_name, resolve_variant
from experiments.selfplay_returns import per_seat_gae, potential_fn


@dataclass
class Config:
    """Every setting of a run (saved in the checkpoint; ``--resume`` reuses it)."""

    variant: str = "gin_rummy_v0"
    env_options: dict = field(default_factory=dict)
    seed: int = 0
    num_envs: int = 256
    num_steps: int = 64  # env steps per rollout; a batch is num_envs * num_steps steps
    timesteps: int = 50_000_000  # env steps (decisions of every seat) to train for
    minutes: float | None = None  # wall-clock limit of the training (evaluations included)
    hidden: tuple = (256, 256)
    features: str = "auto"  # network input features (agents.policy_features); auto: gin_opp for Gin, meld_opp for Rummy
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.995  # per decision of a seat
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatch_size: int = 256
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = 0.05
    shaping: float = 1.0  # weight of the deadwood potential at the start
    shaping_anneal: float = 0.5  # share of the run over which it decays to 0
    kickstart: float = 1.0  # weight of the cross-entropy to the heuristic's action at the start
    kickstart_anneal: float = 0.4  # share of the run over which it decays to ...
    kickstart_floor: float = 0.0  # ... this weight, kept for the rest of the run
    kickstart_share: float = 0.5  # share of the games whose learner decisions get the heuristic's action
    critic: str = "shared"  # the value head on the policy's trunk, or "privileged" (experiments.selfplay_critic)
    # epochs of an update that train the privileged critic: the hidden cards identify each game,
    # so more passes over one rollout memorize its games instead of learning values
    critic_epochs: int = 1
    # Gin: weight of a penalty for playing a decision differently under a random relabelling of the
    # suits (agents.suit_symmetry; DrAC, Raileanu et al. 2021); 0: off
    suit_augment: float = 0.0
    # offset the learner's result against the heuristic by the heuristic's own on the deck (selfplay_duplicate)
    duplicate_baseline: bool = False
    # kickstart towards a search's decisions instead of the heuristic's (experiments.selfplay_teacher):
    # pimc_labels files, comma-separated; "": the heuristic teaches
    teacher_labels: str = ""
    teacher_margin: float = 0.0  # the search's value lead a label needs over the heuristic's choice
    pool_share: float = 0.25  # share of the games with one seat played by a pool snapshot
    heuristic_share: float = 0.5  # share of the games with one seat played by the variant's heuristic
    # share of the games with one seat playing uniformly random legal actions; with --teacher-labels the
    # heuristic teaches the learner's decisions there (the search's labels come from games against it)
    random_share: float = 0.0
    pool_size: int = 10
    snapshot_every: int = 20  # updates between pool snapshots
    eval_every: float = 5.0  # minutes between evaluations
    initial_eval: bool = True  # evaluate the untrained policy too (its games are long: minutes on a loaded machine)
    eval_deals: int = 100  # deals per evaluation (each played in every seat)
    final_eval_deals: int = 1000
    eval_workers: int = 1
    # one numba thread too: with other jobs on the 2 cores, 2 threads stepped 256 games 14x slower
    sim_threads: int = 1
    # one torch thread: on a loaded 2-core machine a second intra-op thread made a forward
    # pass 50x slower (OpenMP threads spinning at barriers while the core is taken)
    torch_threads: int = 1
    checkpoint_every: float = 5.0  # minutes


#: the counts of the learner's training games logged with each update (reset after each row)
RECENT = ("heuristic_games", "heuristic_wins", "duplicate_same", "random_games", "random_wins")


def vector_class(variant: str):
    """The batched engine of ``variant`` (``rummy_env.vector``).

    Raises:
        ValueError: no batched engine for this variant.
    """
    from rummy_env import vector

    classes = {"gin_rummy_v0": "GinRummyVec", "rummy_v0": "RummyVec"}
    if variant not in classes:
        raise ValueError(f"no batched simulator for {variant}: self-play trains on {', '.join(classes)}")
    name = classes[variant]
    if not hasattr(vector, name) or os.environ.get("RUMMY_SELFPLAY_REFERENCE"):
        # the pure-Python reference engine of the same API (slow: tests and debugging)
        name = "Reference" + name
    return getattr(vector, name)


class Trainer:
    """The run's state (network, optimizer, pool, counters, logs) and its loop.

    Args:
        config: the run's settings.
        out: output folder.
    """

    def __init__(self, config: Config, out: Path):
        import torch

        from agents.policy_features import Featurizer
        from agents.torch_policy import ActorCritic

        self.cfg, self.out = config, out
        torch.manual_seed(config.seed)  # the initial weights
        torch.set_num_threads(config.torch_threads)
        self.rng = np.random.default_rng(config.seed)  # pool draws, minibatch order
        self.gen = torch.Generator().manual_seed(config.seed)  # action sampling
        env = load_variant(config.variant).env(**config.env_options)
        self.obs_size = env.unwrapped.layout.size
        self.num_actions = int(env.action_space(env.possible_agents[0]).n)
        self.num_players = len(env.possible_agents)
        if config.features == "auto":
            config.features = "gin_opp" if config.variant == "gin_rummy_v0" else "meld_opp"
        self.featurize = Featurizer(config.features, config.variant, env.unwrapped.layout)
        self.input_size = self.obs_size + self.featurize.extra
        self.net = ActorCritic(self.obs_size, self.num_actions, config.hidden, config.features)
        self.opponent = copy.deepcopy(self.net)
        params = list(self.net.parameters())
        self.critic = None  # with --critic privileged: a separate network over the hidden cards too
        if config.critic == "privileged":
            from experiments.selfplay_critic import privileged_size

            self.critic = ActorCritic(self.input_size + privileged_size(self.num_players), 1, config.hidden)
            params += list(self.critic.parameters())
        elif config.critic != "shared":
            raise ValueError(f"critic={config.critic!r}: use 'shared' or 'privileged'")
        if config.duplicate_baseline and (self.num_players != 2 or not config.heuristic_share):
            raise ValueError(
                f"duplicate_baseline replays the games against the heuristic of 2-player runs "
                f"(num_players={self.num_players}, heuristic_share={config.heuristic_share})"
            )
        self.suit_index = None  # with --suit-augment: (inputs, actions) column indices of the 24 relabellings
        if config.suit_augment < 0:
            raise ValueError(f"suit_augment={config.suit_augment}: a penalty weight >= 0 (0: off)")
        if config.suit_augment:
            if config.variant != "gin_rummy_v0" or config.critic != "shared":
                raise ValueError(
                    f"suit_augment relabels Gin Rummy inputs for the shared critic only "
                    f"(variant={config.variant!r}, critic={config.critic!r})"
                )
            from agents.suit_symmetry import SUIT_PERMUTATIONS, gin_action_index, input_index

            layout = env.unwrapped.layout
            self.suit_index = (
                np.stack([input_index(layout, config.features, p) for p in SUIT_PERMUTATIONS]),
                np.stack([gin_action_index(p, self.num_actions) for p in SUIT_PERMUTATIONS]),
            )
        self.optimizer = torch.optim.Adam(params, lr=config.lr, eps=1e-5)
        self.pool: list[dict] = []
        self.steps = 0  # env steps (decisions of every seat, pool seats included)
        self.learner_steps = 0  # decisions of the learner used in updates
        self.updates = 0
        self.episodes = 0
        self.elapsed = 0.0  # training seconds of previous sessions (resume)
        self.timers = {"sim": 0.0, "features": 0.0, "inference": 0.0, "heuristic": 0.0, "update": 0.0, "eval": 0.0}
        self.phi = potential_fn(config.variant, config.env_options)
        shares = (config.pool_share, config.heuristic_share, config.random_share)
        if min(shares) < 0 or sum(shares) >= 1:
            raise ValueError(
                f"pool_share, heuristic_share and random_share {shares} must be >= 0 and sum to less than 1"
            )
        if config.teacher_margin and not config.teacher_labels:
            raise ValueError(f"teacher_margin={config.teacher_margin} picks labels, but no teacher_labels are given")
        self.teacher = None
        if config.teacher_labels:
            from experiments.selfplay_teacher import TeacherLabels

            paths = [p for p in config.teacher_labels.split(",") if p]
            self.teacher = TeacherLabels(
                paths, config.variant, self.featurize, self.num_actions, config.teacher_margin, self.rng
            )
        use_heuristic = config.heuristic_share or (
            config.kickstart and (config.random_share if self.teacher else config.kickstart_share)
        )
        self.heuristic = make_agent("heuristic", env, seed=config.seed) if use_heuristic else None
        # which games have a non-learner seat: 0 none (pure self-play), 1 a pool snapshot, 2 the heuristic,
        # 3 random play
        n = config.num_envs
        n_heur = round(n * config.heuristic_share)
        n_pool = round(n * config.pool_share)
        self.opponent_kind = np.zeros(n, np.int8)
        self.opponent_kind[n - n_heur :] = 2
        self.opponent_kind[n - n_heur - n_pool : n - n_heur] = 1
        self.opponent_kind[: round(n * config.random_share)] = 3
        self.vec = None
        self.recent = dict.fromkeys(RECENT, 0)  # since the last scalars row

    # --- state ---------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything a resumed run needs (tensors, numbers, lists: ``torch.save``-able)."""

        return {
            "config": asdict(self.cfg),
            "net": self.net.state_dict(),
            "critic": self.critic.state_dict() if self.critic is not None else None,
            "optimizer": self.optimizer.state_dict(),
            "pool": self.pool,
            "counters": {
                "steps": self.steps,
                "learner_steps": self.learner_steps,
                "updates": self.updates,
                "episodes": self.episodes,
                # the training seconds so far, the running session's included
                "elapsed": self.elapsed_now() if hasattr(self, "session_start") else self.elapsed,
                "timers": dict(self.timers),
            },
            "numpy_rng": self.rng.bit_generator.state,
            "torch_rng": self.gen.get_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state` (the config is the caller's business)."""

        self.net.load_state_dict(state["net"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.pool = list(state["pool"])
        c = state["counters"]
        self.steps, self.learner_steps, self.updates = c["steps"], c["learner_steps"], c["updates"]
        self.episodes, self.elapsed, self.timers = c["episodes"], c["elapsed"], dict(c["timers"])
        self.rng.bit_generator.state = state["numpy_rng"]
        self.gen.set_state(state["torch_rng"])

    def save_checkpoint(self) -> Path:
        """``checkpoint.pt`` in the output folder, written atomically."""
        import torch

        path = self.out / "checkpoint.pt"
        tmp = path.with_suffix(".tmp")
        torch.save(self.state(), tmp)
        tmp.replace(path)
        return path

    def save_model(self, path: Path) -> Path:
        """The current policy as a ``PolicyAgent`` ``.pt`` file."""
        from agents.torch_policy import save_model

        save_model(path, self.net, variant=self.cfg.variant, env_options=dict(self.cfg.env_options))
        return path

    # --- rollouts --------------------------------------------------------------------------
    def make_vec(self):
        """A fresh batched simulator, seeded from the run seed and the update count (a resumed
        run plays new deals)."""
        from experiments.selfplay_critic import compiled_heuristic

        cls = vector_class(self.cfg.variant)
        seed = int(np.random.SeedSequence([self.cfg.seed, self.updates]).generate_state(1)[0] % 2**31)
        vec = cls(self.cfg.num_envs, seed=seed, num_threads=self.cfg.sim_threads, **self.cfg.env_options)
        self.fast_heuristic = compiled_heuristic(vec) if self.heuristic is not None else None
        return vec

    def values(self, x, batch) -> Any:
        """The privileged critic's estimates of a batch's rows, or None to use the policy's
        value head.

        Args:
            x: float32 tensor ``(num_envs, input_size)``: the rows' observations and features.
            batch: the batch the engine is at now (its ``current_player`` is each row's seat).

        Returns:
            ``(values, privileged)``: float32 tensor ``(num_envs,)`` and the critic's extra
            input, float32 ``(num_envs, privileged_size(P))`` (``experiments.selfplay_critic``).
        """
        import torch

        if self.critic is None:
            return None
        from experiments.selfplay_critic import privileged_features

        priv = privileged_features(self.vec, np.asarray(batch.current_player, np.int64))
        with torch.no_grad():
            return self.critic(torch.cat([x, torch.from_numpy(priv)], 1))[1], priv

    def heuristic_actions(self, rows: np.ndarray, raw: np.ndarray, batch) -> np.ndarray:
        """The heuristic's action of each game of ``rows``: compiled on the engine's rows
        when the variant has it, else the agent on each observation row."""
        if self.fast_heuristic is not None:
            return self.fast_heuristic(rows)[rows]
        return np.array(
            [self.heuristic.act({"observation": raw[i], "action_mask": batch.action_mask[i]}) for i in rows], np.int64
        )

    def rollout(self, batch) -> tuple[dict[str, np.ndarray], Any]:
        """``num_steps`` steps of every game; returns the arrays of :func:`per_seat_gae` plus
        observations, masks, actions and log-probabilities, and the batch after the last step."""
        import torch

        from agents.torch_policy import masked_logits, sample_masked

        n, T = self.cfg.num_envs, self.cfg.num_steps
        pooled = (self.opponent_kind == 1) & bool(self.pool)
        heuristic = self.opponent_kind == 2
        randomly = self.opponent_kind == 3
        if self.pool:
            self.opponent.load_state_dict(self.pool[int(self.rng.integers(len(self.pool)))])
        buf = {
            "obs": np.zeros((T, n, self.input_size), np.float32),
            "mask": np.zeros((T, n, self.num_actions), bool),
            "action": np.zeros((T, n), np.int64),
            "logp": np.zeros((T, n), np.float32),
            "value": np.zeros((T, n), np.float32),
            "player": np.zeros((T, n), np.int64),
            "decision": np.zeros((T, n), bool),
            "learner": np.zeros((T, n), bool),
            "reward": np.zeros((T, n, self.num_players), np.float32),
            "done": np.zeros((T, n), bool),
            "teacher": np.full((T, n), -1, np.int64),  # the heuristic's action (kickstarting), -1: none
        }
        if self.critic is not None:
            from experiments.selfplay_critic import privileged_size

            buf["priv"] = np.zeros((T, n, privileged_size(self.num_players)), np.float32)
        kick = np.zeros(n, bool)
        if self.kickstart_weight() > 0:  # the games whose learner decisions the heuristic teaches
            kick = randomly.copy() if self.teacher is not None else np.arange(n) < round(n * self.cfg.kickstart_share)
        replay = []  # with --duplicate-baseline: (step, game, learner seat, deck, dealer) of games that ended
        for t in range(T):
            t0 = time.perf_counter()
            raw, mask = batch.observation, batch.action_mask.astype(bool)
            tf = time.perf_counter()
            obs = self.featurize(raw)
            feat_s = time.perf_counter() - tf
            self.timers["features"] += feat_s
            player = np.asarray(batch.current_player, np.int64)
            decision = mask.any(1)
            # games that are resetting have no legal action: any id stands (the engine ignores it)
            safe_mask = mask | ~decision[:, None]
            their_turn = (player == self.pool_seat) & decision
            opp = pooled & their_turn
            heur = heuristic & their_turn
            rand = randomly & their_turn
            x, m = torch.from_numpy(obs), torch.from_numpy(safe_mask)
            with torch.no_grad():
                logits, value = self.net(x)
                logits = masked_logits(logits, m)
                if opp.any():
                    idx = torch.from_numpy(np.flatnonzero(opp))
                    logits[idx] = masked_logits(self.opponent(x[idx])[0], m[idx])
                action, logp = sample_masked(logits, self.gen)
            critic = self.values(x, batch)
            if critic is not None:
                value, buf["priv"][t] = critic
            a = action.numpy()
            th = time.perf_counter()
            rows = np.flatnonzero(heur)  # the heuristic reads what its seat sees only, like any agent
            a[rows] = self.heuristic_actions(rows, raw, batch)
            rows = np.flatnonzero(rand)
            if len(rows):  # uniform over the legal actions: the largest of random keys
                a[rows] = np.where(mask[rows], self.rng.random((len(rows), mask.shape[1])), -1.0).argmax(1)
            rows = np.flatnonzero(kick & decision & ~opp & ~heur & ~rand)
            buf["teacher"][t, rows] = self.heuristic_actions(rows, raw, batch)
            heur_s = time.perf_counter() - th
            self.timers["heuristic"] += heur_s
            # the engine writes the next batch into the arrays of this one: store them first
            for key, val in (
                ("obs", obs),
                ("mask", mask),
                ("action", a),
                ("logp", logp.numpy()),
                ("value", value.numpy()),
                ("player", player),
                ("decision", decision),
                ("learner", decision & ~opp & ~heur & ~rand),
            ):
                buf[key][t] = val
            t1 = time.perf_counter()
            next_batch = self.vec.step(np.where(decision, a, 0))
            t2 = time.perf_counter()
            self.timers["inference"] += t1 - t0 - heur_s - feat_s
            self.timers["sim"] += t2 - t1
            done = next_batch.terminated | next_batch.truncated
            buf["reward"][t] = next_batch.rewards
            buf["done"][t] = done
            if done.any():
                self.episodes += int(done.sum())
                # the learner's results in the games against the heuristic (a training curve for free)
                ended = np.flatnonzero(done & heuristic)
                seat = (self.pool_seat[ended] + 1) % self.num_players
                self.recent["heuristic_games"] += len(ended)
                self.recent["heuristic_wins"] += int((next_batch.rewards[ended, seat] > 0).sum())
                if self.cfg.duplicate_baseline and len(ended):
                    replay.append((t, ended, seat, self.vec.decks()[ended], self.vec.dealers()[ended]))
                ended = np.flatnonzero(done & randomly)
                seat = (self.pool_seat[ended] + 1) % self.num_players
                self.recent["random_games"] += len(ended)
                self.recent["random_wins"] += int((next_batch.rewards[ended, seat] > 0).sum())
                self.pool_seat = np.where(done, (self.pool_seat + 1) % self.num_players, self.pool_seat)
            self.steps += int(decision.sum())
            batch = next_batch
        if replay:
            self.subtract_duplicate_baseline(buf, replay)
        return buf, batch

    def subtract_duplicate_baseline(self, buf: dict[str, np.ndarray], replay: list) -> None:
        """Offset each learner's final reward against the heuristic by what the heuristic's
        play of that seat scores on the same deck (``experiments.selfplay_duplicate``)."""
        from experiments.selfplay_duplicate import heuristic_rewards

        t0 = time.perf_counter()
        steps = np.concatenate([np.full(len(r[1]), r[0]) for r in replay])
        games, seats, decks, dealers = (np.concatenate([r[k] for r in replay]) for k in range(1, 5))
        base = heuristic_rewards(vector_class(self.cfg.variant), self.cfg.env_options, decks, dealers, seats)
        buf["reward"][steps, games, seats] -= base
        self.recent["duplicate_same"] += int((buf["reward"][steps, games, seats] == 0).sum())
        self.timers["heuristic"] += time.perf_counter() - t0

    # --- update ----------------------------------------------------------------------------
    def progress(self) -> float:
        """Share of the run done, by steps or by minutes, whichever is further."""
        done = self.steps / self.cfg.timesteps
        if self.cfg.minutes:
            done = max(done, self.elapsed_now() / (60 * self.cfg.minutes))
        return min(1.0, done)

    def kickstart_weight(self) -> float:
        """The kickstarting weight now: ``kickstart`` decaying linearly to ``kickstart_floor``
        (Schmitt et al. 2018)."""
        cfg = self.cfg
        if not cfg.kickstart or not cfg.kickstart_anneal or (self.heuristic is None and self.teacher is None):
            return 0.0
        return max(cfg.kickstart_floor, cfg.kickstart * max(0.0, 1.0 - self.progress() / cfg.kickstart_anneal))

    def elapsed_now(self) -> float:
        return self.elapsed + time.perf_counter() - self.session_start

    def update(self, buf: dict[str, np.ndarray], last) -> dict[str, float]:
        """One PPO update on a rollout: per-seat GAE, then clipped PPO over minibatches."""
        import torch

        from agents.torch_policy import masked_logits

        cfg = self.cfg
        shaping = cfg.shaping * max(0.0, 1.0 - self.progress() / cfg.shaping_anneal) if cfg.shaping_anneal else 0.0
        T, n = buf["value"].shape
        flat_obs = buf["obs"].reshape(T * n, -1)
        phi = self.phi(flat_obs).reshape(T, n)
        last_mask = last.action_mask.astype(bool)
        with torch.no_grad():
            x_last = torch.from_numpy(self.featurize(last.observation))
            critic = self.values(x_last, last)
            last_value = (self.net(x_last)[1] if critic is None else critic[0]).numpy()
        adv, valid = per_seat_gae(
            buf["value"],
            buf["reward"],
            buf["done"],
            buf["player"],
            buf["decision"],
            phi,
            last_value,
            np.asarray(last.current_player, np.int64),
            last_mask.any(1),
            self.phi(last.observation),
            cfg.gamma,
            cfg.gae_lambda,
            shaping,
        )
        use = (valid & buf["learner"]).reshape(-1)
        idx = np.flatnonzero(use)
        b_obs = torch.from_numpy(flat_obs[idx])
        b_critic_in = (
            None
            if self.critic is None
            else torch.cat([b_obs, torch.from_numpy(buf["priv"].reshape(T * n, -1)[idx])], 1)
        )
        b_mask = torch.from_numpy(buf["mask"].reshape(T * n, -1)[idx])
        b_act = torch.from_numpy(buf["action"].reshape(-1)[idx])
        b_teacher = torch.from_numpy(buf["teacher"].reshape(-1)[idx])
        kick = self.kickstart_weight()
        b_logp = torch.from_numpy(buf["logp"].reshape(-1)[idx])
        if self.suit_index is not None:
            aug_obs, aug_mask, aug_act = self.relabel_suits(b_obs, b_mask)
        b_adv = torch.from_numpy(adv.reshape(-1)[idx])
        b_ret = b_adv + torch.from_numpy(buf["value"].reshape(-1)[idx])
        if cfg.anneal_lr:
            for g in self.optimizer.param_groups:
                g["lr"] = cfg.lr * max(0.05, 1.0 - self.progress())
        size = len(idx)
        stats: dict[str, list[float]] = {
            "pg_loss": [],
            "v_loss": [],
            "entropy": [],
            "kl": [],
            "clipfrac": [],
            "kick_ce": [],
            "teacher_ce": [],
            "suit_gap": [],
        }
        for epoch in range(cfg.update_epochs):
            # equal minibatches (a leftover of one sample would have no advantage std)
            for j in np.array_split(self.rng.permutation(size), max(1, round(size / cfg.minibatch_size))):
                j = torch.from_numpy(j)
                logits, value = self.net(b_obs[j])
                train_value = b_critic_in is None or epoch < cfg.critic_epochs
                if b_critic_in is not None and train_value:
                    value = self.critic(b_critic_in[j])[1]
                logits = masked_logits(logits, b_mask[j])
                logsm = torch.log_softmax(logits, -1)
                new_logp = logsm.gather(1, b_act[j, None]).squeeze(1)
                entropy = -(logsm.exp() * logsm).sum(-1).mean()
                ratio = (new_logp - b_logp[j]).exp()
                a = b_adv[j]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                loss = pg_loss - cfg.ent_coef * entropy
                if train_value:
                    v_loss = 0.5 * ((value - b_ret[j]) ** 2).mean()
                    loss = loss + cfg.vf_coef * v_loss
                    stats["v_loss"].append(float(v_loss.detach()))
                if self.suit_index is not None:
                    # DrAC: the relabelled decision should get the same action distribution and value
                    aug_logits, aug_value = self.net(aug_obs[j])
                    aug_logsm = torch.log_softmax(masked_logits(aug_logits, aug_mask[j]), -1).gather(1, aug_act[j])
                    p = logsm.detach().exp()
                    gap = (p * (logsm.detach() - aug_logsm)).sum(-1).mean() + ((aug_value - value.detach()) ** 2).mean()
                    loss = loss + cfg.suit_augment * gap
                    stats["suit_gap"].append(float(gap.detach()))
                taught = b_teacher[j] >= 0
                if kick > 0 and self.teacher is not None:  # the search's labelled positions
                    t_obs, t_mask, t_act = self.teacher.sample(len(j))
                    t_logsm = torch.log_softmax(masked_logits(self.net(t_obs)[0], t_mask), -1)
                    ce = -t_logsm.gather(1, t_act[:, None]).mean()
                    loss = loss + kick * ce
                    stats["teacher_ce"].append(float(ce.detach()))
                if kick > 0 and taught.any():
                    ce = -logsm[taught].gather(1, b_teacher[j][taught, None]).mean()
                    loss = loss + kick * ce
                    stats["kick_ce"].append(float(ce.detach()))
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = new_logp - b_logp[j]
                    stats["kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clipfrac"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
                stats["pg_loss"].append(float(pg_loss.detach()))
                stats["entropy"].append(float(entropy.detach()))
            if (
                cfg.target_kl is not None
                and np.mean(stats["kl"][-max(1, round(size / cfg.minibatch_size)) :]) > cfg.target_kl
            ):
                break
        # after the epochs, so that the log-probabilities of the rollout match the network at epoch 0
        self.net.update_normalizer(b_obs)
        if b_critic_in is not None:
            self.critic.update_normalizer(b_critic_in)
        self.learner_steps += size
        self.updates += 1
        ret = b_ret.numpy()
        if self.teacher is not None:
            stats["teacher_acc"] = [self.teacher.agreement(self.net)]
        return {
            **{k: float(np.mean(v)) if v else 0.0 for k, v in stats.items()},
            "kickstart": kick,
            "samples": size,
            "shaping": shaping,
            "explained_var": float(1 - np.var(ret - buf["value"].reshape(-1)[idx]) / max(np.var(ret), 1e-8)),
        }

    def relabel_suits(self, obs, mask):
        """Each sample under a random suit relabelling (``--suit-augment``): the relabelled
        inputs, masks, and for each row the relabelled id of every action (int64 (n, A);
        ``logp_relabelled.gather(1, ids)`` is in the original action order)."""
        import torch

        cols, acts = self.suit_index
        which = self.rng.integers(len(cols), size=len(obs))
        obs, mask = obs.clone(), mask.clone()
        ids = torch.from_numpy(acts[which])
        for k in np.unique(which):
            rows = torch.from_numpy(np.flatnonzero(which == k))
            col, a = torch.from_numpy(cols[k]), torch.from_numpy(acts[k])
            obs[rows] = obs[rows][:, col]
            m = torch.zeros_like(mask[rows])
            m[:, a] = mask[rows]
            mask[rows] = m
        return obs, mask, ids

    # --- the loop ----------------------------------------------------------------------------
    def run(self, progress: bool = True) -> dict[str, Any]:
        """Train until ``timesteps`` or ``minutes`` is spent, evaluating and checkpointing on the
        way; then save ``model.pt``, evaluate it with ``final_eval_deals`` and write the summary."""
        from tqdm import tqdm

        from experiments.selfplay_report import evaluate, write_curve

        cfg = self.cfg
        self.out.mkdir(parents=True, exist_ok=True)
        self.session_start = time.perf_counter()
        self.vec = self.make_vec()
        self.pool_seat = np.arange(cfg.num_envs) % self.num_players
        batch = self.vec.reset()
        last_eval = last_ckpt = time.perf_counter()
        if self.updates == 0 and cfg.initial_eval:
            self.evaluate_now(evaluate, cfg.eval_deals)
        bar = tqdm(total=cfg.timesteps, initial=self.steps, unit="step", disable=None if progress else True)
        bar.set_description(cfg.variant)
        while self.steps < cfg.timesteps and not (cfg.minutes and self.elapsed_now() >= 60 * cfg.minutes):
            t0 = time.perf_counter()
            steps0 = self.steps
            buf, batch = self.rollout(batch)
            t1 = time.perf_counter()
            stats = self.update(buf, batch)
            t2 = time.perf_counter()
            self.timers["update"] += t2 - t1
            if cfg.snapshot_every and self.updates % cfg.snapshot_every == 0:
                self.pool = (self.pool + [copy.deepcopy(self.net.state_dict())])[-cfg.pool_size :]
            self.log_scalars(
                {**stats, "steps_per_s": (self.steps - steps0) / (t2 - t0), "rollout_s": t1 - t0, "update_s": t2 - t1}
            )
            bar.update(self.steps - bar.n)
            bar.set_postfix(ent=f"{stats['entropy']:.2f}", kl=f"{stats['kl']:.3f}", ev=f"{stats['explained_var']:.2f}")
            now = time.perf_counter()
            if now - last_eval >= 60 * cfg.eval_every:
                self.evaluate_now(evaluate, cfg.eval_deals)
                last_eval = time.perf_counter()
            if now - last_ckpt >= 60 * cfg.checkpoint_every:
                self.save_checkpoint()
                last_ckpt = now
        bar.close()
        self.elapsed = self.elapsed_now()
        self.session_start = time.perf_counter()
        self.save_checkpoint()
        model = self.save_model(self.out / "model.pt")
        final = self.evaluate_now(evaluate, cfg.final_eval_deals, path=model, final=True)
        write_curve(self.out)
        summary = self.summary(final)
        with open(self.out / "summary.json", "w") as f:
            json.dump(summary, f, indent=2)
        return summary

    def evaluate_now(self, evaluate, deals: int, path: Path | None = None, final: bool = False) -> list[dict]:
        """Win rates of the current policy on duplicate deals; one ``eval.csv`` row per opponent.
        Its time is counted in ``timers["eval"]``, not in the training's steps/s."""
        t0 = time.perf_counter()
        if path is None:
            (self.out / "snapshots").mkdir(exist_ok=True)
            path = self.save_model(self.out / "snapshots" / f"model-{self.steps:011d}.pt")
        rows = evaluate(path, self.cfg.variant, self.cfg.env_options, deals, self.cfg.eval_workers, self.cfg.seed + 1)
        seconds = time.perf_counter() - t0
        self.timers["eval"] += seconds
        new = not (self.out / "eval.csv").exists()
        with open(self.out / "eval.csv", "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(
                    ["minutes", "steps", "updates", "final", "opponent", "games", "win_rate", "ci_low", "ci_high"]
                )
            for r in rows:
                w.writerow(
                    [
                        round(self.elapsed_now() / 60, 3),
                        self.steps,
                        self.updates,
                        int(final),
                        r["opponent"],
                        r["games"],
                        round(r["win_rate"], 4),
                        round(r["win_rate_ci_low"], 4),
                        round(r["win_rate_ci_high"], 4),
                    ]
                )
        tqdm_write = __import__("tqdm").tqdm.write
        tqdm_write(
            f"[{self.elapsed_now() / 60:.1f} min, {self.steps} steps] "
            + ", ".join(f"vs {r['opponent']} {r['win_rate']:.3f} [{r['win_rate_ci_low']:.3f}]" for r in rows)
            + f" ({seconds:.0f} s)"
        )
        return rows

    def log_scalars(self, stats: dict[str, float]) -> None:
        """One ``scalars.csv`` row per update."""
        total = sum(self.timers.values()) or 1.0
        row = {
            "minutes": round(self.elapsed_now() / 60, 3),
            "steps": self.steps,
            "learner_steps": self.learner_steps,
            "updates": self.updates,
            "episodes": self.episodes,
            **{k: round(v, 5) for k, v in stats.items()},
            "sim_share": round(self.timers["sim"] / total, 4),
            "inference_share": round(self.timers["inference"] / total, 4),
            "features_share": round(self.timers["features"] / total, 4),
            "heuristic_share": round(self.timers["heuristic"] / total, 4),
            "update_share": round(self.timers["update"] / total, 4),
            "eval_share": round(self.timers["eval"] / total, 4),
            "pool": len(self.pool),
            "train_win_vs_heuristic": round(self.recent["heuristic_wins"] / max(1, self.recent["heuristic_games"]), 4),
            "train_games_vs_heuristic": self.recent["heuristic_games"],
            "train_win_vs_random": round(self.recent["random_wins"] / max(1, self.recent["random_games"]), 4),
            # with --duplicate-baseline: share of those games the learner scored as the heuristic did on the deck
            "duplicate_same": round(self.recent["duplicate_same"] / max(1, self.recent["heuristic_games"]), 4),
        }
        self.recent = dict.fromkeys(RECENT, 0)
        path = self.out / "scalars.csv"
        new = not path.exists()
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)

    def summary(self, final: list[dict]) -> dict[str, Any]:
        """The run in numbers: steps, time, speeds, time shares, final evaluation."""
        train_s = sum(v for k, v in self.timers.items() if k != "eval")
        return {
            "config": asdict(self.cfg),
            "steps": self.steps,
            "learner_steps": self.learner_steps,
            "updates": self.updates,
            "episodes": self.episodes,
            "minutes": round(self.elapsed / 60, 2),
            "timers_s": {k: round(v, 1) for k, v in self.timers.items()},
            "steps_per_s_training": round(self.steps / max(train_s, 1e-9)),
            "sim_share_of_training": round(self.timers["sim"] / max(train_s, 1e-9), 3),
            "evaluation": final,
        }


def parse_args(argv: Sequence[str] | None) -> tuple[Config, Path, bool, bool, set[str]]:
    p = argparse.ArgumentParser(
        prog=program_name("experiments.selfplay", "rummy-selfplay"), description=__doc__.split("\n\n")[0]
    )
    d = Config()
    p.add_argument("--variant", default="gin_rummy", help="gin_rummy or rummy (default: gin_rummy)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument("--out", type=Path, default=None, help="output folder (default: results/selfplay-<variant>-<time>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint.pt")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    for name, value in asdict(d).items():
        if name in ("variant", "env_options"):
            continue
        flag = "--" + name.replace("_", "-")
        if name == "features":
            p.add_argument(flag, default=value, choices=["auto", "none", *FEATURES], help="network input features")
        elif name == "critic":
            p.add_argument(
                flag,
                default=value,
                choices=["shared", "privileged"],
                help="value function: a head on the policy's trunk, or a separate network that also sees "
                "the hidden cards (training only; experiments.selfplay_critic)",
            )
        elif name == "hidden":
            p.add_argument(flag, default=",".join(map(str, value)), help=f"hidden layer widths (default: {value})")
        elif name == "teacher_labels":
            p.add_argument(flag, default=value, metavar="PATHS", help="pimc_labels .npz files, comma-separated")
        elif isinstance(value, bool):
            p.add_argument(flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=value, metavar="BOOL")
        else:
            kind = float if isinstance(value, float) or name in ("minutes", "target_kl") else int
            p.add_argument(flag, type=kind, default=value, help=f"(default: {value})")
    args = p.parse_args(argv)
    try:
        hidden = tuple(int(x) for x in args.hidden.split(","))
        if not hidden or min(hidden) <= 0:
            raise ValueError
    except ValueError:
        p.error(f"--hidden must be positive integers separated by commas, e.g. 256,256; got {args.hidden!r}")
    for name in ("num_envs", "num_steps", "timesteps", "update_epochs", "minibatch_size", "pool_size", "eval_deals"):
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.minutes is not None and not args.minutes > 0:
        p.error(f"--minutes must be positive, got {args.minutes}")
    shares = (args.pool_share, args.heuristic_share, args.random_share)
    if not (min(shares) >= 0 and sum(shares) < 1):
        p.error(
            f"--pool-share {args.pool_share}, --heuristic-share {args.heuristic_share} and --random-share "
            f"{args.random_share} must be >= 0 and sum to less than 1 (the rest of the games are pure self-play)"
        )
    try:
        variant = resolve_variant(args.variant)
        env_options = parse_env_options(args.env_option)
        load_variant(variant).env(**env_options)
        vector_class(variant)
    except (ValueError, ImportError) as err:
        p.error(str(err))
    if not 0 <= args.teacher_margin <= 1:
        p.error(f"--teacher-margin must be in [0, 1] (a value lead), got {args.teacher_margin}")
    if args.teacher_margin and not args.teacher_labels:
        p.error(f"--teacher-margin {args.teacher_margin} needs --teacher-labels (it picks their targets)")
    missing = [f for f in args.teacher_labels.split(",") if f and not Path(f).is_file()]
    if missing:
        p.error(f"--teacher-labels: no file {', '.join(missing)}")
    values = {k: getattr(args, k) for k in asdict(d) if k not in ("variant", "env_options", "hidden")}
    cfg = Config(variant=variant, env_options=env_options, hidden=hidden, **values)
    out = args.out or Path("results") / time.strftime(f"selfplay-{variant}-%Y%m%d-%H%M%S")
    tokens = [a.split("=")[0] for a in (sys.argv[1:] if argv is None else argv)]
    given = {k for k in asdict(d) if "--" + k.replace("_", "-") in tokens}
    return cfg, out, args.resume, not args.no_progress, given


def main(argv: Sequence[str] | None = None) -> int:
    import torch

    cfg, out, resume, progress, given = parse_args(argv)
    state = None
    if resume:
        path = out / "checkpoint.pt"
        if not path.is_file():
            print(f"--resume: no checkpoint.pt in {out}", file=sys.stderr)
            return 2
        state = torch.load(path, map_location="cpu", weights_only=False)
        saved = state["config"]
        # the saved run's settings, except the limits and threads, and the options given now
        # (not those that shape the network or the games: variant, options, hidden, features)
        keep = {"timesteps", "minutes", "sim_threads", "torch_threads", "eval_workers"}
        keep |= given - {"variant", "env_options", "hidden", "features", "num_envs", "seed"}
        cfg = Config(**{**saved, "hidden": tuple(saved["hidden"]), **{k: getattr(cfg, k) for k in keep}})
    trainer = Trainer(cfg, out)
    if state is not None:
        trainer.load_state(state)
    summary = trainer.run(progress=progress)
    print(
        f"{cfg.variant}: {summary['steps']} steps in {summary['minutes']} min "
        f"({summary['steps_per_s_training']} steps/s of training, {summary['sim_share_of_training']:.0%} in simulation)"
    )
    for r in summary["evaluation"]:
        print(
            f"  vs {r['opponent']:<10} win rate {r['win_rate']:.3f} "
            f"[{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}] over {r['games']} games"
        )
    print(f"model, curves and evaluation in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
