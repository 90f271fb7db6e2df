"""``pimc:...,guide=PATH,prior=X``: a learned policy as the search's prior (its choice gets
``prior`` more value, so the search departs from it only where the worlds agree by more)."""

from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.policy import PolicyAgent
from rummy_env import gin_rummy_v0
from tests.games.resample_helpers import swap_hidden
from tests.helpers import whole

LEAGUE = "docs/results/selfplay-gin-league/model.pt"


def _fourth_decision():
    """Gin hand of seed 0, player_0 played by the league model, player_1 by the heuristic,
    stopped at player_0's fourth decision of two or more moves: a discard where the
    search's 40 worlds (seed 1) value action 38 at 0.956 and the model's choice, 44, at
    0.888."""
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    guide, heuristic = PolicyAgent(LEAGUE), make_agent("heuristic", env)
    seen = 0
    while True:
        obs = env.observe(env.agent_selection)
        seat = env.possible_agents.index(env.agent_selection)
        if seat == 0 and obs["action_mask"].sum() > 1:
            if seen == 3:
                return env, obs
            seen += 1
        env.step(int(guide.act(obs) if seat == 0 else heuristic.act(obs)))


def test_the_search_leaves_the_guides_choice_only_by_more_than_the_prior():
    env, obs = _fourth_decision()
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    assert legal == [1, 18, 20, 21, 22, 23, 34, 35, 38, 44]
    values = make_agent("pimc:model=mix,worlds=40", env, seed=1).action_values(env.unwrapped.game_state, 0, legal)
    assert round(values[legal.index(38)], 3) == 0.956 and round(values[legal.index(44)], 3) == 0.888
    assert PolicyAgent(LEAGUE).act(obs) == 44
    assert make_agent("pimc:model=mix,worlds=40", env, seed=1).act(obs) == 38
    assert make_agent(f"pimc:model=mix,worlds=40,guide={LEAGUE},prior=0.05", env, seed=1).act(obs) == 38
    assert make_agent(f"pimc:model=mix,worlds=40,guide={LEAGUE},prior=0.1", env, seed=1).act(obs) == 44


def test_the_guided_search_does_not_peek():
    env, obs = _fourth_decision()
    raw = env.unwrapped
    for k in range(3):
        raw.game_state = swap_hidden(raw.game_state, 0, np.random.default_rng(k))
        for prior, action in ((0.05, 38), (0.1, 44)):  # the search's choice, the guide's
            assert make_agent(f"pimc:model=mix,worlds=40,guide={LEAGUE},prior={prior}", env, seed=1).act(obs) == action


def test_a_guide_needs_a_prior_and_this_envs_observations():
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    with pytest.raises(
        ValueError,
        match=whole(
            "guide=docs/results/selfplay-gin-league/model.pt: the policy's choice gets the prior bonus; give prior > 0"
        ),
    ):
        make_agent(f"pimc:guide={LEAGUE}", env)
    rummy = "docs/results/selfplay-rummy/model.pt"
    with pytest.raises(ValueError) as err:
        make_agent(f"pimc:guide={rummy},prior=0.1", env)
    assert str(err.value) == (
        f"guide={rummy} was trained on observations of shape (324,) (rummy_v0, options {{}}), this env's are "
        "(485,) (gin_rummy_v0, 2 players): a model plays the variant and number of players it was trained on"
    )
    with pytest.raises(
        ValueError,
        match=whole(
            "policy file 'no/such/model.pt' does not exist: pass the model.zip that "
            "experiments.train wrote or the model.pt of experiments.selfplay"
        ),
    ):
        make_agent("pimc:guide=no/such/model.pt,prior=0.1", env)


def test_a_guide_path_with_a_comma_is_given_in_double_quotes(tmp_path):
    from agents.search import parse_search_spec, quote_option

    folder = tmp_path / "a,b"
    folder.mkdir()
    (folder / "model.pt").write_bytes(Path(LEAGUE).read_bytes())
    path = str(folder / "model.pt")
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    agent = make_agent(f'pimc:model=mix,worlds=40,guide="{path}",prior=0.05', env, seed=1)
    assert type(agent.guide).__name__ == "PolicyAgent" and agent.prior == 0.05
    assert quote_option(path) == f'"{path}"' and quote_option("plain.pt") == "plain.pt"
    for value in ('x"y,z.pt', '"q.pt', 'a"b'):  # a quote inside is doubled; one at the start quotes the value
        assert parse_search_spec(f"pimc:guide={quote_option(value)},prior=0.05")[1] == {"guide": value, "prior": 0.05}
    with pytest.raises(ValueError) as err:
        make_agent(f"pimc:guide={path},prior=0.05", env)  # unquoted: the comma cuts the path
    assert str(err.value) == (
        f"agent 'pimc:guide={path},prior=0.05': 'b/model.pt' is not an option of pimc; write pimc:key=value,... "
        "with keys worlds, rollouts, rollout, depth, prior, playouts, time, model, plan, candidates, late, guide, "
        'halving, playout_style; a value holding a comma goes in double quotes (guide="...")'
    )
    with pytest.raises(ValueError) as err:  # rollout holds no path: no hint to quote it
        parse_search_spec("pimc:rollout=random,x")
    assert str(err.value) == (
        "agent 'pimc:rollout=random,x': 'x' is not an option of pimc; write pimc:key=value,... with keys worlds, "
        "rollouts, rollout, depth, prior, playouts, time, model, plan, candidates, late, guide, halving, "
        "playout_style"
    )
    for bad, message in [
        (
            'pimc:guide="a,b.pt',
            'the value of guide opens a quote that is not closed; write guide="..." with "" for a quote inside',
        ),
        (
            'pimc:guide="a"b.pt,prior=1',
            "text after the closing quote of guide: 'b.pt'; a quoted value ends the option, before a comma or the end",
        ),
        ('pimc:guide="a,b.pt",', "an empty option between commas; write pimc:key=value,..."),
    ]:
        with pytest.raises(ValueError) as err:
            parse_search_spec(bad)
        assert str(err.value) == f"agent {bad!r}: {message}"
