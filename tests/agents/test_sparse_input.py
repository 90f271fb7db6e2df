"""The sparse first layer of ``ActorCritic``: the same outputs and gradients as the dense layer
(standardization and clamping included), from the input's nonzero entries only."""

import numpy as np
import pytest
import torch

import agents.torch_policy as torch_policy
from agents.sparse_input import MIN_ROWS, first_layer
from agents.torch_policy import ActorCritic


def sparse_batch(rows, width, seed):
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(rows, width, generator=g) < 0.08).float() * torch.randint(1, 4, (rows, width), generator=g).float()
    x[:, 3] = torch.arange(rows, dtype=torch.float32)  # a count column, 0 in the first row
    return x


def test_the_first_layer_is_the_dense_layers_value_including_clamped_entries():
    torch.manual_seed(0)
    layer = torch.nn.Linear(40, 8)
    x = sparse_batch(100, 40, 1)
    mean = torch.rand(40) * 0.2
    scale = torch.rand(40) * 50 + 0.5  # large scales: standardized entries beyond +-10 get clamped
    dense = layer(((x - mean) * scale).clamp(-10.0, 10.0))
    assert ((x - mean) * scale).abs().max() > 10  # the clamp matters here
    np.testing.assert_allclose(first_layer(layer, x, mean, scale).detach(), dense.detach(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("features, obs, actions", [("gin_read", 485, 108), ("meld_opp", 324, 579)])
def test_the_network_gives_the_dense_outputs_and_gradients(features, obs, actions, monkeypatch):
    torch.manual_seed(3)
    net = ActorCritic(obs, actions, (32, 16), features)
    x = sparse_batch(MIN_ROWS + 5, net.trunk[0].in_features, 2)
    net.update_normalizer(x)

    def run():
        net.zero_grad()
        logits, value = net(x)
        (logits.square().mean() + value.sum()).backward()
        return logits.detach(), value.detach(), [p.grad.clone() for p in net.parameters()]

    sparse = run()
    monkeypatch.setattr(torch_policy, "_sparse_first_layer", None)
    dense = run()
    for a, b in zip(sparse[:2], dense[:2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for a, b in zip(sparse[2], dense[2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_small_batches_take_the_dense_layer(monkeypatch):
    calls = []
    real = torch_policy._sparse_first_layer
    monkeypatch.setattr(torch_policy, "_sparse_first_layer", lambda *a: calls.append(1) or real(*a))
    net = ActorCritic(485, 108, (16,), "none")
    net(torch.zeros(MIN_ROWS - 1, 485))
    assert calls == []
    net(torch.zeros(MIN_ROWS, 485))
    assert calls == [1]
