"""The state behind an OpenSpiel state of the Rummy family: a rules engine plus the chance
nodes the engine does not have.

The engines deal inside ``new_initial_state`` and draw the top of a stock they hold in
order.  :class:`Core` turns that into OpenSpiel's tree (the shape of OpenSpiel's own
``gin_rummy``): the setup (the dealer, Crazy Rummy's wild rank, Rummikub's first player)
and every card of the deal are chance outcomes, and a draw from a stock whose order is
not yet known is a decision followed by a chance node choosing the card, uniformly over
the cards no one has seen (Rummikub: each tile type as likely as its count).  The engine
is built from the dealt cards with the rest of the stock in a placeholder order; before a
chance-drawn card is taken, it is moved to the top of the engine's stock.  A stock that
R-RUMMY-12 turned over from the discard pile has a public order: its draws are no chance
nodes.  Later hands of ``episode="game"`` are dealt by chance nodes too.

Each player's information state is the perfect-recall record of what it saw: the setup,
its own cards as they were dealt and drawn, the upcard, every decision (all decisions
are public), plus its current observation.  Observations are the project's encoding,
the same tensors as ``env()``.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import numpy as np

from rummy_env.core.cards import NUM_CARDS, cards_of
from rummy_env.core.tiles import FULL_POOL_COUNTS, NUM_TILE_TYPES, POOL_SIZE
from rummy_env.encoding.layout import Layout
from rummy_env.games.errors import IllegalActionError
from rummy_env.openspiel.describe import describe
from rummy_env.openspiel.shared_log import SharedLog
from rummy_env.openspiel.variants import DEALER, FIRST_PLAYER, VARIANTS, WILD_RANK

SETUP, DEAL, DRAW, PLAY, OVER = range(5)  #: phases: setup / deal / card of a draw (chance), decision, terminal
PHASE_NAMES = ("setup", "deal", "draw", "play", "over")


class GameData:
    """What every state of one game shares: the variant, its options, engines and layout.

    Args:
        key: the variant's key (``"rummy"``, ``"gin_rummy"``, ``"crazy_rummy"``, ``"rummikub"``).
        params: the OpenSpiel parameters, all of them (defaults filled in).

    Raises:
        ValueError: an unknown parameter or a bad value.
    """

    def __init__(self, key: str, params: dict[str, Any]):
        self.variant = VARIANTS[key]
        self.params = dict(params)
        self.cfg = self.variant.config(self.params)
        self.games: dict = {None: self.variant.engine_game(self.cfg)}  # Crazy Rummy adds one per wild rank
        self.n = self.games[None].num_players
        self.layout: Layout = self.variant.layout(self.cfg)
        actions = self.variant.actions
        self.action_texts = tuple(actions.action_to_string(a) for a in range(actions.NUM_ACTIONS))  # the env's texts

    def __reduce__(self):
        # a serialized state names its game instead of copying engines and layouts
        return game_data, (self.variant.key, tuple(sorted(self.params.items())))


def game_data(key: str, params: tuple) -> GameData:
    """The shared :class:`GameData` of a variant and its parameters (sorted ``(name, value)`` pairs).

    Raises:
        ValueError: an unknown parameter or a bad value (:class:`GameData`).
    """
    # keyed by each value's type too: True == 1 == 1.0 would otherwise find a valid game's
    # data and skip the checks of a wrongly typed value
    return _game_data(key, tuple((name, type(value), value) for name, value in params))


@functools.lru_cache(maxsize=64)
def _game_data(key: str, typed_params: tuple) -> GameData:
    return GameData(key, {name: value for name, _, value in typed_params})


class Core:
    """One OpenSpiel state's contents (see the module docstring); ``copy.deepcopy`` is fast.

    Attributes:
        engine: the engine's state, None before the first deal is complete.
        phase: :data:`SETUP`, :data:`DEAL`, :data:`DRAW`, :data:`PLAY` or :data:`OVER`.
        setup: this hand's setup outcomes by step name.  dealt: this deal's outcomes so far.
        pending: in :data:`DRAW`, the decision waiting for its card.
        hidden: cards of the engine's stock whose order is not yet drawn (all of it, or 0).
        logs: per seat, the lines of its information state (a :class:`SharedLog`).
        receipts: per seat, ``(log line, history index, outcome)`` of each card it was
            dealt or drew unseen by the others (a :class:`SharedLog`).
        rewards: rewards since the last decision, per seat.
        actions: ``(player, action)`` of each action applied, the history the contents
            hold (a :class:`SharedLog`; a resample rewrites its chance outcomes as it
            rewrites the history), which ``deserialize_state`` compares with the text's;
            :attr:`moves` counts them.
    """

    def __init__(self, data: GameData):
        self.data = data
        self.engine: Any = None
        self.steps = tuple(data.variant.setup_steps(data.cfg, first_hand=True))
        self.phase = SETUP
        self.setup: dict[str, int] = {}
        self.dealt: list[int] = []
        self.deal_receipts: dict[int, int] = {}  # deal position -> index into its seat's receipts
        self.pending = -1
        self.hidden = 0
        n = data.n
        self.logs = [SharedLog() for _ in range(n)]
        self.receipts = [SharedLog() for _ in range(n)]
        self.rewards = [0.0] * n
        self.actions = SharedLog()
        self.hands_seen = 0

    def __deepcopy__(self, memo) -> Core:
        other = copy.copy(self)
        other.engine = self.engine.clone() if self.engine is not None else None
        other.setup = dict(self.setup)
        other.dealt = list(self.dealt)
        other.deal_receipts = dict(self.deal_receipts)
        other.logs = [log.fork() for log in self.logs]
        other.receipts = [log.fork() for log in self.receipts]
        other.rewards = list(self.rewards)
        other.actions = self.actions.fork()
        return other

    @property
    def moves(self) -> int:
        """The actions applied (chance outcomes and decisions)."""
        return len(self.actions)

    # ------------------------------------------------------------- queries
    def current_player(self) -> int:
        """The engine's acting seat, -1 at chance nodes, -4 when over (OpenSpiel's ids)."""
        if self.phase == PLAY:
            return self.engine.current_player()
        return -4 if self.phase == OVER else -1

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs in ascending outcome order.

        Raises:
            ValueError: not at a chance node (at a decision the stock's cards are hidden
                information: listing them would show the opponents' hands by elimination).
        """
        if self.phase in (PLAY, OVER):
            where = "a decision node" if self.phase == PLAY else "a terminal state"
            raise ValueError(f"chance_outcomes() at {where}: only chance nodes (current_player() == -1) have outcomes")
        if self.phase == SETUP:
            k = self.steps[len(self.setup)][1]
            return [(i, 1.0 / k) for i in range(k)]
        if self.phase == DEAL:
            left = self._undealt()
        elif self.data.variant.tiles:
            left = self._pile_counts()
        else:  # the hidden cards are distinct
            pile = self.data.variant.pile(self.engine)
            p = 1.0 / len(pile)
            return [(c, p) for c in sorted(pile)]
        total = int(left.sum())
        return [(int(o), float(left[o]) / total) for o in np.flatnonzero(left)]

    def _undealt(self) -> np.ndarray:
        full = FULL_POOL_COUNTS if self.data.variant.tiles else np.ones(NUM_CARDS, dtype=np.int64)
        return full - np.bincount(self.dealt, minlength=len(full))

    def _pile_counts(self) -> np.ndarray:
        return np.bincount(self.data.variant.pile(self.engine), minlength=self.data.variant.num_outcomes)

    def _lead(self) -> int:
        if self.data.variant.tiles:
            return self.setup[FIRST_PLAYER]
        return self.setup[DEALER] if self.engine is None else self.engine.dealer

    def returns(self) -> list[float]:
        """Each seat's return so far (the engine's; 0 while the deal is being drawn)."""
        return self.engine.returns() if self.engine is not None else [0.0] * self.data.n

    def action_text(self, player: int, action: int) -> str:
        """Text of a decision (the env's text) or of a chance outcome: ``player`` says which
        (a seat, acting or not: a decision; -1: a chance outcome), as in OpenSpiel's
        ``gin_rummy``.  At a terminal state -4 (``current_player()``) reads decisions too:
        no seat acts, and a decision's text is the same for every seat.

        Raises:
            ValueError: ``player`` neither a seat nor -1 (chance) (nor -4 at a terminal
                state), an action id outside the game's actions (``player >= 0``) or a
                setup outcome outside that chance node's outcomes.
        """
        if player != -1:
            if not self._is_seat(player) and not (player == -4 and self.phase == OVER):
                raise ValueError(f"player {player!r} is neither a seat 0..{self.data.n - 1} nor -1 (chance)")
            if not 0 <= action < len(self.data.action_texts):
                raise ValueError(f"action {action} is not an action id: ids are 0..{len(self.data.action_texts) - 1}")
            return self.data.action_texts[action]
        if self.phase == SETUP:
            name, k = self.steps[len(self.setup)]
            if not 0 <= action < k:
                raise ValueError(f"{name} outcome {action} is not one of this chance node's 0..{k - 1}")
            return f"{name} {action + 1 if name == WILD_RANK else action}"
        return self.data.variant.outcome_text(action)

    # --------------------------------------------------------------- moves
    def apply(self, action: int) -> None:
        """Apply a chance outcome or a decision.

        Checked before anything is recorded (a refused action changes nothing): a
        decision by the engine's ``check_action`` (a draw too, before its chance node), a
        chance outcome against :meth:`chance_outcomes`.

        Raises:
            IllegalActionError: the game is over, a decision the engine refuses (its
                message), or a chance outcome this node does not offer.
            ActionTypeError: a decision that is not an integer id.
        """
        phase = self.phase
        if phase == OVER:
            raise IllegalActionError(f"action {action}: the game is over")
        if phase == PLAY:
            action = self.engine.check_action(action)
        elif not self._offered(action):
            raise IllegalActionError(
                f"chance outcome {action} is not offered at this chance node: {self._offer_text()}"
            )
        self.actions.append((self.engine.current_player() if phase == PLAY else -1, action))
        if phase == PLAY:
            self.rewards = [0.0] * self.data.n
            self._decide(action)
        elif phase == SETUP:
            self._public(self.action_text(-1, action))
            self.setup[self.steps[len(self.setup)][0]] = action
            if len(self.setup) == len(self.steps):
                self.phase = DEAL
        elif phase == DEAL:
            self._deal_one(action)
        else:
            self._draw(action)

    def _offered(self, outcome: int) -> bool:
        """Whether this chance node offers ``outcome`` (cheaper than :meth:`chance_outcomes`:
        search samples and applies chance outcomes in its inner loop)."""
        if self.phase == SETUP:
            return 0 <= outcome < self.steps[len(self.setup)][1]
        if self.phase == DEAL:
            left = self._undealt()
            return 0 <= outcome < len(left) and left[outcome] > 0
        return outcome in self.data.variant.pile(self.engine)

    def _offer_text(self) -> str:
        outcomes = [o for o, _ in self.chance_outcomes()]
        if self.phase == SETUP:
            return f"{self.steps[len(self.setup)][0]} outcomes are 0..{len(outcomes) - 1}"
        shown = " ".join(f"{o} ({self.data.variant.outcome_text(o)})" for o in outcomes[:12])
        more = f" and {len(outcomes) - 12} more" if len(outcomes) > 12 else ""
        return f"{len(outcomes)} outcomes are offered: {shown}{more}"

    def _public(self, line: str | tuple[int, int]) -> None:
        for lines in self.logs:
            lines.append(line)

    def _line(self, entry: str | tuple[int, int]) -> str:
        """A log entry as text: a string, or a decision ``(seat, action)``."""
        if isinstance(entry, str):
            return entry
        return f"p{entry[0]} {self.data.action_texts[entry[1]]}"

    def _receive(self, seat: int, verb: str, outcome: int) -> int:
        """Log a card only ``seat`` sees; returns its index in the seat's receipts."""
        lines = self.logs[seat]
        self.receipts[seat].append((len(lines), self.moves - 1, outcome))
        lines.append(f"{verb} {self.data.variant.outcome_text(outcome)}")
        return len(self.receipts[seat]) - 1

    def _deal_one(self, outcome: int) -> None:
        variant, cfg = self.data.variant, self.data.cfg
        i = len(self.dealt)
        self.dealt.append(outcome)
        seat = variant.recipient(i, self._lead(), cfg)
        if seat < 0:
            self._public(f"upcard {variant.outcome_text(outcome)}")
        else:
            self.deal_receipts[i] = self._receive(seat, "deal", outcome)
        if len(self.dealt) < variant.deal_size(cfg):
            return
        deck = variant.full_deck(self.dealt)
        if self.engine is None:
            self.engine = variant.new_engine(self.data.games, cfg, self.setup, deck)
        else:
            self._redeal(deck)
        self.hidden = len(variant.pile(self.engine))
        self.dealt, self.deal_receipts = [], {}
        self.phase = PLAY

    def _redeal(self, deck: list[int]) -> None:
        engine = self.engine
        engine.hand_decks.pop()  # the deal the engine drew from its own generator
        if not engine.hand_decks:  # a resampled state keeps no record: this deal starts one
            engine.initial_deck = []
        self.data.variant.redeal(engine, self.setup, deck)
        engine._legal = None

    def _decide(self, action: int) -> None:
        engine = self.engine
        self._public((engine.current, action))  # formatted when read: rollouts never read it
        receiver = self.data.variant.draw_receiver(engine, action) if self.hidden else -1
        if receiver < 0:
            self._step(action)
            return
        kinds = set(self.data.variant.pile(engine))
        if len(kinds) > 1:
            self.phase, self.pending = DRAW, action  # a chance node chooses the card
            return
        self.pending = action  # one kind of card is left: it is determined, no chance node
        self._draw(kinds.pop(), chance=False)

    def _draw(self, outcome: int, chance: bool = True) -> None:
        engine, variant = self.engine, self.data.variant
        seat = variant.draw_receiver(engine, self.pending)
        if chance:
            self._receive(seat, "draw", outcome)
        else:
            lines = self.logs[seat]
            self.receipts[seat].append((len(lines), -1, outcome))  # no history entry: not a chance outcome
            lines.append(f"draw {variant.outcome_text(outcome)}")
        self._put_on_top(outcome)
        self.hidden -= 1
        action, self.pending = self.pending, -1
        self._step(action)

    def _put_on_top(self, outcome: int) -> None:
        """Move a card (a tile of that type) to the top of the engine's stock, and in the
        engine's record of this hand's deck, so that ``hand_decks`` replays the hand."""
        engine = self.engine
        pile = self.data.variant.pile(engine)
        top = len(pile) - 1
        j = top - pile[::-1].index(outcome)
        if j == top:
            return
        pile[j], pile[top] = pile[top], pile[j]
        size = POOL_SIZE if self.data.variant.tiles else NUM_CARDS
        # while its order is hidden the stock is the deck's tail reversed: stock[j] = deck[size - 1 - j]
        if engine.hand_decks and len(engine.hand_decks[-1]) == size:
            a, b = size - 1 - j, size - 1 - top
            deck = list(engine.hand_decks[-1])
            deck[a], deck[b] = deck[b], deck[a]
            engine.hand_decks[-1] = deck
            if engine.hands_played == 0 and len(engine.initial_deck) == size:
                engine.initial_deck = list(deck)

    def _step(self, action: int) -> None:
        engine = self.engine
        engine.apply_action(action)
        self.rewards = [r + e for r, e in zip(self.rewards, engine.rewards(), strict=True)]
        if engine.is_terminal():
            self.phase = OVER
        elif engine.hands_played != self.hands_seen:  # the engine dealt the next hand itself
            self.hands_seen = engine.hands_played
            self._public(f"hand {engine.hands_played + 1}")
            self.steps = tuple(self.data.variant.setup_steps(self.data.cfg, first_hand=False))
            self.setup, self.dealt, self.hidden = {}, [], 0
            self.phase = SETUP if self.steps else DEAL
        else:
            self.phase = PLAY

    # --------------------------------------------------------- observations
    def _is_seat(self, player: Any) -> bool:
        return not isinstance(player, bool) and isinstance(player, (int, np.integer)) and 0 <= player < self.data.n

    def _check_player(self, player: int) -> int:
        if not self._is_seat(player):
            raise ValueError(f"player {player!r} is not a seat: players are 0..{self.data.n - 1}")
        return int(player)

    def _dealing(self) -> bool:
        return self.phase in (SETUP, DEAL)

    def observation_tensor(self, player: int) -> np.ndarray:
        """The project's encoding of ``player``'s view, float32 ``(layout.size,)`` (``env()``'s
        ``observation``); zeros while a hand is being dealt (the engine holds no hand yet).

        Raises:
            ValueError: ``player`` is not a seat 0..n-1 (the ``State`` methods and the observer
                refuse it first: ``rummy_env.openspiel.players``).
        """
        player = self._check_player(player)
        if self._dealing():
            return np.zeros(self.data.layout.size, dtype=np.float32)
        return self.data.variant.encode(self.engine.observation(player), self.data.layout)

    def observation_string(self, player: int) -> str:
        """``player``'s observation as text: each field of the encoding that is not zero.

        Raises:
            ValueError: ``player`` is not a seat 0..n-1 (the ``State`` methods and the observer
                refuse it first: ``rummy_env.openspiel.players``).
        """
        player = self._check_player(player)
        if self._dealing():
            own = [self.data.variant.outcome_text(o) for i, o in enumerate(self.dealt) if self._dealt_to(i) == player]
            setup = ", ".join(f"{name} {v}" for name, v in self.setup.items())
            return f"player {player}, dealing ({setup}): {' '.join(own)}"
        return f"player {player}\n" + describe(
            self.data.layout, self.observation_tensor(player), self.data.variant.tiles
        )

    def _dealt_to(self, i: int) -> int:
        return self.data.variant.recipient(i, self._lead(), self.data.cfg)

    def information_state_string(self, player: int) -> str:
        """Perfect recall: ``player``'s log (setup, own cards, upcards, all decisions), then
        its current observation (which shows what a showdown revealed).

        Raises:
            ValueError: ``player`` is not a seat 0..n-1 (the ``State`` methods and the observer
                refuse it first: ``rummy_env.openspiel.players``).
        """
        player = self._check_player(player)
        return "\n".join(map(self._line, self.logs[player].view())) + "\n" + self.observation_string(player)

    def __str__(self) -> str:
        lines = [f"phase {PHASE_NAMES[self.phase]}, hidden stock cards {self.hidden}"]
        if self.setup:
            lines.append("setup: " + ", ".join(f"{name} {v}" for name, v in self.setup.items()))
        if self.dealt:
            lines.append("dealt: " + " ".join(self.data.variant.outcome_text(o) for o in self.dealt))
        if self.pending >= 0:
            lines.append(f"drawing for: {self.action_text(0, self.pending)}")
        if self.engine is not None:
            lines.append(str(self.engine))
        return "\n".join(lines)

    # ------------------------------------------------------------ resampling
    def resampled(self, player: int, rng: np.random.Generator) -> tuple[Core, dict[int, int]]:
        """A copy in which what ``player`` does not know is drawn again (the engine's
        ``resample``), with the other seats' logs rewritten to match, and the history
        entries (index -> new outcome) whose chance outcomes changed.

        Raises:
            ValueError: ``player`` is not a seat.
            TypeError: ``rng`` is not a ``numpy.random.Generator`` (while the deal is drawn too).
            RuntimeError: the engine's world moved cards a seat's log cannot hold (a broken
                engine: ``_remap``).
        """
        player = self._check_player(player)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        new = copy.deepcopy(self)
        changes: dict[int, int] = {}
        if self._dealing():
            new._resample_deal(player, rng, changes)
        else:
            new.engine = self.engine.resample(player, rng)
            for seat in range(self.data.n):
                if seat != player:
                    new._remap(seat, self.engine, changes)
        return new, changes

    def _resample_deal(self, player: int, rng: np.random.Generator, changes: dict[int, int]) -> None:
        """During a deal: the cards dealt so far to the others come again from those cards
        and the undealt ones."""
        others = [i for i in range(len(self.dealt)) if self._dealt_to(i) not in (player, -1)]
        pool = [self.dealt[i] for i in others]
        left = self._undealt()
        pool += np.repeat(np.arange(len(left)), left).tolist()
        pick = rng.permutation(len(pool))[: len(others)]
        for i, k in zip(others, pick.tolist(), strict=True):
            self._set_receipt(self._dealt_to(i), self.deal_receipts[i], pool[k], changes)
            self.dealt[i] = pool[k]

    def _remap(self, seat: int, old_engine: Any, changes: dict[int, int]) -> None:
        """Give ``seat``'s receipts of cards it no longer holds in the resampled engine the
        cards it holds instead (the latest receipts of a card or tile type)."""
        variant = self.data.variant
        old, new = variant.holdings(old_engine, seat), variant.holdings(self.engine, seat)
        if variant.tiles:
            gone = np.maximum(old - new, 0)
            came = np.repeat(np.arange(NUM_TILE_TYPES), np.maximum(new - old, 0)).tolist()
        else:
            gone = np.zeros(NUM_CARDS, dtype=np.int64)
            gone[cards_of(old & ~new)] = 1
            came = cards_of(new & ~old)
        picked = []
        receipts = self.receipts[seat].view()
        for k in range(len(receipts) - 1, -1, -1):
            outcome = receipts[k][2]
            if gone[outcome] > 0:
                gone[outcome] -= 1
                picked.append(k)
        if gone.any() or len(picked) != len(came):
            raise RuntimeError(f"resample changed cards of seat {seat} that it was never dealt or drew unseen")
        for k, outcome in zip(sorted(picked), came, strict=True):
            self._set_receipt(seat, k, outcome, changes)

    def _set_receipt(self, seat: int, k: int, outcome: int, changes: dict[int, int]) -> None:
        line, history_index, _ = self.receipts[seat][k]
        verb = self.logs[seat][line].split(" ", 1)[0]
        self.logs[seat][line] = f"{verb} {self.data.variant.outcome_text(outcome)}"
        self.receipts[seat][k] = (line, history_index, outcome)
        if history_index >= 0:
            changes[history_index] = outcome
            self.actions[history_index] = (-1, outcome)
