"""The Gymnasium VectorEnv view: one learning seat against random opponents inside the
engine, under Gymnasium's vector checks; the kernel's view plays the reference's games."""

import importlib.util

import gymnasium.vector
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.utils.passive_env_checker import check_obs
from gymnasium.vector import VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from rummy_env.envs.vector_view import SeatVectorEnv
from rummy_env.games import gin_rummy as gin_actions
from tests.helpers import whole

# gymnasium >= 1.1 names the autoreset mode; 1.0 (the pin's lower bound) has only NEXT_STEP, unnamed
MODES = getattr(gymnasium.vector, "AutoresetMode", None)
AUTORESET = {} if MODES is None else {"autoreset_mode": MODES.NEXT_STEP}

VARIANTS = [
    ("gin_rummy", {}),
    ("rummy", {"num_players": 3}),
    ("crazy_rummy", {"num_players": 4}),
    ("rummikub", {"num_players": 3, "max_turns": 20, "reward": "score"}),
]


def random_actions(mask, rng):
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])


def rollout(envs, steps, seed):
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    out = [(obs, infos["action_mask"])]
    for _ in range(steps):
        out.append(envs.step(random_actions(envs.action_masks(), rng)))
    return out


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_the_view_passes_gymnasiums_vector_checks(variant, options):
    envs = SeatVectorEnv(variant, 6, **options)
    assert isinstance(envs, VectorEnv) and envs.metadata == AUTORESET
    assert envs.observation_space.shape == (6, envs.single_observation_space.shape[0])
    obs, infos = envs.reset(seed=3)
    assert obs in envs.observation_space and obs.dtype == np.float32
    check_obs(obs, envs.observation_space, "reset")
    assert infos["action_mask"].shape == (6, envs.single_action_space.n) and infos["action_mask"].any(axis=1).all()
    # same seed, same actions -> same data (Gymnasium's determinism check, batched)
    assert data_equivalence(rollout(envs, 40, 1), rollout(SeatVectorEnv(variant, 6, **options), 40, 1), exact=True)
    rng = np.random.default_rng(0)
    pending = np.zeros(6, bool)
    episodes = 0
    for _ in range(300):
        mask = envs.action_masks()
        assert (mask.any(axis=1) != pending).all()  # a finished game waits for its reset step
        actions = random_actions(mask, rng)
        actions[pending] = 10**6  # ignored: the NEXT_STEP autoreset deals a new hand
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        check_obs(obs, envs.observation_space, "step")
        assert rewards.dtype == np.float32 and terminated.dtype == np.bool_
        assert not (terminated & pending).any() and not rewards[pending].any()
        assert not infos["action_mask"][terminated | truncated].any()
        pending = terminated | truncated
        episodes += int(pending.sum())
    assert episodes >= 3
    envs.close()


@pytest.mark.parametrize(
    ("variant", "returns", "lengths"),
    [
        # random play in Gin Rummy seldom knocks: every hand ends when the stock runs out, a draw
        (
            "gin_rummy",
            [0.0] * 22,
            [46, 48, 57, 62, 63, 70, 74, 82, 52, 60, 64, 60, 66, 62, 66, 57, 50, 53, 48, 56, 52, 50],
        ),
        ("rummy", [-1.0, -1.0, -1.0, 1.0, 1.0], [89, 94, 138, 92, 193]),
    ],
)
def test_episode_statistics_wrapper_counts_the_learners_episodes(variant, returns, lengths):
    envs = RecordEpisodeStatistics(SeatVectorEnv(variant, 8, seed=2))
    envs.reset(seed=2)
    rng = np.random.default_rng(1)
    finished, steps = [], []
    for _ in range(200):
        _, _, terminated, truncated, infos = envs.step(random_actions(envs.unwrapped.action_masks(), rng))
        if "episode" in infos:
            finished += infos["episode"]["r"][infos["_episode"]].tolist()
            steps += infos["episode"]["l"][infos["_episode"]].tolist()
    assert (finished, steps) == (returns, lengths)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        *VARIANTS,
        ("gin_rummy", {"episode": "game", "knock_limit": 40, "target_score": 60, "reward": "score"}),
        ("rummy", {"num_players": 3, "episode": "game", "max_turns": 20, "max_hands": 3}),
        ("rummikub", {"num_players": 2, "episode": "game", "max_turns": 15, "max_hands": 3}),
    ],
)
def test_the_kernel_view_plays_the_reference_views_games(variant, options):
    kernel = rollout(SeatVectorEnv(variant, 6, seed=9, **options), 150, 4)
    reference = rollout(SeatVectorEnv(variant, 6, seed=9, engine="reference", **options), 150, 4)
    assert data_equivalence(kernel, reference, exact=True)


def test_bad_view_arguments_are_refused():
    engines = (
        "batched engines exist for 'gin_rummy', 'rummy', 'crazy_rummy' and 'rummikub', engine 'kernel' or 'reference'"
    )
    with pytest.raises(ValueError, match=whole(f"variant='hearts', engine='kernel': {engines}")):
        SeatVectorEnv("hearts", 2)
    with pytest.raises(ValueError, match=whole(f"variant=5, engine='kernel': {engines}")):
        SeatVectorEnv(5, 4)
    with pytest.raises(ValueError, match=whole(f"variant='gin_rummy', engine=['kernel']: {engines}")):
        SeatVectorEnv("gin_rummy", 2, engine=["kernel"])  # not "unhashable type"
    with pytest.raises(ValueError, match=whole("seat=2 is not a seat: seats are 0..1 (or None for i % 2)")):
        SeatVectorEnv("gin_rummy", 2, seat=2)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):
        SeatVectorEnv("gin_rummy", 2).step(np.zeros(2, np.int64))


def test_a_numpy_seed_deals_what_the_same_int_deals_and_a_bad_seed_changes_nothing():
    envs = SeatVectorEnv("gin_rummy", 4, seed=0, engine="reference")
    obs, infos = envs.reset(seed=np.int64(3))  # Gymnasium's seeding alone refuses NumPy ints
    twin = SeatVectorEnv("gin_rummy", 4, seed=0, engine="reference")
    assert data_equivalence((obs, infos), twin.reset(seed=3), exact=True)
    assert envs.np_random_seed == 3
    decks = envs.vec.decks().copy()
    message = (
        f"seed=-1 is out of range: a seed is an int from 0 to {2**64 - 1}, None (continue every game's streams), or a"
        " list or tuple of num_envs=4 such ints or None (one per game; a 1-D array too)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        envs.reset(seed=-1)
    assert (envs.vec.decks() == decks).all()  # the games were not dealt again
    actions = np.array([np.flatnonzero(row)[0] for row in infos["action_mask"]])
    assert data_equivalence(envs.step(actions), twin.step(actions), exact=True)


def test_an_episode_that_ends_before_the_learners_first_decision_is_marked_skipped():
    # gin_rummy, seed 0: in game 1016 the opponent takes the upcard and knocks at once
    envs = SeatVectorEnv("gin_rummy", 1024, seed=0)
    _, infos = envs.reset(seed=0)
    skipped = infos["skipped_episodes"]
    assert skipped.dtype == np.int64 and np.flatnonzero(skipped).tolist() == [1016]
    assert infos["action_mask"][1016].sum() == 0 and (infos["action_mask"].sum(axis=1)[skipped == 0] > 0).all()
    actions = np.array([np.flatnonzero(row)[0] if row.any() else 0 for row in infos["action_mask"]])
    _, rewards, terminated, truncated, infos = envs.step(actions)
    # the next step deals game 1016 a new episode: no reward, not ended, the learner to act
    assert (rewards[1016], terminated[1016], truncated[1016]) == (0.0, False, False)
    # a new hand opens with the upcard offer, which the learner meets: take the upcard or pass
    offer = [gin_actions.string_to_action("draw upcard"), gin_actions.string_to_action("pass")]
    assert np.flatnonzero(infos["action_mask"][1016]).tolist() == sorted(offer)


def test_infos_carry_gymnasiums_key_masks():
    """Each info key comes with its ``_key`` companion, as ``gymnasium.vector``'s own
    aggregation (``VectorEnv._add_info``) builds it from per-game dicts."""
    envs = SeatVectorEnv("gin_rummy", 8, seed=0, num_threads=1, max_turns=1)
    _, infos = envs.reset(seed=0)
    expected: dict = {}
    for i in range(8):
        one = {"action_mask": infos["action_mask"][i], "skipped_episodes": infos["skipped_episodes"][i]}
        expected = envs._add_info(expected, one, i)
    assert sorted(infos) == ["_action_mask", "_skipped_episodes", "action_mask", "skipped_episodes"]
    assert data_equivalence(infos, expected, exact=True)
    assert infos["_action_mask"].dtype == np.bool_ and infos["_action_mask"].tolist() == [True] * 8
    _, _, _, _, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
    assert infos["_skipped_episodes"].tolist() == [True] * 8
    infos["_action_mask"][0] = False  # a copy: the next step's infos are not touched
    assert envs.step(np.argmax(infos["action_mask"], axis=1))[4]["_action_mask"].all()


def test_an_episode_dealt_on_the_autoreset_step_that_ends_at_once_is_skipped_too():
    """Gymnasium's NEXT_STEP: the autoreset step never ends an episode.  With one turn
    (seed 0, 8 games) games 5 and 6 end at step 1; at step 2 their new deals end before the
    learner's first decision: reward 0, neither flag, mask all 0, marked skipped; step 3
    deals them again and the learner is to act."""
    envs = SeatVectorEnv("gin_rummy", 8, seed=0, num_threads=1, max_turns=1)
    _, infos = envs.reset(seed=0)
    assert infos["skipped_episodes"].tolist() == [1, 0, 0, 0, 1, 0, 0, 0]
    rows = []
    for _ in range(4):
        _, rewards, terminated, truncated, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
        rows.append(
            (truncated.astype(int).tolist(), infos["skipped_episodes"].tolist(), infos["action_mask"].sum(1).tolist())
        )
        assert not terminated.any() and (rewards == 0).all()
    assert rows == [
        ([0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [2, 10, 10, 10, 2, 10, 10, 10]),
        ([0, 1, 1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0, 0], [10, 0, 0, 0, 10, 0, 0, 0]),
        ([1, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1, 1, 0], [0, 2, 2, 2, 0, 0, 0, 2]),
        ([0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [2, 10, 10, 10, 2, 2, 2, 10]),
    ]
    assert envs.np_random_seed == 0  # reset(seed=...) seeds Gymnasium's own generator too


def test_the_view_imports_on_gymnasium_1_0_which_has_no_autoreset_mode(monkeypatch):
    # gymnasium 1.0 (the pin's lower bound) has no AutoresetMode: run the module's code as
    # a fresh module without it, leaving the imported one (and the other tests) alone
    import rummy_env.envs.vector_view as view

    monkeypatch.delattr(gymnasium.vector, "AutoresetMode", raising=False)
    spec = importlib.util.spec_from_file_location("vector_view_on_gymnasium_1_0", view.__file__)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    envs = old.SeatVectorEnv("gin_rummy", 2)
    assert old.AutoresetMode is None and envs.metadata == {}
    obs, infos = envs.reset(seed=0)
    # the legal moves of seed 0's deals: draw stock or upcard (104, 105) in game 0, upcard or
    # pass (105, 106) in game 1; and all of it as on the installed gymnasium
    assert obs.shape == (2, 485) and [np.flatnonzero(m).tolist() for m in infos["action_mask"]] == [
        [104, 105],
        [105, 106],
    ]
    assert data_equivalence((obs, infos), SeatVectorEnv("gin_rummy", 2).reset(seed=0), exact=True)


def test_a_list_of_seeds_seeds_each_game_as_the_same_int_seeds_it_and_none_continues_it():
    def dealt(envs, seed):
        obs, _ = envs.reset(seed=seed)
        return obs, [envs.vec.deal_of(i) for i in range(4)]

    envs = SeatVectorEnv("gin_rummy", 4, seed=0, engine="reference")
    assert data_equivalence(envs.reset(seed=[6, 6, 6, 6]), SeatVectorEnv("gin_rummy", 4, seed=6).reset(), exact=True)
    # game i of a list seed plays game i of the int seed; a None entry continues the game's streams
    new = {s: dealt(SeatVectorEnv("gin_rummy", 4, engine="reference"), s) for s in (3, 5)}
    continued = SeatVectorEnv("gin_rummy", 4, seed=6, engine="reference")
    continued.reset()
    new[None] = dealt(continued, None)
    chosen = [3, None, 5, 3]
    for seeds in (chosen, (3, None, np.uint64(5), np.int64(3)), np.array(chosen, dtype=object)):
        envs = SeatVectorEnv("gin_rummy", 4, seed=0, engine="reference")
        envs.reset(seed=6)
        obs, deals = dealt(envs, seeds)
        assert deals == [new[s][1][i] for i, s in enumerate(chosen)]
        assert all((obs[i] == new[s][0][i]).all() for i, s in enumerate(chosen))
        assert envs.np_random_seed == 6  # a list leaves Gymnasium's generator alone, as SyncVectorEnv does
    kernel = SeatVectorEnv("gin_rummy", 4, seed=0)
    kernel.reset(seed=6)
    assert data_equivalence(dealt(kernel, chosen), (obs, deals), exact=True)  # the reference's games


def test_a_bad_list_of_seeds_is_refused_and_deals_nothing():
    envs = SeatVectorEnv("gin_rummy", 3, seed=0, engine="reference")
    obs, _ = envs.reset(seed=4)
    decks = envs.vec.decks()
    allowed = (
        f"a seed is an int from 0 to {2**64 - 1}, None (continue every game's streams), or a list or tuple of "
        "num_envs=3 such ints or None (one per game; a 1-D array too)"
    )
    for seed, start in [
        ([1, 2], "seed: a list of 2 seeds for 3 games; "),
        ([1, 2.0, 3], "seed[1]=2.0 is not an integer: "),
        ([1, 2, True], "seed[2]=True is not an integer: "),
        ((-1, 0, 0), "seed[0]=-1 is out of range: "),
        ([0, 2**64, None], f"seed[1]={2**64} is out of range: "),
        (np.array([0, 5, -2]), "seed[2]=-2 is out of range: "),  # a NumPy integer, named as the int it is
        (np.array([0, 5, 1.5], dtype=object), "seed[2]=1.5 is not an integer: "),
        (np.zeros((3, 1), np.int64), "seed: an array of shape (3, 1); "),
    ]:
        with pytest.raises(ValueError) as err:
            envs.reset(seed=seed)
        assert str(err.value) == start + allowed
        assert (envs.vec.decks() == decks).all() and envs.vec.seed == 4  # nothing was dealt or reseeded
    actions = np.array([np.flatnonzero(row)[0] for row in envs.action_masks()])
    twin = SeatVectorEnv("gin_rummy", 3, seed=0, engine="reference")
    assert data_equivalence(twin.reset(seed=4)[0], obs, exact=True)
    assert data_equivalence(envs.step(actions), twin.step(actions), exact=True)
