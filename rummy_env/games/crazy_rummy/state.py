"""Rules engine of Crazy Rummy (``docs/rules/crazy_rummy.md``), framework-free.

Same API as the basic Rummy engine (OpenSpiel names).  A game is 13 rounds; in round
``r`` every card of rank ``r`` is wild (R-CRAZY-02).  Wild cards on the table stand for
named cards (``Table`` records ``{represented card: wild card}``), can be swapped out by
a player holding the natural card, and cost 25 penalty points in a hand at the end of a
round.  Penalties are bad: the lowest total wins (R-CRAZY-13).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_SUITS, card_str, cards_of
from rummy_env.core.melds import MELDS
from rummy_env.core.table import Table
from rummy_env.games.base import TERMINAL, EngineGame, EngineState  # noqa: F401 - TERMINAL is re-exported
from rummy_env.games.card_moves import CardPiles, first_deal_dealer, first_deal_deck
from rummy_env.games.crazy_rummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    LAYOFF,
    MELD,
    NUM_ACTIONS,
    SWAP,
    action_to_string,
)
from rummy_env.games.crazy_rummy.config import NUM_ROUNDS, CrazyRummyConfig, check_wild_rank
from rummy_env.games.crazy_rummy.deal import HAND_SIZE
from rummy_env.games.crazy_rummy.hands import (  # noqa: F401 - WILD_PENALTY: its home before hands.py
    WILD_PENALTY,
    melds_to_put_down,
    penalty,
    wild_cards,
)
from rummy_env.games.resample import resample_crazy

DRAW = 0  #: phase: the acting player must draw (R-CRAZY-06)
PLAY = 1  #: phase: melds, lay-offs, swaps, then a discard


class CrazyView(NamedTuple):
    """What one player may know of a Crazy Rummy state (input of the encoder).

    Card sets are bitmasks; per-player tuples are in seat order relative to the viewer.

    Attributes:
        hand: the viewer's cards.
        top_discard: top card of the discard pile, or -1.
        discard_rest: the other cards of the discard pile.
        table_natural: cards on the table as themselves.
        wild_stands_for: per suit s (C D H S), the card the wild card of suit s stands
            for on the table, or -1 (the wild card of suit s is the round's wild rank in s).
        known: per relative seat, cards that player took from the discard pile or by a
            swap and still holds.
        forbidden: the card the viewer took from the discard pile this turn, or -1 (R-CRAZY-08).
        must_discard: the card the viewer must discard unless going out (R-CRAZY-10), or -1.
        wild_rank: the round's wild rank index (0 = aces .. 12 = kings).
        round: the round number 1..13.
        phase: DRAW or PLAY of the acting player, -1 when the episode is over.
        acting: relative seat of the acting player, -1 when over.
        stock_size: cards in the stock.
        hand_sizes, melded, totals: per relative seat: cards held, whether that player has
            put down a meld this round, penalty totals of the game so far.
        turn: turns completed in this round.
    """

    hand: int
    top_discard: int
    discard_rest: int
    table_natural: int
    wild_stands_for: tuple[int, ...]
    known: tuple[int, ...]
    forbidden: int
    must_discard: int
    wild_rank: int
    round: int
    phase: int
    acting: int
    stock_size: int
    hand_sizes: tuple[int, ...]
    melded: tuple[bool, ...]
    totals: tuple[int, ...]
    turn: int


class CrazyRummyGame(EngineGame):
    """A Crazy Rummy game definition: options plus a state factory.

    Raises:
        ValueError: a bad option (see :class:`CrazyRummyConfig`).
    """

    config_class = CrazyRummyConfig
    num_actions = NUM_ACTIONS

    def new_initial_state(
        self, rng=None, deck: list[int] | None = None, dealer: int | None = None, wild_rank: int | None = None
    ) -> CrazyRummyState:
        """The state after the first deal (R-CRAZY-03).

        Random choices, in this order, from ``rng`` (an int seeds a new generator): the
        first dealer (unless given), the wild rank of a one-round episode (unless given
        or fixed by the ``wild_rank`` option), the deck (unless stacked: 52 card ids, top
        first).  ``wild_rank``: 1..13, see ``config.check_wild_rank``.

        Raises:
            ValueError: a deck that is not a permutation of 0..51, a dealer outside
                ``0..num_players-1``, or a bad ``wild_rank`` (``check_wild_rank``).
        """
        cfg = self.config
        wild_rank = check_wild_rank(cfg, wild_rank)
        rng, dealer = first_deal_dealer(rng, dealer, cfg.num_players)
        if cfg.episode == "game":
            first_round = 1
        else:
            first_round = wild_rank if wild_rank is not None else int(rng.integers(1, NUM_ROUNDS + 1))
        state = CrazyRummyState(self, rng)
        state._deal(first_deal_deck(rng, deck), dealer, first_round)
        return state


class CrazyRummyState(CardPiles, EngineState):
    """A Crazy Rummy state: one round, or the 13 rounds of ``episode="game"``.

    Do not build it directly: use :meth:`CrazyRummyGame.new_initial_state`.

    Public attributes (read them, do not assign them): as ``RummyState`` (``initial_deck``,
    ``initial_dealer``, ``history``, ``hand_decks``, ``hands``, ``stock``, ``discard``, ``table``,
    ``dealer``, ``current``, ``phase``, ``turn``, ``scores`` (penalty totals),
    ``hands_played`` (rounds finished), ``last_hand`` (its ``truncated``: the round reached
    ``max_turns``), ``truncated`` (the episode's: its one round reached ``max_turns``,
    or ``max_hands`` < 13 rounds of a game were played)), plus ``round`` (1..13),
    ``wild_rank`` (rank index 0..12 of the round's wild cards), ``wilds`` (their
    bitmask), ``wild_for`` ({represented card: (wild card, table index)}), ``melded``
    (per seat: has put down a meld this round), ``taken_discard`` and ``must_discard``
    (R-CRAZY-08, 10; -1 when unset).  Replaying a one-round episode also needs its wild
    rank: ``CrazyRummyGame(wild_rank=state.round, ...)``.
    """

    num_actions = NUM_ACTIONS
    action_to_string = staticmethod(action_to_string)

    def __init__(self, game: CrazyRummyGame, rng: np.random.Generator):
        cfg = game.config
        self.game, self.config, self.rng = game, cfg, rng
        n = cfg.num_players
        self._init_bookkeeping(n)
        self.scores = [0] * n  # penalty totals (R-CRAZY-13)
        self.hands_played = 0
        self.last_hand: dict | None = None
        self.initial_deck: list[int] = []
        self.hand_decks: list[list[int]] = []  # the deck of every hand dealt, top first
        self.initial_dealer = -1

    # ----------------------------------------------------------------- deal
    def _deal(self, deck: list[int], dealer: int, round_number: int) -> None:
        """Deal round ``round_number`` (R-CRAZY-02, 03): 7 cards each, an 8th to the left."""
        n = self._n
        if not self.initial_deck:
            self.initial_deck, self.initial_dealer = list(deck), dealer
        self.hand_decks.append(list(deck))
        self.deck, self.dealer, self.round = list(deck), dealer, round_number
        self.wild_rank = round_number - 1  # rank index: round 1 = aces
        self.wilds = wild_cards(self.wild_rank)
        first = (dealer + 1) % n
        hands = [0] * n
        for i in range(HAND_SIZE * n):
            hands[(first + i) % n] |= 1 << deck[i]
        hands[first] |= 1 << deck[HAND_SIZE * n]
        self.hands = hands
        self.stock = deck[: HAND_SIZE * n : -1]  # top card last
        self.discard: list[int] = []  # no upcard (R-CRAZY-03)
        self.discard_mask = 0
        self.table = Table(ace_high=False)
        self.wild_for: dict[int, tuple[int, int]] = {}  # represented card -> (wild card, table index)
        self.known = [0] * n
        self.melded = [False] * n  # has put down a meld this round (R-CRAZY-07)
        self.taken_discard = -1
        self.must_discard = -1  # R-CRAZY-10: the card held before the draw
        self.last_turn = False  # the stock ran out this turn (R-CRAZY-11)
        self.turn = 0
        self.current = first
        self.phase = PLAY  # R-CRAZY-06: the first player does not draw
        self._legal = None

    # ------------------------------------------------------------ queries
    def _compute_legal(self) -> list[int]:
        if self.phase == DRAW:
            out = [DRAW_STOCK]
            # R-CRAZY-10: holding one card, the player may draw only from the stock
            if self.discard and self.hands[self.current].bit_count() != 1:
                out.append(DRAW_DISCARD)
            return out
        out = [c for c in cards_of(self.hands[self.current]) if self._discard_ok(c, self.hands[self.current])]
        out += [a for a in self._candidate_moves() if self._finishable_after(a)]
        out.sort()
        return out

    def _discard_ok(self, card: int, hand: int, old: int | None = None) -> bool:
        """Whether ``card`` may be discarded from ``hand`` (R-CRAZY-08, 10); ``old`` is the
        card that must go unless going out (default: the state's ``must_discard``)."""
        if card == self.taken_discard:
            return False
        if old is None:
            old = self.must_discard
        return old < 0 or card == old or not hand >> old & 1 or hand == 1 << card

    def _candidate_moves(self) -> list[int]:
        """Melds, lay-offs and swaps allowed by the meld rules, before R-CRAZY-08a."""
        p = self.current
        hand = self.hands[p]
        size = hand.bit_count()
        out = []
        on_table = self._occupied()
        wilds_held = hand & self.wilds & ~on_table  # a held card on the table already fills nothing
        out += [MELD + m for m in melds_to_put_down(hand, self.wilds, on_table)]
        if self.melded[p]:
            if size >= 2:
                for card, side in self.table.layoff_targets():
                    if not on_table >> card & 1 and (hand >> card & 1 or wilds_held):
                        out.append(LAYOFF + 3 * card + side)
            for card in self.wild_for:
                if hand >> card & 1:
                    out.append(SWAP + card)
        return out

    def _occupied(self) -> int:
        """R-CRAZY-05a: the cards on the table once already, as themselves, through a wild
        card, or as a wild card standing for another card (bitmask)."""
        on_table = self.table.mask
        for wild, _ in self.wild_for.values():
            on_table |= 1 << wild
        return on_table

    def _fill(self, action: int) -> tuple[int, dict[int, int]]:
        """Cards a meld or lay-off takes from the hand, and ``{represented: wild}`` for it.

        Natural cards of the meld are used as themselves; each missing card gets a wild
        card, missing cards in ascending order (R-CRAZY-05): first the wild card taken from
        the discard pile this turn, which may not be discarded now (R-CRAZY-08), then the
        lowest card ids.  A held wild card whose natural card is on the table already
        (through another wild card) fills nothing (R-CRAZY-05a).
        """
        hand = self.hands[self.current]
        if action < LAYOFF:
            meld = MELDS[action - MELD]
            natural = meld.mask & hand
            missing = [c for c in meld.cards if not natural >> c & 1]
            missing.sort()
            # the table is read only when a wild card fills (most melds are natural ones)
            spare = self._fill_order(hand & self.wilds & ~natural & ~self._occupied()) if missing else []
            wilds = dict(zip(missing, spare, strict=False))
            used = natural
            for w in wilds.values():
                used |= 1 << w
            return used, wilds
        card = (action - LAYOFF) // 3
        if hand >> card & 1:
            return 1 << card, {}
        wild = self._fill_order(hand & self.wilds & ~self._occupied())[0]
        return 1 << wild, {card: wild}

    def _fill_order(self, spare: int) -> list[int]:
        """The wild cards of the bitmask ``spare`` in the order they fill a meld or lay-off:
        the one taken from the discard pile this turn first (it cannot be discarded this
        turn, R-CRAZY-08, so with it on the table a held wild card stays discardable), then
        by card id."""
        cards = cards_of(spare)
        taken = self.taken_discard
        if taken >= 0 and spare >> taken & 1:
            cards.remove(taken)
            cards.insert(0, taken)
        return cards

    def _finishable_after(self, action: int) -> bool:
        """R-CRAZY-08a: after ``action`` the player still has a way to end the turn with a
        legal discard (perhaps after more melds, lay-offs or swaps)."""
        hand = self.hands[self.current]
        old = self.must_discard
        if action >= SWAP:
            card = action - SWAP
            wild = self.wild_for[card][0]
            after = (hand & ~(1 << card)) | (1 << wild)
            if card == old:
                old = wild  # R-CRAZY-10: the wild card takes the swapped card's place
        else:
            used, _ = self._fill(action)
            after = hand & ~used
        if any(self._discard_ok(c, after, old) for c in cards_of(after)):
            return True
        trial = self.clone()
        trial._apply(action)
        return trial._can_finish()

    def _can_finish(self) -> bool:
        """Whether some sequence of melds, lay-offs and swaps reaches a legal discard.

        Terminates: every move lowers 2 * (cards in hand) + (wild cards on the table).
        """
        hand = self.hands[self.current]
        if any(self._discard_ok(c, hand) for c in cards_of(hand)):
            return True
        for action in self._candidate_moves():
            trial = self.clone()
            trial._apply(action)
            if trial._can_finish():
                return True
        return False

    def observation(self, player: int) -> CrazyView:
        """What ``player`` may know (see :class:`CrazyView`): no other hand, no stock order.

        Raises:
            ValueError: ``player`` is not an int seat ``0..num_players-1``.
        """
        player = self._seat(player)
        n = self._n
        seats = [(player + k) % n for k in range(n)]
        acting = -1 if self._terminal else (self.current - player) % n
        mine = acting == 0 and self.phase == PLAY
        hand = self.hands[player]
        top = self.discard[-1] if self.discard else -1
        stands = [-1] * NUM_SUITS
        natural = self.table.mask
        for represented, (wild, _) in self.wild_for.items():
            stands[wild // 13] = represented
            natural &= ~(1 << represented)
        return CrazyView(
            hand=hand,
            top_discard=top,
            discard_rest=self.discard_mask & ~(1 << top) if top >= 0 else 0,
            table_natural=natural,
            wild_stands_for=tuple(stands),
            known=tuple(self.known[s] for s in seats),
            forbidden=self.taken_discard if mine and self.taken_discard >= 0 and hand >> self.taken_discard & 1 else -1,
            must_discard=self.must_discard if mine and self.must_discard >= 0 and hand >> self.must_discard & 1 else -1,
            wild_rank=self.wild_rank,
            round=self.round,
            phase=-1 if self._terminal else self.phase,
            acting=acting,
            stock_size=len(self.stock),
            hand_sizes=tuple(self.hands[s].bit_count() for s in seats),
            melded=tuple(self.melded[s] for s in seats),
            totals=tuple(self.scores[s] for s in seats),
            turn=self.turn,
        )

    # ------------------------------------------------------------- moves
    def _apply(self, action: int) -> None:
        self._legal = None
        p = self.current
        if action in (DRAW_STOCK, DRAW_DISCARD):
            if self.hands[p].bit_count() == 1:
                self.must_discard = self.hands[p].bit_length() - 1  # R-CRAZY-10
            if action == DRAW_STOCK:
                self.hands[p] |= 1 << self.stock.pop()
                self.last_turn = not self.stock  # R-CRAZY-11: this turn is the round's last
            else:
                self.taken_discard = self._take_discard(p)
            self.phase = PLAY
        elif action < DRAW_STOCK:
            self._discard(p, action)
            if not self.hands[p]:
                self._end_round(winner=p)  # R-CRAZY-09: out by discarding the last card
            else:
                self._end_turn()
        elif action >= SWAP:
            card = action - SWAP
            wild, index = self.wild_for.pop(card)
            del self.table.melds[index].wilds[card]
            self.hands[p] = (self.hands[p] & ~(1 << card)) | (1 << wild)
            self.known[p] = (self.known[p] & ~(1 << card)) | (1 << wild)  # the wild was face up
            if card == self.must_discard:
                # R-CRAZY-10: swapping the card held before the draw for a wild card does
                # not free the player from it: the wild card must go unless going out
                self.must_discard = wild
        else:
            used, wilds = self._fill(action)
            if action < LAYOFF:
                index = self.table.put_down(MELDS[action - MELD], p, dict(wilds))
                self.melded[p] = True
            else:
                card, side = divmod(action - LAYOFF, 3)
                index = self.table.lay_off(card, side, wilds.get(card, -1))
            for represented, wild in wilds.items():
                self.wild_for[represented] = (wild, index)
            self._play_cards(p, used)

    def _end_turn(self) -> None:
        self.taken_discard = -1
        self.must_discard = -1
        self.turn += 1
        if self.last_turn:
            self._end_round(winner=-1)  # R-CRAZY-11: the stock was emptied this turn
            return
        if self.turn >= self.config.max_turns:
            # no penalties; a truncation only of a one-round episode
            self.truncated = self.config.episode == "hand"
            self._end_round(winner=-1, move_limit=True)
            return
        self.current = (self.current + 1) % self._n
        self.phase = DRAW

    # ------------------------------------------------------------ scoring
    def _end_round(self, winner: int, move_limit: bool = False) -> None:
        """Penalties (R-CRAZY-12), rewards, then the episode's end or the next round;
        ``move_limit``: the round reached ``max_turns`` (no penalties)."""
        n, cfg = self._n, self.config
        if move_limit:
            penalties = [0] * n
        else:
            penalties = [penalty(h, self.wild_rank) for h in self.hands]
        for q in range(n):
            self.scores[q] += penalties[q]
        self.hands_played += 1
        self.last_hand = {
            "winner": winner,
            "round": self.round,
            "wild_rank": self.wild_rank + 1,
            "hand_scores": penalties,
            "total_scores": list(self.scores),
            "truncated": move_limit,
        }
        if cfg.episode == "game" and self.round < NUM_ROUNDS and self.hands_played >= cfg.max_hands:
            self.truncated = True  # the game cut short by max_hands
        if cfg.reward == "score" and not move_limit:
            mean = sum(penalties) / n
            for q in range(n):
                self._give(q, mean - penalties[q])
        game_over = cfg.episode == "hand" or self.round == NUM_ROUNDS or self.truncated
        if not game_over:
            stacked = self._pop_next_hand()
            deck = list(stacked[0]) if stacked is not None else [int(c) for c in self.rng.permutation(NUM_CARDS)]
            self._deal(deck, (self.dealer + 1) % n, self.round + 1)
            return
        self._terminal = True
        if cfg.reward == "win" and not self.truncated:
            final = penalties if cfg.episode == "hand" else self.scores
            best = min(final)
            winners = [q for q in range(n) if final[q] == best]
            if len(winners) < n:  # R-CRAZY-13: equal lowest totals share the win
                for q in range(n):
                    self._give(q, 1.0 / len(winners) if q in winners else -1.0 / (n - len(winners)))

    # ------------------------------------------------------------- worlds
    # resample() (EngineState) deals again the other hands' unknown cards and the stock order
    _resample_world = staticmethod(resample_crazy)

    # ------------------------------------------------------------- copies
    def _clone_into(self, other: CrazyRummyState) -> None:
        other.hands = list(self.hands)
        other.stock = list(self.stock)
        other.discard = list(self.discard)
        other.table = self.table.copy()
        other.wild_for = dict(self.wild_for)
        other.known = list(self.known)
        other.melded = list(self.melded)

    def __str__(self) -> str:
        who = (
            "episode over"
            if self._terminal
            else (f"player {self.current} to act, phase {'draw' if self.phase == DRAW else 'play'}")
        )
        lines = [f"round {self.round} (wild rank {self.wild_rank + 1}), dealer {self.dealer}, {who}"]
        for q, h in enumerate(self.hands):
            lines.append(f"hand {q}: {' '.join(card_str(c) for c in cards_of(h))}")
        lines.append("table: " + " | ".join(" ".join(card_str(c) for c in m.physical()) for m in self.table))
        lines.append(f"discard pile (top last): {' '.join(card_str(c) for c in self.discard)}")
        lines.append(f"stock: {len(self.stock)} cards")
        return "\n".join(lines)
