"""Rules engine of basic Rummy (``docs/rules/rummy.md``), framework-free.

The API follows OpenSpiel's Python API so that search algorithms transfer:
``RummyGame(config).new_initial_state(rng=..., deck=..., dealer=...)``, then
``state.current_player()``, ``state.legal_actions()``, ``state.apply_action(a)``,
``state.is_terminal()``, ``state.returns()``, ``state.clone()`` and
``state.observation(player)`` (what that player may know, see :class:`RummyView`).

Hands are card bitmasks (Python ints, bit = card id); the stock and discard pile are
lists of card ids with the top card *last*.  A turn is several actions by the same
player: one draw, any melds and lay-offs, one discard (or going out).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rummy_env.core.cards import (
    NUM_CARDS,
    card_str,
    cards_of,
    mask_value,
)
from rummy_env.core.melds import MELDS, melds_in_hand
from rummy_env.core.table import Table
from rummy_env.games.base import TERMINAL, EngineGame, EngineState  # noqa: F401 - TERMINAL is re-exported
from rummy_env.games.card_moves import CardPiles, first_deal_dealer, first_deal_deck
from rummy_env.games.resample import resample_rummy
from rummy_env.games.rummy.actions import (  # noqa: F401 - the turn's phases, re-exported
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    MELD,
    NUM_ACTIONS,
    PLAY,
    action_to_string,
)
from rummy_env.games.rummy.config import RummyConfig


class RummyView(NamedTuple):
    """What one player may know of a Rummy state (the only input of the encoder).

    Card sets are bitmasks; per-player tuples are in seat order *relative to the
    viewer* (index 0 = the viewer, 1 = the next player to the left, ...).

    Attributes:
        hand: the viewer's cards.
        top_discard: the upcard (top of the discard pile), or -1 if the pile is empty.
        discard_rest: the other cards of the discard pile (all were seen face up).
        table: every card in a meld on the table.
        known: per relative seat, cards that player took from the discard pile and
            has not played since (index 0: the viewer's own).
        forbidden: the card the viewer took from the discard pile this turn and may
            not discard (R-RUMMY-09), or -1.
        phase: DRAW or PLAY of the acting player, -1 when the episode is over.
        acting: relative seat of the acting player, -1 when the episode is over.
        stock_size: cards in the stock.
        hand_sizes: cards in each hand, relative seats.
        melded: per relative seat, whether that player has melded or laid off in this hand.
        scores: game totals, relative seats (points); they include a hand once it is scored.
        turn: turns completed in this hand.
    """

    hand: int
    top_discard: int
    discard_rest: int
    table: int
    known: tuple[int, ...]
    forbidden: int
    phase: int
    acting: int
    stock_size: int
    hand_sizes: tuple[int, ...]
    melded: tuple[bool, ...]
    scores: tuple[int, ...]
    turn: int


class RummyGame(EngineGame):
    """A basic Rummy game definition: options plus a state factory.

    Args:
        config: a :class:`RummyConfig`; or pass its fields as keyword arguments.

    Raises:
        ValueError: a bad option (see :class:`RummyConfig`).
    """

    config_class = RummyConfig
    num_actions = NUM_ACTIONS

    def new_initial_state(
        self,
        rng: np.random.Generator | int | None = None,
        deck: list[int] | None = None,
        dealer: int | None = None,
    ) -> RummyState:
        """The state after the deal of the first hand (R-RUMMY-03).

        Args:
            rng: the generator every random choice goes through (the first dealer,
                the shuffles, later deals of an ``episode="game"``); an int seeds a
                new ``np.random.default_rng``.  The state keeps it.
            deck: 52 distinct card ids, top card first, stacked for the first hand;
                by default ``rng.permutation(52)``.
            dealer: seat of the first dealer; by default drawn from ``rng``.

        Raises:
            ValueError: a deck that is not a permutation of 0..51, or a dealer
                outside ``0..num_players-1``.
        """
        rng, dealer = first_deal_dealer(rng, dealer, self.config.num_players)
        state = RummyState(self, rng)
        state._deal(first_deal_deck(rng, deck), dealer)
        return state


class RummyState(CardPiles, EngineState):
    """A basic Rummy state: one hand, or a game of hands with ``episode="game"``.

    Do not build it directly: use :meth:`RummyGame.new_initial_state`.

    Public attributes (read them, do not assign them):
        initial_deck, initial_dealer: the first hand's deck (card ids, top first) and
            dealer: with ``history`` they replay the episode (``new_initial_state(
            deck=initial_deck, dealer=initial_dealer)`` then ``apply_action`` each id).
        history: action ids applied in this episode.
        hand_decks: the deck of every hand dealt so far (card ids, top first); later
            hands of ``episode="game"`` are shuffled by the state's generator.
        hands: card bitmask of each hand.  stock, discard: card ids, top card last.
        table: the melds on the table (``core.table.Table``).
        dealer, current, phase, turn: who dealt, who acts, DRAW or PLAY, turns done
            in this hand.
        scores: game totals (points).  hands_played: hands finished.
        last_hand: the last finished hand's facts (``winner`` seat or -1, ``rummy``,
            ``hand_scores``, ``hand_values`` (points left in each hand),
            ``total_scores``, ``truncated``: the hand reached ``max_turns``), or None
            before the first hand ends.
        game_winner: seat whose total reached ``target_score`` (``episode="game"``), or -1
            (always -1 for a one-hand episode, which has no game).
        truncated: the episode was truncated (R-RUMMY-13): its one hand reached
            ``max_turns``, or with ``episode="game"`` ``max_hands`` hands ended without
            a game winner.
    """

    num_actions = NUM_ACTIONS
    action_to_string = staticmethod(action_to_string)

    def __init__(self, game: RummyGame, rng: np.random.Generator):
        cfg = game.config
        self.game = game
        self.config = cfg
        self.rng = rng
        n = cfg.num_players
        self._init_bookkeeping(n)
        self.scores = [0] * n  # game totals (R-RUMMY-17)
        self.hands_played = 0
        self.last_hand: dict | None = None  # public facts of the last finished hand
        self.game_winner = -1
        self.initial_deck: list[int] = []  # the first hand's deck, top first
        self.initial_dealer = -1
        self.hand_decks: list[list[int]] = []  # the deck of every hand dealt, top first

    # ----------------------------------------------------------------- deal
    def _deal(self, deck: list[int], dealer: int) -> None:
        """Deal a hand from ``deck`` (top first) with ``dealer`` (R-RUMMY-02, 03, 05)."""
        n, k = self._n, self.config.hand_size
        if not self.initial_deck:
            self.initial_deck, self.initial_dealer = list(deck), dealer
        self.hand_decks.append(list(deck))
        self.deck = list(deck)
        self.dealer = dealer
        hands = [0] * n
        for i in range(n * k):
            hands[(dealer + 1 + i) % n] |= 1 << deck[i]
        self.hands = hands
        self.discard = [deck[n * k]]
        self.discard_mask = 1 << deck[n * k]  # the discard pile's cards, kept for observations
        self.stock = deck[: n * k : -1]  # top card last
        self.table = Table(self.config.ace_high)
        self.known = [0] * n
        self.melded_before = [False] * n  # melded or laid off in an earlier turn (R-RUMMY-16)
        self.melded_this_turn = False
        self.taken_discard = -1
        self.turn = 0
        self.current = (dealer + 1) % n
        self.phase = DRAW

    # ------------------------------------------------------------ queries
    def _compute_legal(self) -> list[int]:
        if self.phase == DRAW:
            out = []
            if self._can_draw_stock():
                out.append(DRAW_STOCK)
            if self.discard:
                out.append(DRAW_DISCARD)
            return out
        return self._play_actions()

    def _can_draw_stock(self) -> bool:
        # R-RUMMY-12: an empty stock is rebuilt from the discard pile, if that leaves a card
        if self.stock:
            return True
        return len(self.discard) >= (2 if self.config.reshuffle == "keep_top" else 1)

    def _play_actions(self) -> list[int]:
        hand = self.hands[self.current]
        forbidden = self.taken_discard if self.taken_discard >= 0 and hand >> self.taken_discard & 1 else -1
        ace_high = self.config.ace_high
        cards = cards_of(hand)
        out = [c for c in cards if c != forbidden]  # discards (R-RUMMY-09)
        for meld in melds_in_hand(hand, ace_high):
            if self._finishable(hand & ~MELDS[meld].mask, forbidden, MELD + meld):
                out.append(MELD + meld)
        for c in cards:
            for side in self.table.layoff_sides(c):
                action = LAYOFF + 3 * c + side
                if self._finishable(hand & ~(1 << c), forbidden, action):
                    out.append(action)
        out.sort()
        return out

    def _finishable(self, rest: int, forbidden: int, action: int) -> bool:
        """Whether the turn can still end after a meld or lay-off leaves ``rest`` (R-RUMMY-10).

        It can if the hand is empty (the player went out, R-RUMMY-11) or holds a card
        other than the one taken from the discard pile; holding only that card, it can
        if that card can then be laid off.
        """
        if rest == 0 or forbidden < 0 or rest != 1 << forbidden:
            return True
        after = self.clone()
        after._apply(action)
        return bool(after.table.layoff_sides(forbidden))

    def observation(self, player: int) -> RummyView:
        """What ``player`` may know (see :class:`RummyView`): no other hand, no stock order.

        Raises:
            ValueError: ``player`` is not an int seat ``0..num_players-1``.
        """
        player = self._seat(player)
        n = self._n
        seats = [(player + k) % n for k in range(n)]
        acting = -1 if self._terminal else (self.current - player) % n
        forbidden = -1
        if acting == 0 and self.taken_discard >= 0 and self.hands[player] >> self.taken_discard & 1:
            forbidden = self.taken_discard
        top = self.discard[-1] if self.discard else -1
        return RummyView(
            hand=self.hands[player],
            top_discard=top,
            discard_rest=self.discard_mask & ~(1 << top) if top >= 0 else 0,
            table=self.table.mask,
            known=tuple(self.known[s] for s in seats),
            forbidden=forbidden,
            phase=-1 if self._terminal else self.phase,
            acting=acting,
            stock_size=len(self.stock),
            hand_sizes=tuple(self.hands[s].bit_count() for s in seats),
            melded=tuple(self.melded_before[s] or (s == self.current and self.melded_this_turn) for s in seats),
            scores=tuple(self.scores[s] for s in seats),
            turn=self.turn,
        )

    # ------------------------------------------------------------- moves
    def _apply(self, action: int) -> None:
        self._legal = None
        p = self.current
        if action == DRAW_STOCK:
            if not self.stock:
                self._rebuild_stock()
            card = self.stock.pop()
            self.hands[p] |= 1 << card
            self.phase = PLAY
        elif action == DRAW_DISCARD:
            self.taken_discard = self._take_discard(p)
            self.phase = PLAY
        elif action < DRAW_STOCK:
            self._discard(p, action)
            if self.hands[p]:
                self._end_turn()
            else:
                self._end_hand(winner=p)  # went out by discarding (R-RUMMY-11)
        else:
            if action < LAYOFF:
                meld = MELDS[action - MELD]
                self.table.put_down(meld, p)
                self._play_cards(p, meld.mask)
            else:
                card, side = divmod(action - LAYOFF, 3)
                self.table.lay_off(card, side)
                self._play_cards(p, 1 << card)
            self.melded_this_turn = True
            if not self.hands[p]:
                self._end_hand(winner=p)  # went out by melding or laying off (R-RUMMY-11)

    def _rebuild_stock(self) -> None:
        """Turn the discard pile into the stock, without shuffling (R-RUMMY-12)."""
        if self.config.reshuffle == "keep_top":
            top = self.discard.pop()
            self.stock = self.discard  # the pile's bottom card becomes the top of the stock
            self.stock.reverse()
            self.discard = [top]
            self.discard_mask = 1 << top
        else:
            self.stock = self.discard
            self.stock.reverse()
            self.discard = []
            self.discard_mask = 0

    def _end_turn(self) -> None:
        p = self.current
        self.melded_before[p] = self.melded_before[p] or self.melded_this_turn
        self.melded_this_turn = False
        self.taken_discard = -1
        self.turn += 1
        if self.turn >= self.config.max_turns:
            # R-RUMMY-13: no winner, 0 for everyone; a truncation only of a one-hand episode
            self.truncated = self.config.episode == "hand"
            self._end_hand(winner=-1, move_limit=True)
            return
        self.current = (p + 1) % self._n
        self.phase = DRAW
        if not self._can_draw_stock() and not self.discard:
            self._end_hand(winner=-1)  # R-RUMMY-12: no card left to draw

    # ------------------------------------------------------------ scoring
    def _end_hand(self, winner: int, move_limit: bool = False) -> None:
        """Score the hand (R-RUMMY-15, 16), then end the episode or deal the next hand;
        ``move_limit``: the hand reached ``max_turns`` (R-RUMMY-13)."""
        n, cfg = self._n, self.config
        values = [mask_value(h) for h in self.hands]
        hand_scores = [0] * n
        rummy = False
        if winner >= 0:
            # R-RUMMY-16: no meld or lay-off in an earlier turn of this hand
            rummy = not self.melded_before[winner]
            factor = 2 if rummy else 1
            hand_scores[winner] = factor * sum(values)
            if cfg.reward == "score":
                for q in range(n):
                    self._give(q, hand_scores[winner] if q == winner else -factor * values[q])
        for q in range(n):
            self.scores[q] += hand_scores[q]
        self.hands_played += 1
        self.last_hand = {
            "winner": winner,
            "rummy": rummy,
            "hand_scores": hand_scores,
            "hand_values": values,
            "total_scores": list(self.scores),
            "truncated": move_limit,
        }
        # a one-hand episode is no game: no target, no game winner (as Gin's R-GIN-13 reading)
        game_over = cfg.episode == "game" and any(s >= cfg.target_score for s in self.scores)
        if game_over:
            self.game_winner = max(range(n), key=lambda q: self.scores[q])
        elif cfg.episode == "game" and self.hands_played >= cfg.max_hands:
            self.truncated = True  # R-RUMMY-13: the game-level limit
        if cfg.episode == "hand" or game_over or self.truncated:
            self._terminal = True
            if cfg.reward == "win":
                episode_winner = winner if cfg.episode == "hand" else self.game_winner
                if episode_winner >= 0:
                    for q in range(n):
                        self._give(q, 1.0 if q == episode_winner else -1.0 / (n - 1))
            return
        # R-RUMMY-04: the deal passes left, or the 2-player winner deals
        if cfg.two_player_winner_deals and n == 2:
            dealer = winner if winner >= 0 else self.dealer
        else:
            dealer = (self.dealer + 1) % n
        stacked = self._pop_next_hand()
        self._deal(
            list(stacked[0]) if stacked is not None else [int(c) for c in self.rng.permutation(NUM_CARDS)], dealer
        )

    # ------------------------------------------------------------- worlds
    # resample() (EngineState) deals again the other hands' unknown cards and the stock order;
    # the stock stays once it is public (R-RUMMY-12)
    _resample_world = staticmethod(resample_rummy)

    # ------------------------------------------------------------- copies
    def _clone_into(self, other: RummyState) -> None:
        other.hands = list(self.hands)
        other.stock = list(self.stock)
        other.discard = list(self.discard)
        other.table = self.table.copy()
        other.known = list(self.known)
        other.melded_before = list(self.melded_before)

    def __str__(self) -> str:
        if self._terminal:
            lines = [f"dealer {self.dealer}, episode over"]
        else:
            lines = [
                f"dealer {self.dealer}, player {self.current} to act, phase {'draw' if self.phase == DRAW else 'play'}"
            ]
        for q, h in enumerate(self.hands):
            lines.append(f"hand {q}: {' '.join(card_str(c) for c in cards_of(h))}")
        lines.append("table: " + " | ".join(" ".join(card_str(c) for c in m.cards()) for m in self.table))
        lines.append(f"discard pile (top last): {' '.join(card_str(c) for c in self.discard)}")
        lines.append(f"stock: {len(self.stock)} cards")
        return "\n".join(lines)
