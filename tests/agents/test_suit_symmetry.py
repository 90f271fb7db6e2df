"""Suit relabelling (agents.suit_symmetry) against the Gin Rummy engine: a deal with its
suits relabelled plays as the original with every card plane and card action relabelled."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policy_features import Featurizer
from agents.suit_symmetry import SUIT_PERMUTATIONS, card_permutation, gin_action_index, input_index
from rummy_env import gin_rummy_v0
from rummy_env.core.cards import card_str, parse_card
from tests.helpers import whole


def test_card_permutation_moves_suits_and_keeps_ranks():
    cards = card_permutation([2, 0, 3, 1])  # C->H, D->C, H->S, S->D
    assert [cards[parse_card(c)] for c in ["AC", "7D", "KH", "TS"]] == [parse_card(c) for c in ["AH", "7C", "KS", "TD"]]
    assert SUIT_PERMUTATIONS.shape == (24, 4) and SUIT_PERMUTATIONS[0].tolist() == [0, 1, 2, 3]
    assert len({tuple(p) for p in SUIT_PERMUTATIONS.tolist()}) == 24


@pytest.mark.parametrize("sigma", [[0, 1, 3, 2], [3, 2, 1, 0], [1, 2, 3, 0]])
def test_bad_permutations_are_refused_and_a_known_one_relabels_the_actions(sigma):
    with pytest.raises(ValueError, match=whole("sigma must be a permutation of 0, 1, 2, 3; got [0, 0, 1, 2]")):
        card_permutation([0, 0, 1, 2])
    acts = gin_action_index(sigma)
    cards = card_permutation(sigma)
    assert acts[parse_card("5C")] == cards[parse_card("5C")]  # a discard
    assert acts[52 + parse_card("QS")] == 52 + cards[parse_card("QS")]  # a knock
    assert acts[104:].tolist() == [104, 105, 106, 107]  # draw stock, draw upcard, pass, big gin


def _play(deck, dealer, actions=None, seed=0):
    """Observations, masks and actions of a hand on a stacked deck: random legal play, or ``actions``."""
    env = gin_rummy_v0.env()
    env.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
    rng = np.random.default_rng(seed)
    obs, masks, played = [], [], []
    for _agent in env.agent_iter():
        o, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        obs.append(o["observation"].copy())
        masks.append(o["action_mask"].copy())
        a = int(rng.choice(np.flatnonzero(o["action_mask"]))) if actions is None else actions[len(played)]
        played.append(a)
        env.step(a)
    return np.array(obs), np.array(masks), played


@pytest.mark.parametrize("seed,k", [(3, 5), (11, 17), (29, 23)])
def test_a_relabelled_deal_gives_the_relabelled_observations_masks_and_features(seed, k):
    env = gin_rummy_v0.env()
    env.reset(seed=seed)
    deck, dealer = list(env.unwrapped.game_state.deck), env.unwrapped.game_state.dealer
    layout = env.unwrapped.layout
    sigma = SUIT_PERMUTATIONS[k]
    obs, masks, played = _play(deck, dealer, seed=seed)
    acts = gin_action_index(sigma)
    cards = card_permutation(sigma)
    obs2, masks2, _ = _play([int(cards[c]) for c in deck], dealer, actions=[int(acts[a]) for a in played])
    assert len(played) > 20
    assert np.array_equal(obs2, obs[:, input_index(layout, "none", sigma)])
    relabelled_masks = np.zeros_like(masks)
    relabelled_masks[:, acts] = masks
    assert np.array_equal(masks2, relabelled_masks)
    featurize = Featurizer("gin_read", "gin_rummy_v0", layout)
    assert np.allclose(featurize(obs2), featurize(obs)[:, input_index(layout, "gin_read", sigma)], atol=0)


def test_the_suit_blocks_cover_every_feature_set_entry_for_entry():
    from agents.policy_features import FEATURES
    from agents.suit_symmetry import FEATURE_BLOCKS

    # meld_opp, crazy_out, crazy_discard (Rummy, Crazy Rummy), rk_out, rk_plan (Rummikub) are not Gin inputs
    not_gin = ("meld_opp", "crazy_out", "crazy_discard", "rk_out", "rk_plan")
    assert set(FEATURE_BLOCKS) == {"none", *(name for name in FEATURES if name not in not_gin)}
    for name, blocks in FEATURE_BLOCKS.items():
        size = sum(52 if b == "card" else b for b in blocks)
        assert size == (0 if name == "none" else FEATURES[name]), name
