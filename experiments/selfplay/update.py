"""One PPO update on a rollout: per-seat GAE, then epochs of clipped PPO over minibatches
of the learner's decisions (Schulman et al. 2017; CleanRL's ``ppo.py`` loss), with the
optional kickstarting or search-label cross-entropy, the privileged critic and the
suit-relabelling penalty (the parts of a recipe, :mod:`experiments.selfplay`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from experiments.selfplay.returns import per_seat_gae
from experiments.selfplay.rollout import critic_values

#: the statistics of an update (means over its minibatches), columns of ``scalars.csv``
STATS = ("pg_loss", "v_loss", "entropy", "kl", "clipfrac", "kick_ce", "teacher_ce", "suit_gap")


def advantages(learner: Any, vec: Any, buf: dict[str, np.ndarray], last: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-seat GAE of a rollout (:func:`~experiments.selfplay.returns.per_seat_gae`), with the
    value of the batch after the last step as the bootstrap and the annealed shaping weight.

    Returns:
        ``(advantages float32 (T, N), valid bool (T, N), shaping weight)``.
    """
    import torch

    cfg = learner.cfg
    shaping = cfg.shaping * max(0.0, 1.0 - learner.progress() / cfg.shaping_anneal) if cfg.shaping_anneal else 0.0
    T, n = buf["value"].shape
    phi = learner.phi(buf["obs"].reshape(T * n, -1)).reshape(T, n)
    last_mask = last.action_mask.astype(bool)
    last_player = np.asarray(last.current_player, np.int64)
    with torch.inference_mode():
        x = torch.from_numpy(learner.featurize(last.observation)).to(learner.device)
        if learner.critic is None:
            last_value = learner.net(x)[1].cpu().numpy()
        else:
            last_value = critic_values(learner, vec, x, last_player, np.arange(n))[0].cpu().numpy()
    adv, valid = per_seat_gae(
        buf["value"],
        buf["reward"],
        buf["done"],
        buf["player"],
        buf["decision"],
        phi,
        last_value,
        last_player,
        last_mask.any(1),
        learner.phi(last.observation),
        cfg.gamma,
        cfg.gae_lambda,
        shaping,
    )
    return adv, valid, shaping


def ppo_update(learner: Any, vec: Any, buf: dict[str, np.ndarray], last: Any) -> dict[str, float]:
    """One PPO update of ``learner`` on the rollout ``buf`` (the batch ``last`` after it).

    Returns:
        the update's statistics: :data:`STATS` (means over minibatches), ``kickstart`` (the
        weight used), ``samples`` (learner decisions trained on), ``shaping``,
        ``explained_var`` and, with search labels, ``teacher_acc``.
    """
    import torch

    from agents.torch_policy import masked_logits

    cfg, net, dev = learner.cfg, learner.net, learner.device
    adv, valid, shaping = advantages(learner, vec, buf, last)
    T, n = buf["value"].shape
    idx = np.flatnonzero((valid & buf["learner"]).reshape(-1))

    def rows(key: str) -> Any:
        flat = buf[key].reshape(T * n, *buf[key].shape[2:])
        return torch.from_numpy(flat[idx]).to(dev)

    b_obs, b_mask, b_act, b_logp = rows("obs"), rows("mask"), rows("action"), rows("logp")
    b_teacher = rows("teacher")
    b_critic_in = None if learner.critic is None else torch.cat([b_obs, rows("priv")], 1)
    b_adv = torch.from_numpy(adv.reshape(-1)[idx]).to(dev)
    b_ret = b_adv + rows("value")
    kick = learner.kickstart_weight()
    if learner.suit_index is not None:
        from agents.suit_symmetry import relabel_batch

        aug_obs, aug_mask, aug_act = relabel_batch(learner.suit_index, b_obs.cpu(), b_mask.cpu(), learner.rng)
        aug_obs, aug_mask, aug_act = aug_obs.to(dev), aug_mask.to(dev), aug_act.to(dev)
    if cfg.anneal_lr:
        for g in learner.optimizer.param_groups:
            g["lr"] = cfg.lr * max(0.05, 1.0 - learner.progress())
    size = len(idx)
    stats: dict[str, list[float]] = {k: [] for k in STATS}
    minibatches = max(1, round(size / cfg.minibatch_size))
    for epoch in range(cfg.update_epochs):
        # equal minibatches (a leftover of one sample would have no advantage std)
        for j in np.array_split(learner.rng.permutation(size), minibatches):
            j = torch.from_numpy(j).to(dev)
            logits, value = net(b_obs[j])
            train_value = b_critic_in is None or epoch < cfg.critic_epochs
            if b_critic_in is not None and train_value:
                value = learner.critic(b_critic_in[j])[1]
            logsm = torch.log_softmax(masked_logits(logits, b_mask[j]), -1)
            new_logp = logsm.gather(1, b_act[j, None]).squeeze(1)
            entropy = -(logsm.exp() * logsm).sum(-1).mean()
            log_ratio = new_logp - b_logp[j]
            ratio = log_ratio.exp()
            a = b_adv[j]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
            loss = pg_loss - cfg.ent_coef * entropy
            if train_value:
                v_loss = 0.5 * ((value - b_ret[j]) ** 2).mean()
                loss = loss + cfg.vf_coef * v_loss
                stats["v_loss"].append(float(v_loss.detach()))
            if learner.suit_index is not None:
                # DrAC: the relabelled decision should get the same action distribution and value
                aug_logits, aug_value = net(aug_obs[j])
                aug_logsm = torch.log_softmax(masked_logits(aug_logits, aug_mask[j]), -1).gather(1, aug_act[j])
                p = logsm.detach().exp()
                gap = (p * (logsm.detach() - aug_logsm)).sum(-1).mean() + ((aug_value - value.detach()) ** 2).mean()
                loss = loss + cfg.suit_augment * gap
                stats["suit_gap"].append(float(gap.detach()))
            if kick > 0 and learner.teacher is not None:  # the search's labelled positions
                t_obs, t_mask, t_act = (v.to(dev) for v in learner.teacher.sample(len(j)))
                t_logsm = torch.log_softmax(masked_logits(net(t_obs)[0], t_mask), -1)
                ce = -t_logsm.gather(1, t_act[:, None]).mean()
                loss = loss + kick * ce
                stats["teacher_ce"].append(float(ce.detach()))
            taught = b_teacher[j] >= 0
            if kick > 0 and bool(taught.any()):
                ce = -logsm[taught].gather(1, b_teacher[j][taught, None]).mean()
                loss = loss + kick * ce
                stats["kick_ce"].append(float(ce.detach()))
            learner.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            learner.optimizer.step()
            with torch.no_grad():
                stats["kl"].append(float(((ratio - 1) - log_ratio).mean()))
                stats["clipfrac"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
            stats["pg_loss"].append(float(pg_loss.detach()))
            stats["entropy"].append(float(entropy.detach()))
        if cfg.target_kl is not None and np.mean(stats["kl"][-minibatches:]) > cfg.target_kl:
            break
    # after the epochs, so that the log-probabilities of the rollout match the network at epoch 0
    net.update_normalizer(b_obs)
    if b_critic_in is not None:
        learner.critic.update_normalizer(b_critic_in)
    learner.learner_steps += size
    learner.updates += 1
    ret = b_ret.cpu().numpy()
    values = buf["value"].reshape(-1)[idx]
    out = {
        **{k: float(np.mean(v)) if v else 0.0 for k, v in stats.items()},
        "kickstart": kick,
        "samples": size,
        "shaping": shaping,
        "explained_var": float(1 - np.var(ret - values) / max(np.var(ret), 1e-8)),
    }
    if learner.teacher is not None:
        out["teacher_acc"] = learner.teacher.agreement(net)
    return out
