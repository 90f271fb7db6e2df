"""
# Rummy (``rummy_v0``)

| | |
|---|---|
| Import | ``from rummy_env import rummy_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 2..6 |
| Actions | ``Discrete(579)`` |
| Observation | ``Dict(observation=Box(float32, (52*(n+4) + 4*n + 4,)), action_mask=Box(int8, (579,)))`` |
| Rules | ``docs/rules/rummy.md`` (R-RUMMY-01..17) |

## Description
Basic (multiplayer) Rummy with one 52-card deck: draw from the stock or the discard
pile, put down sets and runs, lay off cards on any meld on the table, discard; the
first player to empty their hand wins the hand and scores the cards left in the other
hands (double for "going rummy").  A turn takes several steps of the same agent: one
draw, any number of melds and lay-offs, then one discard (or going out).

## Action Space
One flat id space; the layout never changes with the options (illegal ids are masked):

| ids | text | move |
|---|---|---|
| 0..51 | `discard KD` | discard the card with that id (card ids: suit-major C D H S, ranks A..K) |
| 52 | `draw stock` | draw the top card of the stock; an empty stock is first rebuilt from the discard pile (R-RUMMY-12) |
| 53 | `draw discard` | take the top card of the discard pile (it may not be discarded this turn) |
| 54..422 | `meld 3S 4S 5S` | put down meld ``id - 54`` of ``rummy_env.core.melds.MELDS`` (65 sets, then 304 runs) |
| 423..578 | `layoff 6S set` / `low` / `high` | lay off card ``(id - 423) // 3`` on the 3-card set of its rank (`set`), below the low end of a run of its suit (`low`) or above its high end (`high`) |

``env.unwrapped.action_to_string(a)`` and ``env.unwrapped.string_to_action(text)``
convert ids and text (cards written ``TS``, ``10S``, ``AH``; meld cards in any order).

## Observation Space
``observation`` is a float32 vector (per-player blocks in seat order relative to the
observer, 0 = observer); ``env.unwrapped.layout`` names its blocks
(``layout.slice("hand")``, ``layout.split(obs)``).  For 2 players (324 entries):

| indexes | field | size | meaning |
|---|---|---|---|
| 0..51 | `hand` | 52 | 1 for each card in the observer's hand |
| 52..103 | `top_discard` | 52 | 1 for the upcard (top of the discard pile) |
| 104..155 | `discard_rest` | 52 | 1 for each other card in the discard pile |
| 156..207 | `table` | 52 | 1 for each card in a meld on the table |
| 208..259 | `known_1` | 52 | 1 for each card the player 1 seat(s) to the left took from the discard pile and still holds |
| 260..311 | `forbidden` | 52 | 1 for the card the observer took from the discard pile this turn and may not discard (R-RUMMY-09) |
| 312..313 | `phase` | 2 | one-hot phase of the acting player: draw, play (all 0 when the episode is over) |
| 314..315 | `acting` | 2 | one-hot relative seat of the acting player (0 = observer) |
| 316..316 | `stock_size` | 1 | cards in the stock |
| 317..318 | `hand_sizes` | 2 | cards in each hand, relative seats |
| 319..320 | `melded` | 2 | 1 if that player has melded or laid off in this hand, relative seats |
| 321..322 | `scores` | 2 | game totals in points, relative seats |
| 323..323 | `turn` | 1 | turns completed in this hand |

With more players there is one `known_k` block per opponent and the per-player blocks
have n entries.  The observation holds only what the observer may know: no other
hand, no stock order.  ``action_mask`` (int8) marks the legal ids of the acting agent
and is all zeros for every other agent.

## Rewards
``reward="win"`` (default): when the episode ends, +1 to its winner and -1/(n-1) to
each other player; 0 to all if no one won (stock and discard pile empty, or
``max_turns``).  ``reward="score"``: at the end of each hand, the winner gets the
hand's points and each other player minus what they pay (their cards' value,
doubled when the winner went rummy).  Every other step gives 0.  Rewards are zero-sum.
An illegal action through ``env()`` ends the episode with
``raw_env.illegal_reward`` for its player and 0 for the others (PettingZoo's
``TerminateIllegalWrapper``), the one ending that is not zero-sum.

## Episode End
``episode="hand"`` (default): the hand ends when a player goes out (termination),
when no card can be drawn (termination, no winner: a guard only, since every turn that
does not go out ends with a discard and the rebuilt stock never runs dry in legal play)
or after ``max_turns`` turns (truncation).  ``episode="game"``: hands are dealt until a total reaches
``target_score`` (termination); a hand reaching ``max_turns`` ends with no winner and
no score and the next dealer deals (R-RUMMY-13); after ``max_hands`` hands without a
game winner the episode is truncated.

## Arguments
``rummy_v0.env(num_players=2, ace_high=False, reshuffle="keep_top",
two_player_winner_deals=False, target_score=100, max_turns=1000, max_hands=1000,
episode="hand", reward="win", render_mode=None)``; see ``rummy_env.games.rummy.RummyConfig``.
Unknown or bad options raise ``ValueError``.

## Rendering
``render_mode="ansi"``: ``env.render()`` returns the table as the acting player sees it.
``render_mode="human"``: the env prints that table itself at every ``reset`` and every
``step`` (PettingZoo's convention), so a loop over a whole game prints every move;
``render()`` prints it once more and returns None.
``render_mode="rgb_array"``: ``env.render()`` returns the same view as a picture, a ``uint8``
array ``(560, 960, 3)`` (the `render` extra, Pillow); ``env.unwrapped.render_svg()`` gives it
as SVG text in any mode (``rummy_env.render.image``).

## Reset options
``env.reset(seed=None, options={"deck": [52 card strings, top first], "dealer": k})``
stacks the deck of the first hand (dealt one card at a time from the dealer's left,
then the upcard, R-RUMMY-03) and fixes the first dealer; either may be left out (then
it comes from the seeded generator).  A bad deck or dealer raises ``ValueError`` and
leaves the env as it was.
``options["next_hands"]`` (``episode="game"``) stacks the later hands of the game: a
list of deals ``[{"deck": [52 card strings, top first]}, ...]`` for hands 2, 3, ... in
order (who deals follows the rules: the deal passes left, or with
``two_player_winner_deals`` the winner deals); once the list runs out the seeded
generator deals, as without it (a stacked hand draws nothing from it).  With ``deck`` and
``dealer`` it replays a whole game dealt elsewhere (``rummy_env.vector``'s
``deal_of(i)`` returns all three, the later hands those dealt so far: take it after the
game's end).  A bad list (not dicts with exactly the key ``deck``, a bad deck, more deals
than ``max_hands - 1``, or deals with ``episode="hand"``) raises ``ValueError`` and
leaves the env as it was.  Stacked deals are no player's information: no observation
shows them, and ``game_state.resample`` drops them.

## Infos
When a hand ends, ``infos[agent]`` holds ``hand_score`` (the points this hand added to
the agent's total: the winner's points, 0 for the others), ``total_score`` (the game
total), ``hand`` (hands finished so far), ``winner`` (agent name, ``""`` for none) and
``rummy`` (whether the winner went rummy).  They stay until the next hand ends.  At the episode's end each agent leaves
``env.infos`` when it is stepped with ``None``: read its final infos from ``env.last()``
before that step (or the engine's ``env.unwrapped.game_state.last_hand``).
After an illegal action through ``env()``, the infos of its player also hold
``illegal_action``: the engine's message naming the action and why it was illegal.
Every key keeps one type in every step where it appears (ints, the bool ``rummy`` and
strings: no None, no lists of varying length), so that learners that stack infos
(Tianshou) can.

## Rule readings
Where ``rummy.md`` is silent, this environment reads it as follows:
- R-RUMMY-04/13: with ``two_player_winner_deals`` a hand with no winner (the move limit,
  or no card left to draw) leaves no winner to deal the next one: the same dealer deals
  again, as after Gin Rummy's dead hand.
- R-RUMMY-09/10: the card taken from the discard pile may be melded or laid off in the
  same turn; only discarding it is refused.
- R-RUMMY-12: the stock is rebuilt when the player asks for ``draw stock`` with the stock
  empty (the observation shows a stock of 0 until then); the pile turned face down puts
  its oldest card on top of the new stock, so that card is drawn first.  With
  ``keep_top`` and a pile of one card there is nothing to rebuild: ``draw stock`` is
  masked (a guard: when the stock runs out in legal play the pile holds every card not in
  a hand or meld, 16 or more).  A card drawn from the rebuilt stock came from the stock: it may be discarded
  in the same turn.
- R-RUMMY-17: with ``episode="hand"`` there is no game: no target and no game winner,
  however much the hand scores.

## Version History
* v0: initial release.
* v0, issue 10: with ``episode="game"`` a hand reaching ``max_turns`` ends with no
  winner and the game goes on (the next dealer deals); the option ``max_hands`` (default
  1000) truncates a game no one has won after that many hands. Before, such a hand
  truncated the whole episode. ``copy.deepcopy`` and ``pickle`` of an env continue its
  game; a reset option of another variant is refused.
* v0, issue 26: the reset option ``next_hands`` stacks the later hands of a game.
"""

from __future__ import annotations

from typing import Any

from rummy_env.encoding import rummy as encoding
from rummy_env.encoding.layout import Layout
from rummy_env.envs.driver import TurnBasedEnv
from rummy_env.envs.wrappers import wrap
from rummy_env.games.rummy import NUM_ACTIONS, RummyGame
from rummy_env.games.rummy import actions as rummy_actions
from rummy_env.render.text import render_rummy


class raw_env(TurnBasedEnv):
    """Basic Rummy as a PettingZoo AEC environment (see the module docstring).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "rummy_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_actions = NUM_ACTIONS
    game_class = RummyGame
    actions = rummy_actions
    encoder = encoding
    renderer = staticmethod(render_rummy)
    reset_option_names = ("deck", "dealer", "next_hands")
    max_hand_loss = 2 * 340  # every card in one hand, doubled by going rummy (R-RUMMY-14, 16)

    def _layout(self) -> Layout:
        return encoding.layout_of(self.game.config)

    def _public_hand_facts(self, last: dict, seat: int) -> dict:
        return {"winner": self._agent_name(last["winner"]), "rummy": last["rummy"]}


def env(**kwargs: Any):
    """``raw_env(**kwargs)`` in PettingZoo's classic wrapper chain (``envs.wrappers.wrap``).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """
    return wrap(raw_env(**kwargs))
