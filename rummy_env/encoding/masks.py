"""Action masks: int8 vectors with a 1 at each legal action id."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mask_from_legal(legal: Sequence[int], num_actions: int) -> np.ndarray:
    """The action mask of a list of legal action ids.

    Args:
        legal: legal action ids (may be empty: then the mask is all zeros, as for a
            player who is not acting).
        num_actions: size of the action space.

    Returns:
        int8 array of shape ``(num_actions,)``, 1 at legal ids, 0 elsewhere.
    """
    mask = np.zeros(num_actions, dtype=np.int8)
    if legal:
        mask[legal] = 1
    return mask
