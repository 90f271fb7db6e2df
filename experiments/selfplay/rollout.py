"""One rollout: ``num_steps`` steps of every game of the batch, the learner's decisions
sampled from its masked policy and the opponents' from theirs (:mod:`~experiments.selfplay.opponents`).

The buffer keeps, per step and game, what :func:`~experiments.selfplay.returns.per_seat_gae`
and the update need: the network's input, the mask, the action, its log-probability and
value, the acting seat, whether it was a decision and whether the learner made it, every
seat's reward and the end of the game, and the heuristic's action where it teaches
(kickstarting).  The network runs on the learner's and the pool's rows only: the
heuristic and random seats need no forward pass.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from experiments.selfplay.opponents import HEURISTIC, LEAGUE, RANDOM, Opponents

#: the counts of the learner's training games logged with each update (reset after each row)
RECENT = (
    "heuristic_games",
    "heuristic_wins",
    "duplicate_same",
    "random_games",
    "random_wins",
    "league_games",
    "league_wins",
)


def empty_buffer(learner: Any) -> dict[str, np.ndarray]:
    """The rollout's arrays, ``(num_steps, num_envs, ...)``."""
    cfg = learner.cfg
    T, n = cfg.num_steps, cfg.num_envs
    buf = {
        "obs": np.zeros((T, n, learner.input_size), np.float32),
        "mask": np.zeros((T, n, learner.num_actions), bool),
        "action": np.zeros((T, n), np.int64),
        "logp": np.zeros((T, n), np.float32),
        "value": np.zeros((T, n), np.float32),
        "player": np.zeros((T, n), np.int64),
        "decision": np.zeros((T, n), bool),
        "learner": np.zeros((T, n), bool),
        "reward": np.zeros((T, n, learner.num_players), np.float32),
        "done": np.zeros((T, n), bool),
        "teacher": np.full((T, n), -1, np.int64),  # the heuristic's action (kickstarting), -1: none
    }
    if learner.critic is not None:
        from experiments.selfplay.critic import privileged_size

        buf["priv"] = np.zeros((T, n, privileged_size(learner.num_players)), np.float32)
    return buf


def critic_values(learner: Any, vec: Any, x: Any, players: np.ndarray, rows: np.ndarray) -> tuple[Any, np.ndarray]:
    """The privileged critic's values of some games of the batch.

    Args:
        learner: the run's learner (its ``critic`` is not None).
        vec: the batched engine, at the step of ``players``.
        x: float32 tensor ``(len(rows), input_size)``: the network inputs of the games ``rows``.
        players: int64 ``(num_envs,)``: each game's acting seat.
        rows: int64 game indices.

    Returns:
        ``(values, privileged)``: float32 tensor ``(len(rows),)`` and the critic's extra input,
        float32 ``(len(rows), privileged_size(P))`` (:mod:`~experiments.selfplay.critic`).
    """
    import torch

    from experiments.selfplay.critic import privileged_features

    priv = privileged_features(vec, players)[rows]
    with torch.inference_mode():
        return learner.critic(torch.cat([x, torch.from_numpy(priv).to(x.device)], 1))[1], priv


def collect(learner: Any, opponents: Opponents, vec: Any, batch: Any, recent: dict[str, int]) -> tuple[dict, Any]:
    """Play ``num_steps`` steps of every game.

    Args:
        learner: the run's :class:`~experiments.selfplay.learner.Learner` (counters and timers
            are updated).
        opponents: who plays the other seats.
        vec: the batched engine; ``batch``: its current :class:`rummy_env.vector.Batch`.
        recent: the training-game counts of :data:`RECENT` (updated).

    Returns:
        ``(buffer, batch)``: the arrays of :func:`empty_buffer` and the batch after the last step.
    """
    import torch

    from agents.torch_policy import masked_logits, sample_masked

    cfg, timers, dev = learner.cfg, learner.timers, learner.device
    n, T = cfg.num_envs, cfg.num_steps
    buf = empty_buffer(learner)
    opponents.draw_snapshot()
    kick = np.zeros(n, bool)  # the games whose learner decisions the heuristic teaches
    if learner.kickstart_weight() > 0:
        kick = (
            (opponents.kind == RANDOM) if learner.teacher is not None else np.arange(n) < round(n * cfg.kickstart_share)
        )
    LEAGUE_KINDS = tuple(range(LEAGUE, LEAGUE + len(opponents.league)))
    replay = []  # --duplicate-baseline: (step, games, learner seats, decks, dealers) of games that ended
    for t in range(T):
        t0 = time.perf_counter()
        raw, mask = batch.observation, batch.action_mask.astype(bool)
        player = np.asarray(batch.current_player, np.int64)
        decision = mask.any(1)
        who = opponents.seats(player, decision)
        netrows = np.flatnonzero(who["learner"] | who["pool"])
        tf = time.perf_counter()
        x_np = learner.featurize(raw[netrows])
        feat_s = time.perf_counter() - tf
        timers["features"] += feat_s
        action = np.zeros(n, np.int64)
        logp = np.zeros(n, np.float32)
        value = np.zeros(n, np.float32)
        if len(netrows):
            x, m = torch.from_numpy(x_np).to(dev), torch.from_numpy(mask[netrows]).to(dev)
            with torch.inference_mode():
                logits, v = learner.net(x)
                logits = masked_logits(logits, m)
                pooled = who["pool"][netrows]
                if pooled.any():
                    k = torch.from_numpy(np.flatnonzero(pooled)).to(dev)
                    logits[k] = masked_logits(opponents.snapshot(x[k])[0], m[k])
                a, lp = sample_masked(logits.cpu(), learner.gen)
            action[netrows], logp[netrows], value[netrows] = a.numpy(), lp.numpy(), v.cpu().numpy()
            if learner.critic is not None:
                cv, buf["priv"][t, netrows] = critic_values(learner, vec, x, player, netrows)
                value[netrows] = cv.cpu().numpy()
            buf["obs"][t, netrows] = x_np
        th = time.perf_counter()
        rows = np.flatnonzero(who["heuristic"])  # the heuristic reads what its seat sees only, like any agent
        if len(rows):
            action[rows] = opponents.heuristic_actions(rows, raw, mask)
        rows = np.flatnonzero(who["random"])
        if len(rows):
            action[rows] = opponents.random_actions(rows, mask)
        rows = np.flatnonzero(who["league"])
        if len(rows):
            action[rows] = opponents.league_actions(rows, raw, mask)
        rows = np.flatnonzero(kick & who["learner"])
        if len(rows):
            buf["teacher"][t, rows] = opponents.teacher_actions(rows, raw, mask)
        heur_s = time.perf_counter() - th
        timers["heuristic"] += heur_s
        # the engine writes the next batch into this one's arrays: store what is needed first
        buf["mask"][t] = mask
        buf["action"][t] = action
        buf["logp"][t] = logp
        buf["value"][t] = value
        buf["player"][t] = player
        buf["decision"][t] = decision
        buf["learner"][t] = who["learner"]
        t1 = time.perf_counter()
        next_batch = vec.step(np.where(decision, action, 0))
        t2 = time.perf_counter()
        timers["inference"] += t1 - t0 - heur_s - feat_s
        timers["sim"] += t2 - t1
        done = next_batch.terminated | next_batch.truncated
        buf["reward"][t] = next_batch.rewards
        buf["done"][t] = done
        if done.any():
            learner.episodes += int(done.sum())
            # the learner's results in its games against the heuristic, random play and the league
            for kinds, name in (((HEURISTIC,), "heuristic"), ((RANDOM,), "random"), (LEAGUE_KINDS, "league")):
                ended = np.flatnonzero(done & np.isin(opponents.kind, kinds))
                seat = opponents.learner_seat[ended]
                recent[f"{name}_games"] += len(ended)
                recent[f"{name}_wins"] += int((next_batch.rewards[ended, seat] > 0).sum())
                if name == "heuristic" and cfg.duplicate_baseline and len(ended):
                    replay.append((t, ended, seat, vec.decks()[ended], vec.dealers()[ended]))
            opponents.hand_over(done)
        learner.steps += int(decision.sum())
        batch = next_batch
    if replay:
        subtract_duplicate_baseline(learner, buf, replay, recent)
    return buf, batch


def subtract_duplicate_baseline(learner: Any, buf: dict[str, np.ndarray], replay: list, recent: dict[str, int]) -> None:
    """Offset each learner's final reward against the heuristic by what the heuristic's play of
    that seat scores on the same deck (:mod:`~experiments.selfplay.duplicate`)."""
    from experiments.selfplay.config import vector_class
    from experiments.selfplay.duplicate import heuristic_rewards

    t0 = time.perf_counter()
    steps = np.concatenate([np.full(len(r[1]), r[0]) for r in replay])
    games, seats, decks, dealers = (np.concatenate([r[k] for r in replay]) for k in range(1, 5))
    base = heuristic_rewards(vector_class(learner.cfg.variant), learner.cfg.env_options, decks, dealers, seats)
    buf["reward"][steps, games, seats] -= base
    recent["duplicate_same"] += int((buf["reward"][steps, games, seats] == 0).sum())
    learner.timers["heuristic"] += time.perf_counter() - t0
