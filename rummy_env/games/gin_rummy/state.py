"""Rules engine of Gin Rummy (``docs/rules/gin_rummy.md``), framework-free.

The API follows OpenSpiel's Python API so that search algorithms transfer:
``GinRummyGame(config).new_initial_state(rng=..., deck=..., dealer=...)``, then
``state.current_player()``, ``state.legal_actions()``, ``state.apply_action(a)``,
``state.is_terminal()``, ``state.returns()``, ``state.rewards()``, ``state.clone()``
and ``state.observation(player)`` (what that player may know, see :class:`GinView`).

A hand goes: the upcard offer (R-GIN-03, phase :data:`OFFER`), then turns of a draw
(:data:`DRAW`) and a discard, knock or big gin (:data:`DISCARD`).  Hands are card
bitmasks (Python ints, bit = card id); the stock and the discard pile are lists of
card ids with the top card *last*.  Every decision is an action; the showdown after a
knock (R-GIN-06, 08) and the non-dealer's draw after two passes (R-GIN-03) are not
decisions and happen inside :meth:`GinRummyState.apply_action`.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.cards import NUM_CARDS, card_str, cards_of, cards_str
from rummy_env.core.deadwood import (
    Showdown,
    deadwood,
    knock_discards,
    melds_mask,
    showdown,
)
from rummy_env.core.melds import MELDS
from rummy_env.games.base import TERMINAL, EngineGame, EngineState  # noqa: F401 - TERMINAL is re-exported
from rummy_env.games.card_moves import CardPiles, first_deal_dealer, first_deal_deck
from rummy_env.games.gin_rummy.actions import (
    BIG_GIN,
    DRAW_STOCK,
    DRAW_UPCARD,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    action_to_string,
)
from rummy_env.games.gin_rummy.config import GinRummyConfig
from rummy_env.games.gin_rummy.deal import HAND_SIZE
from rummy_env.games.gin_rummy.view import DISCARD, DRAW, OFFER, GinView, _new_view
from rummy_env.games.resample import resample_gin

WALL = 2  #: cards left in the stock when the hand goes dead (R-GIN-09)
GAME_BONUS = 100  #: R-GIN-13 bonus for winning the game
BOX_BONUS = 25  #: R-GIN-13 line (box) bonus per hand won

#: Hand results (``last_hand["result"]``).
KNOCK_RESULT, GIN_RESULT, BIG_GIN_RESULT, UNDERCUT_RESULT = "knock", "gin", "big gin", "undercut"
DEAD_RESULT, TRUNCATED_RESULT = "dead hand", "truncated"

_OFFER_BITS = 1 << DRAW_UPCARD | 1 << PASS
_DRAW_BITS = 1 << DRAW_STOCK | 1 << DRAW_UPCARD
_CARD_VALUE = tuple(min(c % 13 + 1, 10) for c in range(NUM_CARDS))


class GinRummyGame(EngineGame):
    """A Gin Rummy game definition: options plus a state factory.

    Args:
        config: a :class:`GinRummyConfig`; or pass its fields as keyword arguments.

    Raises:
        ValueError: a bad option (see :class:`GinRummyConfig`).
    """

    config_class = GinRummyConfig
    num_actions = NUM_ACTIONS
    num_players = 2

    def new_initial_state(
        self,
        rng: np.random.Generator | int | None = None,
        deck: list[int] | None = None,
        dealer: int | None = None,
    ) -> GinRummyState:
        """The state after the deal of the first hand (R-GIN-02).

        Args:
            rng: the generator every random choice goes through (the first dealer, the
                shuffles, later deals of an ``episode="game"``); an int seeds a new
                ``np.random.default_rng``.  The state keeps it.
            deck: 52 distinct card ids, top card first, stacked for the first hand; by
                default ``rng.permutation(52)``.
            dealer: seat of the first dealer (0 or 1); by default drawn from ``rng``.

        Raises:
            ValueError: a deck that is not a permutation of 0..51, or a dealer that is
                not 0 or 1.
        """
        rng, dealer = first_deal_dealer(rng, dealer, 2)
        state = GinRummyState(self, rng)
        state._deal(first_deal_deck(rng, deck), dealer)
        return state


class GinRummyState(CardPiles, EngineState):
    """A Gin Rummy state: one hand, or a game of hands with ``episode="game"``.

    Do not build it directly: use :meth:`GinRummyGame.new_initial_state`.

    Public attributes (read-only for users): ``hands`` (two bitmasks), ``stock``,
    ``discard`` (lists, top last), ``dealer``, ``phase``, ``knock_limit`` (this hand's),
    ``turn``, ``scores``, ``hands_won``, ``hands_played``, ``last_hand`` (a dict of the
    last finished hand's public facts: ``winner``, ``result``, ``hand_scores``,
    ``total_scores``, ``game_bonuses``, ``knocker`` and the showdown), ``game_winner``,
    ``truncated`` (the episode's: its one hand reached ``max_turns``, or with
    ``episode="game"`` ``max_hands`` hands ended without a game winner; ``last_hand``'s
    ``truncated``: that hand reached ``max_turns``), ``history`` (actions of this episode),
    ``hand_start`` (the index in ``history`` of the current hand's first action: 0 but in
    the later hands of a game), ``initial_deck`` and ``initial_dealer`` (of the first hand),
    ``hand_decks`` (every hand's deck).
    """

    num_actions = NUM_ACTIONS
    action_to_string = staticmethod(action_to_string)

    def __init__(self, game: GinRummyGame, rng: np.random.Generator):
        cfg = game.config
        self.game = game
        self.config = cfg
        self.rng = rng
        self.scores = [0, 0]  # game totals (R-GIN-13)
        self.hands_won = [0, 0]
        self.hands_played = 0
        self.last_hand: dict | None = None
        self._init_bookkeeping(2)
        self.game_winner = -1
        self._legal: int | None = None  # legal action ids as a bitmask, until the next move
        self.initial_deck: list[int] = []
        self.initial_dealer = -1
        self.hand_decks: list[list[int]] = []  # the deck of every hand dealt, top first

    # ------------------------------------------------------------------- deal
    def _deal(self, deck: list[int], dealer: int) -> None:
        """Deal a hand from ``deck`` (top first): one card at a time, non-dealer first,
        then the upcard; the rest is the stock (R-GIN-02)."""
        if not self.initial_deck:
            self.initial_deck, self.initial_dealer = list(deck), dealer
        self.hand_decks.append(list(deck))
        # a whole game's history holds every hand: what a seat saw in this one starts here
        self.hand_start = len(self.history)
        self.deck = deck
        self.dealer = dealer
        first = 0
        for c in deck[0 : 2 * HAND_SIZE : 2]:
            first |= 1 << c
        second = 0
        for c in deck[1 : 2 * HAND_SIZE : 2]:
            second |= 1 << c
        self.hands = [second, first] if dealer == 0 else [first, second]
        up = deck[2 * HAND_SIZE]
        self.discard = [up]
        self.discard_mask = 1 << up
        self.stock = deck[: 2 * HAND_SIZE : -1]  # top card last
        self.known = [0, 0]
        self.discarded = [0, 0]
        self.taken = -1
        self.passes = 0
        self.turn = 0
        # R-GIN-14: the first upcard's value sets the knock limit (an ace: gin only)
        if self.config.oklahoma:
            value = _CARD_VALUE[up]
            self.knock_limit = 0 if value == 1 else value
        else:
            self.knock_limit = self.config.knock_limit
        self.showdown: tuple[int, Showdown] | None = None  # (knocker, showdown) of this hand
        self.current = 1 - dealer  # the non-dealer is offered the upcard first (R-GIN-03)
        self.phase = OFFER
        self._legal = None

    # ---------------------------------------------------------------- queries
    def legal_bits(self) -> int:
        """The acting player's legal action ids as a bitmask (bit ``a`` set if legal);
        0 when the episode is over: the upcard offer (R-GIN-03), the draw and discard
        (R-GIN-04), knocks and gin (R-GIN-06), big gin (R-GIN-07, with ``big_gin``)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal action ids of ``player`` (default: the acting one); [] if not acting.

        Raises:
            ValueError: ``player`` is neither None nor an int seat ``0..num_players-1``.
        """
        if player is not None and self._seat(player) != self.current or self._terminal:
            return []
        return cards_of(self.legal_bits())

    def _compute_legal(self) -> int:
        if self._terminal:
            return 0
        phase = self.phase
        if phase == DRAW:
            return _DRAW_BITS  # the stock holds more than 2 cards whenever a player draws (R-GIN-09)
        if phase == OFFER:
            return _OFFER_BITS
        hand = self.hands[self.current]
        keep = hand & ~(1 << self.taken) if self.taken >= 0 else hand  # R-GIN-04
        bits = keep
        full = deadwood(hand)
        if full - 10 <= self.knock_limit:  # otherwise no discard can get under the limit
            bits |= (knock_discards(hand, self.knock_limit) & keep) << KNOCK
        if full == 0 and self.config.big_gin:
            bits |= 1 << BIG_GIN
        return bits

    def observation(self, player: int) -> GinView:
        """What ``player`` may know (see :class:`GinView`): not the opponent's hidden
        cards, not the stock's order.

        Raises:
            ValueError: ``player`` is not an int seat ``0..num_players-1``.
        """
        player = self._seat(player)
        other = 1 - player
        discard = self.discard
        top = discard[-1] if discard else -1
        hand = self.hands[player]
        sd = self.showdown
        if self._terminal:
            phase = acting = forbidden = -1
        else:
            phase = self.phase
            acting = 0 if self.current == player else 1
            forbidden = self.taken if acting == 0 and phase == DISCARD else -1
        if sd is None:
            return _new_view(
                GinView,
                (
                    hand,
                    top,
                    self.discard_mask & ~(1 << top) if top >= 0 else 0,
                    self.known[other],
                    self.discarded[other],
                    forbidden,
                    0,
                    0,
                    0,
                    phase,
                    acting,
                    0 if self.dealer == player else 1,
                    -1,
                    len(self.stock),
                    self.knock_limit,
                    deadwood(hand),
                    (0, 0),
                    (self.scores[player], self.scores[other]),
                    self.turn,
                ),
            )
        seat, s = sd
        lay = 0
        for layoff in s.defender.layoffs:
            lay |= 1 << layoff.card
        knocker = 0 if seat == player else 1
        dead = (s.knocker_deadwood, s.defender.deadwood) if knocker == 0 else (s.defender.deadwood, s.knocker_deadwood)
        return _new_view(
            GinView,
            (
                hand,
                top,
                self.discard_mask & ~(1 << top) if top >= 0 else 0,
                self.hands[other],  # both hands are laid out (R-GIN-08)
                self.discarded[other],
                forbidden,
                melds_mask(s.knocker_melds),
                lay,
                melds_mask(s.defender.melds),
                phase,
                acting,
                0 if self.dealer == player else 1,
                knocker,
                len(self.stock),
                self.knock_limit,
                deadwood(hand),
                dead,
                (self.scores[player], self.scores[other]),
                self.turn,
            ),
        )

    # ------------------------------------------------------------------ moves
    def _is_legal(self, action: int) -> bool:
        return bool(self.legal_bits() >> action & 1)

    def apply_action(self, action: int) -> None:
        """Apply the acting player's action (``EngineState.apply_action``; the rewards
        list is kept while it holds zeros: search applies millions of moves).

        Raises:
            IllegalActionError, ActionTypeError: as ``EngineState.check_action``; the state
                is unchanged.
        """
        action = self.check_action(action)
        if self._rewards[0] or self._rewards[1]:
            self._rewards = [0.0, 0.0]
        self.history.append(action)
        self._apply(action)

    def _apply(self, action: int) -> None:
        self._legal = None
        p = self.current
        if action < KNOCK:  # discard (R-GIN-04)
            self._discard(p, action)
            self.discarded[p] |= 1 << action
            self.turn += 1
            if len(self.stock) <= WALL:
                self._end_hand(-1, 0, DEAD_RESULT)  # R-GIN-09: the 50th card was drawn, no knock
            elif self.turn >= self.config.max_turns:
                # no score; a truncation only of a one-hand episode, in a game a dead hand
                self.truncated = self.config.episode == "hand"
                self._end_hand(-1, 0, TRUNCATED_RESULT)
            else:
                self.current = 1 - p
                self.phase = DRAW
                self.taken = -1
        elif action == DRAW_STOCK:
            card = self.stock.pop()
            self.hands[p] |= 1 << card
            self.phase = DISCARD
        elif action == DRAW_UPCARD:  # R-GIN-03 (first offer) or R-GIN-04
            self.taken = self._take_discard(p)
            self.phase = DISCARD
        elif action < DRAW_STOCK:  # knock, discarding a card (R-GIN-06)
            card = action - KNOCK
            self._discard(p, card)
            self.discarded[p] |= 1 << card
            self.turn += 1
            self._show_down(p, big_gin=False)
        elif action == PASS:  # R-GIN-03
            if self.passes == 0:
                self.passes = 1
                self.current = self.dealer
            else:  # both passed: the non-dealer draws from the stock (not a decision)
                self.current = 1 - self.dealer
                self.hands[self.current] |= 1 << self.stock.pop()
                self.phase = DISCARD
        else:  # big gin (R-GIN-07)
            self.turn += 1
            self._show_down(p, big_gin=True)

    # ---------------------------------------------------------------- scoring
    def _show_down(self, knocker: int, big_gin: bool) -> None:
        """Lay out both hands and score the knock (R-GIN-06, 08, 10, 11, 12)."""
        cfg = self.config
        s = showdown(self.hands[knocker], self.hands[1 - knocker])
        self.showdown = (knocker, s)
        k, d = s.knocker_deadwood, s.defender.deadwood
        if big_gin:
            self._end_hand(knocker, d + cfg.big_gin_bonus, BIG_GIN_RESULT)
        elif k == 0:
            self._end_hand(knocker, d + cfg.gin_bonus, GIN_RESULT)
        elif k < d:
            self._end_hand(knocker, d - k, KNOCK_RESULT)
        else:
            self._end_hand(1 - knocker, k - d + cfg.undercut_bonus, UNDERCUT_RESULT)

    def _end_hand(self, winner: int, points: int, result: str) -> None:
        """Record the hand (R-GIN-10..13), then end the episode or deal the next hand."""
        cfg = self.config
        hand_scores = [0, 0]
        if winner >= 0:
            hand_scores[winner] = points
            self.scores[winner] += points
            self.hands_won[winner] += 1
            if cfg.reward == "score":
                self._give(winner, points)
                self._give(1 - winner, -points)
        self.hands_played += 1
        game_over = cfg.episode == "game" and winner >= 0 and self.scores[winner] >= cfg.target_score
        if cfg.episode == "game" and not game_over and self.hands_played >= cfg.max_hands:
            self.truncated = True  # the game-level limit
        bonuses = [0, 0]
        if game_over:
            self.game_winner = winner
            if cfg.game_bonuses:  # R-GIN-13: game, line (box) bonuses; shutout doubles
                loser = 1 - winner
                bonuses[winner] = GAME_BONUS + BOX_BONUS * self.hands_won[winner]
                bonuses[loser] = BOX_BONUS * self.hands_won[loser]
                if self.hands_won[loser] == 0:
                    bonuses[winner] += self.scores[winner] + bonuses[winner]
                for q in (0, 1):
                    self.scores[q] += bonuses[q]
                if cfg.reward == "score":
                    self._give(winner, bonuses[winner] - bonuses[loser])
                    self._give(loser, bonuses[loser] - bonuses[winner])
        knocker, s = self.showdown if self.showdown is not None else (-1, None)
        self.last_hand = {
            "winner": winner,
            "result": result,
            "hand_scores": hand_scores,
            "total_scores": list(self.scores),
            "game_bonuses": bonuses,
            "hands_won": list(self.hands_won),
            "dealer": self.dealer,
            "knocker": knocker,
            "showdown": s,
            "truncated": result == TRUNCATED_RESULT,
            "game_over": game_over,
        }
        if cfg.episode == "hand" or game_over or self.truncated:
            self._terminal = True
            if cfg.reward == "win":
                episode_winner = winner if cfg.episode == "hand" else self.game_winner
                if episode_winner >= 0:
                    self._give(episode_winner, 1.0)
                    self._give(1 - episode_winner, -1.0)
            return
        # R-GIN-02: the winner deals the next hand; after a dead hand the same dealer
        stacked = self._pop_next_hand()
        deck = list(stacked[0]) if stacked is not None else self.rng.permutation(NUM_CARDS).tolist()
        self._deal(deck, winner if winner >= 0 else self.dealer)

    # ------------------------------------------------------------- worlds
    # resample() (EngineState) deals again the opponent's unknown cards and the stock order
    _resample_world = staticmethod(resample_gin)

    # ----------------------------------------------------------------- copies
    def _clone_into(self, other: GinRummyState) -> None:
        other.hands = list(self.hands)
        other.stock = list(self.stock)
        other.discard = list(self.discard)
        other.known = list(self.known)
        other.discarded = list(self.discarded)
        other.hands_won = list(self.hands_won)

    def __str__(self) -> str:
        phase = {OFFER: "upcard offer", DRAW: "draw", DISCARD: "discard"}[self.phase]
        lines = [
            f"dealer {self.dealer}, "
            + ("episode over" if self._terminal else f"player {self.current} to act, phase {phase}"),
            f"knock limit {self.knock_limit}, turn {self.turn}, scores {self.scores}",
        ]
        for q, h in enumerate(self.hands):
            lines.append(f"hand {q}: {cards_str(cards_of(h))} (deadwood {deadwood(h)})")
        lines.append(f"discard pile (top last): {cards_str(self.discard)}")
        lines.append(f"stock (top last): {cards_str(self.stock)}")
        if self.showdown is not None:
            knocker, s = self.showdown
            lines.append(
                f"knocker {knocker}: "
                + " | ".join(cards_str(MELDS[m].cards) for m in s.knocker_melds)
                + f"; deadwood {s.knocker_deadwood}"
            )
            lines.append(
                "defender: "
                + " | ".join(cards_str(MELDS[m].cards) for m in s.defender.melds)
                + "; lay-offs "
                + " ".join(card_str(x.card) for x in s.defender.layoffs)
                + f"; deadwood {s.defender.deadwood}"
            )
        return "\n".join(lines)
