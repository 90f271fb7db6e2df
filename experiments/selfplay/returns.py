"""Returns of ``experiments.selfplay`` rollouts: per-seat GAE and the deadwood potential.

In a turn-based game a decision's successor is the next decision of the same seat in the
same game; :func:`per_seat_gae` follows those chains (see ``experiments.selfplay``).
"""

from __future__ import annotations

import numpy as np

from experiments.common import load_variant


def potential_fn(variant: str, env_options: dict):
    """``phi(obs) -> float32 (n,)`` for the deadwood shaping: minus the acting seat's deadwood
    (Gin) or hand points (Rummy, aces 1, faces 10; R-RUMMY-13; Crazy Rummy, a wild card 25,
    R-CRAZY-12; Rummikub, the rack's tiles at face value and a joker 30, R-RK-10) over 100."""
    layout = load_variant(variant).env(**env_options).unwrapped.layout
    if variant == "rummikub_v0":
        from rummy_env.core.tiles import TILE_VALUES

        rack = layout.slice("rack")
        values = TILE_VALUES.astype(np.float32) / 100.0
        return lambda obs: -(obs[:, rack] @ values)
    if variant == "gin_rummy_v0":
        col = layout.slice("deadwood").start
        return lambda obs: -obs[:, col] / 100.0
    hand = layout.slice("hand")
    points = np.minimum(np.arange(52) % 13 + 1, 10).astype(np.float32) / 100.0
    if variant == "crazy_rummy_v0":
        # R-CRAZY-12: a wild card (of the round's rank, the observation's one-hot) is 25 points
        wild = layout.slice("wild_rank")
        extra = np.zeros((13, 52), np.float32)
        for c in range(52):
            extra[c % 13, c] = 0.25 - points[c]

        def crazy_phi(obs: np.ndarray) -> np.ndarray:
            per_card = points[None, :] + obs[:, wild] @ extra
            return -(obs[:, hand] * per_card).sum(1)

        return crazy_phi
    return lambda obs: -(obs[:, hand] @ points)


def per_seat_gae(
    values: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
    players: np.ndarray,
    decision: np.ndarray,
    phi: np.ndarray,
    last_value: np.ndarray,
    last_player: np.ndarray,
    last_decision: np.ndarray,
    last_phi: np.ndarray,
    gamma: float,
    lam: float,
    shaping: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages along each (game, seat) chain of a rollout, backwards in time.

    Step ``t`` of game ``i`` is a decision of seat ``players[t, i]`` (if ``decision[t, i]``)
    with value ``values[t, i]`` and potential ``phi[t, i]``; the env then returned
    ``rewards[t, i, :]`` (every seat) and ``dones[t, i]`` (the game ended).  ``last_*``
    describe the batch after the last step.

    Args:
        values, phi: float ``(T, N)``; rewards: float ``(T, N, P)``; dones, decision: bool
            ``(T, N)``; players: int ``(T, N)``; last_value, last_phi: float ``(N,)``;
            last_player: int ``(N,)``; last_decision: bool ``(N,)``.
        gamma, lam: discount and GAE lambda per decision of a seat.
        shaping: weight of the potential-based term ``gamma * phi(s') - phi(s)``.

    Returns:
        ``(advantages, valid)``: float32 ``(T, N)``, and bool ``(T, N)`` marking the
        decisions whose successor (or the game's end) lies inside the rollout.
    """
    T, N, P = rewards.shape
    rows = np.arange(N)
    next_v = np.zeros((N, P), np.float64)
    next_adv = np.zeros((N, P), np.float64)
    next_phi = np.zeros((N, P), np.float64)
    known = np.zeros((N, P), bool)  # the seat's successor (or the game's end) is known
    racc = np.zeros((N, P), np.float64)  # rewards of the seat since its next-earlier decision
    lp = np.asarray(last_player)
    ld = np.asarray(last_decision, bool)
    next_v[rows[ld], lp[ld]] = last_value[ld]
    next_phi[rows[ld], lp[ld]] = last_phi[ld]
    known[rows[ld], lp[ld]] = True
    adv = np.zeros((T, N), np.float32)
    valid = np.zeros((T, N), bool)
    for t in range(T - 1, -1, -1):
        d = dones[t]
        if d.any():  # the game ended with this step: every seat's chain ends here
            next_v[d] = 0.0
            next_adv[d] = 0.0
            next_phi[d] = 0.0
            racc[d] = 0.0
            known[d] = True
        racc += rewards[t]
        m = decision[t]
        i, p = rows[m], players[t][m]
        v = values[t][m]
        delta = racc[i, p] + shaping * (gamma * next_phi[i, p] - phi[t][m]) + gamma * next_v[i, p] - v
        a = delta + gamma * lam * next_adv[i, p]
        k = known[i, p]
        adv[t, i] = np.where(k, a, 0.0)
        valid[t, i] = k
        next_v[i, p] = v
        next_adv[i, p] = np.where(k, a, 0.0)
        next_phi[i, p] = phi[t][m]
        known[i, p] = True
        racc[i, p] = 0.0
    return adv, valid
