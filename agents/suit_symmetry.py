"""Suit permutations of Gin Rummy observations, network inputs and actions.

Gin Rummy treats the four suits alike (``docs/rules/gin_rummy.md``: runs are of one suit,
sets of one rank, card points depend on the rank only), so relabelling the suits of a
deal by a permutation ``sigma`` gives a game whose observations are the original ones
with every 52-card plane permuted and whose legal actions are the original ones with
every card id permuted.  Self-play training uses this to penalize the network for playing
a decision differently under a random relabelling (``experiments.selfplay --suit-augment``),
so that what it learns about one suit holds for the others.

A card ``c = suit * 13 + rank`` (``rummy_env.core.cards``) maps to ``sigma[suit] * 13 +
rank``.  Every 52-wide field of the observation layout is a card plane; the other fields
(phase, seats, counts, scores) do not name a suit.  The input features of
``agents.policy_features`` are card planes too, except the upcard's four meld flags and
the least deadwood after taking it (see :data:`FEATURE_BLOCKS`).
"""

from __future__ import annotations

import itertools

import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.encoding.layout import Layout

#: the 24 permutations of the suits C D H S, identity first: int64 (24, 4)
SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.int64)

#: feature set -> its blocks in order: ``"card"`` is a 52-card plane, an int that many entries naming no suit
FEATURE_BLOCKS: dict[str, tuple] = {
    "none": (),
    "meld": ("card",) * 4 + (4,),
    "gin": ("card",) * 4 + (4,) + ("card", 1),
    "gin_opp": ("card",) * 4 + (4,) + ("card", 1) + ("card",) * 7,
    "gin_read": ("card",) * 4 + (4,) + ("card", 1) + ("card",) * 13,
}


def card_permutation(sigma: np.ndarray) -> np.ndarray:
    """Where each card goes when the suits are relabelled by ``sigma``.

    Args:
        sigma: int (4,), a permutation of 0..3: suit ``s`` becomes suit ``sigma[s]``.

    Returns:
        int64 (52,): ``out[c]`` is the id of card ``c`` after relabelling.

    Raises:
        ValueError: ``sigma`` is not a permutation of 0..3.
    """
    sigma = np.asarray(sigma)
    if sigma.shape != (4,) or sorted(sigma.tolist()) != [0, 1, 2, 3]:
        raise ValueError(f"sigma must be a permutation of 0, 1, 2, 3; got {sigma.tolist()}")
    cards = np.arange(NUM_CARDS)
    return sigma[cards // NUM_RANKS].astype(np.int64) * NUM_RANKS + cards % NUM_RANKS


def _gather_index(blocks: list[int | str], sigma: np.ndarray) -> np.ndarray:
    """Column index ``idx`` with ``x_relabelled = x[..., idx]`` for a vector made of ``blocks``."""
    inverse = np.argsort(card_permutation(sigma))  # the card that lands on each id
    parts, offset = [], 0
    for block in blocks:
        if block == "card":
            parts.append(offset + inverse)
            offset += NUM_CARDS
        else:
            parts.append(offset + np.arange(block))
            offset += block
    return np.concatenate(parts).astype(np.int64)


def input_index(layout: Layout, features: str, sigma: np.ndarray) -> np.ndarray:
    """Column index that relabels the suits of a network input (observation + features).

    Args:
        layout: the Gin Rummy observation layout (``env.unwrapped.layout``).
        features: the feature set appended to it (``agents.policy_features``).
        sigma: int (4,), the suit relabelling.

    Returns:
        int64 (layout.size + extra,): ``x[..., idx]`` is the input of the relabelled deal.

    Raises:
        ValueError: an unknown feature set, or a ``sigma`` that is not a permutation.
    """
    if features not in FEATURE_BLOCKS:
        raise ValueError(f"no suit blocks for features {features!r}: use {', '.join(FEATURE_BLOCKS)}")
    blocks: list[int | str] = ["card" if f.size == NUM_CARDS else f.size for f in layout.fields]
    return _gather_index(blocks + list(FEATURE_BLOCKS[features]), sigma)


def gin_action_index(sigma: np.ndarray, num_actions: int = 108) -> np.ndarray:
    """Where each Gin Rummy action id goes when the suits are relabelled by ``sigma``.

    Discards (0..51) and knocks (52..103) name a card; draw stock, draw upcard, pass and
    big gin (104..107) do not (``rummy_env.games.gin_rummy.actions``).

    Returns:
        int64 (108,): ``out[a]`` is the id of action ``a`` in the relabelled deal.
    """
    cards = card_permutation(sigma)
    return np.concatenate([cards, NUM_CARDS + cards, np.arange(2 * NUM_CARDS, num_actions)]).astype(np.int64)


def relabelling_index(layout: Layout, features: str, num_actions: int = 108) -> tuple[np.ndarray, np.ndarray]:
    """The column indices of all 24 suit relabellings of the network's inputs and actions.

    Args:
        layout: the observation layout of ``gin_rummy_v0``.
        features: the input feature set (a key of :data:`FEATURE_BLOCKS`).
        num_actions: the action space's size.

    Returns:
        ``(inputs, actions)``: int64 ``(24, input_size)`` and ``(24, num_actions)``, row ``k``
        for ``SUIT_PERMUTATIONS[k]`` (:func:`input_index`, :func:`gin_action_index`).
    """
    return (
        np.stack([input_index(layout, features, p) for p in SUIT_PERMUTATIONS]),
        np.stack([gin_action_index(p, num_actions) for p in SUIT_PERMUTATIONS]),
    )


def relabel_batch(index: tuple[np.ndarray, np.ndarray], obs, mask, rng: np.random.Generator):
    """Each row of a batch under a suit relabelling drawn uniformly among the 24.

    Args:
        index: :func:`relabelling_index`.
        obs: float32 tensor ``(n, input_size)`` of network inputs.
        mask: bool tensor ``(n, num_actions)`` of legal actions.
        rng: draws the relabellings.

    Returns:
        ``(obs, mask, ids)``: the relabelled inputs and masks (new tensors) and int64
        ``(n, num_actions)``, for each row the relabelled id of every action, so that
        ``logp_relabelled.gather(1, ids)`` is in the original action order.
    """
    import torch

    cols, acts = index
    which = rng.integers(len(cols), size=len(obs))
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
