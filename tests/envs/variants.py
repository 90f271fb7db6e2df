"""The card variants under the generic env tests, with what each test needs to know.

Each entry gives the env module, option sets that exercise it (including a short
``max_turns`` so truncation and every agent's dead step are reached), a stacked deck
for reset tests, ``public_cards(state, player)``: the cards ``player`` has seen face up
at this moment (own hand, the table's physical cards, the discard pile), and
``public_signature(state)``: everything every player sees, used by the no-leak test.
"""

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from pettingzoo.test import api_test

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.core.cards import card_str, cards_of
from rummy_env.core.tiles import counts_to_tiles, tile_str

# api_test warns about every dict observation (its allowlists of dict-observation envs
# name only PettingZoo's own), and its probe of reset's signature, options={"options": 1},
# is ignored with the env's warning; any other warning is a defect
API_TEST_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "reset: option(s) 'options' unknown, ignored",
)


def api_test_warnings(env, num_cycles: int = 300) -> list[str]:
    """Run PettingZoo's ``api_test`` on ``env``; the warnings it raised beyond
    :data:`API_TEST_WARNINGS`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    return [str(w.message) for w in caught if not any(known in str(w.message) for known in API_TEST_WARNINGS)]


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
    return [cards_of(h) for h in state.hands] + [
        cards_of(table_physical(state)),
        list(state.stock),
        list(state.discard),
    ]


def gin_places(state):
    """Gin Rummy has no table: the cards are in the hands, the stock and the discard pile."""
    return [cards_of(h) for h in state.hands] + [list(state.stock), list(state.discard)]


def rummikub_places(state):
    """Tiles are on the racks (the play being built stays on its rack until committed),
    on the table and in the pool."""
    return [counts_to_tiles(r) for r in state.racks] + [counts_to_tiles(state.table), list(state.pool)]


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
    public_cards: Callable | None
    public_signature: Callable = table_signature
    places: Callable = card_places
    # env options that replay the first hand of a state from its deck and dealer
    replay_options: Callable = lambda state, options: options
    seat_option: str = "dealer"  # the reset option that fixes who starts
    tiles: bool = False  # Rummikub: tile strings, two of each type

    @property
    def name(self):
        return self.module.raw_env.metadata["name"]

    def deck_ids(self):
        """Every card or tile id of a full deck or pool, sorted (tiles appear twice)."""
        return sorted(list(range(53)) * 2) if self.tiles else list(range(52))

    def deck(self):
        """A full deck or pool as strings, in id order."""
        return [tile_str(t) for t in self.deck_ids()] if self.tiles else [card_str(c) for c in self.deck_ids()]

    def bad_decks(self):
        """(deck, whole error message) pairs a reset must refuse."""
        deck = self.deck()
        if self.tiles:
            return [
                (
                    deck[:-1],
                    "pool has 105 tiles, expected 106: two of each coloured number R1..Y13 and two jokers JK;"
                    " short of: JK",
                ),
                (deck[:-1] + [deck[0]], "tile 'R1' appears 3 times; each coloured tile exists twice"),
                (deck[:-1] + ["R14"], "tile 'R14' is not a tile: numbers are 1-13, colours R B K Y, joker JK"),
                (" ".join(deck), "deck must be a list of 106 tile strings, first drawn first, not one string"),
            ]
        write = "write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS', '10S'"
        return [  # the deck is in id order: the one cut off is the last, KS
            (deck[:-1], "deck has 51 cards: a stacked deck lists all 52 cards, top card first"),
            (
                deck[:-1] + [deck[0]],
                "bad deck: card 'AC' appears twice: a deck has one copy of each card; missing cards: KS",
            ),
            (deck[:-1] + ["1S"], f"bad deck: card '1S' is not a card: {write}; missing cards: KS"),
            (" ".join(deck), "deck must be a list of 52 card strings, top card first, not one string"),
        ]

    def __repr__(self):
        return self.name


VARIANTS = [
    Variant(
        rummy_v0,
        api_options=[
            {},
            {"num_players": 4, "ace_high": True, "reshuffle": "whole_pile", "reward": "score"},
            {"num_players": 6, "max_turns": 7},
            {"episode": "game", "target_score": 30, "num_players": 3},
        ],
        leak_options=[
            {"num_players": 2},
            {"num_players": 3, "reshuffle": "whole_pile"},
            {"num_players": 5, "ace_high": True},
            {"num_players": 2, "episode": "game"},
        ],
        public_cards=rummy_public,
    ),
    Variant(
        crazy_rummy_v0,
        api_options=[
            {},
            {"num_players": 6, "episode": "game", "reward": "score"},
            {"num_players": 4, "max_turns": 5},
            {"wild_rank": 1, "num_players": 5},
        ],
        leak_options=[
            {"num_players": 3},
            {"num_players": 4, "wild_rank": 2},
            {"num_players": 6, "wild_rank": 13},
            {"num_players": 3, "episode": "game"},
        ],
        public_cards=crazy_public,
        # the round's wild rank is drawn with the deal unless the option fixes it
        replay_options=lambda state, options: (
            {**options, "wild_rank": state.game.config.wild_rank or state.round}
            if state.config.episode == "hand"
            else options
        ),
    ),
    Variant(
        gin_rummy_v0,
        api_options=[
            {},
            {"knock_limit": 0, "oklahoma": True, "reward": "score", "episode": "game"},
            {"max_turns": 3},
            {"big_gin": False, "game_bonuses": True, "episode": "game", "target_score": 30},
        ],
        leak_options=[],  # tests/envs/test_gin_no_leak.py: gin shows layouts at the showdown
        public_cards=None,
        places=gin_places,
    ),
    Variant(
        rummikub_v0,
        api_options=[
            {},
            {"num_players": 4, "reward": "score", "episode": "game", "target_score": 50},
            {"max_turns": 4, "num_players": 3},
            {"initial_meld_points": 0, "initial_meld_table_play": True},
        ],
        leak_options=[],  # tests/envs/test_rummikub_env.py: tiles come in pairs, see there
        public_cards=None,
        places=rummikub_places,
        seat_option="first_player",
        tiles=True,
    ),
]
