"""The numba kernels' copies of the rules' constants equal the rules modules' values.

A kernel keeps its constants as plain module globals (numba compiles them in, and its
cache would not notice a change in another module); this test is what ties each copy to
its source of truth, so that a changed rule or action layout cannot leave a kernel behind
in an option set the differential tests happen not to play.
"""

from __future__ import annotations

import pytest

from rummy_env.core.cards import CARD_VALUE_LIST
from rummy_env.core.melds import HIGH_ACE_POSITION, LAYOFF_RUN_HIGH, LAYOFF_RUN_LOW, LAYOFF_SET, NUM_MELDS
from rummy_env.core.rummikub_solver import sweeps as rummikub_sweeps
from rummy_env.encoding import gin_rummy as gin_encoding
from rummy_env.games.crazy_rummy import actions as crazy_actions
from rummy_env.games.crazy_rummy import config as crazy_config
from rummy_env.games.crazy_rummy import deal as crazy_deal
from rummy_env.games.crazy_rummy import hands as crazy_hands
from rummy_env.games.crazy_rummy import state as crazy_state
from rummy_env.games.gin_rummy import GinRummyConfig
from rummy_env.games.gin_rummy import actions as gin_actions
from rummy_env.games.gin_rummy import deal as gin_deal
from rummy_env.games.gin_rummy import state as gin_state
from rummy_env.games.rummikub import actions as rummikub_actions
from rummy_env.games.rummy import actions as rummy_actions
from rummy_env.vector import crazy_batch_kernel, crazy_kernel, gin_kernel, rummikub_masks, rummy_kernel, table_kernel

CASES = [
    # Gin Rummy (games.gin_rummy, R-GIN-09, R-GIN-13)
    (gin_kernel.KNOCK, gin_actions.KNOCK),
    (gin_kernel.DRAW_STOCK, gin_actions.DRAW_STOCK),
    (gin_kernel.DRAW_UPCARD, gin_actions.DRAW_UPCARD),
    (gin_kernel.PASS, gin_actions.PASS),
    (gin_kernel.BIG_GIN, gin_actions.BIG_GIN),
    ((gin_kernel.OFFER, gin_kernel.DRAW, gin_kernel.DISCARD), (gin_state.OFFER, gin_state.DRAW, gin_state.DISCARD)),
    ((gin_kernel.GAME_BONUS, gin_kernel.BOX_BONUS), (gin_state.GAME_BONUS, gin_state.BOX_BONUS)),
    ((gin_kernel.HAND_SIZE, gin_kernel.WALL), (gin_deal.HAND_SIZE, gin_state.WALL)),
    (gin_kernel.OBS_SIZE, gin_encoding.layout_of(GinRummyConfig()).size),
    (gin_kernel.TAIL, 52 * len(gin_encoding.PLANES)),
    # basic Rummy (games.rummy)
    (
        (rummy_kernel.DRAW_STOCK, rummy_kernel.DRAW_DISCARD, rummy_kernel.MELD, rummy_kernel.LAYOFF),
        (rummy_actions.DRAW_STOCK, rummy_actions.DRAW_DISCARD, rummy_actions.MELD, rummy_actions.LAYOFF),
    ),
    ((rummy_kernel.DRAW, rummy_kernel.PLAY), (rummy_actions.DRAW, rummy_actions.PLAY)),
    # the table's lay-off sides and high-ace run position (core.melds, R-RUMMY-08)
    (
        (table_kernel.SIDE_SET, table_kernel.SIDE_LOW, table_kernel.SIDE_HIGH),
        (LAYOFF_SET, LAYOFF_RUN_LOW, LAYOFF_RUN_HIGH),
    ),
    (table_kernel.HIGH_ACE, HIGH_ACE_POSITION),
    (rummy_kernel.LEGAL_WORDS, -(-rummy_actions.NUM_ACTIONS // 64)),
    # Crazy Rummy (games.crazy_rummy, R-CRAZY-02, R-CRAZY-03, R-CRAZY-12; card values R-CRAZY-12)
    (
        (crazy_kernel.DRAW_STOCK, crazy_kernel.DRAW_DISCARD, crazy_kernel.MELD, crazy_kernel.LAYOFF),
        (crazy_actions.DRAW_STOCK, crazy_actions.DRAW_DISCARD, crazy_actions.MELD, crazy_actions.LAYOFF),
    ),
    (crazy_kernel.SWAP, crazy_actions.SWAP),
    ((crazy_kernel.DRAW, crazy_kernel.PLAY), (crazy_state.DRAW, crazy_state.PLAY)),
    (crazy_kernel.NUM_MELDS, NUM_MELDS),
    (crazy_kernel.LEGAL_WORDS, -(-crazy_actions.NUM_ACTIONS // 64)),
    (crazy_kernel.WILD_PENALTY, crazy_hands.WILD_PENALTY),
    ((crazy_batch_kernel.HAND_SIZE, crazy_batch_kernel.NUM_ROUNDS), (crazy_deal.HAND_SIZE, crazy_config.NUM_ROUNDS)),
    (crazy_kernel.CARD_VALUE.tolist(), list(CARD_VALUE_LIST)),
    # Rummikub's masks (games.rummikub.actions; the solver's direction rule)
    ((rummikub_masks.COMMIT, rummikub_masks.DRAW), (rummikub_actions.COMMIT, rummikub_actions.DRAW)),
    (rummikub_masks._MIRROR_MEAN, rummikub_sweeps._MIRROR_MEAN),
]  # fmt: skip


@pytest.mark.parametrize("copy, source", CASES)
def test_a_kernel_constant_is_the_rules_value(copy, source):
    assert copy == source
