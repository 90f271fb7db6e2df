"""The card variants under the generic env tests, with what each test needs to know.

Each entry gives the env module, option sets that exercise it (including a short
``max_turns`` so truncation and every agent's dead step are reached), a stacked deck
for reset tests, ``public_cards(state, player)``: the cards ``player`` has seen face up
at this moment (own hand, the table's physical cards, the discard pile), and
``public_signature(state)``: everything every player sees, used by the no-leak test.
"""

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.core.cards import card_str, cards_of


def _discard_mask(state):
    mask = 0
    for c in state.discard:
        mask |= 1 << c
    return mask


def rummy_public(state, player):
    return state.hands[player] | table_physical(state) | _discard_mask(state)


def table_physical(state):
    """Bitmask of the cards physically on the table (a wild card, not what it stands for)."""
    physical = 0
    for meld in state.table:
        for c in meld.physical():
            physical |= 1 << c
    return physical


def crazy_public(state, player):
    return state.hands[player] | table_physical(state) | _discard_mask(state)


def card_places(state):
    """Where each card is: a list of card lists (hands, table, stock, discard pile)."""
    return [cards_of(h) for h in state.hands] + [cards_of(table_physical(state)), list(state.stock), list(state.discard)]


def gin_places(state):
    """Gin Rummy has no table: the cards are in the hands, the stock and the discard pile."""
    return [cards_of(h) for h in state.hands] + [list(state.stock), list(state.discard)]


def table_signature(state):
    """What everyone sees of a card table: melds (represented and physical cards), the
    discard pile, every hand's size and the stock's size."""
    return (
        tuple((tuple(m.cards()), tuple(m.physical())) for m in state.table),
        tuple(state.discard),
        tuple(h.bit_count() for h in state.hands),
        len(state.stock),
    )


@dataclass
class Variant:
    module: ModuleType
    api_options: list[dict]
    leak_options: list[dict]
    public_cards: Callable
    public_signature: Callable = table_signature
    places: Callable = card_places
    # env options that replay the first hand of a state from its deck and dealer
    replay_options: Callable = lambda state, options: options
    deck_size: int = 52
    hidden_from_hands: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def name(self):
        return self.module.raw_env.metadata["name"]

    def deck(self):
        return [card_str(c) for c in range(self.deck_size)]

    def __repr__(self):
        return self.name


VARIANTS = [
    Variant(
        rummy_v0,
        api_options=[{}, {"num_players": 4, "ace_high": True, "reshuffle": "whole_pile", "reward": "score"},
                     {"num_players": 6, "max_turns": 7}, {"episode": "game", "target_score": 30, "num_players": 3}],
        leak_options=[{"num_players": 2}, {"num_players": 3, "reshuffle": "whole_pile"},
                      {"num_players": 5, "ace_high": True}, {"num_players": 2, "episode": "game"}],
        public_cards=rummy_public,
    ),
    Variant(
        crazy_rummy_v0,
        api_options=[{}, {"num_players": 6, "episode": "game", "reward": "score"}, {"num_players": 4, "max_turns": 5},
                     {"wild_rank": 1, "num_players": 5}],
        leak_options=[{"num_players": 3}, {"num_players": 4, "wild_rank": 2}, {"num_players": 6, "wild_rank": 13},
                      {"num_players": 3, "episode": "game"}],
        public_cards=crazy_public,
        # the round's wild rank is drawn with the deal unless the option fixes it
        replay_options=lambda state, options: {**options, "wild_rank": state.game.config.wild_rank or state.round}
        if state.config.episode == "hand" else options,
    ),
    Variant(
        gin_rummy_v0,
        api_options=[{}, {"knock_limit": 0, "oklahoma": True, "reward": "score", "episode": "game"},
                     {"max_turns": 3}, {"big_gin": False, "game_bonuses": True, "episode": "game", "target_score": 30}],
        leak_options=[],  # tests/envs/test_gin_no_leak.py: gin shows layouts at the showdown
        public_cards=None,
        places=gin_places,
    ),
]
