"""The first layer of :class:`agents.torch_policy.ActorCritic` on sparse inputs, exactly.

The network's input (an observation's 0/1 planes and small counts, plus the features of
``agents.policy_features``) is about 93% zeros: 60-150 of 900-1426 entries are set.  The
first layer is ``W @ clamp((x - mean) * scale, -10, 10) + b`` (the running standardization
of ``ActorCritic``).  At an entry ``j`` where ``x_j = 0`` the standardized value is the
constant ``z0_j = clamp(-mean_j * scale_j, -10, 10)``, so

    W @ clamp((x - mean) * scale) + b = (W @ z0 + b) + W[:, nz] @ delta[nz]
    delta_j = clamp((x_j - mean_j) * scale_j, -10, 10) - z0_j        (x_j != 0)

The first term is one vector for the whole batch, the second touches the nonzero entries
only: a sparse-dense product, in a numba kernel, forward and backward (the gradient of
``W`` is ``delta^T @ grad`` on the same nonzeros, plus the constant term's, which torch's
autograd adds).  The result is the dense layer's up to float rounding (tested), at about
7% of its multiply-adds; ``ActorCritic`` takes this path for batches of
:data:`MIN_ROWS` rows or more on the CPU.
"""

from __future__ import annotations

import numpy as np
import torch
from numba import njit

#: the fewest rows for which the sparse path pays (a single observation goes dense)
MIN_ROWS = 64
CLAMP = 10.0


@njit(cache=True)
def _standardized_nonzeros(x, mean, scale, z0, indptr, indices, values):
    """CSR of ``delta`` (see the module docstring) for the nonzero entries of float32 ``x``."""
    k = 0
    for b in range(x.shape[0]):
        row = x[b]
        for j in range(x.shape[1]):
            v = row[j]
            if v != 0.0:
                s = (v - mean[j]) * scale[j]
                if s > CLAMP:
                    s = CLAMP
                elif s < -CLAMP:
                    s = -CLAMP
                indices[k] = j
                values[k] = s - z0[j]
                k += 1
        indptr[b + 1] = k
    return k


@njit(cache=True, fastmath=True)
def _csr_mm(indptr, indices, values, table, out):
    """``out[b] += sum_k values[k] * table[indices[k]]`` over row ``b``'s nonzeros."""
    width = table.shape[1]
    for b in range(indptr.shape[0] - 1):
        acc = out[b]
        for k in range(indptr[b], indptr[b + 1]):
            row = table[indices[k]]
            v = values[k]
            for h in range(width):
                acc[h] += v * row[h]


@njit(cache=True, fastmath=True)
def _csr_t_mm(indptr, indices, values, grad, out):
    """``out[indices[k]] += values[k] * grad[b]``: the transposed product (the table's gradient)."""
    width = grad.shape[1]
    for b in range(indptr.shape[0] - 1):
        g = grad[b]
        for k in range(indptr[b], indptr[b + 1]):
            row = out[indices[k]]
            v = values[k]
            for h in range(width):
                row[h] += v * g[h]


class _SparseProduct(torch.autograd.Function):
    """``delta @ table`` with ``delta`` in CSR (no gradient) and ``table`` (D, H) float32."""

    @staticmethod
    def forward(ctx, indptr, indices, values, table):
        out = np.zeros((indptr.shape[0] - 1, table.shape[1]), np.float32)
        _csr_mm(indptr, indices, values, table.detach().numpy(), out)
        ctx.csr = (indptr, indices, values)
        ctx.table_shape = tuple(table.shape)
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx, grad):
        grad_table = np.zeros(ctx.table_shape, np.float32)
        _csr_t_mm(*ctx.csr, grad.contiguous().numpy(), grad_table)
        return None, None, None, torch.from_numpy(grad_table)


def first_layer(layer: torch.nn.Linear, x: torch.Tensor, mean: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``layer(clamp((x - mean) * scale, -10, 10))`` computed from the nonzero entries of ``x``.

    Args:
        layer: the first linear layer, weight ``(H, D)``.
        x: float32 ``(B, D)`` raw network inputs on the CPU.
        mean, scale: float32 ``(D,)`` the standardization's running mean and ``1 / std``.

    Returns:
        float32 ``(B, H)``, with gradients for ``layer.weight`` and ``layer.bias``.
    """
    z0 = torch.clamp(-mean * scale, -CLAMP, CLAMP)
    xn = x.detach().contiguous().numpy()
    size = xn.size
    indptr = np.zeros(xn.shape[0] + 1, np.int64)
    indices = np.empty(size, np.int64)
    values = np.empty(size, np.float32)
    k = _standardized_nonzeros(
        xn, mean.numpy().astype(np.float32), scale.numpy().astype(np.float32), z0.numpy().astype(np.float32),
        indptr, indices, values,
    )  # fmt: skip
    constant = layer.weight @ z0 + layer.bias  # (H,): the zeros' part, one vector for the batch
    sparse = _SparseProduct.apply(indptr, indices[:k], values[:k], layer.weight.t().contiguous())
    return sparse + constant
