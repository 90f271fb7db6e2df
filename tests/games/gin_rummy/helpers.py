"""Scripted Gin Rummy states and an independent brute-force deadwood, for the tests.

The brute force is written from ``gin_rummy.md`` alone and shares no code with the
engine: it lists every meld of a hand by the rule (3 or 4 cards of a rank; 3 or more
consecutive cards of a suit, ace low) and searches every packing of disjoint melds.
"""

import itertools

from rummy_env.core.cards import cards_str, parse_deck
from rummy_env.games.gin_rummy import GinRummyConfig, GinRummyGame, stack_deck
from tests.helpers import play_state, state_legal_texts


def value(card):
    """R-GIN-01: A = 1, 2..10 face value, J Q K = 10."""
    return min(card % 13 + 1, 10)


def melds_of(hand):
    """Bitmasks of every meld whose cards are all in ``hand`` (R-GIN-05)."""
    out = []
    for rank in range(13):
        suits = [s for s in range(4) if hand >> (s * 13 + rank) & 1]
        for k in (3, 4):
            for combo in itertools.combinations(suits, k):
                out.append(sum(1 << (s * 13 + rank) for s in combo))
    for suit in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                if all(hand >> (suit * 13 + r) & 1 for r in range(low, high + 1)):
                    out.append(sum(1 << (suit * 13 + r) for r in range(low, high + 1)))
                else:
                    break
    return out


def mask_value(mask):
    return sum(value(c) for c in range(52) if mask >> c & 1)


class BruteDeadwood:
    """Exhaustive least deadwood of ``hand`` and of its subsets (memoised search over
    every packing of the hand's melds)."""

    def __init__(self, hand):
        self.melds = [(m, mask_value(m)) for m in melds_of(hand)]
        self.memo = {}

    def melded(self, cards):
        """Largest value that disjoint melds within ``cards`` can cover."""
        got = self.memo.get(cards)
        if got is not None:
            return got
        inside = [(m, v) for m, v in self.melds if m & cards == m]
        best = 0
        if inside:
            first = min(m & -m for m, _ in inside)  # lowest card that is in some meld
            best = self.melded(cards & ~first)  # that card left out of every meld ...
            for m, v in inside:  # ... or in one of its melds
                if m & first:
                    best = max(best, v + self.melded(cards & ~m))
        self.memo[cards] = best
        return best

    def deadwood(self, cards):
        return mask_value(cards) - self.melded(cards)


def brute_deadwood(hand):
    return BruteDeadwood(hand).deadwood(hand)


def scripted_state(hands, upcard=None, stock=(), dealer=1, **options):
    """A dealt GinRummyState whose hands, upcard and stock top are the ones given."""
    game = GinRummyGame(GinRummyConfig(**options))
    deck = parse_deck(stack_deck(hands, upcard=upcard, stock=stock, dealer=dealer))
    return game.new_initial_state(rng=0, deck=deck, dealer=dealer)


play = play_state
legal_texts = state_legal_texts


def cards(mask):
    from rummy_env.core.cards import cards_of

    return cards_str(cards_of(mask))
