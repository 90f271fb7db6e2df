"""Scripted Rummy states from stacked decks, for the engine and golden tests."""

from rummy_env.core.cards import cards_str, parse_deck
from rummy_env.games.rummy import RummyConfig, RummyGame, stack_deck
from tests.helpers import play_state, state_legal_texts


def scripted_state(hands, upcard=None, stock=(), dealer=0, **options):
    """A dealt RummyState whose hands, upcard and stock top are the ones given."""
    game = RummyGame(RummyConfig(num_players=len(hands), **options))
    deck = parse_deck(stack_deck(hands, upcard=upcard, stock=stock, dealer=dealer))
    return game.new_initial_state(rng=0, deck=deck, dealer=dealer)


play = play_state
legal_texts = state_legal_texts


def table_texts(state):
    """The table's melds as sorted text, e.g. ``["2H 3H 4H", "5C 5D 5S"]``."""
    return sorted(cards_str(m.cards()) for m in state.table)
