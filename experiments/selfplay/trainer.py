"""Self-play masked PPO on the batched simulator ``rummy_env.vector`` (CleanRL style).

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
``--teacher-labels`` the teacher is a search instead (``experiments.selfplay.teacher``:
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

import copy
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from experiments.common import load_variant, output_folder, program_name
from experiments.selfplay.checkpoint import Checkpoints, resumed_config
from experiments.selfplay.config import Config, check_config, parse_args, vector_class
from experiments.selfplay.logs import RECENT, RunRecords
from experiments.selfplay.returns import per_seat_gae, potential_fn

__all__ = ["Config", "Trainer", "check_config", "main", "parse_args", "vector_class"]


class Trainer(Checkpoints, RunRecords):
    """The run's state (network, optimizer, pool, counters, logs) and its loop.

    The settings are :class:`experiments.selfplay.config.Config`; saving and restoring the
    state are in :class:`experiments.selfplay.checkpoint.Checkpoints`, the logs in
    :class:`experiments.selfplay.logs.RunRecords`.

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
        check_config(config, self.num_players)
        if config.features == "auto":
            config.features = "gin_opp" if config.variant == "gin_rummy_v0" else "meld_opp"
        self.featurize = Featurizer(config.features, config.variant, env.unwrapped.layout)
        self.input_size = self.obs_size + self.featurize.extra
        self.net = ActorCritic(self.obs_size, self.num_actions, config.hidden, config.features)
        self.opponent = copy.deepcopy(self.net)
        params = list(self.net.parameters())
        self.critic = None  # with --critic privileged: a separate network over the hidden cards too
        if config.critic == "privileged":
            from experiments.selfplay.critic import privileged_size

            self.critic = ActorCritic(self.input_size + privileged_size(self.num_players), 1, config.hidden)
            params += list(self.critic.parameters())
        self.suit_index = None  # with --suit-augment: (inputs, actions) column indices of the 24 relabellings
        if config.suit_augment:
            from agents.suit_symmetry import relabelling_index

            self.suit_index = relabelling_index(env.unwrapped.layout, config.features, self.num_actions)
        self.optimizer = torch.optim.Adam(params, lr=config.lr, eps=1e-5)
        self.pool: list[dict] = []
        self.steps = 0  # env steps (decisions of every seat, pool seats included)
        self.learner_steps = 0  # decisions of the learner used in updates
        self.updates = 0
        self.episodes = 0
        self.elapsed = 0.0  # training seconds of previous sessions (resume)
        self.timers = {"sim": 0.0, "features": 0.0, "inference": 0.0, "heuristic": 0.0, "update": 0.0, "eval": 0.0}
        self.phi = potential_fn(config.variant, config.env_options)
        self.teacher = None
        if config.teacher_labels:
            from experiments.selfplay.teacher import TeacherLabels

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

    # --- rollouts --------------------------------------------------------------------------
    def make_vec(self):
        """A fresh batched simulator, seeded from the run seed and the update count (a resumed
        run plays new deals)."""
        from experiments.selfplay.critic import compiled_heuristic

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
            input, float32 ``(num_envs, privileged_size(P))`` (``experiments.selfplay.critic``).
        """
        import torch

        if self.critic is None:
            return None
        from experiments.selfplay.critic import privileged_features

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
            from experiments.selfplay.critic import privileged_size

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
        play of that seat scores on the same deck (``experiments.selfplay.duplicate``)."""
        from experiments.selfplay.duplicate import heuristic_rewards

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
        """Each sample under a random suit relabelling (``--suit-augment``,
        :func:`agents.suit_symmetry.relabel_batch`)."""
        from agents.suit_symmetry import relabel_batch

        return relabel_batch(self.suit_index, obs, mask, self.rng)

    # --- the loop ----------------------------------------------------------------------------
    def run(self, progress: bool = True) -> dict[str, Any]:
        """Train until ``timesteps`` or ``minutes`` is spent, evaluating and checkpointing on the
        way; then save ``model.pt``, evaluate it with ``final_eval_deals`` and write the summary."""
        from tqdm import tqdm

        from experiments.selfplay.logs import evaluate, write_curve

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
        cfg = resumed_config(state["config"], cfg, given)
    try:
        out = output_folder(out, "selfplay")  # a bad path fails now, not at the first checkpoint
        trainer = Trainer(cfg, out)
    except ValueError as err:
        print(f"{program_name('experiments.selfplay', 'rummy-selfplay')}: error: {err}", file=sys.stderr)
        return 2
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
