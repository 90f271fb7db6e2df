"""``pimc:model=mix`` on Rummikub: the other seats' playout policy drawn per world from
a posterior over two styles, fitted on their public turns of the hand so far.

The panel's Rummikub opponents play one of two ways after their initial meld (R-RK-07):
*max-play* (``heuristic`` and its ``hold_jokers`` / ``most_tiles`` styles: a play
whenever the solver finds one, a draw only without one) or *patient*
(``heuristic:style=patient`` and the panel's ``pimc``: a draw every turn until the whole
rack goes out in one play, R-RK-08/10); ``big_plays`` (panel version 3) lies between
the two: it plays only plays of half its rack, and reads as a mixture of them.  Rolling
every opponent out as max-play (the plain whole-play search) misjudges a patient
opponent: it expects the opponent's rack to shrink turn by turn, where a patient rack
grows until it empties at once.

The evidence is public (the history of the hand: who played, who drew, the pool size):

- a play after the initial meld, with tiles in the pool, that does not empty the rack:
  a patient player never makes one (likelihood :data:`MIX_EPS`, no style is exact);
- a draw after the initial meld, with tiles in the pool: a max-play player draws only
  when it has no play (likelihood :data:`MAX_PLAY_DRAW` per draw).

Both styles make the initial meld as soon as they can, so turns before it say nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.tiles import POOL_SIZE
from rummy_env.games.rummikub.actions import COMMIT
from rummy_env.games.rummikub.deal import RACK_SIZE

#: the styles of the mixture, in the order of :func:`style_posterior`'s columns
STYLES = ("heuristic", "patient")
#: likelihood, under the patient style, of a play after the initial meld with tiles in
#: the pool (the patient policy never makes one: a miss makes the style unlikely, not
#: impossible)
MIX_EPS = 0.2
#: likelihood, under max-play, of a draw after the initial meld with tiles in the pool
#: (it draws only with no play on its rack; after the meld a rack of 10+ tiles and a
#: table usually have one)
MAX_PLAY_DRAW = 0.5


def hand_turns(state: Any) -> list[tuple[int, bool, int]]:
    """The finished turns of the current hand, oldest first, from public information only
    (the public ``history`` of actions, ``turn``, ``current`` and ``num_players``).

    Args:
        state: a Rummikub engine state (``RummikubState``): ``history`` (the action ids
            played so far, int; tile types 0..52 add a tile to the play being built,
            :data:`COMMIT` ends a play, ``DRAW`` a draw or pass), ``turn`` (turns finished
            in this hand), ``current`` (the acting seat) and ``num_players``.

    Returns:
        ``list[tuple[int, bool, int]]``, one ``(seat, played, pool)`` per finished turn:
        the seat that took it (0..num_players-1), whether it was a play (ended by COMMIT)
        rather than a draw or pass, and the tiles in the pool before it.

    The seat of each turn is counted back from the acting seat (turns alternate, R-RK-05);
    the pool from the full set less the deal (R-RK-02), one tile fewer per draw.  The play
    the acting seat is building (tile ids after the last turn) is not a finished turn.
    """
    history = list(state.history)
    while history and history[-1] < COMMIT:  # the acting seat's own play being built
        history.pop()
    flags: list[bool] = []  # most recent first
    i = len(history)
    while i > 0 and len(flags) < state.turn:
        i -= 1
        if history[i] == COMMIT:
            while i > 0 and history[i - 1] < COMMIT:
                i -= 1
            flags.append(True)
        else:
            flags.append(False)
    n = state.num_players
    pool = POOL_SIZE - RACK_SIZE * n
    turns = []
    for k, played in reversed(list(enumerate(flags, start=1))):
        turns.append(((state.current - k) % n, played, pool))
        if not played and pool > 0:
            pool -= 1
    return turns


def style_posterior(state: Any, seat: int) -> np.ndarray:
    """Per seat, the posterior probability of each of :data:`STYLES` given its public
    turns of this hand (:func:`hand_turns`; equal prior).

    Args:
        state: a Rummikub engine state (read only through :func:`hand_turns`: public).
        seat: the seat asking (0..num_players-1); its own row is left at the prior.

    Returns:
        float64 ``(num_players, 2)``: row ``q`` is ``[P(max-play), P(patient)]`` for seat
        ``q`` (columns in :data:`STYLES` order, each row sums to 1); ``seat``'s own row is
        ``[0.5, 0.5]`` (never read).
    """
    n = state.num_players
    log_like = np.zeros((n, len(STYLES)))
    melded = [False] * n
    for who, played, pool in hand_turns(state):
        if melded[who] and pool > 0:
            if played:
                log_like[who, 1] += np.log(MIX_EPS)
            else:
                log_like[who, 0] += np.log(MAX_PLAY_DRAW)
        melded[who] = melded[who] or played
    log_like[seat] = 0.0
    weights = np.exp(log_like - log_like.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)
