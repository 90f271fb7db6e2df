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
- ``gin_opp`` (Gin) and ``meld_opp`` (Rummy): ``gin`` / ``meld`` plus seven planes over
  the hand's cards (7 x 52) about the other players and the cards still live:
  the opponent's known cards (taken from the discard pile, still held) of the card's
  rank (count over 3), of its suit one rank away, two ranks away (0/1 each); the unseen
  cards of its rank (count over 3), of its suit one rank away, two ranks away (count
  over 2 each), unseen meaning in no visible place (hand, upcard / top discard, the rest
  of the pile, the opponent's known cards, the table); and whether it extends a meld on
  the table (Rummy: three of its rank there, or its suit's two neighbours on one side;
  Gin: always 0).  ``gin_opp`` 629, ``meld_opp`` 576 entries.
- ``gin_read`` (Gin): ``gin_opp`` plus six planes over the hand's cards (6 x 52) about
  what the opponent's decisions revealed: the cards it discarded in this hand of the
  card's rank (count over 3), of its suit one rank away, two ranks away (count over 2
  each); then the same three for the cards of the discard pile it did not discard (the
  upcards it passed up or drew the stock instead of taking: with the heuristic's rule of
  R-GIN-03/04 play, cards that did not lower its deadwood; the one exception is a first
  upcard not yet offered to it).  These are what ``pimc``'s opponent model (``model=0``)
  conditions its worlds on.  941 entries.
- ``rk_out`` (Rummikub): two flags that need the solver, which an MLP over tile counts
  cannot compute: whether the player, past its initial meld, can go out this turn
  (rack + table split into melds, R-RK-08/10: ``agents.search.rummikub_plays.can_go_out``),
  and whether the play being built holds the whole rack (its COMMIT goes out).  What
  the patient policy (``heuristic:style=patient``) decides on.  2 entries.
- ``rk_plan`` (Rummikub): ``rk_out`` plus, while the going-out play is still open (the
  first flag set and every tile type below the play's highest, the last one added, fully
  added: the env's type order), a one-hot over the 53 tile types of the lowest type the
  rack holds more of than the play: the next tile of the patient policy's going-out play,
  which adds its rack in type order.  One early COMMIT in a 15-25 step play is what kept
  the ``rk_out`` model from its teacher (``docs/results/selfplay-rummikub``).  55 entries.
- ``crazy_out`` (Crazy Rummy): ``meld_opp`` plus the go-out look-ahead of the Crazy Rummy
  heuristic (``agents.crazy_features``: whether the player can go out this turn, whether
  the top discard is worth taking, and the kind and cards of the planner's first move).
  635 entries.
- ``crazy_discard`` (Crazy Rummy): ``crazy_out`` plus the terms of
  ``heuristic:style=hold_wilds_safe``'s discard rule (``agents.crazy_features``: per card
  held, its partners among the hand's natural cards and its danger for the next player,
  and the card the rule sheds).  791 entries.

The deadwood planes use the compiled ``rummy_env.vector.deadwood_kernel`` when numba is
installed (the same values; a Python loop over ``core.deadwood`` otherwise).
"""

from __future__ import annotations

import functools

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
    docstring): float32 (n, 53).

    Raises:
        ValueError: a hand plane of more than 11 cards (no Gin hand; the deadwood search
            over it would not end in any useful time).
    """
    held = (hand > 0).sum(1)
    if held.size and held.max() > 11:
        raise ValueError(
            f"a hand plane holds {int(held.max())} cards, not a Gin hand of 10 or 11: not an env's observation"
        )
    masks = ((hand > 0).astype(np.uint64) * _BITS).sum(1, dtype=np.uint64)
    ups = np.where(upcard.any(1), upcard.argmax(1), -1).astype(np.int64)
    kernel = _deadwood_kernel()
    if kernel is not None:
        out = np.zeros((hand.shape[0], 53), np.float32)
        kernel(masks, ups, out)
        return out
    return _gin_deadwood_python(masks, ups)


def _gin_deadwood_python(masks: np.ndarray, ups: np.ndarray) -> np.ndarray:
    """:func:`gin_deadwood_features` from bitmasks with ``core.deadwood`` (the reference)."""
    n = masks.shape[0]
    out = np.zeros((n, 53), np.float32)
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


@functools.cache  # without numba a failed import each call cost 1 ms a batch
def _deadwood_kernel():
    """The compiled deadwood-feature loop (``agents.feature_kernels.gin_deadwood``), or None
    without numba."""
    try:
        from agents import feature_kernels
    except ImportError:
        return None
    return feature_kernels.gin_deadwood


def opponent_features(hand: np.ndarray, known: np.ndarray, seen: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """The seven planes of ``gin_opp`` / ``meld_opp`` (module docstring): float32 (n, 364).

    Args:
        hand: float (n, 52) 0/1, the player's hand.
        known: float (n, 52) 0/1, the cards the opponents are known to hold.
        seen: float (n, 52) 0/1, every card in a visible place (``known`` and ``hand`` included).
        table: float (n, 52) 0/1, the cards in melds on the table, or None (Gin).
    """
    h = (hand > 0).reshape(-1, 4, 13)
    k = (known > 0).reshape(-1, 4, 13).astype(np.float32)
    live = (seen <= 0).reshape(-1, 4, 13).astype(np.float32)

    def near(x: np.ndarray, d: int) -> np.ndarray:
        return _shift(x, d) + _shift(x, -d)

    planes = [
        k.sum(1, keepdims=True).repeat(4, 1) / 3,
        near(k, 1) > 0,
        near(k, 2) > 0,
        live.sum(1, keepdims=True).repeat(4, 1) / 3,
        near(live, 1) / 2,
        near(live, 2) / 2,
    ]
    if table is None:
        planes.append(np.zeros_like(k))
    else:
        t = table.reshape(-1, 4, 13) > 0
        side = (_shift(t, 1) & _shift(t, 2)) | (_shift(t, -1) & _shift(t, -2))
        planes.append((t.sum(1, keepdims=True) >= 3) | side)
    out = np.stack([np.asarray(p, np.float32) * h for p in planes], 1)
    return out.reshape(-1, 7 * 52)


def revealed_features(hand: np.ndarray, discarded: np.ndarray, passed: np.ndarray) -> np.ndarray:
    """The six planes ``gin_read`` adds to ``gin_opp`` (module docstring): float32 (n, 312).

    Args:
        hand: float (n, 52) 0/1, the player's hand.
        discarded: float (n, 52) 0/1, the cards the opponent discarded in this hand.
        passed: float (n, 52) 0/1, the cards of the discard pile (upcard included) it did
            not discard.
    """
    h = (hand > 0).reshape(-1, 4, 13)
    planes = []
    for x in (discarded, passed):
        x = (x > 0).reshape(-1, 4, 13).astype(np.float32)
        planes += [x.sum(1, keepdims=True).repeat(4, 1) / 3, (_shift(x, 1) + _shift(x, -1)) / 2]
        planes.append((_shift(x, 2) + _shift(x, -2)) / 2)
    out = np.stack([p * h for p in planes], 1)
    return out.reshape(-1, 6 * 52).astype(np.float32, copy=False)


#: name -> extra entries
FEATURES = {
    "meld": 212,
    "gin": 265,
    "meld_opp": 576,
    "gin_opp": 629,
    "gin_read": 941,
    "rk_out": 2,
    "rk_plan": 55,
    "crazy_out": 635,
    "crazy_discard": 791,
}
#: feature sets that are another one plus more entries (``--init-model`` may widen a model to them)
EXTENDS = {
    "gin": "meld",
    "gin_opp": "gin",
    "gin_read": "gin_opp",
    "crazy_out": "meld_opp",
    "crazy_discard": "crazy_out",
    "rk_plan": "rk_out",
}
#: variant -> observation fields read: hand, upcard / top discard, opponents' known cards, other seen planes
_FIELDS = {
    "gin_rummy_v0": ("hand", "upcard", ("opponent_known",), ("discard_rest",)),
    "rummy_v0": ("hand", "top_discard", ("known_",), ("discard_rest", "table")),
    "crazy_rummy_v0": (
        "hand",
        "top_discard",
        ("known_",),
        ("discard_rest", "table_natural", "wild_C", "wild_D", "wild_H", "wild_S"),
    ),
}
_GIN_ONLY = ("gin", "gin_opp", "gin_read")
_CRAZY_ONLY = ("crazy_out", "crazy_discard")
_RUMMIKUB_ONLY = ("rk_out", "rk_plan")


def rummikub_out_features(rack: np.ndarray, table: np.ndarray, play: np.ndarray, melded: np.ndarray) -> np.ndarray:
    """The ``rk_out`` features of a batch of Rummikub observations.

    Args:
        rack, table, play: float ``(n, 53)`` tile counts (the observation's ``rack``,
            ``table`` and ``play``; the rack still holds the play's tiles).
        melded: float ``(n,)``: 1 where the player has made its initial meld (R-RK-07).

    Returns:
        float32 ``(n, 2)``: going out possible (past the initial meld, rack + table split
        into melds, R-RK-08/10), and the play holds the whole (non-empty) rack.
    """
    from agents.search.rummikub_plays import can_go_out

    rack, table, play = (np.asarray(a).astype(np.int64) for a in (rack, table, play))
    out = np.zeros((len(rack), 2), np.float32)
    for i in np.flatnonzero(np.asarray(melded) > 0):
        out[i, 0] = can_go_out(table[i], rack[i])
    out[:, 1] = (rack.sum(1) > 0) & (rack == play).all(1)
    return out


def rummikub_plan_features(rack: np.ndarray, play: np.ndarray, can_go: np.ndarray) -> np.ndarray:
    """The one-hot half of the ``rk_plan`` features: the next tile of the going-out play.

    Args:
        rack, play: float ``(n, 53)`` tile counts (the observation's ``rack`` and ``play``;
            the rack still holds the play's tiles).
        can_go: float ``(n,)``: the first ``rk_out`` flag (rack + table split into melds, past the
            initial meld: R-RK-08/10).

    Returns:
        float32 ``(n, 53)``: where ``can_go`` is set and the play can still hold the whole
        rack (every type below the play's highest one fully added: the env adds a play's
        tiles in non-decreasing type order and closes the types below the last one), 1 at
        the lowest type the rack holds more of than the play; zeros elsewhere (and once the
        play holds the whole rack, when ``rk_out``'s second flag says COMMIT).
    """
    rack, play = (np.asarray(a).astype(np.int64) for a in (rack, play))
    n, types = rack.shape
    left = rack > play
    idx = np.arange(types)
    last = np.where(play.any(1), types - 1 - np.argmax(play[:, ::-1] > 0, axis=1), -1)
    closed_left = (left & (idx[None, :] < last[:, None])).any(1)
    nxt = np.argmax(left, axis=1)
    on = (np.asarray(can_go) > 0) & left.any(1) & ~closed_left
    out = np.zeros((n, types), np.float32)
    out[np.flatnonzero(on), nxt[on]] = 1.0
    return out


def applies_to(name: str, variant: str) -> bool:
    """Whether the feature set ``name`` (``"none"`` or a key of :data:`FEATURES`) reads the
    observation of ``variant`` (an env name such as ``"rummikub_v0"``)."""
    if name in _RUMMIKUB_ONLY:
        return variant == "rummikub_v0"
    if name in _CRAZY_ONLY:
        return variant == "crazy_rummy_v0"
    return name == "none" or variant in _FIELDS and (name not in _GIN_ONLY or variant == "gin_rummy_v0")


class Featurizer:
    """Appends the named features to a batch of observations.

    Args:
        name: ``"none"``, ``"meld"``, ``"meld_opp"``, or ``"gin"``, ``"gin_opp"``, ``"gin_read"``
            (Gin Rummy only), ``"rk_out"`` or ``"rk_plan"`` (Rummikub only), ``"crazy_out"`` or ``"crazy_discard"``
            (Crazy Rummy only).
        variant: the env module name, e.g. ``"gin_rummy_v0"``.
        layout: the env's observation layout (``env.unwrapped.layout``).

    Raises:
        ValueError: an unknown name, or one the variant cannot use.
    """

    def __init__(self, name: str, variant: str, layout) -> None:
        if name != "none" and name not in FEATURES:
            raise ValueError(f"unknown features {name!r}: use none, {', '.join(FEATURES)}")
        if not applies_to(name, variant):
            usable = ", ".join(n for n in ("none", *FEATURES) if applies_to(n, variant))
            raise ValueError(f"features {name!r} do not apply to {variant}: its features are {usable}")
        self.name = name
        self.extra = 0 if name == "none" else FEATURES[name]
        if name in _RUMMIKUB_ONLY:
            self._rk = [layout.slice(f) for f in ("rack", "table", "play")]
            self._melded = layout.offset("initial_meld")  # the acting seat's own flag comes first
        elif name != "none":
            hand, up, known, seen = _FIELDS[variant]
            self._hand, self._up = layout.slice(hand), layout.slice(up)
            self._known = [layout.slice(f.name) for f in layout.fields if f.name.startswith(known)]
            self._seen = [layout.slice(f) for f in seen]
            self._table = layout.slice("table") if variant == "rummy_v0" else None
        self._layout = layout
        if name == "gin_read":
            self._discarded = layout.slice("opponent_discarded")
            self._pile = [layout.slice("upcard"), layout.slice("discard_rest")]

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """float32 (n, obs_size) -> float32 (n, obs_size + extra)."""
        if self.name == "none":
            return obs
        if self.name in _RUMMIKUB_ONLY:
            rack, table, play = (obs[:, s] for s in self._rk)
            parts = [obs, rummikub_out_features(rack, table, play, obs[:, self._melded])]
            if self.name == "rk_plan":
                parts.append(rummikub_plan_features(rack, play, parts[1][:, 0]))
            return np.concatenate(parts, 1).astype(np.float32, copy=False)
        hand, up = obs[:, self._hand], obs[:, self._up]
        parts = [obs, meld_features(hand, up)]
        if self.name in _GIN_ONLY:
            parts.append(gin_deadwood_features(hand, up))
        if self.name.endswith("_opp") or self.name in ("gin_read", *_CRAZY_ONLY):
            known = np.maximum.reduce([obs[:, s] for s in self._known])
            seen = np.maximum.reduce([hand, up, known, *(obs[:, s] for s in self._seen)])
            table = obs[:, self._table] if self._table is not None else None
            parts.append(opponent_features(hand, known, seen, table))
        if self.name == "gin_read":
            discarded = obs[:, self._discarded]
            pile = np.maximum(obs[:, self._pile[0]], obs[:, self._pile[1]])
            parts.append(revealed_features(hand, discarded, pile * (discarded <= 0)))
        if self.name in _CRAZY_ONLY:
            from agents.crazy_features import crazy_discard_features, crazy_out_features

            parts.append(crazy_out_features(obs, self._layout))
            if self.name == "crazy_discard":
                parts.append(crazy_discard_features(obs, self._layout))
        return np.concatenate(parts, 1).astype(np.float32, copy=False)
