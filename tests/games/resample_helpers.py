"""Helpers of the ``state.resample`` tests: games of every variant, positions reached by
random play, full comparisons of two states, and hidden cards permuted by hand."""

import numpy as np

from rummy_env.core.cards import NUM_CARDS, cards_of
from rummy_env.core.tiles import FULL_POOL_COUNTS
from rummy_env.games.crazy_rummy import CrazyRummyGame
from rummy_env.games.gin_rummy import GinRummyGame
from rummy_env.games.resample import rummy_public_holdings
from rummy_env.games.rummikub import RummikubGame
from rummy_env.games.rummy import RummyGame

#: (variant, game factory, player counts)
VARIANTS = [
    ("rummy", RummyGame, (2, 3, 4, 5, 6)),
    ("gin_rummy", GinRummyGame, (2,)),
    ("crazy_rummy", CrazyRummyGame, (3, 4, 5, 6)),
    ("rummikub", RummikubGame, (2, 3, 4)),
]
CASES = [(name, factory, n) for name, factory, counts in VARIANTS for n in counts]


def make_game(factory, n, **options):
    if factory is GinRummyGame:
        return GinRummyGame(**options)
    return factory(num_players=n, **options)


def random_steps(state, rng, steps):
    """Apply up to ``steps`` uniformly random legal actions (stops at the end)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    return state


def positions(factory, n, seed, steps=(0, 7, 25, 70), **options):
    """States of one random episode after each number of ``steps``."""
    rng = np.random.default_rng(seed)
    state = make_game(factory, n, **options).new_initial_state(rng=seed)
    out, done = [], 0
    for k in steps:
        random_steps(state, rng, k - done)
        done = k
        out.append(state.clone())
    return out


def same_observation(a, b):
    """Whether two observation views are equal field by field (arrays by value)."""
    for x, y in zip(a, b, strict=True):
        if isinstance(x, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def known_of(state):
    """Per seat, the cards everyone knows that seat holds (card variants)."""
    if isinstance(state.game, RummyGame):
        return rummy_public_holdings(state)[0]
    if isinstance(state.game, GinRummyGame) and state.showdown is not None:
        return list(state.hands)
    return list(state.known)


def physical_cards(state):
    """Every card's place in a card-variant state: list of (place, card)."""
    places = [(f"hand{q}", c) for q, h in enumerate(state.hands) for c in cards_of(h)]
    places += [("stock", c) for c in state.stock] + [("discard", c) for c in state.discard]
    table = getattr(state, "table", None)
    if table is not None:
        mask = table.mask
        for represented, (wild, _) in getattr(state, "wild_for", {}).items():
            mask = mask & ~(1 << represented) | 1 << wild
        places += [("table", c) for c in cards_of(mask)]
    return places


def assert_conserved(state):
    """Every card once (cards), or 2 of every tile type (Rummikub)."""
    if hasattr(state, "racks"):
        total = sum(state.racks) + state.table + np.bincount(state.pool, minlength=53)
        assert total.tolist() == FULL_POOL_COUNTS.tolist()
        assert all((r >= 0).all() for r in state.racks)
        return
    cards = sorted(c for _, c in physical_cards(state))
    assert cards == list(range(NUM_CARDS))


def state_key(state):
    """Everything a state holds that a search could use, as comparable values."""
    if hasattr(state, "racks"):
        return (
            [r.tolist() for r in state.racks],
            list(state.pool),
            state.table.tolist(),
            state.chosen.tolist(),
            state.current_player(),
            list(state.history),
            state.rng.bit_generator.state["state"],
        )
    extra = (state.must_discard, state.taken_discard) if hasattr(state, "must_discard") else ()
    return (
        list(state.hands),
        list(state.stock),
        list(state.discard),
        list(state.known),
        state.current_player(),
        state.phase,
        list(state.history),
        extra,
        state.rng.bit_generator.state["state"],
    )


def _exchanged(record, x, y):
    """``record`` (a deal's card or tile ids) with the first ``x`` and the first ``y``
    exchanged.  Cards are unique: the record deals the swapped hands.  Of a tile type's
    two copies the first is exchanged, which need not be the one that moved (the state
    does not say which): the record then holds the same tiles, in another order than the
    swapped racks' deal."""
    out = list(record)
    if x in out and y in out:
        i, j = out.index(x), out.index(y)
        out[i], out[j] = y, x
    return out


def _rewrite_records(new, x, y, rng):
    """The swapped state's own past and future: the current hand's deal records with
    ``x`` and ``y`` exchanged (an agent reading the true deal record would act on the
    truth in every twin), another seed for the later deals, and no stacked deals."""
    new.deck = _exchanged(new.deck, x, y)
    if new.hand_decks:  # a resampled world keeps none
        if len(new.hand_decks) == 1:  # the first hand (hands_played is 1 already once it ended)
            new.initial_deck = _exchanged(new.initial_deck, x, y)
        new.hand_decks = [*new.hand_decks[:-1], _exchanged(new.hand_decks[-1], x, y)]
    new.rng = np.random.default_rng(int(rng.integers(2**63)))
    new.next_hands = []
    new._legal = None
    return new


def swap_hidden(state, player, rng):
    """A copy of ``state`` with hidden cards of ``player``'s view exchanged (an unknown
    card of another hand with a stock card or with another hand's unknown card): the
    same information for ``player``, another true deal, whose deal records
    (``deck``, ``hand_decks``, ``initial_deck``: :func:`_exchanged`) say so, with other
    later deals (``rng``, ``next_hands``).  Crazy Rummy's cards that a table wild stands
    for stay where they are (moved into the hand of the wild's player, the record would
    have it meld the natural card).  None if nothing can be swapped."""
    new = state.clone()
    n = state.num_players
    if hasattr(state, "racks"):
        acting = state.current_player()
        places = [q for q in range(n) if q != player]
        slots = []
        for q in places:
            free = state.racks[q] - (state.chosen if q == acting else 0)
            slots += [("rack", q, int(t)) for t in np.repeat(np.arange(53), free)]
        slots += [("pool", i, t) for i, t in enumerate(state.pool)]
        for _ in range(50):
            a, b = (slots[i] for i in rng.choice(len(slots), 2, replace=False))
            if a[2] != b[2] and (a[0], a[1]) != (b[0], b[1]):
                break
        else:
            return None
        for (kind, where, t), t_new in ((a, b[2]), (b, a[2])):
            if kind == "rack":
                new.racks[where][t] -= 1
                new.racks[where][t_new] += 1
            else:
                new.pool[where] = t_new
        return _rewrite_records(new, a[2], b[2], rng)
    known = known_of(state)
    hidden = []
    for q in range(n):
        if q == player:
            continue
        skip = getattr(state, "must_discard", -1) if q == state.current else -1
        hidden += [("hand", q, c) for c in cards_of(state.hands[q] & ~known[q]) if c != skip]
    if not (isinstance(state.game, RummyGame) and rummy_public_holdings(state)[1]):
        hidden += [("stock", i, c) for i, c in enumerate(state.stock)]
    stood_for = getattr(state, "wild_for", {})
    hidden = [h for h in hidden if h[2] not in stood_for]
    for _ in range(50):
        if len(hidden) < 2:
            return None
        a, b = (hidden[i] for i in rng.choice(len(hidden), 2, replace=False))
        if (a[0], a[1]) != (b[0], b[1]):
            break
    else:
        return None
    for (kind, where, c), c_new in ((a, b[2]), (b, a[2])):
        if kind == "hand":
            new.hands[where] = new.hands[where] & ~(1 << c) | 1 << c_new
        else:
            new.stock[where] = c_new
    return _rewrite_records(new, a[2], b[2], rng)


def scrambled(state, seat, rng, swaps=3):
    """``state`` with ``swaps`` exchanges of hidden cards of ``seat``'s view in a row
    (:func:`swap_hidden`): the same information for ``seat``, another true deal
    (``state`` itself if nothing can move)."""
    for _ in range(swaps):
        new = swap_hidden(state, seat, rng)
        if new is None:
            break
        state = new
    return state
