"""
# Gin Rummy (``gin_rummy_v0``)

| | |
|---|---|
| Import | ``from rummy_env import gin_rummy_v0`` |
| Agents | ``player_0``, ``player_1`` |
| Actions | ``Discrete(108)`` |
| Observation | ``Dict(observation=Box(float32, (485,)), action_mask=Box(int8, (108,)))`` |
| Rules | ``docs/rules/gin_rummy.md`` (R-GIN-01..14) |

## Description
Two-player Gin Rummy with one 52-card deck, aces low.  Each player holds 10 cards;
on a turn a player draws the top card of the stock or takes the upcard (the top of
the discard pile), then discards, or knocks by discarding when the ten cards kept have
at most ``knock_limit`` points of deadwood (cards in no set or run), or goes gin.  The
first turn starts with the upcard offer (R-GIN-03).  After a knock the environment lays
out both hands: the knocker's melds (least deadwood; ties broken to leave the defender
the most deadwood, R-GIN-06), then the defender's melds and lay-offs that leave the
defender the least deadwood (R-GIN-08; none against gin or big gin).  Deadwood is exact
(the least over all meld arrangements, ``rummy_env.core.deadwood``) for any knock limit.
The hand ends dead when the player who drew the 50th card discards without knocking
(R-GIN-09).  A turn is two steps of the same agent: a draw, then a discard, knock or
big gin.

## Action Space
One flat id space; the layout never changes with the options (illegal ids are masked):

| ids | text | move |
|---|---|---|
| 0..51 | `discard KD` | discard the card with that id and end the turn (card ids: suit-major C D H S, ranks A..K) |
| 52..103 | `knock KD` | discard card ``id - 52`` and knock (R-GIN-06); with 0 deadwood kept this is gin, scored as gin (R-GIN-07, 12) |
| 104 | `draw stock` | draw the top card of the stock |
| 105 | `draw upcard` | take the upcard (top of the discard pile), on the first offer or any later turn; it may not be discarded this turn |
| 106 | `pass` | decline the first upcard (the upcard offer only, R-GIN-03) |
| 107 | `big gin` | go out with all eleven cards melded, without discarding (R-GIN-07, option ``big_gin``) |

``env.unwrapped.action_to_string(a)`` and ``env.unwrapped.string_to_action(text)``
convert ids and text (cards written ``TS``, ``10S``, ``AH``; ``draw discard`` is
accepted for ``draw upcard``).  Knocking with the card just taken from the discard
pile is not allowed either (R-GIN-04).

## Observation Space
``observation`` is a float32 vector of 485 entries (pairs relative to the observer:
entry 0 is the observer, entry 1 the opponent); ``env.unwrapped.layout`` names its
blocks (``layout.slice("hand")``, ``layout.split(obs)``):

| indexes | field | size | meaning |
|---|---|---|---|
| 0..51 | `hand` | 52 | 1 for each card in the observer's hand |
| 52..103 | `upcard` | 52 | 1 for the upcard (top of the discard pile) |
| 104..155 | `discard_rest` | 52 | 1 for each other card of the discard pile: cards the observer has seen leave play |
| 156..207 | `opponent_known` | 52 | 1 for each card the opponent is known to hold (taken from the discard pile and kept; its whole hand after a showdown) |
| 208..259 | `opponent_discarded` | 52 | 1 for each card the opponent discarded in this hand |
| 260..311 | `forbidden` | 52 | 1 for the card the observer took from the discard pile this turn and may not discard (R-GIN-04) |
| 312..363 | `knocker_melds` | 52 | after a showdown: 1 for each card of the knocker's melds (R-GIN-06) |
| 364..415 | `layoffs` | 52 | after a showdown: 1 for each card the defender laid off (R-GIN-08) |
| 416..467 | `defender_melds` | 52 | after a showdown: 1 for each card of the defender's melds (R-GIN-08) |
| 468..470 | `phase` | 3 | one-hot phase: upcard offer (R-GIN-03), draw, discard (all 0 when the episode is over) |
| 471..472 | `acting` | 2 | one-hot relative seat of the acting player (0 = observer) |
| 473..474 | `dealer` | 2 | one-hot relative seat of this hand's dealer |
| 475..476 | `knocker` | 2 | one-hot relative seat of the player who knocked (all 0 before a showdown) |
| 477..477 | `stock_size` | 1 | cards in the stock |
| 478..478 | `knock_limit` | 1 | most deadwood a knock may keep in this hand, points (R-GIN-06, 14) |
| 479..479 | `deadwood` | 1 | least deadwood of all the observer's cards (10, or 11 after a draw), points |
| 480..481 | `showdown_deadwood` | 2 | after a showdown: deadwood of (observer, opponent), the defender's after lay-offs, points |
| 482..483 | `scores` | 2 | game totals of (observer, opponent), points |
| 484..484 | `turn` | 1 | turns completed in this hand |

The observation holds only what the observer may know: never the opponent's hidden
cards nor the stock's order.  The showdown takes no decisions (the environment lays out
both hands), so the hand that ends with it is the first time the knocker sees the
defender's hand; from then on both players see both layouts (the final observation of
``episode="hand"``, and ``infos`` in every case).  ``action_mask`` (int8) marks the
legal ids of the acting agent and is all zeros for the other agent.

## Rewards
``reward="win"`` (default): when the episode ends, +1 to its winner and -1 to the other
player: with ``episode="hand"`` the hand's winner (the player who scores: the knocker,
or the defender on an undercut), with ``episode="game"`` the game's winner; 0 to both
after a dead hand or a truncation.  ``reward="score"``: at the end of each hand the
scorer gets the hand's points and the other player loses as many (R-GIN-10..12); at the
end of a game with ``game_bonuses=True`` the winner also gets the difference of the two
players' bonuses and the loser loses it, so an episode's returns are the difference of
the final totals.  Rewards are zero-sum.
An illegal action through ``env()`` ends the episode with
``raw_env.illegal_reward`` for its player and 0 for the others (PettingZoo's
``TerminateIllegalWrapper``), the one ending that is not zero-sum.

## Scoring (``infos[agent]["hand_score"]``)
Knock (R-GIN-10): the knocker scores the defender's deadwood after lay-offs minus the
knocker's.  Undercut (R-GIN-11): if the defender's deadwood is equal or lower, the
defender scores the difference plus ``undercut_bonus`` (25).  Gin (R-GIN-12): the
defender's deadwood (no lay-offs) plus ``gin_bonus`` (25); big gin: plus
``big_gin_bonus`` (31).  Game (R-GIN-13, ``episode="game"``): hands are dealt until a
total reaches ``target_score`` (100); with ``game_bonuses=True`` the winner adds 100 and
each player 25 per hand won, and the winner's total (bonuses included) is doubled when
the loser won no hand.

## Episode End
``episode="hand"`` (default): the hand ends with a knock, gin or big gin, or dead
(R-GIN-09; both score 0), all terminations; after ``max_turns`` turns it is truncated.
``episode="game"``: hands are dealt until a total reaches ``target_score``
(termination); the winner of a hand deals the next, the same dealer deals again after
a dead hand (R-GIN-02); a hand reaching ``max_turns`` scores nothing and counts as a
dead hand (the same dealer deals again); after ``max_hands`` hands without a game
winner the episode is truncated.

## Arguments
``gin_rummy_v0.env(knock_limit=10, gin_bonus=25, undercut_bonus=25, big_gin=True,
big_gin_bonus=31, oklahoma=False, target_score=100, game_bonuses=False, max_turns=1000,
max_hands=1000, episode="hand", reward="win", render_mode=None)``; see
``rummy_env.games.gin_rummy.GinRummyConfig``.  ``knock_limit`` is an int from 0 to 10**9
(0 means gin only), the three bonuses ints from 0 to 10**6 (the batched engine's totals
are int32); with ``oklahoma=True`` each hand's limit is the first upcard's value instead
(an ace: gin only, R-GIN-14).  ``max_turns`` is a safety limit of this environment (the
rules have none, and taking the upcard and discarding another card can go on forever).
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
stacks the deck of the first hand (dealt one card at a time, the non-dealer first, then
the upcard; the rest is the stock, R-GIN-02; ``rummy_env.games.gin_rummy.stack_deck``
builds one) and fixes the first dealer (0 or 1); either may be left out (then it comes
from the seeded generator).  A bad deck or dealer raises ``ValueError`` and leaves the
env as it was.
``options["next_hands"]`` (``episode="game"``) stacks the later hands of the game: a
list of deals ``[{"deck": [52 card strings, top first]}, ...]`` for hands 2, 3, ... in
order (who deals follows the rules: the last hand's winner, the same dealer after a dead
hand); once the list runs out the seeded generator deals, as without it (a stacked hand
draws nothing from it).  With ``deck`` and ``dealer`` it replays a whole game dealt
elsewhere (``rummy_env.vector``'s ``deal_of(i)`` returns all three, the later hands
those dealt so far: take it after the game's end).  A bad list (not dicts with exactly
the key ``deck``, a bad deck, more deals than ``max_hands - 1``, or deals with
``episode="hand"``) raises ``ValueError`` and leaves the env as it was.  Stacked deals
are no player's information: no observation shows them, and ``game_state.resample``
drops them.

## Infos
When a hand ends, ``infos[agent]`` holds ``hand_score`` (the points this hand added to
the agent's total), ``total_score`` (the game total, end-of-game bonuses included),
``hand`` (hands finished so far), ``winner`` (agent name, ``""`` for none), ``result``
(``"knock"``, ``"gin"``, ``"big gin"``, ``"undercut"``, ``"dead hand"`` or
``"truncated"``), ``knocker`` (agent name, ``""`` for none) and the public facts of the
showdown as text: ``knocker_melds`` and ``defender_melds`` (the melds separated by
``" | "``, e.g. ``"2C 2D 2H | 3S 4S 5S"``), ``knocker_deadwood`` and ``defender_deadwood``
(points, the defender's after lay-offs; -1 without a showdown), ``knocker_deadwood_cards``
and ``defender_deadwood_cards`` (e.g. ``"KD 9C"``), ``layoffs`` (``"card on meld"`` in
the order laid, separated by ``" | "``, the meld as the knocker laid it, e.g. ``"7D on
4D 5D 6D | 8D on 4D 5D 6D"``), plus ``game_bonus`` (this agent's end-of-game bonus, 0
unless the game ended with ``game_bonuses``); every text is ``""`` when empty.  The same
cards are in the observation's ``knocker_melds``, ``layoffs`` and ``defender_melds``
planes (fixed size).
They stay until the next hand ends.  At the episode's end each agent leaves
``env.infos`` when it is stepped with ``None``: read its final infos from ``env.last()``
before that step (or the engine's ``env.unwrapped.game_state.last_hand``).
After an illegal action through ``env()``, the infos of its player also hold
``illegal_action``: the engine's message naming the action and why it was illegal.
Every key keeps one type in every step where it appears (ints and strings: no None, no
lists of varying length), so that learners that stack infos (Tianshou) can.

## Rule readings
Where ``gin_rummy.md`` is silent, this environment reads it as follows:
- R-GIN-04: only the top card of the discard pile can be taken (the cards under it are
  public, ``discard_rest``, but out of reach); the card taken may not be discarded in the
  same turn, neither plainly nor to knock.
- R-GIN-06: the knocker's arrangements are compared with adjacent runs of one suit
  merged (a 6-card run is one meld); "meld-table order" is the lexicographic order of
  an arrangement's ascending meld ids (``rummy_env.core.melds.MELDS``).
- R-GIN-07: big gin is offered whenever all eleven cards meld, also with a knock limit
  of 0 and right after taking the upcard; a player holding eleven melded cards may
  instead discard one and go plain gin.
- R-GIN-08: the defender lays off any card that lowers its deadwood, a card of a meld
  it could have kept included (``rummy_env.core.deadwood``); among the layouts with the
  least deadwood, the one laying off the fewest cards is taken.
- R-GIN-09: the hand is dead as soon as the player who drew the 50th card discards
  without knocking; the other player does not get a last chance at that discard.
- R-GIN-11: with ``undercut_bonus=0`` an undercut still wins the hand for the defender
  (its reward, its deal, no shutout against it), worth only the deadwood difference.
- R-GIN-13: with ``episode="hand"`` there is no game: no target and no game bonuses.
  ``hand_score`` is the hand's points; the end-of-game bonuses are reported in
  ``game_bonus`` and included in ``total_score``.
- R-GIN-13: a game truncated by ``max_hands`` has no winner: no game bonuses, and a 0
  reward with ``reward="win"``.
- R-GIN-14: Oklahoma sets only the knock limit (no doubling for a spade upcard).
- ``max_turns`` (no rule: a limit of this environment) counts the turns that end with a
  discard, a knock or big gin (passes of the upcard are not turns) and is checked after
  a plain discard only: a knock on the turn that reaches it is scored, and a discard that
  leaves the wall (R-GIN-09) ends a dead hand, not a truncated one.

## Against OpenSpiel's ``gin_rummy``
The defaults are not OpenSpiel's: it has no big gin (use ``big_gin=False``), scores an
equal-deadwood knock 0 where R-GIN-11 makes it an undercut, gives the player after the
wall a last knock with the upcard where R-GIN-09 ends the hand, allows at most two
lay-offs on one end of a run, ends a hand as a draw at the 50th draw of an upcard, and
refuses some legal knocks of eleven-card hands.  ``agents.openspiel_bot`` maps these
differences move by move, and the tests compare the two engines on the hands where the
rules agree.

## Version History
* v0: initial release.
* v0, issue 10: with ``episode="game"`` a hand reaching ``max_turns`` ends with no score
  and the game goes on (a dead hand: the same dealer deals again); the option
  ``max_hands`` (default 1000) truncates a game no one has won after that many hands
  (random play needs 130 hands on average). Before, such a hand truncated the whole
  episode. ``copy.deepcopy`` and ``pickle`` of an env continue its game; a reset option
  of another variant is refused.
* v0, issue 26: the reset option ``next_hands`` stacks the later hands of a game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.cards import cards_of, cards_str
from rummy_env.core.melds import MELDS
from rummy_env.encoding import gin_rummy as encoding
from rummy_env.encoding.gin_rummy import max_total  # noqa: F401 - its former home, still imported from here
from rummy_env.encoding.layout import Layout
from rummy_env.envs.driver import TurnBasedEnv
from rummy_env.envs.wrappers import wrap
from rummy_env.games.gin_rummy import (
    NUM_ACTIONS,
    GinRummyGame,
)
from rummy_env.games.gin_rummy import actions as gin_actions
from rummy_env.render.text import render_gin

#: Separates the melds (and the lay-offs) in the showdown texts of ``infos``.
MELD_SEPARATOR = " | "


class raw_env(TurnBasedEnv):
    """Gin Rummy as a PettingZoo AEC environment (see the module docstring).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "gin_rummy_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_actions = NUM_ACTIONS
    game_class = GinRummyGame
    actions = gin_actions
    encoder = encoding
    renderer = staticmethod(render_gin)
    reset_option_names = ("deck", "dealer", "next_hands")

    @property
    def max_hand_loss(self) -> float:
        """Ten cards of deadwood are worth at most 100 points; the biggest bonus comes on top
        (R-GIN-10..12), ``big_gin_bonus`` counted whatever ``big_gin`` (a safe upper bound for
        ``illegal_reward``).  End-of-game bonuses are not counted."""
        cfg = self.game.config
        return 100 + max(cfg.gin_bonus, cfg.big_gin_bonus, cfg.undercut_bonus)

    def _layout(self) -> Layout:
        return encoding.layout_of(self.game.config)

    def _encode(self, view: Any) -> np.ndarray:
        return encoding.encode(view)

    def _observe_arrays(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        # the observation and the mask made in one pass from the engine's legal-action bits
        state = self.game_state
        legal = state.legal_bits() if state.current_player() == seat else 0
        return encoding.encode_with_mask(state.observation(seat), legal)

    def _public_hand_facts(self, last: dict, seat: int) -> dict:
        sd = last["showdown"]
        facts = {
            "winner": self._agent_name(last["winner"]),
            "result": last["result"],
            "knocker": self._agent_name(last["knocker"]),
            "knocker_melds": "",
            "knocker_deadwood": -1,
            "knocker_deadwood_cards": "",
            "defender_melds": "",
            "layoffs": "",
            "defender_deadwood": -1,
            "defender_deadwood_cards": "",
            "game_bonus": last["game_bonuses"][seat],
        }
        if sd is not None:
            knocker_melds = [cards_str(MELDS[m].cards) for m in sd.knocker_melds]
            facts.update(
                knocker_melds=MELD_SEPARATOR.join(knocker_melds),
                knocker_deadwood=sd.knocker_deadwood,
                knocker_deadwood_cards=cards_str(cards_of(sd.knocker_deadwood_cards)),
                defender_melds=MELD_SEPARATOR.join(cards_str(MELDS[m].cards) for m in sd.defender.melds),
                layoffs=MELD_SEPARATOR.join(
                    f"{cards_str([x.card])} on {knocker_melds[x.meld]}" for x in sd.defender.layoffs
                ),
                defender_deadwood=sd.defender.deadwood,
                defender_deadwood_cards=cards_str(cards_of(sd.defender.deadwood_cards)),
            )
        return facts


def env(**kwargs: Any):
    """``raw_env(**kwargs)`` in PettingZoo's classic wrapper chain (``envs.wrappers.wrap``).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """
    return wrap(raw_env(**kwargs))
