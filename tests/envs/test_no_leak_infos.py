"""``infos`` and the single-agent Gymnasium view hold only what their player may know.

The method of ``test_no_leak.py``: a hand is recorded to its end, then replayed from a
deck in which every card a seat never saw (not in its hand, never face up, not laid out
at a Gin showdown) is shuffled among the places of the unseen cards.  While the two
replays show the same table, the seat's ``infos`` must be the same at every step (the
hand's scores aside in basic and Crazy Rummy: scoring counts the cards left in the other
hands, which the rules make public, as the observation's ``scores`` fields do), and so
must the single-agent view of that seat (``SingleAgentEnv``: observation, ``info``,
reward aside likewise), its opponents replaying the recorded moves.
"""

import numpy as np
import pytest

from rummy_env import gin_rummy_v0
from rummy_env.envs.single_agent import SingleAgentEnv
from tests.envs.test_gin_no_leak import record_hand as record_gin_hand
from tests.envs.test_gin_no_leak import seen_by
from tests.envs.test_no_leak import record_hand, replay
from tests.envs.variants import VARIANTS

#: keys whose values the end of a hand makes public from the cards left in the other hands
SCORED = ("hand_score", "total_score")

CASES = [(v, o) for v in VARIANTS for o in v.leak_options if o.get("episode") != "game"]
CASES += [(gin, o) for gin in VARIANTS if gin.module is gin_rummy_v0 for o in ({}, {"oklahoma": True})]
IDS = [f"{v.name}-{o}" for v, o in CASES]


def recorded(variant, options, seed, rng):
    """A whole first hand: (deck, dealer, actions, env options that replay it, the unseen
    card places of each seat)."""
    if variant.module is gin_rummy_v0:
        env, actions = record_gin_hand(options, seed, 400, ["heuristic", "random"])
        state = env.unwrapped.game_state
        deck, dealer = state.initial_deck, state.initial_dealer
        seen = [seen_by(options, deck, dealer, actions, p) for p in range(2)]
        replay_options = options
    else:
        env, actions = record_hand(variant, options, seed=seed, steps=400)
        state = env.unwrapped.game_state
        deck, dealer = state.initial_deck, state.initial_dealer
        replay_options = variant.replay_options(state, options)
        seen = []
        for p in range(state.num_players):
            mask = [0]

            def look(s, p=p, mask=mask):
                mask[0] |= variant.public_cards(s, p)

            replay(variant, replay_options, deck, dealer, actions, p, look)
            seen.append(mask[0])
    hidden = [[i for i, c in enumerate(deck) if not s >> c & 1] for s in seen]
    return list(deck), dealer, actions, replay_options, hidden


def signature(variant, state):
    """What every seat sees of the table (Gin Rummy's: the discard pile and the sizes)."""
    if variant.module is gin_rummy_v0:
        return tuple(state.discard), tuple(h.bit_count() for h in state.hands), len(state.stock)
    return variant.public_signature(state)


def shuffled(deck, places, rng):
    out = list(deck)
    for place, card in zip(places, rng.permutation([deck[i] for i in places]), strict=True):
        out[place] = int(card)
    return out


def public(info, variant):
    """``info`` without the scored keys (basic and Crazy Rummy)."""
    if variant.module is gin_rummy_v0:
        return info
    return {k: v for k, v in info.items() if k not in SCORED}


class Scripted:
    """An opponent that plays the recorded hand's move at the engine's history length."""

    def __init__(self, aec, actions):
        self.raw, self.actions = aec.unwrapped, actions

    def act(self, observation, info=None):
        return self.actions[len(self.raw.game_state.history)]


def learner_view(variant, options, deck, dealer, actions, seat):
    """The seat's single-agent view of the recorded hand: [(moves played, observation,
    info)] at each of its decisions and at the end, the seat playing the recorded moves
    too; it stops where the seat's recorded move is illegal in this deal."""
    aec = variant.module.env(**options)
    env = SingleAgentEnv(aec, [Scripted(aec, actions)], learner_seat=seat, seed=0)
    try:
        obs, info = env.reset(options={"deck": [variant.deck()[c] for c in deck], "dealer": dealer})
    except RuntimeError:  # the hand ended before the seat's first decision
        return []
    views, done = [(len(aec.unwrapped.game_state.history), obs, info)], False
    while not done:
        action = actions[len(aec.unwrapped.game_state.history)]
        if not env.action_masks()[action]:
            break
        obs, _, terminated, truncated, info = env.step(action)
        views.append((len(aec.unwrapped.game_state.history), obs, info))
        done = terminated or truncated
    return views


#: (infos compared, seat views compared, hands ended) of each case's seeded hands
COMPARED = {
    ("rummy_env.crazy_rummy_v0", "{'num_players': 3}"): (1008, 352, 17),
    ("rummy_env.crazy_rummy_v0", "{'num_players': 4, 'wild_rank': 2}"): (795, 219, 20),
    ("rummy_env.crazy_rummy_v0", "{'num_players': 6, 'wild_rank': 13}"): (1110, 213, 30),
    ("rummy_env.gin_rummy_v0", "{'oklahoma': True}"): (354, 189, 12),
    ("rummy_env.gin_rummy_v0", "{}"): (246, 135, 12),
    ("rummy_env.rummy_v0", "{'num_players': 2}"): (666, 345, 12),
    ("rummy_env.rummy_v0", "{'num_players': 3, 'reshuffle': 'whole_pile'}"): (1317, 457, 18),
    ("rummy_env.rummy_v0", "{'num_players': 5, 'ace_high': True}"): (3335, 697, 30),
}


@pytest.mark.parametrize(("variant", "options"), CASES, ids=IDS)
def test_infos_and_the_single_agent_view_do_not_change_when_unseen_cards_are_shuffled(variant, options):
    rng = np.random.default_rng(17)
    infos = views = ended = 0
    for trial in range(6):
        deck, dealer, actions, replay_options, hidden = recorded(variant, options, int(rng.integers(1 << 30)), rng)
        for seat, places in enumerate(hidden):
            other = shuffled(deck, places, rng)
            a = replay(variant, replay_options, deck, dealer, [], seat)
            b = replay(variant, replay_options, other, dealer, [], seat)
            agent = a.possible_agents[seat]
            together = 0  # moves after which both replays still show the same table
            for action in actions:
                if signature(variant, a.game_state) != signature(variant, b.game_state):
                    break
                together = len(a.game_state.history)
                assert public(a.infos[agent], variant) == public(b.infos[agent], variant), (trial, seat)
                infos += 1
                if not b.observe(b.agent_selection)["action_mask"][action]:
                    break
                a.step(action)
                b.step(action)
            else:
                assert a.infos[agent] and public(a.infos[agent], variant) == public(b.infos[agent], variant)
                together = len(actions)
                ended += 1
            truth = learner_view(variant, replay_options, deck, dealer, actions, seat)
            twin = learner_view(variant, replay_options, other, dealer, actions, seat)
            for (moves, obs_a, info_a), (_, obs_b, info_b) in zip(truth, twin, strict=False):
                if moves > together:
                    break
                same = obs_a == obs_b
                if "hand_score" in info_a and variant.module is not gin_rummy_v0:
                    for field in a.layout.fields:  # the scores of the hand, as SCORED
                        if field.name in ("scores", "totals"):
                            same[a.layout.slice(field.name)] = True
                assert same.all(), (trial, seat)
                assert np.array_equal(info_a.pop("action_mask"), info_b.pop("action_mask"))
                assert public(info_a, variant) == public(info_b, variant), (trial, seat)
                views += 1
    # every replayed hand ended in both; the counts of these seeded deals, exact
    assert (infos, views, ended) == COMPARED[variant.module.__name__, repr(options)]
