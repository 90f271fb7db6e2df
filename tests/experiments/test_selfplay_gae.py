"""``experiments.selfplay``'s per-seat GAE on scripted rollouts and masked sampling
(``agents.torch_policy``): exact advantages, no illegal action ever drawn."""

import numpy as np
import torch

from agents.torch_policy import ILLEGAL_LOGIT, masked_logits, sample_masked
from experiments.selfplay import returns as selfplay_returns


def scripted_rollout():
    """One game, two seats: p0, p0, p1, p1, p0 (the game ends: +1 p0, -1 p1), then the
    autoreset step (no decision); after it seat 1 acts in the new game with value 0.9."""
    T, N, P = 6, 1, 2
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.5], [0.0]])
    rewards = np.zeros((T, N, P))
    rewards[4, 0] = [1.0, -1.0]
    dones = np.zeros((T, N), bool)
    dones[4, 0] = True
    players = np.array([[0], [0], [1], [1], [0], [0]])
    decision = np.array([[True]] * 5 + [[False]])
    return values, rewards, dones, players, decision


def gae(values, rewards, dones, players, decision, gamma, lam, phi=None, shaping=0.0, last=(0.9, 1, True)):
    phi = np.zeros_like(values) if phi is None else phi
    v, p, d = last
    return selfplay_returns.per_seat_gae(
        values, rewards, dones, players, decision, phi, np.array([v]), np.array([p]), np.array([d]),
        np.array([0.0]), gamma, lam, shaping,
    )  # fmt: skip


def test_gae_follows_each_seats_own_chain_and_gives_the_final_reward_to_both_seats():
    adv, valid = gae(*scripted_rollout(), gamma=1.0, lam=1.0)
    # lambda = gamma = 1: advantage = the seat's return (p0 +1, p1 -1) minus the value
    np.testing.assert_allclose(adv[:, 0], [0.9, 0.8, -1.3, -1.4, 0.5, 0.0], atol=1e-6)
    assert valid[:, 0].tolist() == [True, True, True, True, True, False]


def test_gae_discounts_per_decision_of_the_seat_not_per_env_step():
    adv, _ = gae(*scripted_rollout(), gamma=0.5, lam=0.5)
    # p0: A4 = 1 - .5; d1 = .5*.5 - .2, A1 = d1 + .25*A4; d0 = .5*.2 - .1 = 0, A0 = .25*A1
    # p1: A3 = -1 - .4; d2 = .5*.4 - .3, A2 = d2 + .25*A3
    np.testing.assert_allclose(adv[:, 0], [0.04375, 0.175, -0.45, -1.4, 0.5, 0.0], atol=1e-6)


def test_gae_bootstraps_a_tail_decision_from_the_last_batch_only_for_its_own_seat():
    values, rewards, dones, players, decision = scripted_rollout()
    # the first three steps only: p0's second decision is followed by p1's; the last batch is p1's turn
    adv, valid = gae(values[:3], rewards[:3], dones[:3], players[:3], decision[:3], 1.0, 1.0, last=(0.7, 1, True))
    # p1's decision at t=2 bootstraps from 0.7; p0's decision at t=1 has no successor in the
    # rollout (left out), the one at t=0 bootstraps from it (a one-step advantage)
    np.testing.assert_allclose(adv[:, 0], [0.2 - 0.1, 0.0, 0.7 - 0.3], atol=1e-6)
    assert valid[:, 0].tolist() == [True, False, True]


def test_gae_adds_the_potential_difference_along_the_seats_chain_and_zero_potential_at_the_end():
    values, rewards, dones, players, decision = scripted_rollout()
    values = np.zeros_like(values)
    phi = np.array([[-0.5], [-0.4], [-0.9], [-0.8], [-0.1], [-0.6]])
    adv, _ = gae(values, np.zeros_like(rewards), dones, players, decision, 1.0, 0.0, phi=phi, shaping=2.0)
    # lambda = 0: each advantage is its one-step shaping term 2 * (phi(next of the same seat) - phi(now))
    np.testing.assert_allclose(adv[:5, 0], [0.2, 0.6, 0.2, 1.6, 0.2], atol=1e-6)


def test_masked_sampling_never_draws_an_illegal_action_even_when_its_logit_is_the_largest():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(2000, 108, generator=gen) * 5
    mask = torch.rand(2000, 108, generator=gen) < 0.05
    mask[torch.arange(2000), torch.randint(0, 108, (2000,), generator=gen)] = True
    logits[~mask] += 60.0  # illegal ids would win by far without the mask
    for _ in range(5):
        actions, logp = sample_masked(masked_logits(logits, mask), generator=gen)
        assert mask[torch.arange(2000), actions].all()
        assert torch.isfinite(logp).all() and (logp <= 0).all()
    probs = torch.softmax(masked_logits(logits, mask), -1)
    assert probs[~mask].max().item() == 0.0


def test_masked_sampling_draws_from_the_softmax():
    gen = torch.Generator().manual_seed(1)
    logits = torch.tensor([[0.0, np.log(3.0), ILLEGAL_LOGIT, 0.0]]).repeat(20000, 1)
    actions, logp = sample_masked(logits, generator=gen)
    freq = torch.bincount(actions, minlength=4).double() / 20000
    np.testing.assert_allclose(freq.numpy(), [0.2, 0.6, 0.0, 0.2], atol=0.015)
    np.testing.assert_allclose(logp[actions == 1].numpy(), np.log(0.6), atol=1e-6)
