"""``champion``: a registry name for each variant's strongest agent, built as the agent its
table names."""

import warnings

import pytest

from agents import make_agent
from agents.champion import CHAMPIONS, GAME_CHAMPIONS, ROOT, champion_name
from agents.registry import same_agent
from agents.search import PIMCAgent
from agents.search.rummikub_plan import RummikubPlanAgent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from tests.helpers import whole


def settings(agent) -> dict:
    """The agent's plain settings (numbers, names; not its generators or models)."""
    return {k: v for k, v in vars(agent).items() if isinstance(v, (int, float, str, tuple, type(None)))}


# the settings each champion name builds (the README's and docs/agents.md's descriptions)
EXPECTED = {
    "rummy_v0": ("PIMCAgent", {"worlds": 600, "playouts": 12000, "model": 1.0, "prior": 0.0, "playout_style": None}),
    "gin_rummy_v0": (
        "PIMCAgent",
        {"worlds": 500, "playouts": 8000, "model": 0.2, "prior": 0.05, "playout_style": None},
    ),
    "crazy_rummy_v0": (
        "PIMCAgent",
        {"worlds": 500, "playouts": 6000, "model": 1.0, "prior": 0.0, "playout_style": "hold_wilds"},
    ),
    "rummikub_v0": (
        "RummikubPlanAgent",
        {"worlds": 3, "candidates": 4, "late": 4, "rollout": "patient", "model": "mix", "prior": 0.1},
    ),
}


@pytest.mark.parametrize("module", [rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0])
def test_every_variant_has_a_champion_built_from_its_table_entry(module):
    env = module.env()
    variant = env.unwrapped.metadata["name"]
    agent = make_agent("champion", env, seed=3)
    twin = make_agent(champion_name(variant), env, seed=3)
    assert type(agent) is type(twin) and settings(agent) == settings(twin)
    cls, expected = EXPECTED[variant]
    assert type(agent).__name__ == cls
    assert {k: settings(agent)[k] for k in expected} == expected
    assert set(CHAMPIONS) == {"rummy_v0", "gin_rummy_v0", "crazy_rummy_v0", "rummikub_v0"}


def test_the_gin_champion_is_the_mixture_search_guided_by_the_league_model(monkeypatch, tmp_path):
    league = ROOT / "docs/results/selfplay-gin-league/model.pt"
    assert CHAMPIONS["gin_rummy_v0"] == "pimc:model=mix,guide=docs/results/selfplay-gin-league/model.pt,prior=0.05"
    assert champion_name("gin_rummy_v0") == f"pimc:model=mix,guide={league},prior=0.05"
    monkeypatch.chdir(tmp_path)  # the guide is found from any folder
    agent = make_agent("champion", gin_rummy_v0.env(), seed=0)
    assert isinstance(agent, PIMCAgent) and (agent.model, agent.prior, agent.worlds) == (0.2, 0.05, 500)
    assert agent.style_prior is not None and type(agent.guide).__name__ == "PolicyAgent"


def test_the_rummy_crazy_and_rummikub_champions_differ_from_the_panels_pimc():
    rummy = make_agent("champion", rummy_v0.env(), seed=0)
    assert CHAMPIONS["rummy_v0"] == "pimc:worlds=600,playouts=12000"
    assert isinstance(rummy, PIMCAgent) and (rummy.worlds, rummy.playouts, rummy.model) == (600, 12000, 1.0)
    crazy_env = crazy_rummy_v0.env(num_players=3)
    crazy = make_agent("champion", crazy_env, seed=0)
    assert CHAMPIONS["crazy_rummy_v0"] == "pimc:playout_style=hold_wilds"
    assert isinstance(crazy, PIMCAgent) and (crazy.worlds, crazy.model, crazy.style_id) == (500, 1.0, 1)
    assert not same_agent("champion", "pimc:model=1", crazy_env)
    rummikub = make_agent("champion", rummikub_v0.env(), seed=0)
    assert CHAMPIONS["rummikub_v0"] == "pimc:model=mix"
    assert isinstance(rummikub, RummikubPlanAgent) and rummikub.model == "mix"


def test_policy_champions_are_found_from_any_folder(monkeypatch, tmp_path):
    monkeypatch.setitem(CHAMPIONS, "rummy_v0", "policy:docs/results/selfplay-rummy/model.pt")
    monkeypatch.chdir(tmp_path)
    assert champion_name("rummy_v0") == f"policy:{ROOT}/docs/results/selfplay-rummy/model.pt"
    assert not isinstance(make_agent("champion", rummy_v0.env()), PIMCAgent)


def test_a_variant_without_a_champion_is_named_in_the_error():
    with pytest.raises(
        ValueError,
        match=whole(
            "no champion for 'chess_v0': variants with one are gin_rummy_v0, rummy_v0, crazy_rummy_v0, rummikub_v0"
        ),
    ):
        champion_name("chess_v0")


def test_a_model_without_torch_is_a_value_error_with_the_install_command(monkeypatch, tmp_path):
    import shutil
    import sys

    model = tmp_path / "league.pt"  # a file no earlier test loaded (models are cached per file)
    shutil.copy(ROOT / "docs/results/selfplay-gin-league/model.pt", model)
    monkeypatch.setitem(sys.modules, "agents.torch_policy", None)  # as if torch were not installed
    hint = f"policy file {str(model)!r} needs the train extra (import of agents.torch_policy halted; "
    hint += 'None in sys.modules): pip install torch==2.13.0 && pip install -e ".[train]"'
    env = gin_rummy_v0.env()
    for name in (f"policy:{model}", f"pimc:model=mix,guide={model},prior=0.05"):
        with pytest.raises(ValueError) as err:
            make_agent(name, env, seed=0)
        assert str(err.value) == hint


def test_whole_games_of_gin_give_the_same_champion():
    # whole games get the guided search too since its playouts value a hand by its points
    # there (basic Rummy's champion is its search there too: test_search_whole_games); only
    # Crazy Rummy's whole games have a champion of their own
    env = gin_rummy_v0.env(episode="game")
    assert GAME_CHAMPIONS == {"crazy_rummy_v0": "pimc:playout_style=shed_high"}
    assert champion_name("gin_rummy_v0", "game") == champion_name("gin_rummy_v0")
    assert champion_name("rummy_v0", "game") == champion_name("rummy_v0")
    with pytest.raises(ValueError) as err:
        champion_name("gin_rummy_v0", "games")
    assert str(err.value) == "episode='games': a champion plays episode='hand' or 'game'"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = make_agent("champion", env, seed=0)
    assert isinstance(agent, PIMCAgent) and agent.guide is not None and agent.compiled.margin_scale == 50.0
    env.reset(seed=4)  # it plays a whole game's first decisions
    for _ in range(3):
        env.step(agent.act(env.last()[0]))


def test_whole_crazy_rummy_games_get_the_search_that_sheds_high_cards_in_its_playouts():
    env = crazy_rummy_v0.env(num_players=3, episode="game")
    assert champion_name("crazy_rummy_v0", "game") == "pimc:playout_style=shed_high"
    assert champion_name("crazy_rummy_v0") == "pimc:playout_style=hold_wilds"  # single rounds keep theirs
    with pytest.warns(UserWarning) as said:
        agent = make_agent("champion", env, seed=0)
    assert [str(w.message) for w in said] == [
        "champion on crazy_rummy_v0 with episode='game' plays pimc:playout_style=shed_high, "
        "the agent measured on whole games (agents.champion.GAME_CHAMPIONS)"
    ]
    assert isinstance(agent, PIMCAgent) and (agent.worlds, agent.model, agent.style_id) == (500, 1.0, 2)
    assert agent.compiled is not None and agent.compiled.margin_scale == 200.0
    assert same_agent("champion", "pimc:playout_style=shed_high", env)


def test_a_whole_game_champion_of_its_own_is_played_and_said(monkeypatch):
    """A variant listed in GAME_CHAMPIONS gets that agent on whole games, with a warning,
    and keeps its single-hand champion on single hands."""
    monkeypatch.setitem(GAME_CHAMPIONS, "rummy_v0", "heuristic:style=defensive")
    assert champion_name("rummy_v0", "game") == "heuristic:style=defensive"
    with pytest.warns(UserWarning) as said:
        agent = make_agent("champion", rummy_v0.env(episode="game"), seed=0)
    assert [str(w.message) for w in said] == [
        "champion on rummy_v0 with episode='game' plays heuristic:style=defensive, "
        "the agent measured on whole games (agents.champion.GAME_CHAMPIONS)"
    ]
    assert same_agent("champion", "heuristic:style=defensive", rummy_v0.env(episode="game"))
    assert type(agent).__name__ == type(make_agent("heuristic", rummy_v0.env())).__name__
    assert champion_name("rummy_v0") == CHAMPIONS["rummy_v0"]


def test_without_numba_gins_champion_says_what_to_install(monkeypatch):
    """No numba, no compiled playouts: the mixture model cannot weigh worlds, and the
    error names the extra (it named only the rollout)."""
    import warnings

    from agents.search import fast

    monkeypatch.setattr(fast, "numba_available", lambda: False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the search's own warning that the compiled playouts are out
        with pytest.raises(ValueError) as err:
            make_agent("champion", gin_rummy_v0.env())
    assert str(err.value) == (
        "model=mix weighs the worlds of rollout=fast only (rollout='heuristic') "
        '(the compiled playouts need numba, which is not installed: pip install -e ".[fast]")'
    )


def test_the_gin_champion_plays_from_a_checkout_whose_folder_holds_a_comma(monkeypatch, tmp_path):
    import agents.champion

    root = tmp_path / "rummy,env"
    (root / "docs/results/selfplay-gin-league").mkdir(parents=True)
    model = root / "docs/results/selfplay-gin-league/model.pt"
    model.write_bytes((ROOT / "docs/results/selfplay-gin-league/model.pt").read_bytes())
    monkeypatch.setattr(agents.champion, "ROOT", root)
    assert champion_name("gin_rummy_v0") == f'pimc:model=mix,guide="{model}",prior=0.05'
    agent = make_agent("champion", gin_rummy_v0.env(), seed=0)
    assert type(agent.guide).__name__ == "PolicyAgent" and agent.prior == 0.05
