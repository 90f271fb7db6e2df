"""Input features of the self-play networks, computed from the observation only.

An MLP over the 52 hand bits has to learn which cards form melds and what deadwood a
discard leaves, which the rule-based heuristics compute exactly; these features give it
that from the start.  They use only the acting player's own observation (hand and
upcard planes), like any agent, so a policy with them plays through ``PolicyAgent``.

- ``meld``: for each card of the hand (52 x 4): in a set of 3+ of its rank, in a run of
  3+ of its suit (aces low), in a pair of its rank, next to a card of its suit at most
  two ranks away; then the same four for the upcard / top discard as if it joined the
  hand (4).  212 entries.
- ``gin``: ``meld`` plus, for each card of the hand, the exact deadwood of the hand
  without it over 100 (52; ``rummy_env.core.deadwood``, R-GIN-05), and the least
  deadwood after taking the upcard and discarding another card over 100 (1; 0 without
  an upcard).  265 entries.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.deadwood import deadwood

_BITS = np.array([1 << c for c in range(52)], dtype=np.uint64)


def _shift(x: np.ndarray, k: int) -> np.ndarray:
    """``x`` (n, 4, 13) moved ``k`` ranks up (``out[..., r] = x[..., r - k]``), zeros shifted in."""
    out = np.zeros_like(x)
    if k > 0:
        out[..., k:] = x[..., :-k]
    else:
        out[..., :k] = x[..., -k:]
    return out


def _card_meld_flags(hand: np.ndarray) -> np.ndarray:
    """(n, 52) 0/1 hand plane -> (n, 4, 52): set3, run3, pair, near-suited for each held card."""
    h = hand.reshape(-1, 4, 13) > 0
    rank_count = h.sum(1, keepdims=True)
    m1, m2, p1, p2 = _shift(h, 1), _shift(h, 2), _shift(h, -1), _shift(h, -2)
    run = h & ((m2 & m1) | (m1 & p1) | (p1 & p2))
    near = h & (m1 | m2 | p1 | p2)
    flags = np.stack([h & (rank_count >= 3), run, h & (rank_count >= 2), near], 1)
    return flags.reshape(-1, 4, 52).astype(np.float32)


def meld_features(hand: np.ndarray, upcard: np.ndarray) -> np.ndarray:
    """The ``meld`` features of hand and upcard planes (both float (n, 52)): float32 (n, 212)."""
    own = _card_meld_flags(hand).reshape(-1, 208)
    joined = _card_meld_flags(np.maximum(hand, upcard))
    up = (joined * (upcard > 0)[:, None, :]).sum(2)
    return np.concatenate([own, up], 1)


def gin_deadwood_features(hand: np.ndarray, upcard: np.ndarray) -> np.ndarray:
    """Deadwood without each held card and after taking the upcard (see the module
    docstring): float32 (n, 53)."""
    n = hand.shape[0]
    out = np.zeros((n, 53), np.float32)
    masks = ((hand > 0).astype(np.uint64) * _BITS).sum(1, dtype=np.uint64)
    ups = np.where(upcard.any(1), upcard.argmax(1), -1)
    for i in range(n):
        h = int(masks[i])
        rest = h
        while rest:
            low = rest & -rest
            rest ^= low
            out[i, low.bit_length() - 1] = deadwood(h ^ low) / 100.0
        u = int(ups[i])
        if u >= 0 and not h >> u & 1:
            with_up = h | 1 << u
            best, rest = 1000, h
            while rest:
                low = rest & -rest
                rest ^= low
                best = min(best, deadwood(with_up ^ low))
            out[i, 52] = best / 100.0 if h else 0.0
    return out


#: name -> (extra entries, the observation fields read: hand plane, upcard plane)
FEATURES = {"meld": 212, "gin": 265}
_FIELDS = {"gin_rummy_v0": ("hand", "upcard"), "rummy_v0": ("hand", "top_discard")}


class Featurizer:
    """Appends the named features to a batch of observations.

    Args:
        name: ``"none"``, ``"meld"`` or ``"gin"`` (Gin Rummy only).
        variant: the env module name, e.g. ``"gin_rummy_v0"``.
        layout: the env's observation layout (``env.unwrapped.layout``).

    Raises:
        ValueError: an unknown name, or one the variant cannot use.
    """

    def __init__(self, name: str, variant: str, layout) -> None:
        if name != "none" and name not in FEATURES:
            raise ValueError(f"unknown features {name!r}: use none, {', '.join(FEATURES)}")
        if name != "none" and variant not in _FIELDS or name == "gin" and variant != "gin_rummy_v0":
            raise ValueError(f"features {name!r} do not apply to {variant}")
        self.name = name
        self.extra = 0 if name == "none" else FEATURES[name]
        if name != "none":
            hand, up = _FIELDS[variant]
            self._hand, self._up = layout.slice(hand), layout.slice(up)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """float32 (n, obs_size) -> float32 (n, obs_size + extra)."""
        if self.name == "none":
            return obs
        hand, up = obs[:, self._hand], obs[:, self._up]
        parts = [obs, meld_features(hand, up)]
        if self.name == "gin":
            parts.append(gin_deadwood_features(hand, up))
        return np.concatenate(parts, 1).astype(np.float32, copy=False)
