"""``pimc:model=mix`` (Gin Rummy): worlds weighted by a mixture over the heuristic's
styles, each style's fit to the opponent's decisions read from the public history with
what the style read when it decided (the stock's size, the cards known, the pile)."""

import numpy as np
import pytest

from agents import make_agent
from agents.gin_heuristic import STYLES
from agents.search import gin_fast
from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.core.cards import parse_cards
from rummy_env.games.gin_rummy.state import DISCARD
from tests.agents.test_search_fast import _gin_opponent_game
from tests.helpers import whole


def _mask(cards):
    return sum(1 << c for c in parse_cards(cards))


def _hand(style, seed, stop_turns=None):
    """A Gin hand of seed ``seed``: the default heuristic as player_0, the heuristic in
    ``style`` as player_1.  Returns the env (stopped at player_0's first decision of
    two or more moves after ``stop_turns`` opponent records, or at the end of the hand:
    None then if ``stop_turns`` was given) and player_1's (11-card hand, card taken from
    the pile or -1) at each of its discards."""
    env = gin_rummy_v0.env()
    env.reset(seed=seed)
    agents = [make_agent("heuristic", env), make_agent(f"heuristic:style={style}", env)]
    truth = []
    while not env.terminations[env.agent_selection]:
        seat = env.possible_agents.index(env.agent_selection)
        state = env.unwrapped.game_state
        if seat == 1 and state.phase == DISCARD:
            truth.append((state.hands[1], state.taken))
        many = len(state.legal_actions()) > 1
        if stop_turns is not None and seat == 0 and many and len(gin_fast.opponent_records(state, 0)[0]) >= stop_turns:
            return env, truth
        env.step(int(agents[seat].act(env.observe(env.agent_selection))))
    return (None if stop_turns is not None else env), truth


def test_the_opponents_context_of_a_stacked_hand():
    # player_1 deals; both pass KH, player_0 draws 8D and discards QS; player_1 leaves QS,
    # draws 5S, discards JS; player_0 draws TD, discards JH; player_1 leaves JH, draws 4H
    # and discards TH
    state = _gin_opponent_game().unwrapped.game_state
    stocks, knowns, piles = gin_fast.opponent_context(state, 0)
    assert stocks.tolist() == [30, 29, 27]
    assert knowns.tolist() == [0, 0, 0]
    assert piles.tolist() == [_mask("KH"), _mask("KH QS"), _mask("KH QS JS JH")]


@pytest.mark.parametrize("style", STYLES)
def test_each_opponent_discard_is_its_styles_choice_in_its_recorded_context(style):
    s = STYLES.index(style)
    checked = 0
    for seed in range(10):
        env, truth = _hand(style, seed)
        state = env.unwrapped.game_state
        ups, tooks, discards, _ = gin_fast.opponent_records(state, 0)
        stocks, knowns, piles = gin_fast.opponent_context(state, 0)
        drew = [j for j in range(len(ups)) if discards[j] >= 0]
        assert len(drew) == len(truth)
        for (hand, taken), j in zip(truth, drew, strict=True):
            choice = gin_fast.discard_phase_choice(
                np.uint64(hand), taken, state.knock_limit, True, s, stocks[j], knowns[j], piles[j]
            )
            assert choice == discards[j]
            checked += 1
    assert checked > 30


def test_the_style_posterior_moves_to_the_style_that_played():
    """Seed 10, four opponent turns: each of the styles that played differently there
    gets the most weight (the gin hunter plays as the default until it could knock)."""
    posteriors = {}
    for style in ("default", "defensive", "upcard_meld_only"):
        env, _ = _hand(style, 10, stop_turns=4)
        agent = make_agent("pimc:model=mix,worlds=60", env, seed=0)
        assert agent.posterior is None
        agent.act(env.observe(env.agent_selection))
        posteriors[style] = agent.posterior
        assert agent.posterior.shape == (4,) and agent.posterior.sum() == pytest.approx(1.0)
    # the seeded search's posteriors over (default, gin_hunter, defensive, upcard_meld_only)
    expected = {
        "default": [0.34119575911055344, 0.3383106469705169, 0.10696327859799544, 0.2135303153209342],
        "defensive": [0.14170535445104923, 0.14217558569311078, 0.6240484933371261, 0.09207056651871394],
        "upcard_meld_only": [0.16185541276114285, 0.12492777031588419, 0.02445560918363554, 0.6887612077393375],
    }
    for style, posterior in posteriors.items():
        assert posterior.tolist() == pytest.approx(expected[style], rel=1e-6)
    # what the figures show: the style that played gets the most weight, more than the others
    # give it, and above the prior 0.25 ...
    for style, posterior in posteriors.items():
        s = STYLES.index(style)
        assert posterior[s] > 0.25
        for other in posteriors:
            if other != style:
                assert posterior[s] > posterior[STYLES.index(other)]
                assert posterior[s] > posteriors[other][s]
    # ... and after the default's turns the weight stays on the two styles that played alike
    default = posteriors["default"]
    assert default[0] + default[1] > 0.6


def test_the_style_mixture_does_not_peek():
    from tests.games.resample_helpers import swap_hidden

    env, _ = _hand("upcard_meld_only", 10, stop_turns=4)
    raw = env.unwrapped
    obs = env.observe(env.agent_selection)
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    agent = make_agent("pimc:model=mix,worlds=30", env, seed=4)
    before = agent.act(obs)
    posterior = agent.posterior.tolist()
    values = make_agent("pimc:model=mix,worlds=30", env, seed=4).action_values(raw.game_state, 0, legal)
    for k in range(3):
        raw.game_state = swap_hidden(raw.game_state, 0, np.random.default_rng(k))
        again = make_agent("pimc:model=mix,worlds=30", env, seed=4)
        assert again.act(obs) == before
        assert again.posterior.tolist() == posterior
        twin = make_agent("pimc:model=mix,worlds=30", env, seed=4)
        assert twin.action_values(raw.game_state, 0, legal).tolist() == values.tolist()


def test_model_mix_is_an_option_of_gin_fast_playouts_only():
    env = gin_rummy_v0.env()
    agent = make_agent("pimc:model=mix", env)
    assert agent.style_prior.tolist() == [0.25] * 4
    with pytest.raises(
        ValueError, match=whole("model=mix weighs the worlds of rollout=fast only (rollout='heuristic')")
    ):
        make_agent("pimc:model=mix,rollout=heuristic", env)
    with pytest.raises(ValueError, match=whole("agent 'pimc:model=mixed': model='mixed' is not a number or mix")):
        make_agent("pimc:model=mixed", env)
    with pytest.raises(
        ValueError, match=whole("model=mix: worlds are weighted by the opponent's decisions in Gin Rummy only")
    ):
        make_agent("pimc:model=mix", rummy_v0.env())
