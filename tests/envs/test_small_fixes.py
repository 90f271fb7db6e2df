"""Issue 10, item 9: option ranges, parse errors quoting the user's text, the docs of
``stack_deck`` and of ``render_mode="human"``."""

import importlib

import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games.crazy_rummy import stack_deck as crazy_stack_deck
from rummy_env.games.gin_rummy import stack_deck as gin_stack_deck
from rummy_env.games.rummikub import stack_pool
from rummy_env.games.rummy import stack_deck as rummy_stack_deck
from tests.helpers import whole

MODULES = [rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0]


@pytest.mark.parametrize("points", [755, 1000])
def test_an_initial_meld_no_rack_can_reach_is_refused(points):
    with pytest.raises(
        ValueError,
        match=whole(
            f"option initial_meld_points={points} is out of range: initial_meld_points must be an int from 0 to 754"
        ),
    ):
        rummikub_v0.env(initial_meld_points=points)
    assert rummikub_v0.env(initial_meld_points=754).unwrapped.game.config.initial_meld_points == 754


@pytest.mark.parametrize("module", [rummy_v0, gin_rummy_v0, crazy_rummy_v0])
def test_a_bad_card_is_quoted_as_written(module):
    write = "write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS', '10S'"
    with pytest.raises(ValueError, match=whole(f"action text 'discard ZZ': card 'ZZ' is not a card: {write}")):
        module.raw_env.string_to_action("discard ZZ")
    # case does not matter for a good card
    assert module.raw_env.string_to_action("discard qh") == module.raw_env.string_to_action("DISCARD QH")


@pytest.mark.parametrize("builder", [rummy_stack_deck, gin_stack_deck, crazy_stack_deck, stack_pool])
def test_every_deck_builder_says_how_to_pass_its_deck_to_reset(builder):
    assert 'env.reset(options={"deck": ' in " ".join(builder.__doc__.split())


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_human_rendering_prints_at_every_reset_and_step_as_documented(module, capsys):
    doc = " ".join(importlib.import_module(module.raw_env.__module__).__doc__.split())
    assert 'render_mode="human"``: the env prints that table itself at every ``reset`` and every ``step``' in doc
    env, twin = module.env(render_mode="human"), module.env(render_mode="ansi")
    env.reset(seed=0)
    twin.reset(seed=0)
    assert capsys.readouterr().out == twin.render() + "\n"  # the ansi table of the same state, printed
    agent = env.agent_selection
    action = int(env.observe(agent)["action_mask"].nonzero()[0][0])
    env.step(action)
    twin.step(action)
    assert capsys.readouterr().out == twin.render() + "\n"
