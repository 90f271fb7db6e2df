"""The rules engines' own constructors refuse what is not a config or a seed, before any
deal (the envs check their options and seeds themselves: ``tests/envs``)."""

import numpy as np
import pytest

from rummy_env.games.crazy_rummy import CrazyRummyGame
from rummy_env.games.gin_rummy import GinRummyConfig, GinRummyGame
from rummy_env.games.rummikub import RummikubGame
from rummy_env.games.rummy import RummyConfig, RummyGame

GAMES = [RummyGame, GinRummyGame, CrazyRummyGame, RummikubGame]


@pytest.mark.parametrize(
    "game, config, name",
    [
        (RummyGame, {"num_players": 3}, "dict"),
        (GinRummyGame, RummyConfig(), "RummyConfig"),
        (RummyGame, GinRummyConfig(), "GinRummyConfig"),
    ],
)
def test_a_config_of_another_class_is_refused(game, config, name):
    want = game.config_class.__name__
    message = f"config must be a {want}, got {name}: pass a {want}(...) or its fields as keyword options"
    with pytest.raises(TypeError) as err:
        game(config)
    assert str(err.value) == message


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("rng", [-1, 1.5, True, np.bool_(False), "3", [3]])
def test_a_seed_that_is_no_int_or_negative_is_refused(game, rng):
    message = f"rng={rng!r} is not a seed: rng must be None or an int >= 0 (or a numpy.random.Generator)"
    with pytest.raises(ValueError) as err:
        game().new_initial_state(rng=rng)
    assert str(err.value) == message


@pytest.mark.parametrize("game", GAMES)
def test_an_int_seed_of_any_integer_type_deals_as_its_generator(game):
    state = game().new_initial_state(rng=np.int64(3))
    same = game().new_initial_state(rng=np.random.default_rng(3))
    assert list(state.initial_deck) == list(same.initial_deck) and state.current_player() == same.current_player()
