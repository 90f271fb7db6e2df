"""Observation encoding of Gin Rummy: nine card planes plus public numbers.

The vector is float32, shape ``(485,)``; :func:`observation_layout` names its blocks
(``Layout.table()`` prints the documentation table).  Pairs are relative to the
observer: entry 0 is the observer, entry 1 the opponent.  Only what the observer may
know is encoded (``GinRummyState.observation``): not the opponent's hidden cards, not
the stock's order.
"""

from __future__ import annotations

import struct

import numpy as np

from rummy_env.encoding.layout import Field, Layout
from rummy_env.games.gin_rummy.config import GinRummyConfig
from rummy_env.games.gin_rummy.view import GinView

PLANES = (
    ("hand", "1 for each card in the observer's hand"),
    ("upcard", "1 for the upcard (top of the discard pile)"),
    ("discard_rest", "1 for each other card of the discard pile: cards the observer has seen leave play"),
    (
        "opponent_known",
        "1 for each card the opponent is known to hold (taken from the discard pile and kept; "
        "its whole hand after a showdown)",
    ),
    ("opponent_discarded", "1 for each card the opponent discarded in this hand"),
    ("forbidden", "1 for the card the observer took from the discard pile this turn and may not discard (R-GIN-04)"),
    ("knocker_melds", "after a showdown: 1 for each card of the knocker's melds (R-GIN-06)"),
    ("layoffs", "after a showdown: 1 for each card the defender laid off (R-GIN-08)"),
    ("defender_melds", "after a showdown: 1 for each card of the defender's melds (R-GIN-08)"),
)
NUM_PLANES = len(PLANES)
_PLANE_BITS = 52 * NUM_PLANES  # 468
_PLANE_BYTES = (_PLANE_BITS + 7) // 8
MAX_HAND_POINTS = 110  # 11 cards of 10 points
OBSERVATION_SIZE = _PLANE_BITS + 17


def max_total(cfg: GinRummyConfig) -> float:
    """Largest game total the options allow (the upper bound of the ``scores`` field).

    A hand scores at most 100 (ten cards of deadwood) plus its largest bonus (R-GIN-10..12);
    a game ends as soon as a total reaches ``target_score`` (R-GIN-13).  With ``game_bonuses``
    (R-GIN-13) the box bonus counts hands won, which is bounded only when every won hand scores
    a point (a knock always does; gin, big gin and an undercut do when their bonus is >= 1);
    otherwise the bound is infinite.
    """
    hand = 100 + max(cfg.gin_bonus, cfg.big_gin_bonus if cfg.big_gin else 0, cfg.undercut_bonus)
    if cfg.episode == "hand":
        return float(hand)
    total = cfg.target_score - 1 + hand
    if not cfg.game_bonuses:
        return float(total)
    if min(cfg.gin_bonus, cfg.undercut_bonus, cfg.big_gin_bonus if cfg.big_gin else 1) == 0:
        return float("inf")
    return float(2 * (total + 100 + 25 * cfg.target_score))


def layout_of(cfg: GinRummyConfig) -> Layout:
    """The observation layout of a game with the options ``cfg`` (:func:`observation_layout`
    with Oklahoma's largest knock limit, 10, and :func:`max_total`)."""
    limit = 10 if cfg.oklahoma else cfg.knock_limit
    return observation_layout(limit, cfg.target_score, cfg.max_turns, max_total(cfg))


def observation_layout(knock_limit: int, target_score: int, max_turns: int, max_score: float) -> Layout:
    """The observation layout of a Gin Rummy game with these options.

    Args:
        knock_limit: the game's largest knock limit (points; 10 with Oklahoma).
        target_score: points that end a game.
        max_turns: the turn limit of a hand.
        max_score: the largest game total the options allow (upper bound of ``scores``).
    """
    fields = [Field(name, 52, 1, meaning) for name, meaning in PLANES]
    fields += [
        Field("phase", 3, 1, "one-hot phase: upcard offer (R-GIN-03), draw, discard (all 0 when the episode is over)"),
        Field("acting", 2, 1, "one-hot relative seat of the acting player (0 = observer)"),
        Field("dealer", 2, 1, "one-hot relative seat of this hand's dealer"),
        Field("knocker", 2, 1, "one-hot relative seat of the player who knocked (all 0 before a showdown)"),
        Field("stock_size", 1, 31, "cards in the stock"),
        Field("knock_limit", 1, knock_limit, "most deadwood a knock may keep in this hand, points (R-GIN-06, 14)"),
        Field(
            "deadwood",
            1,
            MAX_HAND_POINTS,
            "least deadwood of all the observer's cards (10, or 11 after a draw), points",
        ),
        Field(
            "showdown_deadwood",
            2,
            100,
            "after a showdown: deadwood of (observer, opponent), the defender's after lay-offs, points",
        ),
        Field("scores", 2, max_score, "game totals of (observer, opponent), points"),
        Field("turn", 1, max_turns, "turns completed in this hand"),
    ]
    layout = Layout(fields)
    assert layout.size == OBSERVATION_SIZE and layout.offset("phase") == _PLANE_BITS
    return layout


_REVERSED_BITS = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))  # byte -> its bits reversed
_TAIL = struct.Struct("<9f8f")  # the 17 numbers after the planes, little-endian float32
_TAIL_OFFSET = 4 * _PLANE_BITS  # byte offset of the tail in the float32 vector
_MASK_SHIFT = 8 * (_PLANE_BYTES + 1)  # 472: the legal-action bits start on a byte boundary
_MASK_START = _MASK_SHIFT
_TOTAL_BYTES = (_MASK_SHIFT + 112) // 8
_U8, _I8, _F32 = np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.float32)


def _one_hots() -> dict[tuple[int, int, int, int], tuple[float, ...]]:
    """(phase, acting, dealer, knocker) -> the 9 one-hot entries of the tail."""
    out = {}
    for phase in (-1, 0, 1, 2):
        for acting in (-1, 0, 1):
            for dealer in (0, 1):
                for knocker in (-1, 0, 1):
                    v = [0.0] * 9
                    if phase >= 0:
                        v[phase] = 1.0
                    if acting >= 0:
                        v[3 + acting] = 1.0
                    v[5 + dealer] = 1.0
                    if knocker >= 0:
                        v[7 + knocker] = 1.0
                    out[(phase, acting, dealer, knocker)] = tuple(v)
    return out


_ONE_HOTS = _one_hots()


def _planes(view: GinView) -> int:
    """The nine card planes of a view as one integer (bit ``52 * plane + card``)."""
    return (
        view.hand
        | ((1 << view.upcard) << 52 if view.upcard >= 0 else 0)
        | view.discard_rest << 104
        | view.opponent_known << 156
        | view.opponent_discarded << 208
        | ((1 << view.forbidden) << 260 if view.forbidden >= 0 else 0)
        | view.knocker_melds << 312
        | view.layoffs << 364
        | view.defender_melds << 416
    )


def encode_with_mask(view: GinView, legal_bits: int, num_actions: int = 108) -> tuple[np.ndarray, np.ndarray]:
    """The observation vector of a view and an action mask, in one pass.

    Args:
        view: ``GinRummyState.observation(player)``.
        legal_bits: the player's legal action ids as a bitmask (0 if not acting).
        num_actions: size of the action space (108).

    Returns:
        ``(observation, mask)``: float32 array of shape ``(485,)`` and int8 array of
        shape ``(num_actions,)``.
    """
    # one integer -> bytes -> bits: planes at bit 0, the legal actions at bit 472; the
    # bytes' bits are reversed so that numpy's default (big) bit order reads them low first
    raw = (_planes(view) | legal_bits << _MASK_SHIFT).to_bytes(_TOTAL_BYTES, "little").translate(_REVERSED_BITS)
    bits = np.unpackbits(np.frombuffer(raw, _U8))
    obs = np.empty(OBSERVATION_SIZE, _F32)
    obs[:_PLANE_BITS] = bits[:_PLANE_BITS]
    sd = view.showdown_deadwood
    scores = view.scores
    _TAIL.pack_into(
        obs,
        _TAIL_OFFSET,
        *_ONE_HOTS[(view.phase, view.acting, view.dealer, view.knocker)],
        view.stock_size,
        view.knock_limit,
        view.deadwood,
        sd[0],
        sd[1],
        scores[0],
        scores[1],
        view.turn,
    )
    return obs, bits[_MASK_START : _MASK_START + num_actions].view(_I8)


def encode(view: GinView, layout: Layout | None = None) -> np.ndarray:
    """The observation vector of a player's view.

    Args:
        view: ``GinRummyState.observation(player)``.
        layout: ``observation_layout(...)`` of the same game (the field order is fixed,
            so it is not needed).

    Returns:
        float32 array of shape ``(485,)``.
    """
    return encode_with_mask(view, 0)[0]
