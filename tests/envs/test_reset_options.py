"""Reset options another variant understands are refused, naming this variant's keys
(issue 10, item 7); keys no variant knows stay ignored (PettingZoo's ``api_test``)."""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.envs.driver import RESET_OPTION_NAMES
from tests.helpers import whole

MODULES = [rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0]
#: what each variant's warning about ignored reset keys lists as its reset options
KNOWN = {
    "rummy_v0": "deck, dealer, next_hands",
    "gin_rummy_v0": "deck, dealer, next_hands",
    "crazy_rummy_v0": "deck, dealer, wild_rank, next_hands",
    "rummikub_v0": "deck, first_player, next_hands",
}


def test_the_package_reset_options_are_the_variants_keys():
    assert {name for m in MODULES for name in m.raw_env.reset_option_names} == RESET_OPTION_NAMES


@pytest.mark.parametrize(
    "module, key, message",
    [
        (
            rummikub_v0,
            "dealer",
            "unknown rummikub_v0 reset option(s) 'dealer': known options are deck, first_player, next_hands",
        ),
        (
            rummy_v0,
            "first_player",
            "unknown rummy_v0 reset option(s) 'first_player': known options are deck, dealer, next_hands",
        ),
        (
            gin_rummy_v0,
            "first_player",
            "unknown gin_rummy_v0 reset option(s) 'first_player': known options are deck, dealer, next_hands",
        ),
        (
            crazy_rummy_v0,
            "first_player",
            "unknown crazy_rummy_v0 reset option(s) 'first_player': known options are deck, dealer, "
            "wild_rank, next_hands",
        ),
    ],
)
def test_another_variants_reset_key_is_refused_and_the_env_is_unchanged(module, key, message):
    env = module.env()
    env.reset(seed=5)
    before = env.observe(env.agent_selection)["observation"].copy()
    selection = env.agent_selection
    with pytest.raises(ValueError, match=whole(message)):
        env.reset(seed=6, options={key: 0})
    assert env.agent_selection == selection
    assert np.array_equal(env.observe(env.agent_selection)["observation"], before)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_keys_no_variant_knows_are_ignored_with_a_warning(module):
    env = module.env()
    name = module.__name__.split(".")[-1]
    tail = f"unknown, ignored; its reset options are {KNOWN[name]}"
    with pytest.warns(UserWarning, match=whole(f"{name} reset: option(s) 'options' {tail}")):
        env.reset(seed=1, options={"options": 1})  # PettingZoo's api_test
    with pytest.warns(UserWarning, match=whole(f"{name} reset: option(s) 1, '100%' {tail}")):
        env.reset(seed=1, options={"100%": 1, 1: 0})  # keys as they are, a % in them too
    plain = module.env()
    plain.reset(seed=1)
    assert env.agent_selection == plain.agent_selection
    assert np.array_equal(
        env.observe(env.agent_selection)["observation"], plain.observe(plain.agent_selection)["observation"]
    )


@pytest.mark.parametrize(
    "module, key, message",
    [
        (rummy_v0, "decks", "unknown rummy_v0 reset option(s) 'decks': known options are deck, dealer, next_hands"),
        (
            gin_rummy_v0,
            "Dealer",
            "unknown gin_rummy_v0 reset option(s) 'Dealer': known options are deck, dealer, next_hands",
        ),
        (
            rummikub_v0,
            "first-player",
            "unknown rummikub_v0 reset option(s) 'first-player': known options are deck, first_player, next_hands",
        ),
    ],
)
def test_a_near_miss_of_a_reset_key_is_refused_and_the_env_is_unchanged(module, key, message):
    env = module.env()
    env.reset(seed=5)
    before = env.observe(env.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match=whole(message)):
        env.reset(seed=6, options={key: 0})
    assert np.array_equal(env.observe(env.agent_selection)["observation"], before)
