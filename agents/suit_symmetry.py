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
