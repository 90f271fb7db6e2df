"""``pimc:rollout=fast`` on Crazy Rummy: the compiled playout policy plays legal moves,
the agent is blind to hidden cards, and it sheds a wild card where the heuristic keeps it."""

import numpy as np
import pytest

from agents import make_agent
from agents.search import PIMCAgent, crazy_fast, crazy_plan
from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import NUM_CARDS, card_str, parse_cards
from rummy_env.games.crazy_rummy import stack_deck
from rummy_env.games.crazy_rummy.state import CrazyRummyGame
from rummy_env.vector import crazy_kernel as ck
from rummy_env.vector import crazy_world
from tests.games.resample_helpers import swap_hidden
from tests.helpers import whole


def _legal_ids(words):
    return [64 * w + a for w in range(words.shape[0]) for a in range(64) if int(words[w]) >> a & 1]


def _kind(action):
    if action >= ck.SWAP:
        return "swap"
    if action >= ck.LAYOFF:
        return "layoff"
    return "meld" if action >= ck.MELD else "draw" if action >= ck.DRAW_STOCK else "discard"


@pytest.mark.parametrize("players", [3, 5])
def test_compiled_crazy_heuristic_picks_the_python_heuristics_actions(players):
    env = crazy_rummy_v0.env(num_players=players)
    heuristic = make_agent("heuristic", env)
    cfg = crazy_world.config_vector(env.unwrapped.game.config)
    arrays = crazy_world.arrays(1)
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    rng = np.random.default_rng(players)
    checked, kinds = 0, set()
    for seed in range(25):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
            obs = env.observe(env.agent_selection)
            expected = int(heuristic.act(obs))
            if np.count_nonzero(obs["action_mask"]) > 1:
                crazy_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
                ints, masks, _, pile, legal = arrays
                # style and players given, as the searches do: numba compiles a call that leaves
                # defaulted arguments out as a version of its own
                assert crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, 0, 0) == expected
                kinds.add(_kind(expected))
                checked += 1
            legal_ids = np.flatnonzero(obs["action_mask"])
            env.step(expected if rng.random() < 0.8 else int(rng.choice(legal_ids)))
    assert checked > 500 and kinds == {"swap", "layoff", "meld", "draw", "discard"}


@pytest.mark.parametrize("players", [3, 6])
def test_the_compiled_policy_plays_legal_moves_to_the_end_of_the_round(players):
    game = CrazyRummyGame(num_players=players)
    cfg = crazy_world.config_vector(game.config)
    ints, masks, stock, pile, legal = arrays = crazy_world.arrays(1)
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    kinds, ends = set(), {"out": 0, "stock": 0}
    for seed in range(30):
        state = game.new_initial_state(rng=seed)
        crazy_world.load_state(state, 0, *arrays, cfg)
        while ints[0, ck.ENDED] == ck.LIVE:
            action = crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, 0, 0)
            assert action in _legal_ids(legal[0])
            state.apply_action(int(action))  # the reference engine agrees it is legal
            kinds.add(_kind(action))
            ck.apply(0, action, ints, masks, stock, pile, cfg)
            ck.compute_legal(0, ints, masks, legal, cfg)
        assert (
            state.is_terminal()
            and ints[0, ck.PENALTY : ck.PENALTY + players].tolist() == state.last_hand["hand_scores"]
        )
        ends["out" if state.last_hand["winner"] >= 0 else "stock"] += 1
    assert kinds == {"swap", "layoff", "meld", "draw", "discard"} and ends["out"] > 0
    assert ends["stock"] > 0 or players == 3  # 3 players: 30 cards of stock, someone goes out first


def test_fast_rollouts_are_the_crazy_rummy_default():
    env = crazy_rummy_v0.env(num_players=3)
    agent = make_agent("pimc", env, seed=0)
    assert isinstance(agent, PIMCAgent) and agent.compiled is not None and agent.worlds == 500
    assert make_agent("pimc:rollout=heuristic", env).compiled is None


@pytest.mark.parametrize("name", ["pimc:worlds=60", "pimc:worlds=60,playout_style=hold_wilds"])
def test_fast_crazy_decisions_do_not_change_when_hidden_cards_are_permuted(name):
    env = crazy_rummy_v0.env(num_players=3)
    heuristic = make_agent("heuristic", env)
    checked = 0
    for seed in range(30):
        env.reset(seed=seed)
        for _ in range(5 + 9 * seed % 40):
            if env.terminations[env.agent_selection]:
                break
            env.step(heuristic.act(env.observe(env.agent_selection)))
        if env.terminations[env.agent_selection]:
            continue
        obs = env.observe(env.agent_selection)
        if np.count_nonzero(obs["action_mask"]) < 3:
            continue
        raw = env.unwrapped
        seat = raw.game_state.current_player()
        before = make_agent(name, env, seed=4).act(obs)
        for k in range(3):
            swapped = swap_hidden(raw.game_state, seat, np.random.default_rng(k))
            assert swapped is not None
            raw.game_state = swapped  # another true deal, the same information
            assert make_agent(name, env, seed=4).act(obs) == before
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def _last_draw_position():
    """Fives wild.  player_0 melds 7H 8H 9H and discards QD, keeping the wild 5S and KC
    6D 2S; then every player draws the stock and discards the card drawn until player_0
    draws the stock's last card, JD: the round ends with its turn (R-CRAZY-11).  The
    other hands hold 31 points each."""
    hands = ["7H 8H 9H 5S KC 6D 2S QD", "AC 2C 3D 4H 6C 7D 8S", "AD 2H 3S 4C 6S 7C 8D"]
    named = set(parse_cards(" ".join(hands))) | set(parse_cards("JD"))
    stock = [card_str(c) for c in range(NUM_CARDS) if c not in named] + ["JD"]
    env = crazy_rummy_v0.env(num_players=3, wild_rank=5)
    env.reset(options={"deck": stack_deck(hands, stock=stock, dealer=2), "dealer": 2})
    raw = env.unwrapped
    env.step(raw.string_to_action("meld 7H 8H 9H"))
    env.step(raw.string_to_action("discard QD"))
    while True:
        state = raw.game_state
        held = state.hands[state.current]
        env.step(raw.string_to_action("draw stock"))
        if not state.stock:
            return env
        drawn = (state.hands[state.current] & ~held).bit_length() - 1
        env.step(raw.string_to_action(f"discard {card_str(drawn)}"))


def _finish_turn(env, agent):
    raw = env.unwrapped
    while env.agent_selection == "player_0" and not raw.game_state.is_terminal():
        env.step(agent.act(env.observe("player_0")))
    return raw.game_state.last_hand


def test_the_search_lays_off_its_wild_card_on_the_rounds_last_turn_where_the_heuristic_keeps_it():
    kept = _finish_turn(_last_draw_position(), make_agent("heuristic", crazy_rummy_v0.env(num_players=3)))
    assert kept["hand_scores"] == [43, 31, 31] and kept["winner"] == -1  # 5S KC 6D 2S: 25 + 10 + 6 + 2
    env = _last_draw_position()
    obs = env.observe("player_0")
    action = make_agent("pimc", env, seed=1).act(obs)
    # the 5S stands for 6H (layoff TH high would do as well): the seeded search's exact choice
    assert env.unwrapped.action_to_string(action) == "layoff 6H low"
    env.step(action)
    shed = _finish_turn(env, make_agent("pimc", env, seed=1))
    assert env.unwrapped.action_to_string(env.unwrapped.game_state.history[-1]) == "discard KC"
    assert shed["hand_scores"] == [18, 31, 31]  # 6D JD 2S kept (6 + 10 + 2): the lowest penalty


def _play_round(state, cfg, seat, style, by_hand=False):
    """The round from ``state`` to its end in a kernel row: by ``play_out`` (``seat`` in
    ``style``), or step by step with ``heuristic_action`` (the same rule spelled out)."""
    ints, masks, stock, pile, legal = arrays = crazy_world.arrays(1)
    crazy_world.load_state(state, 0, *arrays, cfg)
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    if not by_hand:
        crazy_fast.play_out(0, ints, masks, stock, pile, legal, cfg, 400, *memo, seat, style)
        return ints[0].copy(), masks[0].copy()
    for _ in range(400):
        if ints[0, ck.ENDED] != ck.LIVE:
            break
        own = style if ints[0, ck.CUR] == seat else 0
        action = crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, own, int(cfg[ck.C_PLAYERS]))
        ck.apply(0, action, ints, masks, stock, pile, cfg)
        ck.compute_legal(0, ints, masks, legal, cfg)
    return ints[0].copy(), masks[0].copy()


def test_playouts_play_the_searching_seats_style_and_the_default_for_the_others():
    game = CrazyRummyGame(num_players=3)
    cfg = crazy_world.config_vector(game.config)
    changed = 0
    for seed in range(12):
        state = game.new_initial_state(rng=seed)
        default = _play_round(state, cfg, 1, 0)
        held = _play_round(state, cfg, 1, crazy_fast.HOLD_WILDS)
        by_hand = _play_round(state, cfg, 1, crazy_fast.HOLD_WILDS, by_hand=True)
        assert all(np.array_equal(a, b) for a, b in zip(held, by_hand, strict=True))
        assert held[0][ck.ENDED] != ck.LIVE
        changed += not all(np.array_equal(a, b) for a, b in zip(default, held, strict=True))
    assert changed >= 3  # the style changes how seat 1 plays its rounds


def test_playout_style_is_a_crazy_rummy_style_of_the_compiled_playouts():
    env = crazy_rummy_v0.env(num_players=3)
    assert make_agent("pimc:playout_style=hold_wilds", env).style_id == crazy_fast.HOLD_WILDS
    assert make_agent("pimc", env).style_id == 0
    with pytest.raises(
        ValueError,
        match=whole(
            "playout_style=wild: style 'wild' is not a style of the crazy_rummy_v0 heuristic: "
            "styles are default, hold_wilds, shed_high, defensive, hold_wilds_safe"
        ),
    ):
        make_agent("pimc:playout_style=wild", env)
    with pytest.raises(
        ValueError,
        match=whole(
            "playout_style=hold_wilds: a style of Crazy Rummy's compiled playouts "
            "(rollout=fast), not of crazy_rummy_v0 with rollout=heuristic"
        ),
    ):
        make_agent("pimc:playout_style=hold_wilds,rollout=heuristic", env)
    from rummy_env import gin_rummy_v0

    with pytest.raises(
        ValueError,
        match=whole(
            "playout_style=hold_wilds: a style of Crazy Rummy's compiled playouts "
            "(rollout=fast), not of gin_rummy_v0 with rollout=fast"
        ),
    ):
        make_agent("pimc:playout_style=hold_wilds", gin_rummy_v0.env())


def test_without_numba_the_crazy_champion_plays_without_its_playout_style(monkeypatch):
    from agents.search import fast

    monkeypatch.setattr(fast, "numba_available", lambda: False)
    env = crazy_rummy_v0.env(num_players=3)
    with pytest.warns(UserWarning) as said:
        agent = make_agent("champion", env, seed=0)
    assert [str(w.message) for w in said] == [
        "playout_style=hold_wilds plays in the compiled one-round playouts, which need numba (not installed): "
        "crazy_rummy_v0 searches with rollout=heuristic for every seat instead"
    ]
    assert isinstance(agent, PIMCAgent) and agent.compiled is None and agent.style_id == 0
    with pytest.raises(
        ValueError,
        match=whole(
            "playout_style=hold_wilds: a style of Crazy Rummy's compiled playouts "
            "(rollout=fast), not of crazy_rummy_v0 with rollout=heuristic"
        ),
    ):
        make_agent("pimc:rollout=heuristic,playout_style=hold_wilds", env)
