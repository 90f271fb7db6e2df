"""``experiments.selfplay.critic``: the privileged critic's input on stacked deals, the
compiled heuristic seats against the Python agent, and a privileged-critic run resuming."""

import json

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.suit_symmetry import relabel_batch
from experiments import selfplay, train
from experiments.selfplay.critic import PRIVILEGED_STOCK, privileged_features, privileged_size
from experiments.selfplay.opponents import HEURISTIC, compiled_heuristic
from experiments.selfplay.update import ppo_update
from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.vector import GinRummyVec, RummyVec
from rummy_env.vector import gin_kernel as gk
from tests.experiments.selfplay_helpers import first_rollout
from tests.helpers import whole


def bits(cards):
    out = np.zeros(52, np.float32)
    out[list(cards)] = 1
    return out


def one_hots(cards):
    return np.concatenate([bits([c]) for c in cards])


def hand_block(cards, flags, deadwood):
    """A hand's privileged entries: its cards, the four meld flags per card (set3, run3,
    pair, near-suited: ``flags`` maps a flag's index to the cards that have it), its deadwood."""
    planes = [bits(flags.get(f, [])) for f in range(4)]
    return np.concatenate([bits(cards), *planes, [deadwood / 100]]).astype(np.float32)


def test_privileged_input_of_a_stacked_gin_deal_is_the_other_hand_and_the_next_stock_cards():
    vec = GinRummyVec(2, seed=0, num_threads=1)
    deck = np.arange(52)  # top first: the non-dealer gets 0, 2, .., 18, the dealer 1, 3, .., 19, upcard 20
    batch = vec.reset(decks=np.stack([deck, deck]), dealers=np.array([0, 1]))
    assert list(batch.current_player) == [1, 0]  # the non-dealer is offered the upcard
    got = privileged_features(vec, np.array([1, 1]))
    assert got.shape == (2, privileged_size(2)) == (2, 52 + 208 + 1 + 52 * PRIVILEGED_STOCK)
    # odd ids: clubs 2 4 6 8 10 Q and diamonds A 3 5 7 (ids 0-12 clubs A..K, 13-25 diamonds): no
    # meld, every card two ranks from a suited one, deadwood 2+4+6+8+10+10 + 1+3+5+7 = 56
    odd = list(range(1, 20, 2))
    assert np.array_equal(got[0], np.concatenate([hand_block(odd, {3: odd}, 56), one_hots([21, 22, 23, 24])]))
    # even ids: clubs A 3 5 7 9 J K and diamonds 2 4 6: 1+3+5+7+9+10+10 + 2+4+6 = 57
    even = list(range(0, 20, 2))
    assert np.array_equal(got[1], np.concatenate([hand_block(even, {3: even}, 57), one_hots([21, 22, 23, 24])]))
    vec.kernel_arrays()[0][0, gk.STOCK] = 50  # two cards left: the planes past the end stay 0
    got = privileged_features(vec, np.array([0, 0]))
    assert np.array_equal(got[0, 261:], np.concatenate([one_hots([50, 51]), np.zeros(104)]))


def test_privileged_input_of_a_stacked_three_player_rummy_deal_lists_the_other_hands_in_seat_order():
    vec = RummyVec(1, seed=0, num_threads=1, num_players=3)
    k = vec.config.hand_size  # 7 cards each with 3 players (R-RUMMY-02)
    deck = np.arange(52)  # dealer 0: seat 1 gets 0, 3, 6, .., seat 2 gets 1, 4, .., seat 0 gets 2, 5, ..
    vec.reset(decks=deck[None], dealers=np.array([0]))
    assert k == 7
    # seat 2: clubs 2 5 8 J and diamonds A 4 7 (ids 1, 4, .., 19): no melds, each card three
    # ranks from the next (no suited card within two); deadwood 2+5+8+10 + 1+4+7 = 37
    seat2 = hand_block(range(1, 21, 3), {}, 37)
    # seat 0: clubs 3 6 9 Q and diamonds 2 5 8 (ids 2, 5, .., 20): 3+6+9+10 + 2+5+8 = 43
    seat0 = hand_block(range(2, 21, 3), {}, 43)
    got = privileged_features(vec, np.array([1]))[0]
    stock = one_hots(range(3 * k + 1, 3 * k + 1 + PRIVILEGED_STOCK))  # the upcard is card 3k
    assert np.array_equal(got, np.concatenate([seat2, seat0, stock]))


def test_privileged_input_is_refused_for_a_batch_without_compiled_rows():
    from rummy_env.vector import ReferenceGinRummyVec

    vec = ReferenceGinRummyVec(1, seed=0)
    vec.reset()
    with pytest.raises(
        ValueError, match=whole("the privileged critic reads the compiled batch's rows, not ReferenceGinRummyVec")
    ):
        privileged_features(vec, np.array([0]))
    assert compiled_heuristic(vec) is None


@pytest.mark.parametrize(
    "cls, module, options", [(GinRummyVec, gin_rummy_v0, {}), (RummyVec, rummy_v0, {"num_players": 3})]
)
def test_the_compiled_heuristic_picks_the_python_agents_action_on_every_row(cls, module, options):
    vec = cls(24, seed=5, num_threads=1, **options)
    agent = make_agent("heuristic", module.env(**options), seed=0)
    actions = compiled_heuristic(vec)
    rng = np.random.default_rng(0)
    batch, checked = vec.reset(), 0
    for _ in range(150):
        rows = np.flatnonzero(batch.action_mask.any(1))
        fast = actions(rows)
        for i in rows:
            assert fast[i] == agent.act({"observation": batch.observation[i], "action_mask": batch.action_mask[i]})
        checked += len(rows)
        # random legal moves (not the heuristic's) reach positions the heuristic would avoid
        step = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in batch.action_mask])
        batch = vec.step(step)
    assert checked > 3000


def test_a_privileged_critic_run_trains_checkpoints_and_resumes_with_its_critic(tmp_path):
    out = tmp_path / "run"
    args = [
        "--variant", "gin_rummy", "--num-envs", "16", "--num-steps", "16", "--timesteps", "700",
        "--hidden", "16,16", "--eval-deals", "1", "--final-eval-deals", "1", "--initial-eval", "false",
        "--minibatch-size", "64", "--critic", "privileged", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert train.main(["--algo", "selfplay", *args]) == 0
    state = torch.load(out / "checkpoint.pt", weights_only=False)
    assert state["config"]["critic"] == "privileged"
    cfg = selfplay.Config(**{**state["config"], "hidden": tuple(state["config"]["hidden"])})
    trainer = selfplay.Learner(cfg)
    trainer.load_state(state)
    assert trainer.critic.trunk[0].in_features == trainer.input_size + privileged_size(2)
    for k, v in state["critic"].items():
        assert torch.equal(trainer.critic.state_dict()[k], v), k
    assert float(trainer.critic.obs_count) == 536  # its normalizer saw the 3 seeded updates' inputs
    summary = json.loads((out / "summary.json").read_text())
    assert summary["updates"] == 3 and summary["config"]["critic"] == "privileged"
    with pytest.raises(ValueError, match=whole("critic='oracle': use 'shared' or 'privileged'")):
        selfplay.Learner(selfplay.Config(critic="oracle", num_envs=2))


def test_suit_augmentation_relabels_each_decision_consistently_and_trains(tmp_path):
    cfg = selfplay.Config(num_envs=8, num_steps=16, hidden=(16,), suit_augment=0.1, features="gin_read")
    t, _, vec, buf, last = first_rollout(cfg)
    T, n = buf["value"].shape
    obs = torch.from_numpy(buf["obs"].reshape(T * n, -1))
    mask = torch.from_numpy(buf["mask"].reshape(T * n, -1))
    keep = torch.from_numpy(buf["learner"].reshape(-1))  # the rows the network read (the learner's)
    obs, mask = obs[keep], mask[keep]
    obs2, mask2, ids = relabel_batch(t.suit_index, obs, mask, t.rng)
    cols, acts = t.suit_index
    used = set()
    for i in range(len(obs)):
        # the relabelling each row got is one of the 24, applied to its input and mask alike
        k = next(k for k in range(24) if torch.equal(obs2[i], obs[i][torch.from_numpy(cols[k])]))
        used.add(k)
        assert torch.equal(ids[i], torch.from_numpy(acts[k]))
        assert torch.equal(mask2[i][ids[i]], mask[i])
    assert len(used) > 10
    stats = ppo_update(t, vec, buf, last)
    # the seeded rollout's learner rows that train (one torch thread, set by the learner); the
    # suit gap to 1e-5 (about 0.5% of it): torch's float sums may differ in the last bits on another CPU
    assert stats["samples"] == 88 and np.isfinite(stats["pg_loss"])
    assert stats["suit_gap"] == pytest.approx(0.001953950326424092, abs=1e-5)


def test_suit_augmentation_is_refused_outside_gin_with_the_shared_critic(tmp_path):
    with pytest.raises(
        ValueError,
        match=whole(
            "suit_augment relabels Gin Rummy inputs for the shared critic only (variant='rummy_v0', critic='shared')"
        ),
    ):
        selfplay.Learner(selfplay.Config(variant="rummy_v0", num_envs=4, hidden=(8,), suit_augment=0.1))
    with pytest.raises(ValueError, match=whole("suit_augment=-1.0: a penalty weight >= 0 (0: off)")):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), suit_augment=-1.0))
    with pytest.raises(
        ValueError,
        match=whole(
            "suit_augment relabels Gin Rummy inputs for the shared critic only "
            "(variant='gin_rummy_v0', critic='privileged')"
        ),
    ):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), suit_augment=0.1, critic="privileged"))


@pytest.mark.parametrize("module,vec_class", [(gin_rummy_v0, GinRummyVec), (rummy_v0, RummyVec)])
def test_the_duplicate_baseline_is_the_heuristics_result_on_the_same_deck(module, vec_class):
    from experiments.selfplay.duplicate import heuristic_rewards
    from rummy_env.core.cards import card_str

    rng = np.random.default_rng(5)
    decks = np.stack([rng.permutation(52) for _ in range(12)]).astype(np.int8)
    dealers, seats = rng.integers(2, size=12), rng.integers(2, size=12)
    got = heuristic_rewards(vec_class, {}, decks, dealers, seats, chunk=5)  # chunks of 5, 5 and a padded 2
    want = []
    for deck, dealer, seat in zip(decks, dealers, seats, strict=True):
        env = module.env()
        env.reset(options={"deck": [card_str(int(c)) for c in deck], "dealer": int(dealer)})
        agent = make_agent("heuristic", env)
        final = {}
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                final[name] = reward
            env.step(None if term or trunc else agent.act(obs))
        want.append(final[f"player_{seat}"])
    assert got.tolist() == want
    assert {-1.0, 1.0} <= set(want)  # both results occur (Rummy hands can also end in a draw, 0)
    with pytest.raises(ValueError, match=whole("decks, dealers and seats must have one row per hand: 12, 11, 12")):
        heuristic_rewards(vec_class, {}, decks, dealers[:11], seats)


def test_the_duplicate_baseline_offsets_only_the_learners_final_reward_against_the_heuristic(tmp_path):
    cfg = dict(num_envs=16, num_steps=48, hidden=(16,), heuristic_share=0.5, pool_share=0.0)
    bufs = []
    for on in (False, True):
        _, opponents, _, buf, _ = first_rollout(selfplay.Config(**cfg, duplicate_baseline=on))
        bufs.append(buf)
    plain, offset = bufs
    assert np.array_equal(plain["action"], offset["action"])  # the same games: the offset comes after
    diff = np.argwhere(plain["reward"] != offset["reward"])
    assert len(diff) == 7  # the seeded rollout's hands against the heuristic that ended
    heuristic_games = opponents.kind == HEURISTIC
    for step, game, seat in diff:
        assert heuristic_games[game] and plain["done"][step, game]
        assert abs(plain["reward"][step, game, seat] - offset["reward"][step, game, seat]) == 1  # minus +-1
        learners_turns = np.flatnonzero(plain["learner"][: step + 1, game])
        assert plain["player"][learners_turns[-1], game] == seat  # the learner's seat in that hand, no other
    with pytest.raises(
        ValueError,
        match=whole(
            "duplicate_baseline replays the games against the heuristic of 2-player runs "
            "(num_players=2, heuristic_share=0.0)"
        ),
    ):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), heuristic_share=0.0, duplicate_baseline=True))
