"""Exact values of the ``crazy_out`` and ``crazy_discard`` input features
(agents.crazy_features) on known positions, and a model widened to them
(agents.torch_policy.widen_inputs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.base import plane_mask
from agents.crazy_features import CRAZY_DISCARD_SIZE, CRAZY_OUT_SIZE, crazy_discard_features, crazy_out_features
from agents.crazy_heuristic import CrazyRummyHeuristicAgent
from agents.crazy_planner import layoff_spots
from agents.policy_features import FEATURES, Featurizer
from agents.styles import KNOWN_WEIGHT, PARTNERS, danger
from agents.torch_policy import ActorCritic, widen_inputs
from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import CARD_VALUE_LIST
from rummy_env.core.cards import parse_card as card_id
from rummy_env.games.crazy_rummy import stack_deck
from rummy_env.games.crazy_rummy.hands import WILD_PENALTY, wild_cards
from tests.helpers import play, scripted_env, whole

OTHERS = ["AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]
LAYOFF, OUT, CARDS = 3, 6, 7  # entries: lay off a held card, discard the last card, the move's cards


def deal(first_hand, stock=(), wild_rank=5):
    return scripted_env(
        crazy_rummy_v0, stack_deck([first_hand, *OTHERS], stock=stock, dealer=2), 2, wild_rank=wild_rank
    )


def features(env) -> np.ndarray:
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    return crazy_out_features(obs, env.unwrapped.layout)[0]


def expected(*entries: int) -> list[float]:
    x = np.zeros(CRAZY_OUT_SIZE, np.float32)
    x[list(entries)] = 1
    return x.tolist()


def test_the_first_move_of_a_go_out_plan_is_named_with_its_card():
    env = deal("7S 8S 5C 2H 3H 4H KD QC", stock=["4C"])
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD")  # 5C stands for 9S
    play(env, "draw stock", "meld AC 2C 3C")  # player_1: 4C TD JD 6H 9S
    # the heuristic goes out by "layoff 4C high", "swap 9S", "meld 9D TD JD", "discard 6H"
    # (tests/agents/test_crazy_heuristic.py; R-CRAZY-07 lay-offs and swaps, R-CRAZY-09 going out): go out (0),
    # lay off (3) the card 4C
    assert features(env).tolist() == expected(0, LAYOFF, CARDS + card_id("4C"))


def test_the_draw_phase_flags_a_top_discard_worth_taking():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")  # fives wild
    play(env, "meld 6S 7S 8S", "meld 2H 3H 4H", "discard 5D")
    # R-CRAZY-02 fives wild, R-CRAZY-07 a lay-off once melded in the same turn:
    # player_1 (AC 2C 3C 9S TD JD 6H, not melded) takes the wild 5D and goes out: meld AC 2C 3C,
    # lay off 9S on 6S 7S 8S, meld TD JD with 5D, discard 6H; the wild card is worth taking (1)
    assert features(env).tolist() == expected(0, 1)
    play(env, "draw discard", "meld AC 2C 3C")
    assert features(env).tolist() == expected(0, LAYOFF, CARDS + card_id("9S"))


def test_a_last_card_that_may_go_is_the_plan_and_a_forbidden_one_is_none():
    layout = crazy_rummy_v0.env().unwrapped.layout
    obs = np.zeros((2, layout.size), np.float32)
    obs[:, layout.offset("phase") + 1] = 1  # play phase
    obs[:, layout.offset("wild_rank") + 4] = 1  # fives wild
    obs[:, layout.offset("hand") + card_id("KD")] = 1
    obs[1, layout.offset("forbidden") + card_id("KD")] = 1  # R-CRAZY-08: taken from the pile this turn
    x = crazy_out_features(obs, layout)
    assert x[0].tolist() == expected(0, OUT, CARDS + card_id("KD"))
    assert x[1].tolist() == expected()
    obs[:, layout.offset("phase") + 1] = 0  # the episode is over: nothing
    assert not crazy_out_features(obs, layout).any()


@pytest.mark.parametrize(
    ("name", "base", "extra", "hand", "other_variant"),
    [
        ("crazy_out", "meld_opp", crazy_out_features, "6S 7S 8S 2H 3H 4H KD 5D", "gin_rummy_v0"),
        ("crazy_discard", "crazy_out", crazy_discard_features, "KD QD KH QH 2H 3H 8S 7S", "rummy_v0"),
    ],
)
def test_a_crazy_feature_set_is_its_base_followed_by_its_own_entries(name, base, extra, hand, other_variant):
    env = deal(hand)
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    layout = env.unwrapped.layout
    wide = Featurizer(name, "crazy_rummy_v0", layout)(obs)
    narrow = Featurizer(base, "crazy_rummy_v0", layout)(obs)
    own = extra(obs, layout)
    assert FEATURES[name] == FEATURES[base] + own.shape[1] and own.shape[1] in (CRAZY_OUT_SIZE, CRAZY_DISCARD_SIZE)
    assert wide.shape == (1, layout.size + FEATURES[name])
    assert np.array_equal(wide[:, : narrow.shape[1]], narrow)
    assert np.array_equal(wide[0, narrow.shape[1] :], own[0])
    features = {"gin_rummy_v0": "none, meld, gin, meld_opp, gin_opp, gin_read", "rummy_v0": "none, meld, meld_opp"}
    message = f"features '{name}' do not apply to {other_variant}: its features are {features[other_variant]}"
    with pytest.raises(ValueError, match=whole(message)):
        Featurizer(name, other_variant, layout)

    class Shifted:  # a layout whose wild_S plane does not follow wild_H
        def offset(self, field):
            return layout.offset(field) + (field == "wild_S")

    with pytest.raises(ValueError, match=whole("the layout's wild_C..wild_S planes must follow each other")):
        extra(obs, Shifted())


def test_a_widened_model_computes_what_the_model_did():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")
    layout = env.unwrapped.layout
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    torch.manual_seed(0)
    model = ActorCritic(layout.size, 631, (16, 8), "meld_opp")
    model.update_normalizer(torch.rand(64, layout.size + FEATURES["meld_opp"]))
    wide = widen_inputs(model, "crazy_out")
    assert wide.features == "crazy_out" and wide.trunk[0].weight.shape == (16, layout.size + 635)
    assert not wide.trunk[0].weight[:, -CRAZY_OUT_SIZE:].any()
    before = model(torch.from_numpy(Featurizer("meld_opp", "crazy_rummy_v0", layout)(obs)))
    after = wide(torch.from_numpy(Featurizer("crazy_out", "crazy_rummy_v0", layout)(obs)))
    # the same sums but for the zero terms (float rounding of the longer dot products aside)
    torch.testing.assert_close(after, before, rtol=0, atol=1e-6)
    with pytest.raises(
        ValueError,
        match=whole(
            "features 'gin' do not extend the model's 'meld_opp' (extensions: gin of meld, "
            "gin_opp of gin, gin_read of gin_opp, crazy_out of meld_opp, crazy_discard of "
            "crazy_out, rk_plan of rk_out)"
        ),
    ):
        widen_inputs(model, "gin")
    with pytest.raises(
        ValueError,
        match=whole(
            "features 'meld_opp' do not extend the model's 'meld_opp' (extensions: gin of "
            "meld, gin_opp of gin, gin_read of gin_opp, crazy_out of meld_opp, crazy_discard "
            "of crazy_out, rk_plan of rk_out)"
        ),
    ):
        widen_inputs(model, "meld_opp")


# ---------------------------------------------------------------- crazy_discard


def discard_features(env) -> np.ndarray:
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    return crazy_discard_features(obs, env.unwrapped.layout)[0]


def discard_expected(links: dict, risk: dict, pick: str) -> list[float]:
    x = np.zeros(CRAZY_DISCARD_SIZE, np.float32)
    for name, n in links.items():
        x[card_id(name)] = n / 7
    for name, n in risk.items():
        x[52 + card_id(name)] = n / 8
    x[104 + card_id(pick)] = 1
    return x.tolist()


def test_the_discard_terms_of_a_hand_where_every_card_has_partners():
    # tests/agents/test_styles_scripted.py: hold_wilds_safe sheds 8S; fives wild (R-CRAZY-02),
    # player_0 starts with 8 cards and no draw (R-CRAZY-06), nothing on the discard pile
    env = deal("KD QD KH QH 2H 3H 8S 7S")
    links = {"KD": 2, "QD": 2, "KH": 2, "QH": 2, "2H": 1, "3H": 1, "8S": 1, "7S": 1}
    assert discard_features(env).tolist() == discard_expected(links, {}, "8S")


def test_the_discard_terms_read_the_next_players_pick_and_the_pile():
    env = deal("KH 9H 8D QH 4H 8H 4S JH", stock=["QS", "QD"])
    play(env, "discard KH", "draw discard", "discard 9S", "draw stock", "discard KC", "draw stock")
    # player_1 took KH and holds it: QH and JH (same suit, one and two ranks away) are worth 2
    # to it; 9H is next to 9S on the pile (-1).  Partners among the hand's natural cards:
    # 9H (8H, JH), QH (JH, QD), 8H (9H, 8D), JH (9H, QH) two, the others one; of those QD has
    # the highest penalty (R-CRAZY-12), the card the test of the style sheds
    links = {"9H": 2, "8D": 1, "QH": 2, "4H": 1, "8H": 2, "4S": 1, "JH": 2, "QD": 1}
    assert discard_features(env).tolist() == discard_expected(links, {"9H": -1, "QH": 2, "JH": 2}, "QD")


def test_the_discard_pick_keeps_to_the_legal_discards_and_the_next_players_lay_offs():
    layout = crazy_rummy_v0.env().unwrapped.layout
    obs = np.zeros((5, layout.size), np.float32)
    obs[:, layout.offset("phase") + 1] = 1  # play phase
    obs[:, layout.offset("wild_rank") + 4] = 1  # fives wild
    for name in ("9S", "3C", "2D"):  # no two of them make a partial meld
        obs[:, layout.offset("hand") + card_id(name)] = 1
    for name in ("6S", "7S", "8S"):  # on the table: 9S would lay off on it (R-CRAZY-07)
        obs[1:, layout.offset("table_natural") + card_id(name)] = 1
    obs[2:, layout.offset("melded") + 1] = 1  # the next player has melded: 9S is worth 2 to it
    obs[3, layout.offset("forbidden") + card_id("3C")] = 1  # taken from the pile this turn (R-CRAZY-08)
    obs[4, layout.offset("must_discard") + card_id("2D")] = 1  # R-CRAZY-10
    x = crazy_discard_features(obs, layout)
    assert np.flatnonzero(x[:, 104:]).tolist() == [
        i * 52 + card_id(c) for i, c in enumerate(("9S", "9S", "3C", "2D", "2D"))
    ]
    assert x[:, 52 + card_id("9S")].tolist() == [0, 0, 0.25, 0.25, 0.25]
    assert not x[:, :52].any()
    obs[:, layout.offset("phase") + 1] = 0
    obs[:, layout.offset("phase")] = 1  # draw phase: nothing
    assert not crazy_discard_features(obs, layout).any()


def test_wild_cards_are_kept_and_a_wild_card_on_the_table_makes_a_lay_off_spot():
    layout = crazy_rummy_v0.env().unwrapped.layout
    obs = np.zeros((5, layout.size), np.float32)
    obs[:, layout.offset("phase") + 1] = 1  # play phase
    obs[:, layout.offset("wild_rank") + 4] = 1  # fives wild (R-CRAZY-02)
    for name in ("5C", "4C", "9H", "2D"):  # 5C is wild, so 4C has no natural partner
        obs[:, layout.offset("hand") + card_id(name)] = 1
    obs[:, layout.offset("table_natural") + card_id("7H")] = 1
    obs[[0, 1, 3, 4], layout.offset("wild_S") + card_id("8H")] = 1  # 5S stands for 8H (R-CRAZY-05)
    obs[1:, layout.offset("melded") + 1] = 1  # the next player has melded: 9H (after 7H 8H) lays off
    obs[3, layout.offset("forbidden") + card_id("9H")] = 1  # R-CRAZY-08
    obs[4, layout.offset("must_discard") + card_id("5C")] = 1  # R-CRAZY-10: even a wild card
    x = crazy_discard_features(obs, layout)
    # no wild card while a natural one may go: the highest penalty (9H, R-CRAZY-12) unless the
    # next player can lay it off (row 1; row 2 has no wild card standing for 8H, so no spot)
    picks = ("9H", "4C", "9H", "4C", "5C")
    assert np.flatnonzero(x[:, 104:]).tolist() == [i * 52 + card_id(c) for i, c in enumerate(picks)]
    assert x[:, 52 + card_id("9H")].tolist() == [0, 0.25, 0, 0.25, 0.25]
    assert np.flatnonzero(x[:, :52]).tolist() == [i * 52 + card_id("5C") for i in range(5)]
    assert x[0, card_id("5C")] == np.float32(1 / 7)  # the wild card's partner 4C


def reference_discard_terms(obs, legal, layout, agent) -> np.ndarray:
    """The 156 entries from the Python style's own pieces (agents.styles, crazy_planner)."""
    hand = plane_mask(obs[layout.slice("hand")])
    wild_rank = int(np.argmax(obs[layout.slice("wild_rank")]))
    naturals = hand & ~wild_cards(wild_rank)
    known = plane_mask(obs[layout.slice("known_1")])
    pile = plane_mask(obs[layout.slice("top_discard")]) | plane_mask(obs[layout.slice("discard_rest")])
    spots = layoff_spots(agent._table_view(obs, wild_rank)) if obs[layout.offset("melded") + 1] else 0

    def links(c):
        return (PARTNERS[0][c] & naturals).bit_count()

    def risk(c):
        return danger(c, known, pile) + KNOWN_WEIGHT * (spots >> c & 1)

    x = np.zeros(CRAZY_DISCARD_SIZE, np.float32)
    for c in range(52):
        if hand >> c & 1:
            x[c], x[52 + c] = links(c) / 7, risk(c) / 8
    discards = [a for a in legal if a < 52]
    plain = [c for c in discards if c % 13 != wild_rank] or discards
    penalty = [WILD_PENALTY if c % 13 == wild_rank else CARD_VALUE_LIST[c] for c in range(52)]  # R-CRAZY-12
    if plain:
        x[104 + min(plain, key=lambda c: (links(c), risk(c), -penalty[c], -c))] = 1
    return x


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
def test_every_entry_matches_the_python_style_and_the_pick_is_its_discard(num_players):
    rng = np.random.default_rng(num_players)
    checked = picked = 0
    for seed in range(5):
        env = crazy_rummy_v0.env(num_players=num_players)
        env.reset(seed=seed)
        layout = env.unwrapped.layout
        agent = CrazyRummyHeuristicAgent(layout, seed=seed, style="hold_wilds_safe")
        for name in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            action = None
            if not (terminated or truncated):  # the style's play with a random move now and then
                legal = np.flatnonzero(observation["action_mask"]).tolist()
                styled = agent.act(observation, info)
                obs = observation["observation"].astype(np.float32)
                x = crazy_discard_features(obs[None], layout)[0]
                if obs[layout.offset("phase") + 1] > 0:
                    np.testing.assert_allclose(x, reference_discard_terms(obs, legal, layout, agent), atol=1e-7)
                    checked += 1
                    if styled < 52 and not crazy_out_features(obs[None], layout)[0, 0]:  # no plan to go out
                        assert x[104 + styled] == 1, (seed, name)
                        picked += 1
                else:
                    assert not x.any()
                action = int(rng.choice(legal)) if rng.random() < 0.15 else styled
            env.step(action)
    assert checked >= 80 and picked >= 60, (checked, picked)  # play-phase positions, discards without a plan
