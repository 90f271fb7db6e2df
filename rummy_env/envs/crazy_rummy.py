"""
# Crazy Rummy (``crazy_rummy_v0``)

| | |
|---|---|
| Import | ``from rummy_env import crazy_rummy_v0`` |
| Agents | ``player_0`` .. ``player_{n-1}``, n = 3..6 |
| Actions | ``Discrete(631)`` |
| Observation | ``Dict(observation=Box(float32, (52*(n+9) + 4*n + 18,)), action_mask=Box(int8, (631,)))`` |
| Rules | ``docs/rules/crazy_rummy.md`` (R-CRAZY-01..13) |

## Description
Crazy Rummy is played in 13 rounds; in round r every card of rank r is wild (aces in
round 1, ..., kings in round 13).  The dealer deals 7 cards each and an 8th to the
player on their left, who starts without drawing.  Players put down sets and runs
(wild cards stand for the cards a meld needs), and once they have put down a meld they
may lay off cards on any meld and swap a natural card for the wild card that stands for
it.  A turn ends with a discard, and the last card must be discarded to go out.  Cards
left in hand are penalty points (a wild card 25); the lowest total after 13 rounds wins.

## Action Space
One flat id space; the layout never changes (illegal ids are masked):

| ids | text | move |
|---|---|---|
| 0..51 | `discard KD` | discard the card with that id |
| 52 | `draw stock` | draw the top card of the stock |
| 53 | `draw discard` | take the top card of the discard pile (not allowed holding one card, R-CRAZY-10) |
| 54..422 | `meld 7S 8S 9S` | put down meld ``id - 54`` of ``rummy_env.core.melds.MELDS`` named by the cards it stands for: your natural cards of it are used and each missing card is filled by a wild card |
| 423..578 | `layoff 6S set` / `low` / `high` | lay off a card standing for ``(id - 423) // 3`` (your natural card if held, else a wild card) on the set of its rank, below a run's low end or above its high end |
| 579..630 | `swap 9S` | put your natural card ``id - 579`` in place of the wild card standing for it on the table; the wild card goes to your hand |

When several wild cards could fill a meld or lay-off, a wild card taken from the discard
pile this turn is used first (it may not be discarded this turn, R-CRAZY-08, so the held
one stays discardable), then the lowest card ids, and a meld's missing cards (ascending)
get them in that order.  The mask enforces: no
lay-off or swap before your first meld of the round (R-CRAZY-07), no meld or lay-off
that empties your hand (R-CRAZY-09), no card on the table twice, as itself or through a
wild card (R-CRAZY-05a), no draw on the first turn of the round (R-CRAZY-06), the
one-card rule (R-CRAZY-10), no discarding the card just taken from the discard pile
(R-CRAZY-08), and no move after which no legal discard can be reached (R-CRAZY-08a).

## Observation Space
``observation`` is a float32 vector (per-player blocks in seat order relative to the
observer, 0 = observer); ``env.unwrapped.layout`` names its blocks.  For 3 players (654
entries):

| indexes | field | size | meaning |
|---|---|---|---|
| 0..51 | `hand` | 52 | 1 for each card in the observer's hand |
| 52..103 | `top_discard` | 52 | 1 for the top card of the discard pile |
| 104..155 | `discard_rest` | 52 | 1 for each other card in the discard pile |
| 156..207 | `table_natural` | 52 | 1 for each card on the table as itself |
| 208..259 | `wild_C` | 52 | 1 for the card the wild card of suit C stands for on the table (R-CRAZY-05) |
| 260..311 | `wild_D` | 52 | 1 for the card the wild card of suit D stands for on the table (R-CRAZY-05) |
| 312..363 | `wild_H` | 52 | 1 for the card the wild card of suit H stands for on the table (R-CRAZY-05) |
| 364..415 | `wild_S` | 52 | 1 for the card the wild card of suit S stands for on the table (R-CRAZY-05) |
| 416..467 | `known_1` | 52 | 1 for each card the player 1 seat(s) to the left took from the discard pile or by a swap and still holds |
| 468..519 | `known_2` | 52 | 1 for each card the player 2 seat(s) to the left took from the discard pile or by a swap and still holds |
| 520..571 | `forbidden` | 52 | 1 for the card the observer took from the discard pile this turn (R-CRAZY-08) |
| 572..623 | `must_discard` | 52 | 1 for the card the observer must discard unless going out (R-CRAZY-10) |
| 624..636 | `wild_rank` | 13 | one-hot wild rank of the round: A, 2, ..., K (R-CRAZY-02) |
| 637..637 | `round` | 1 | round number 1..13 |
| 638..639 | `phase` | 2 | one-hot phase of the acting player: draw, play (all 0 when the episode is over) |
| 640..642 | `acting` | 3 | one-hot relative seat of the acting player (0 = observer) |
| 643..643 | `stock_size` | 1 | cards in the stock |
| 644..646 | `hand_sizes` | 3 | cards in each hand, relative seats |
| 647..649 | `melded` | 3 | 1 if that player has put down a meld this round, relative seats |
| 650..652 | `totals` | 3 | penalty totals of the game, relative seats (points) |
| 653..653 | `turn` | 1 | turns completed in this round |

With more players there is one `known_k` block per opponent and the per-player blocks
have n entries.  No other hand and no stock order is encoded.  ``action_mask`` (int8)
marks the legal ids of the acting agent and is all zeros for every other agent.

## Rewards
Penalty points are bad.  ``reward="win"`` (default): when the episode ends, +1 shared
by the players with the lowest penalty (the round's, or the game total with
``episode="game"``) and -1 shared by the others; 0 to all if every player ties or the
episode was truncated.  ``reward="score"``: at the end of each round, each player gets
the mean penalty of all players minus their own.  Every other step gives 0; rewards are
zero-sum.  An illegal action through ``env()`` ends the episode with
``raw_env.illegal_reward`` for its player and 0 for the others (PettingZoo's
``TerminateIllegalWrapper``), the one ending that is not zero-sum.

## Episode End
``episode="hand"`` (default): one round with wild rank ``wild_rank`` (drawn from the
seeded generator if None); it ends when a player goes out by discarding their last card
or when the turn of the player who drew the last card of the stock ends (R-CRAZY-11);
both are terminations.  ``episode="game"``: the 13 rounds, wild ranks A..K in order,
the deal passing left.  A round reaching ``max_turns`` turns scores no penalties: with
``episode="hand"`` it is a truncation; with ``episode="game"`` the next round is dealt,
so a game still ends after its 13 rounds (termination), unless ``max_hands`` (1..13,
default 13) cuts it short as a truncation.

## Arguments
``crazy_rummy_v0.env(num_players=3, wild_rank=None, episode="hand", reward="win",
max_turns=1000, max_hands=13, render_mode=None)``; see ``rummy_env.games.crazy_rummy.CrazyRummyConfig``.
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
stacks the first round's deck (7 cards each one at a time from the dealer's left, then
the 8th card to the dealer's left, then the stock top first; see
``rummy_env.games.crazy_rummy.stack_deck``) and fixes the first dealer.  With
``episode="hand"``, ``"wild_rank": r`` (1..13) fixes the round's wild rank too (equal to
the ``wild_rank`` option if that is set): deck, dealer and wild rank replay a round
(``rummy_env.vector``'s ``deal_of`` gives all three).  A bad deck, dealer or wild rank
raises ``ValueError`` and leaves the env as it was.
``options["next_hands"]`` (``episode="game"``) stacks the later rounds of the game: a
list of deals ``[{"deck": [52 card strings, top first]}, ...]`` for rounds 2, 3, ... in
order (the deal passes left); once the list runs out the seeded generator deals, as
without it (a stacked hand draws nothing from it).  With ``deck`` and ``dealer`` it
replays a whole game dealt elsewhere (``rummy_env.vector``'s ``deal_of(i)`` returns all
three, the later rounds those dealt so far: take it after the game's end).  A bad list
(not dicts with exactly the key ``deck``, a bad deck, more deals than ``max_hands - 1``
(12 at most), or deals with ``episode="hand"``) raises ``ValueError`` and leaves the env
as it was.  Stacked deals are no player's information:
no observation shows them, and ``game_state.resample`` drops them.

## Infos
When a round ends, ``infos[agent]`` holds ``hand_score`` (the agent's penalty points of
the round), ``total_score`` (the penalty total), ``hand`` (rounds finished), ``winner``
(the agent who went out, ``""`` for none), ``round`` and ``wild_rank`` (1..13).  They stay
until the next round ends.  At the episode's end each agent leaves
``env.infos`` when it is stepped with ``None``: read its final infos from ``env.last()``
before that step (or the engine's ``env.unwrapped.game_state.last_hand``).
After an illegal action through ``env()``, the infos of its player also hold
``illegal_action``: the engine's message naming the action and why it was illegal.
Every key keeps one type in every step where it appears (ints and strings: no None, no
lists of varying length), so that learners that stack infos (Tianshou) can.

## Rule readings
Where ``crazy_rummy.md`` leaves a choice open:
- R-CRAZY-05: a meld or lay-off uses the player's natural cards of it; when several wild
  cards could fill the missing cards, the one taken from the discard pile this turn is
  used first (it may not be discarded this turn, R-CRAZY-08), then the lowest card ids
  (the action names the cards stood for, not which wild card).  So a wild card never
  stands for a card its player holds: the rule does not forbid that (put the wild card
  down for KH, keep KH to discard), but the actions have no way to say it.  It matters
  rarely: a wild card taken from the discard pile that could stand only for held cards
  cannot leave the hand that turn, so the player cannot go out with it then.  Nor can
  the player choose which of two held wild cards fills: with 5C and 5S wild, a meld that
  needs one wild card gets 5C, and 5C, now on the table, can no longer be laid off as
  itself on AC-4C (R-CRAZY-05a), where the rules would let 5S fill and 5C go on the run.
  The choice can matter only when a fill leaves another wild card in the hand, which is
  rare.  Changing it would add actions (a new env version); v0 keeps this reading.
- R-CRAZY-07: the wild card a swap brings to the hand may be discarded in the same turn
  (R-CRAZY-08 holds back only the card taken from the discard pile).
- R-CRAZY-05a: a card is on the table once: as itself, through a wild card, or as a wild
  card standing in for another card; no wild card may stand for any of those, and a held
  wild card whose own card is on the table through another wild card fills no meld or
  lay-off (it may only be swapped in).  Only the table counts: a wild card may stand for
  a card that lies in the discard pile.
- R-CRAZY-08: a card taken from the discard pile may be swapped in for the wild card
  standing for it, and that wild card discarded, in the same turn.
- R-CRAZY-10: "the card held before the draw" must be discarded unless going out; if
  the player swaps that card in for a wild card, the wild card takes its place in the
  obligation (so the swap cannot be used to keep the card just drawn); laying that card
  off (or melding it) and going out with the card just drawn is allowed.
- ``max_turns`` (default 1000): a round reaching it scores no penalties; it truncates
  a one-round episode, and a game goes on with the next round.

## Version History
* v0: initial release.
* v0, issue 10: with ``episode="game"`` a round reaching ``max_turns`` ends with no
  penalties and the game goes on with the next round (it still ends after round 13); the
  option ``max_hands`` (default 13) truncates a game after that many rounds. Before,
  such a round truncated the whole episode. ``copy.deepcopy`` and ``pickle`` of an env
  continue its game; a reset option of another variant is refused.
* v0, issue 26: the reset option ``next_hands`` stacks the later rounds of a game.
* v0, 2026-12-05: a wild card taken from the discard pile fills a meld or lay-off before the
  held ones.  Before, the lowest card id filled first, so a meld that had to use the
  taken wild card to leave a legal discard (R-CRAZY-08a) was masked, though the rules allow it.
* v0, 2026-12-05 (later): a held wild card whose own card is on the table through another
  wild card fills no meld or lay-off (R-CRAZY-05a: it may only be swapped in).  Before, it
  could go down as a wild card, putting that card on the table twice.
"""

from __future__ import annotations

from typing import Any

from rummy_env.core.cards import parse_deck
from rummy_env.encoding import crazy_rummy as encoding
from rummy_env.encoding.layout import Layout
from rummy_env.envs.driver import TurnBasedEnv
from rummy_env.envs.wrappers import wrap
from rummy_env.games.crazy_rummy import (
    NUM_ACTIONS,
    CrazyRummyGame,
)
from rummy_env.games.crazy_rummy import actions as crazy_actions
from rummy_env.render.text import render_crazy_rummy


class raw_env(TurnBasedEnv):
    """Crazy Rummy as a PettingZoo AEC environment (see the module docstring).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "crazy_rummy_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    num_actions = NUM_ACTIONS
    game_class = CrazyRummyGame
    actions = crazy_actions
    encoder = encoding
    renderer = staticmethod(render_crazy_rummy)
    reset_option_names = ("deck", "dealer", "wild_rank", "next_hands")
    max_hand_loss = encoding.MAX_ROUND_PENALTY  # every card, the four wild cards at 25 (R-CRAZY-12)

    def _layout(self) -> Layout:
        return encoding.layout_of(self.game.config)

    def _new_state(self, rng: Any, options: dict) -> Any:
        deck = parse_deck(options["deck"]) if options.get("deck") is not None else None
        return self.game.new_initial_state(
            rng=rng, deck=deck, dealer=options.get("dealer"), wild_rank=options.get("wild_rank")
        )

    def _public_hand_facts(self, last: dict, seat: int) -> dict:
        return {"winner": self._agent_name(last["winner"]), "round": last["round"], "wild_rank": last["wild_rank"]}


def env(**kwargs: Any):
    """``raw_env(**kwargs)`` in PettingZoo's classic wrapper chain (``envs.wrappers.wrap``).

    Raises:
        ValueError: an unknown or bad option, or a ``render_mode`` that is neither None nor one of
            ``metadata["render_modes"]``.
        ImportError: ``render_mode="rgb_array"`` without Pillow >= 10.1 (the ``render`` extra).
    """
    return wrap(raw_env(**kwargs))
