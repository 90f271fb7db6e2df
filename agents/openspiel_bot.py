"""OpenSpiel's simple Gin Rummy bot as an agent of ours: ``openspiel_gin_bot``.

``pyspiel.make_simple_gin_rummy_bot`` (C++, ``open_spiel/bots/gin_rummy/``) plays
OpenSpiel's ``gin_rummy``: it takes the upcard only when it then can knock or when the
upcard lies in a best meld, sheds its highest-ranked unmelded card, and knocks as soon as
it may.  It is the simple baseline player of the EAAI-21 Gin Rummy challenge, written by
nobody here: an outside opponent for our agents.  It needs the ``reference`` extra
(``pip install -e ".[reference]"``).

How it plays our ``gin_rummy_v0``.  At each of its decisions the agent builds an OpenSpiel
``gin_rummy`` state that its seat cannot tell from the true one and asks the bot
(``bot.step(state)``):

- its own cards: the ten it was dealt and every card it drew from the stock, remembered
  from its own observations (so it must be asked at every decision of its seat, as every
  job does);
- the public moves of the hand from the engine's public history of action ids: the first
  upcard, which pile each draw came from, every discard, the passes of the upcard offer;
- the opponent's cards of unknown origin: those it discarded (public, in order of use)
  and those it holds now, which come from ``state.resample(seat, rng)`` of the agent's
  env (OpenSpiel's ``resample_from_infostate``), the only way the agent reads the engine
  state (as the search agents, ``agents/search/worlds.py``).  They are dealt to it in
  order of use: the first ten at the deal, the others at its stock draws.

OpenSpiel's player 0 is our non-dealer (offered the upcard first), player 1 the dealer;
card ids go through the card text (:data:`TO_OS`, ``AC`` is ours 0, OpenSpiel's 13).
The bot reads only its player's observation tensor (its hand, the upcard, the knock card,
the stock size, laid melds), so the hidden cards never change its decision (tested by
permuting them, ``tests/reference/test_openspiel_bot.py``).

Rule differences (``docs/rules/gin_rummy.md`` against ``open_spiel/games/gin_rummy``)
and what the agent does with each; those that change a decision are counted per reason
in ``agent.adjustments`` (since the agent was made, across resets):

- ``upcard_only_to_discard`` (R-GIN-04): OpenSpiel lets a player discard (or knock with)
  the card it just took from the discard pile; we do not.  The bot takes any upcard when
  its ten cards can already knock (its first decision of a hand: later it has knocked at
  once) and knocks shedding its highest unmelded card, which may be that upcard.  Before
  a draw of the upcard the agent looks one step ahead in OpenSpiel; if the bot would
  then shed that very card, it draws from the stock instead (passes on the first offer).
- ``taken_card_discard`` (R-GIN-04): should the bot, with eleven cards, still choose the
  card it took (only possible in the fallback of ``upcard_draw_limit``), the agent plays
  the same kind of move (a knock if one is legal, else a discard) with the card that
  keeps the least deadwood, the highest-ranked on ties (the bot's shedding order).
- ``big_gin_as_gin`` (R-GIN-07): OpenSpiel has no big gin.  With eleven melded cards the
  bot knocks and discards a card that keeps gin; the agent plays that ``knock`` (gin,
  legal here) and forgoes ``big gin``.  Counted when big gin was legal.
- ``upcard_draw_limit``: OpenSpiel ends a hand as a draw at the 50th draw of an upcard
  (``kMaxNumDrawUpcardActions``); our hand goes on (until ``max_turns``).  Past it the
  bot is asked in a stand-alone OpenSpiel state with its hand, the upcard and the knock
  limit (:func:`standalone_state`), which is all it reads.
- ``knock_limit_above_10``: OpenSpiel refuses a knock card above 10.  With
  ``knock_limit`` above 10 (not Oklahoma) the bot plays with knock card 10; every knock it
  makes is legal here.  Counted per decision.

Differences that take no decision of the agent (documented, nothing to map or count):

- The wall (R-GIN-09): with two cards left in the stock OpenSpiel offers the next player
  a last knock with the upcard; here the hand is dead at once.  The bot is never asked.
- Lay-offs (R-GIN-08): OpenSpiel's bot never lays off when the opponent knocks; here the
  engine lays off for every defender, the bot too, to leave it the least deadwood (and
  without OpenSpiel's limit of two lay-offs on one end of a run).
- The knocker's melds (R-GIN-06): the bot declares OpenSpiel's first best meld group;
  here the engine lays out the least deadwood arrangement that leaves the defender the
  most deadwood.  The knocker's deadwood is the same.
- Equal deadwood after a knock (R-GIN-11): an undercut here, 0 points in OpenSpiel.
- Discarding the taken card twice in a row (OpenSpiel's repeated-move draw) cannot
  happen here (R-GIN-04).
- Oklahoma (R-GIN-14): the same rule in both (an ace means gin only).
- Runs of more than five cards: OpenSpiel's melds have at most five cards; a longer run
  splits into them with the same deadwood.
- Deadwood of eleven cards: OpenSpiel's shortcut (the best meld group, less its highest
  unmelded card) can miss a knock that exact deadwood allows.  This is the bot's own
  policy in both engines; every knock it makes is legal here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from agents.base import Agent, legal_ids
from agents.search.worlds import acting_state
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, cards_of
from rummy_env.core.deadwood import deadwood
from rummy_env.games.gin_rummy import BIG_GIN, DISCARD, DRAW_STOCK, DRAW_UPCARD, KNOCK, OFFER, PASS, GinView
from rummy_env.games.gin_rummy.state import DISCARD as DISCARD_PHASE  # DISCARD is the first discard id

GR = pyspiel.gin_rummy
#: OpenSpiel's largest knock card (``kDefaultKnockCard``).
MAX_KNOCK_CARD = 10
#: our card id -> OpenSpiel's: the same text, suits C D H S there s c d h (``AC`` 0 -> 13)
TO_OS: tuple[int, ...] = tuple(((c // NUM_RANKS + 1) % 4) * NUM_RANKS + c % NUM_RANKS for c in range(NUM_CARDS))
#: OpenSpiel's card id -> ours
FROM_OS: tuple[int, ...] = tuple(sorted(range(NUM_CARDS), key=TO_OS.__getitem__))
#: in :func:`openspiel_moves`: a chance node deals the drawing player the stock's top card
STOCK_CARD = -1
#: the counted reasons of ``agent.adjustments`` (module docstring)
REASONS = (
    "upcard_only_to_discard",
    "taken_card_discard",
    "big_gin_as_gin",
    "upcard_draw_limit",
    "knock_limit_above_10",
)
_OPP_DRAW = -2  # placeholder of an opponent's stock card until its cards are known


def openspiel_moves(action: int, second_pass: bool = False) -> tuple[int, ...]:
    """OpenSpiel ``gin_rummy`` actions that play our action id ``action``.

    A knock is OpenSpiel's knock then the discard; the second pass of the upcard offer
    (``second_pass``) is followed by OpenSpiel's forced stock draw of player 0 (our
    env draws for the non-dealer, R-GIN-03).  :data:`STOCK_CARD` marks the chance node
    where the stock's top card is dealt.

    Raises:
        ValueError: ``big gin`` (OpenSpiel has none) or an id outside 0..107.
    """
    if not 0 <= action <= BIG_GIN:
        raise ValueError(f"action {action} is not a Gin Rummy action id (0..107)")
    if action < KNOCK:
        return (TO_OS[action],)
    if action < DRAW_STOCK:
        return (GR.KNOCK_ACTION, TO_OS[action - KNOCK])
    if action == DRAW_STOCK:
        return (GR.DRAW_STOCK_ACTION, STOCK_CARD)
    if action == DRAW_UPCARD:
        return (GR.DRAW_UPCARD_ACTION,)
    if action == PASS:
        return (GR.PASS_ACTION, GR.DRAW_STOCK_ACTION, STOCK_CARD) if second_pass else (GR.PASS_ACTION,)
    raise ValueError("big gin (107) has no OpenSpiel gin_rummy move: OpenSpiel has no big gin")


_PROTOTYPES: dict[tuple, tuple[Any, list[Any]]] = {}
_PROTOTYPES_LOCK = threading.Lock()


def _prototype(params: dict[str, Any]) -> tuple[Any, list[Any]]:
    """OpenSpiel's initial state and bots (players 0, 1) for ``params``, made once per
    process: a new state or bot builds OpenSpiel's meld tables (8 ms); clones do not."""
    key = tuple(sorted(params.items()))
    with _PROTOTYPES_LOCK:
        entry = _PROTOTYPES.get(key)
        if entry is None:
            game = pyspiel.load_game("gin_rummy", params)
            bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in (0, 1)]
            entry = _PROTOTYPES[key] = (game.new_initial_state(), bots)
    return entry


def standalone_state(view: GinView) -> Any:
    """An OpenSpiel ``gin_rummy`` state in which player 0 sees what the bot reads in
    ``view`` (a draw or discard decision): the same hand, upcard and knock card, reached
    by the shortest history (the hand's ten cards dealt, the upcard taken for a discard
    decision).  The stock size differs, which the bot reads only at the wall (never
    reached here).  Used past OpenSpiel's upcard draw limit.

    Raises:
        ValueError: ``view`` is not a draw or discard decision of the viewer.
    """
    if view.acting != 0 or view.phase == OFFER:
        raise ValueError(f"a stand-alone state is for the viewer's draw or discard, not phase {view.phase}")
    state = _prototype({"knock_card": min(view.knock_limit, MAX_KNOCK_CARD)})[0].clone()
    hand = cards_of(view.hand)
    if view.phase == DISCARD_PHASE:
        up = view.forbidden if view.forbidden >= 0 else hand[-1]
        hand.remove(up)
    else:
        up = view.upcard
    others = [c for c in range(NUM_CARDS) if not view.hand >> c & 1 and c != up][:10]
    for c in hand + others + [up]:
        state.apply_action(TO_OS[c])
    if view.phase == DISCARD_PHASE:
        state.apply_action(GR.DRAW_UPCARD_ACTION)
    return state


@dataclass
class _HandRecord:
    """What the seat saw itself in the hand being played: the first upcard, its ten
    dealt cards and its stock draws (index in the hand's actions, ``history[hand_start:]``,
    -> card)."""

    start: tuple[int, int]
    upcard: int
    dealt: int
    draws: dict[int, int] = field(default_factory=dict)


class OpenSpielGinBot(Agent):
    """OpenSpiel's simple Gin Rummy bot playing our ``gin_rummy_v0`` (module docstring).

    Args:
        env: the env the agent plays (wrapped or raw); its engine state is read only
            through ``resample`` of the acting seat.
        seed: seed of the generator of the resampled worlds (the bot itself is
            deterministic, and no decision depends on the hidden cards).

    Attributes:
        adjustments: per reason of :data:`REASONS`, how often a move was mapped to ours.

    Raises:
        ValueError: ``env`` is not Gin Rummy.
    """

    name = "openspiel_gin_bot"

    def __init__(self, env: Any, seed: int | None = None):
        super().__init__(seed)
        raw = env.unwrapped
        variant = raw.metadata["name"]
        if variant != "gin_rummy_v0":
            raise ValueError(f"openspiel_gin_bot plays Gin Rummy (gin_rummy_v0) only, not {variant}")
        cfg = raw.game.config
        self.env = env
        self.capped = not cfg.oklahoma and cfg.knock_limit > MAX_KNOCK_CARD
        self.params = {
            "oklahoma": cfg.oklahoma,
            "knock_card": min(cfg.knock_limit, MAX_KNOCK_CARD),
            "gin_bonus": cfg.gin_bonus,
            "undercut_bonus": cfg.undercut_bonus,
        }
        self._initial, prototypes = _prototype(self.params)
        self._bots = [bot.clone() for bot in prototypes]
        self.adjustments = dict.fromkeys(REASONS, 0)
        self._record: _HandRecord | None = None

    def reset(self, seed: int | None = None) -> None:
        """Start a new hand: forget the OpenSpiel state kept for the last one; with ``seed``, reseed."""
        super().reset(seed)
        self._record = None

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """OpenSpiel's bot's move in its own state of the hand, mapped to our action id (the
        class docstring: the rule differences are mapped to the nearest legal move).

        Raises:
            TypeError, ValueError: not an observation dict with a usable ``action_mask``
                (:func:`agents.base.legal_ids`).
        """
        legal = [int(a) for a in legal_ids(observation)]
        os_state, os_player, view, replayed = self.openspiel_state(observation)
        if not replayed:
            self.adjustments["upcard_draw_limit"] += 1
        if self.capped:
            self.adjustments["knock_limit_above_10"] += 1
        return self._bot_move(os_state, os_player, view, legal)

    def openspiel_state(self, observation: dict[str, np.ndarray]) -> tuple[Any, int, GinView, bool]:
        """The OpenSpiel ``gin_rummy`` state the bot decides in, for the acting seat's
        ``observation`` in the agent's env (it updates the seat's record of the hand).

        Returns:
            (the pyspiel state, the bot's OpenSpiel player, the seat's view of the
            resampled world, whether the state replays the hand: False past OpenSpiel's
            upcard draw limit, where it is :func:`standalone_state`).

        Raises:
            ValueError: the observation is not of the acting seat of the agent's env, or
                the agent was not asked at an earlier decision of its seat in this hand.
        """
        state, seat = acting_state(self.env, observation)
        world = state.resample(seat, self.rng)
        view = world.observation(seat)
        moves = world.history[world.hand_start :]  # this hand's (a whole game's history holds every hand)
        record = self._hand_record(world, seat, view, moves)
        os_state = self._replay(world, seat, view, moves, record)
        if os_state is None:  # OpenSpiel's hand ended at its 50th upcard draw
            return standalone_state(view), 0, view, False
        return os_state, 0 if seat != world.dealer else 1, view, True

    # ------------------------------------------------------------ the OpenSpiel state
    def _hand_record(self, world: Any, seat: int, view: GinView, moves: list[int]) -> _HandRecord:
        """The seat's record of this hand: new at its first decision, else the one kept."""
        start = (world.hands_played, world.hand_start)
        if seat not in _movers(moves, world.dealer):  # its first decision of the hand
            known = cards_of(view.opponent_known)
            upcard = view.upcard if view.phase == OFFER else known[0] if len(known) == 1 else -1
            if upcard < 0 or view.hand.bit_count() != 10:
                raise RuntimeError(f"first decision of a hand with {view.hand.bit_count()} cards, upcard {upcard}")
            self._record = _HandRecord(start, upcard, view.hand)
        elif self._record is None or self._record.start != start:
            raise ValueError(
                "openspiel_gin_bot was not asked at its seat's first decision of this hand: it remembers its own "
                "cards from its decisions, so ask it at every decision of its seat"
            )
        return self._record

    def _replay(self, world: Any, seat: int, view: GinView, moves: list[int], record: _HandRecord) -> Any:
        """OpenSpiel's state at this decision, or None if OpenSpiel's hand is over."""
        dealer, drawn = world.dealer, []
        pile, own, opp_taken, opp_used = [record.upcard], record.dealt, 0, []
        actions: list[int] = []
        player, passes = 1 - dealer, 0
        for i, action in enumerate(moves):
            os_moves = openspiel_moves(action, second_pass=action == PASS and passes == 1)
            if action == PASS:
                passes += 1
                player = dealer if passes == 1 else 1 - dealer
            if STOCK_CARD in os_moves:
                if player == seat:
                    card = self._own_draw(record, i, i == len(moves) - 1, own, view.hand)
                    own |= 1 << card
                    drawn.append(TO_OS[card])
                else:
                    drawn.append(_OPP_DRAW)
                os_moves = os_moves[:-1] + (drawn[-1],)
            elif action == DRAW_UPCARD:
                card = pile.pop()
                if player == seat:
                    own |= 1 << card
                else:
                    opp_taken |= 1 << card
            elif action < KNOCK:
                pile.append(action)
                if player == seat:
                    own &= ~(1 << action)
                elif opp_taken >> action & 1:
                    opp_taken &= ~(1 << action)
                else:
                    opp_used.append(action)
                player = 1 - player
            actions += os_moves
        if own != view.hand or opp_taken != view.opponent_known or player != seat:
            raise RuntimeError("the replayed hand does not end in the seat's observation: the hand record is broken")
        # the opponent's cards of unknown origin in order of use: discarded, then held now (resampled)
        opp_cards = [TO_OS[c] for c in opp_used + cards_of(world.hands[1 - seat] & ~opp_taken)]
        opp_draws = iter(opp_cards[10:])
        actions = [next(opp_draws) if a == _OPP_DRAW else a for a in actions]
        own_dealt = [TO_OS[c] for c in cards_of(record.dealt)]
        deal = own_dealt + opp_cards[:10] if seat != dealer else opp_cards[:10] + own_dealt
        state = self._initial.clone()
        for a in deal + [TO_OS[record.upcard]] + actions:
            if state.is_terminal():
                return None
            state.apply_action(a)
        return None if state.is_terminal() else state

    @staticmethod
    def _own_draw(record: _HandRecord, index: int, last: bool, before: int, hand: int) -> int:
        """The card the seat drew from the stock at ``moves[index]``: remembered, or, on
        the decision right after the draw, the one card of its hand it did not hold."""
        card = record.draws.get(index)
        if card is None:
            new = cards_of(hand & ~before)
            if not last or len(new) != 1:
                raise ValueError(
                    "openspiel_gin_bot was not asked right after one of its stock draws: ask it at every decision "
                    "of its seat"
                )
            card = record.draws[index] = new[0]
        return card

    # -------------------------------------------------------------- the bot's move
    def _bot_move(self, os_state: Any, os_player: int, view: GinView, legal: list[int]) -> int:
        """The bot's move in ``os_state`` as our action id (module docstring)."""
        bot = self._bots[os_player]
        bot.restart()
        choice = bot.step(os_state)
        if view.phase != DISCARD_PHASE:
            decline = PASS if view.phase == OFFER else DRAW_STOCK
            if choice != GR.DRAW_UPCARD_ACTION:
                return decline
            after = os_state.clone()
            after.apply_action(GR.DRAW_UPCARD_ACTION)
            bot.restart()
            card, _ = _discard(bot, after, bot.step(after))
            if card == view.upcard:
                self.adjustments["upcard_only_to_discard"] += 1
                return decline
            return DRAW_UPCARD
        card, knocked = _discard(bot, os_state, choice)
        action = (KNOCK if knocked else DISCARD) + card
        if knocked and BIG_GIN in legal:
            self.adjustments["big_gin_as_gin"] += 1
        if action in legal:
            return action
        if card != view.forbidden:
            raise RuntimeError(f"the bot's move {action} is not legal here and not a rule difference: {legal}")
        self.adjustments["taken_card_discard"] += 1
        return _nearest_discard(view, knocked, legal)


def _movers(moves: list[int], dealer: int) -> list[int]:
    """The seat that played each of a hand's ``moves`` (R-GIN-03: the non-dealer first)."""
    movers, player, passes = [], 1 - dealer, 0
    for action in moves:
        movers.append(player)
        if action == PASS:
            passes += 1
            player = dealer if passes == 1 else 1 - dealer
        elif action < KNOCK:
            player = 1 - player
    return movers


def _discard(bot: Any, os_state: Any, choice: int) -> tuple[int, bool]:
    """(our card id the bot sheds, whether it knocks) from its first choice with eleven
    cards: a card, or OpenSpiel's knock followed by the discard it then chooses."""
    if choice != GR.KNOCK_ACTION:
        return FROM_OS[choice], False
    after = os_state.clone()
    after.apply_action(GR.KNOCK_ACTION)
    return FROM_OS[bot.step(after)], True


def _nearest_discard(view: GinView, knocked: bool, legal: list[int]) -> int:
    """Instead of shedding the card just taken: the same kind of move (a knock if the bot
    knocked and a knock is legal, else a discard) with the card that keeps the least
    deadwood, the highest-ranked (OpenSpiel's card order) on ties."""
    cards = [c for c in cards_of(view.hand) if c != view.forbidden]
    knocks = [c for c in cards if KNOCK + c in legal] if knocked else []
    base = KNOCK if knocks else DISCARD
    best = min(knocks or cards, key=lambda c: (deadwood(view.hand & ~(1 << c)), -(c % NUM_RANKS), -TO_OS[c]))
    return base + best
