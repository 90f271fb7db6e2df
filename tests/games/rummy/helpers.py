"""Scripted Rummy states from stacked decks, for the engine and golden tests."""

from rummy_env.core.cards import cards_str, parse_deck
from rummy_env.games.rummy import RummyConfig, RummyGame, action_to_string, stack_deck, string_to_action


def scripted_state(hands, upcard=None, stock=(), dealer=0, **options):
    """A dealt RummyState whose hands, upcard and stock top are the ones given."""
    game = RummyGame(RummyConfig(num_players=len(hands), **options))
    deck = parse_deck(stack_deck(hands, upcard=upcard, stock=stock, dealer=dealer))
    return game.new_initial_state(rng=0, deck=deck, dealer=dealer)


def play(state, *moves):
    """Apply moves given as action text, e.g. ``play(s, "draw stock", "discard KD")``."""
    for move in moves:
        state.apply_action(string_to_action(move))
    return state


def legal_texts(state):
    """The acting player's legal actions as text, in action-id order."""
    return [action_to_string(a) for a in state.legal_actions()]


def table_texts(state):
    """The table's melds as sorted text, e.g. ``["2H 3H 4H", "5C 5D 5S"]``."""
    return sorted(cards_str(m.cards()) for m in state.table)
