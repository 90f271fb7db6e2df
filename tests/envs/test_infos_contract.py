"""Infos that stack: every key has one type in every step where it appears, in every variant.

Learners that collect infos into arrays (Tianshou's buffers) fail on a key that is None in
one step and an int in another, or on lists of varying length (the Gin showdown's melds
and lay-offs were such lists).  tests/integration/test_tianshou.py runs Tianshou itself.
"""

import re

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0

CASES = [
    (rummy_v0, {"max_turns": 60}),
    (rummy_v0, {"episode": "game", "target_score": 40, "max_turns": 200}),
    (gin_rummy_v0, {}),
    (gin_rummy_v0, {"episode": "game", "target_score": 30}),
    (crazy_rummy_v0, {"max_turns": 80}),
    (rummikub_v0, {"max_turns": 30}),
    # random racks rarely go out: four hands, not a thousand
    (rummikub_v0, {"episode": "game", "target_score": 20, "max_turns": 30, "max_hands": 4}),
]


def infos_types(module, options, episodes):
    """{key: {type names}} over the infos of every step of random episodes."""
    seen: dict[str, set[str]] = {}
    results: set = set()
    rng = np.random.default_rng(0)
    for seed in range(episodes):
        env = module.env(**options)
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            for a in env.agents:
                for key, value in env.infos[a].items():
                    seen.setdefault(key, set()).add(type(value).__name__)
            legal = np.flatnonzero(obs["action_mask"])
            # half the moves the highest id (Gin's knocks, melds before discards): showdowns come soon
            move = None if termination or truncation else int(legal[-1] if rng.random() < 0.5 else rng.choice(legal))
            env.step(move)
            results.update(info.get("result") for info in env.infos.values())
    return seen, results


@pytest.mark.parametrize("module, options", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_every_infos_key_keeps_one_scalar_type(module, options):
    seen, results = infos_types(module, options, episodes=4)
    if module is gin_rummy_v0:  # the showdown's texts and numbers are among the infos checked
        assert {"knock", "gin", "undercut"} & results, results
    assert {"hand_score", "total_score", "hand", "winner"} <= set(seen)
    for key, types in seen.items():
        assert len(types) == 1 and types <= {"int", "float", "str", "bool"}, (key, types)
    # Rummikub's scores are floats: a shared win of R-RK-11 can split a part (20.5)
    score_type = {"float"} if module is rummikub_v0 else {"int"}
    assert seen["winner"] == {"str"} and seen["hand_score"] == seen["total_score"] == score_type


def test_gin_infos_without_a_showdown_are_empty_texts_and_minus_one():
    env = gin_rummy_v0.env(max_turns=2)  # truncated after two turns: no knock, no showdown
    env.reset(seed=1)
    while env.agents and not any(env.truncations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    info = env.infos["player_0"]
    assert info["result"] == "truncated" and info == env.infos["player_1"] | {"game_bonus": 0}
    assert (info["winner"], info["knocker"], info["knocker_melds"], info["defender_melds"], info["layoffs"]) == (
        ("",) * 5
    )
    assert (info["knocker_deadwood"], info["defender_deadwood"]) == (-1, -1)
    assert (info["knocker_deadwood_cards"], info["defender_deadwood_cards"]) == ("", "")


#: the words of an env docstring's Infos section for the types the infos hold
TYPE_WORDS = {"ints": "int", "floats": "float", "bool": "bool", "bools": "bool", "strings": "str"}


@pytest.mark.parametrize("module, options", CASES[::2] + [CASES[1]], ids=lambda c: getattr(c, "__name__", str(c)))
def test_the_docstring_names_the_types_the_infos_hold(module, options):
    # the Infos section's "(ints, bools and strings: no None, ...)": Gin and Crazy Rummy listed
    # bools, which none of their keys is, and docs/envs/index.md left out basic Rummy's bool
    sentence = re.search(r"one type in every step where it appears \(([^:]*):", module.__doc__).group(1)
    named = {TYPE_WORDS[word] for word in re.findall(r"[a-z]+", sentence) if word in TYPE_WORDS}
    seen, _ = infos_types(module, options, episodes=2)
    assert named == set().union(*seen.values()), (sentence, seen)
