"""
# Rummikub (``rummikub_v0``)

| | |
|---|---|
| Import | ``from rummy_env import rummikub_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..4 |
| Actions | ``Discrete(55)`` |
| Observation | ``Dict(observation=Box(float32, (4*53 + 4*n + 3,)), action_mask=Box(int8, (55,)))`` |
| Rules | ``docs/rules/rummikub.md`` (R-RK-01..13) |

## Description
Rummikub (Sabra rules) with 106 tiles: numbers 1-13 in four colours, two of each, and two
jokers.  Players put down groups and runs from their 14-tile racks; after a player's
initial meld (30 points or more, from their own rack) they may rearrange the whole table
freely as long as every tile on it ends in a valid meld.  The first player to empty
their rack wins the hand and scores the tiles left on the other racks.

A turn is built one tile at a time by the same agent: add tiles from the rack to the
play in non-decreasing tile order, then commit; or draw a tile from the pool (pass when
it is empty) instead of playing.  Because the table may be rearranged at will, a play is
legal exactly when table + play can be split into valid melds (R-RK-08), so the table
is observed as tile counts and the mask is exact: every legal play can be built, and no
tile leads to a dead end.

## Action Space
One flat id space:

| ids | text | move |
|---|---|---|
| 0..51 | `add R7` | add one more tile of this type from your rack to the play (type = colour * 13 + number - 1, colours R B K Y) |
| 52 | `add JK` | add a joker |
| 53 | `commit` | put the play on the table; the table is rearranged as needed (R-RK-08) |
| 54 | `draw` | draw a tile from the pool, ending the turn (R-RK-06); with the pool empty this passes (written `draw` always; `string_to_action` also reads `pass`) |

The mask is exact: a tile is legal only if some legal play holds the tiles chosen so far,
this one, and otherwise only tiles of this type or higher (tiles go in non-decreasing
order, so each play has one action sequence); ``commit`` only if the tiles chosen are a
legal play; ``draw``/``pass`` only before any tile is chosen.  Before the initial meld a
legal play is one or more new melds of the player's own tiles worth at least
``initial_meld_points``, a joker counting as the tile it stands for (R-RK-07); after it,
table + play must split into valid melds (R-RK-08).

## Observation Space
``observation`` is a float32 vector (per-player blocks in seat order relative to the
observer, 0 = observer); ``env.unwrapped.layout`` names its blocks.  For 2 players (223
entries):

| indexes | field | size | meaning |
|---|---|---|---|
| 0..52 | `rack` | 53 | tiles of each type on the observer's rack |
| 53..105 | `table` | 53 | tiles of each type on the table |
| 106..158 | `play` | 53 | tiles of each type in the play the observer is building |
| 159..211 | `last_tile` | 53 | one-hot type of the last tile added to that play (tiles go in non-decreasing type order) |
| 212..213 | `initial_meld` | 2 | 1 if that player has made the initial meld (R-RK-07), relative seats |
| 214..215 | `acting` | 2 | one-hot relative seat of the acting player (0 = observer; all 0 when over) |
| 216..217 | `rack_sizes` | 2 | tiles on each rack, relative seats |
| 218..218 | `pool_size` | 1 | tiles left in the pool |
| 219..220 | `scores` | 2 | game totals in points (signed), relative seats |
| 221..221 | `passes` | 1 | passes in a row with the pool empty (R-RK-11) |
| 222..222 | `turn` | 1 | turns completed in this hand |

No other rack and no pool order is encoded.  ``action_mask`` (int8) marks the legal ids
of the acting agent and is all zeros for every other agent.

## Rewards
``reward="win"`` (default): when the episode ends, +1 to its winner and -1/(n-1) to each
other player (players sharing the lowest rack total at a pool exhaustion share +1, the
others share -1); 0 to all after a truncation or if every player ties.
``reward="score"``: at the end of each hand, each player's signed score of R-RK-10/11
(they sum to zero).  Every other step gives 0.
An illegal action through ``env()`` ends the episode with
``raw_env.illegal_reward`` for its player and 0 for the others (PettingZoo's
``TerminateIllegalWrapper``), the one ending that is not zero-sum.

## Episode End
``episode="hand"`` (default): the hand ends when a player empties their rack (R-RK-10),
or when, the pool being empty, every player has passed once in a row (R-RK-11): both
terminations.  A hand reaching ``max_turns`` turns is truncated with no score (R-RK-13).
``episode="game"``: hands are dealt until a total reaches ``target_score`` (R-RK-12);
each hand's first player is drawn again from the seeded generator (the rules' "highest
tile starts"); a hand reaching ``max_turns`` ends with no winner, all scoring 0, and
the next hand is dealt (R-RK-13); after ``max_hands`` hands without a game winner the
episode is truncated.

## Arguments
``rummikub_v0.env(num_players=2, initial_meld_points=30, initial_meld_table_play=False,
target_score=200, max_turns=1000, max_hands=1000, episode="hand", reward="win",
render_mode=None)``; see
``rummy_env.games.rummikub.RummikubConfig``.  Unknown or bad options raise ``ValueError``.

## Rendering
``render_mode="ansi"``: ``env.render()`` returns the table as the acting player sees it.
``render_mode="human"``: the env prints that table itself at every ``reset`` and every
``step`` (PettingZoo's convention), so a loop over a whole game prints every move;
``render()`` prints it once more and returns None.
``render_mode="rgb_array"``: ``env.render()`` returns the same view as a picture, a ``uint8``
array ``(560, 960, 3)`` (the `render` extra, Pillow); ``env.unwrapped.render_svg()`` gives it
as SVG text in any mode (``rummy_env.render.image``).

## Reset options
``env.reset(seed=None, options={"deck": [106 tile strings, first drawn first],
"first_player": k})`` stacks the pool (tiles ``R7``, ``K13``, ``JK``; racks are dealt one
tile at a time in seat order starting with the first player; the rest is the pool, next
tile drawn first; ``rummy_env.games.rummikub.stack_pool`` builds one) and fixes the first
player; either may be left out (then it comes from the seeded generator).  A bad pool or
seat raises ``ValueError`` and leaves the env as it was.
``options["next_hands"]`` (``episode="game"``) stacks the later hands of the game: a
list of deals ``[{"deck": [106 tile strings], "first_player": k}, ...]`` for hands 2, 3,
... in order (each hand's first player is drawn again, so a deal names it too); once the
list runs out the seeded generator deals, as without it (a stacked hand draws nothing
from it).  With ``deck`` and ``first_player`` it replays a whole game dealt elsewhere
(``rummy_env.vector``'s ``deal_of(i)`` returns all three, the later hands those dealt so
far: take it after the game's end).  A bad list (not dicts with exactly the keys ``deck``
and ``first_player``, a bad pool or seat, more deals than ``max_hands - 1``, or deals
with ``episode="hand"``) raises ``ValueError`` and leaves the env as it was.  Stacked
deals are no player's information: no observation shows them, and
``game_state.resample`` drops them.

## Infos
When a hand ends, ``infos[agent]`` holds ``hand_score`` (the agent's signed score of the
hand, R-RK-10/11), ``total_score`` (the game total; both floats: a shared win of R-RK-11
splits the winners' part equally, 20.5 each when two share 41), ``hand`` (hands finished),
``winner`` (agent name, or ``""``: no winner or a shared win), ``winners`` (the winners'
names separated by spaces, e.g. ``"player_0 player_2"``; ``""`` for none)
and ``rack_value`` (the agent's rack total at the end, a joker 30).  They stay until the
next hand ends.  At the episode's end each agent leaves
``env.infos`` when it is stepped with ``None``: read its final infos from ``env.last()``
before that step (or the engine's ``env.unwrapped.game_state.last_hand``).
After an illegal action through ``env()``, the infos of its player also hold
``illegal_action``: the engine's message naming the action and why it was illegal.
Every key keeps one type in every step where it appears (ints, floats and strings: no None, no
lists of varying length), so that learners that stack infos (Tianshou) can.

## Rule readings
Where ``rummikub.md`` leaves a choice open:
- R-RK-07 with ``initial_meld_table_play=True``: a play is legal when some of its tiles
  form new melds of the player's own tiles worth ``initial_meld_points`` and table + play
  splits into melds (the initial melds may end up rearranged with the table's tiles);
  with ``initial_meld_points=0`` the initial meld is still at least one meld.
- R-RK-11: when every player has the same rack total at the pool's end there is no
  winner (``winners`` is ``""``): every score and reward is 0.
- R-RK-12: with ``episode="hand"`` there is no game: no target and no game winner,
  however much the hand scores.  With ``episode="game"`` the game ends when a total
  reaches ``target_score`` (``>=``) and its winner is the highest total; players tied on
  it (only shared winners of an R-RK-11 hand can cross the target together) share the
  ``"win"`` reward, and ``game_winner`` names the lowest seat among them.
- R-RK-13: a turn that reaches ``max_turns`` and also empties the rack (or is the last
  pass of R-RK-11) ends the hand as the rules score it, not as a truncation.

## Version History
* v0: initial release.
* v0, issue 10: with ``episode="game"`` a hand reaching ``max_turns`` ends with no
  winner and the game goes on (the next hand is dealt); the option ``max_hands``
  (default 1000) truncates a game no one has won after that many hands. Before, such a
  hand truncated the whole episode. ``copy.deepcopy`` and ``pickle`` of an env continue
  its game; a reset option of another variant is refused.
* v0, issue 10: ``initial_meld_points`` above 754 (more than all 106 tiles are worth) is refused.
* v0, issue 26: the reset option ``next_hands`` stacks the later hands of a game.
* v0, 2026-12-05: ``hand_score`` and ``total_score`` are floats in every hand (a shared win of
  R-RK-11 could make them floats in one hand and ints in the others).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.encoding import rummikub as encoding
from rummy_env.encoding.layout import Layout
from rummy_env.envs.driver import TurnBasedEnv
from rummy_env.envs.wrappers import wrap
from rummy_env.games.rummikub import (
    NUM_ACTIONS,
    RummikubGame,
)
from rummy_env.games.rummikub import actions as rummikub_actions
from rummy_env.games.rummikub.deal import parse_stacked_pool
from rummy_env.render.text import render_rummikub


class raw_env(TurnBasedEnv):
    """Rummikub as a PettingZoo AEC environment (see the module docstring).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "rummikub_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_actions = NUM_ACTIONS
    game_class = RummikubGame
    actions = rummikub_actions
    encoder = encoding
    renderer = staticmethod(render_rummikub)
    reset_option_names = ("deck", "first_player", "next_hands")
    max_hand_loss = encoding.ALL_TILES_VALUE  # every tile left on one rack (R-RK-10)

    def _layout(self) -> Layout:
        return encoding.layout_of(self.game.config)

    def _new_state(self, rng: np.random.Generator, options: dict):
        deck = options.get("deck")
        if deck is not None:
            deck = parse_stacked_pool(deck)
        return self.game.new_initial_state(rng=rng, deck=deck, first_player=options.get("first_player"))

    def _hand_infos(self) -> list[dict]:
        """The driver's infos with ``hand_score`` and ``total_score`` as floats in every
        hand: a shared win of R-RK-11 can split the winners' part into fractions (41
        between two winners: 20.5 each), and a key keeps one type (the infos contract)."""
        infos = super()._hand_infos()
        for info in infos:
            info["hand_score"] = float(info["hand_score"])
            info["total_score"] = float(info["total_score"])
        return infos

    def _public_hand_facts(self, last: dict, seat: int) -> dict:
        return {
            "winner": self._agent_name(last["winner"]),
            "winners": " ".join(self.possible_agents[q] for q in last["winners"]),
            "rack_value": last["rack_values"][seat],
        }


def env(**kwargs: Any):
    """``raw_env(**kwargs)`` in PettingZoo's classic wrapper chain (``envs.wrappers.wrap``).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """
    return wrap(raw_env(**kwargs))
