"""The batch API (``rummy_env.vector.batch``) on every implementation: seeding, stacked
decks, replays in ``env()``, the autoreset at the episode boundary, bad arguments."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.games.gin_rummy import stack_deck as gin_stack_deck
from rummy_env.vector import (
    Batch,
    CrazyRummyVec,
    GinRummyVec,
    ReferenceCrazyRummyVec,
    ReferenceGinRummyVec,
    ReferenceRummikubVec,
    ReferenceRummyVec,
    RummikubVec,
    RummyVec,
    empty_batch,
)
from rummy_env.vector.batch import MAX_NUM_ENVS, mix64, seed_streams
from tests.helpers import whole
from tests.vector.differential import play_against_env

ROOT = pathlib.Path(__file__).resolve().parents[2]
IMPLEMENTATIONS = [
    pytest.param(ReferenceGinRummyVec, gin_rummy_v0, {}, id="reference-gin"),
    pytest.param(ReferenceRummyVec, rummy_v0, {"num_players": 3}, id="reference-rummy3"),
    pytest.param(GinRummyVec, gin_rummy_v0, {}, id="kernel-gin"),
    pytest.param(RummyVec, rummy_v0, {"num_players": 3}, id="kernel-rummy3"),
    pytest.param(ReferenceCrazyRummyVec, crazy_rummy_v0, {"num_players": 3}, id="reference-crazy3"),
    pytest.param(CrazyRummyVec, crazy_rummy_v0, {"num_players": 3}, id="kernel-crazy3"),
]
KNOWN_OPTIONS = {
    "gin_rummy_v0": "knock_limit, gin_bonus, undercut_bonus, big_gin, big_gin_bonus, oklahoma, target_score, "
    "game_bonuses, max_turns, max_hands, episode, reward",
    "rummy_v0": "num_players, ace_high, reshuffle, two_player_winner_deals, target_score, max_turns, max_hands, "
    "episode, reward",
    "crazy_rummy_v0": "num_players, wild_rank, episode, reward, max_turns, max_hands",
}


def illegal_action(vec, action, game, player):
    """The whole refusal of an illegal ``action`` in ``game``, whose turn is ``player``'s."""
    text = vec.action_to_string(action) if 0 <= action < vec.num_actions else "out of range"
    return (
        f"action {action} ({text}) is not legal in game {game} for player {player}: actions must be legal ids of"
        " that game's action_mask; no game was changed"
    )


def run_random(vec, steps):
    """Play ``steps`` random batch steps; return (actions taken, batches) as copies."""
    batches = [Batch(*(a.copy() for a in vec.reset()))]
    for _ in range(steps):
        batches.append(Batch(*(a.copy() for a in vec.step_random())))
    return batches


@pytest.mark.parametrize(("cls", "module", "options"), IMPLEMENTATIONS)
def test_the_same_seed_gives_the_same_games_and_another_seed_others(cls, module, options):
    a = run_random(cls(4, seed=7, **options), 60)
    b = run_random(cls(4, seed=7, **options), 60)
    c = run_random(cls(4, seed=8, **options), 60)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)
    assert any((x.observation != z.observation).any() for x, z in zip(a, c, strict=True))


@pytest.mark.parametrize(("cls", "module", "options"), IMPLEMENTATIONS)
def test_every_game_replays_in_env_from_deal_of_with_the_same_actions(cls, module, options):
    counts = play_against_env(cls(3, seed=3, **options), module, options, steps=400, rng=np.random.default_rng(0))
    assert counts["episodes"] >= 1 and counts["resets"] >= 1


@pytest.mark.parametrize(("cls", "module", "options"), IMPLEMENTATIONS)
def test_bad_arguments_raise_clear_errors_and_change_no_game(cls, module, options):
    vec = cls(3, seed=0, **options)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\), step_random\(\) or deal_of\(\)$"):
        vec.step(np.zeros(3, np.int64))
    batch = vec.reset()
    before = Batch(*(a.copy() for a in batch))
    deals = [vec.deal_of(i) for i in range(3)]
    with pytest.raises(ValueError, match=r"^actions of shape \(2,\): pass one action id per game, shape \(3,\)$"):
        vec.step(np.zeros(2, np.int64))
    last = vec.num_actions - 1
    with pytest.raises(ValueError, match=rf"^actions of dtype float64: action ids are integers 0\.\.{last}$"):
        vec.step(np.zeros(3))
    actions = np.array([np.flatnonzero(batch.action_mask[i])[0] for i in range(3)])
    illegal = int(np.flatnonzero(batch.action_mask[1] == 0)[0])
    actions[1] = illegal
    with pytest.raises(ValueError, match=whole(illegal_action(vec, illegal, 1, int(batch.current_player[1])))):
        vec.step(actions)
    actions[1] = -1
    with pytest.raises(ValueError, match=whole(illegal_action(vec, -1, 1, int(batch.current_player[1])))):
        vec.step(actions)
    for kept, was in zip(batch, before, strict=True):  # the failed calls wrote nothing
        np.testing.assert_array_equal(kept, was)
    after = vec.step_random()
    replay = cls(3, seed=0, **options)
    replay.reset()
    expected = replay.step_random()
    np.testing.assert_array_equal(after.observation, expected.observation)
    assert [vec.deal_of(i) for i in range(3)] == deals
    # arguments, not env() options: named as they are
    with pytest.raises(ValueError, match="^num_envs=0 is out of range: num_envs must be an int from 1 to 16777216$"):
        cls(0, **options)
    with pytest.raises(
        ValueError, match="^num_envs=16777217 is out of range: num_envs must be an int from 1 to 16777216$"
    ):
        cls(MAX_NUM_ENVS + 1, **options)  # refused before any array is made
    with pytest.raises(ValueError, match=f"^seed=-1 is out of range: seed must be an int from 0 to {2**64 - 1}$"):
        cls(2, seed=-1, **options)
    with pytest.raises(ValueError, match="^game index=3 is out of range: game index must be an int from 0 to 2$"):
        vec.deal_of(3)
    name = module.__name__.split(".")[-1]
    message = f"unknown {name} option(s) 'not_an_option': known options are {KNOWN_OPTIONS[name]}"
    with pytest.raises(ValueError, match=whole(message)):
        cls(2, not_an_option=1, **options)
    size = vec.observation_size
    wrong = (
        f"out.observation must be a writeable C-contiguous float32 array of shape (3, {size}): got float32 (2, {size})"
    )
    with pytest.raises(ValueError, match=whole(wrong)):
        vec.step_random(out=empty_batch(2, vec.observation_size, vec.num_actions, vec.num_players))
    with pytest.raises(
        ValueError,
        match=r"^deck of game 1 is not a deck: it must hold each card id 0..51 once "
        r"\(card id 1 appears 2 times, card id 0 is missing\)$",
    ):
        decks = np.tile(np.arange(52), (3, 1))
        decks[1, 0] = 1
        vec.reset(decks=decks)
    # an entry outside 0..51 is named before any count: np.bincount refused a negative one in
    # its own words and tried to allocate 8 TiB for 2**40
    for value, dtype in [(-7, np.int64), (52, np.int64), (2**40, np.int64), (2**63 + 5, np.uint64)]:
        decks = np.tile(np.arange(52), (3, 1)).astype(dtype)
        decks[1, 3] = value
        message = "deck of game 1 is not a deck: it must hold each card id 0..51 once"
        message += f" (entry 3 is {value}, not a card id 0..51)"
        with pytest.raises(ValueError, match=whole(message)):
            vec.reset(decks=decks)
    assert [vec.deal_of(i) for i in range(3)] == deals  # the refused decks dealt nothing
    for kept, was in zip(vec.step_random(), replay.step_random(), strict=True):
        np.testing.assert_array_equal(kept, was)
    seats = f"0..{vec.num_players - 1}"
    with pytest.raises(ValueError, match=f"^dealer 9 of game 0 is not a seat: dealers are {seats}$"):
        vec.reset(dealers=np.array([9, 0, 0]))


@pytest.mark.parametrize(("cls", "module", "options"), IMPLEMENTATIONS)
def test_caller_owned_outputs_are_written_in_place(cls, module, options):
    vec = cls(2, seed=5, **options)
    out = empty_batch(2, vec.observation_size, vec.num_actions, vec.num_players)
    got = vec.reset(out=out)
    assert got is out and out.action_mask.any(axis=1).all()
    twin = cls(2, seed=5, **options)
    np.testing.assert_array_equal(out.observation, twin.reset().observation)
    # without out= the engine's own buffers: one Batch, overwritten by the next call (docs/vector.md)
    first = twin.reset()
    kept = first.observation.copy()
    assert twin.step_random() is first and first.observation is twin.step_random().observation
    assert not np.array_equal(first.observation, kept)


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        *((p.values[0], p.values[2]) for p in IMPLEMENTATIONS),
        (ReferenceRummikubVec, {"num_players": 3}),
        (RummikubVec, {"num_players": 3}),
    ],
)
def test_refusals_with_caller_owned_outputs_name_the_acting_player_and_the_reason(cls, options):
    vec = cls(3, seed=1, **options)
    out = empty_batch(3, vec.observation_size, vec.num_actions, vec.num_players)
    vec.reset(out=out)
    # play on until game 0's seat is one the engine's own (unwritten) buffer does not hold
    while len(set(out.current_player.tolist())) == 1 or out.current_player[0] == 0:
        vec.step(np.array([np.flatnonzero(m)[0] for m in out.action_mask]), out=out)
    seat, illegal = int(out.current_player[0]), int(np.flatnonzero(out.action_mask[0] == 0)[0])
    actions = np.array([np.flatnonzero(m)[0] for m in out.action_mask])
    actions[0] = illegal
    with pytest.raises(ValueError, match=whole(illegal_action(vec, illegal, 0, seat))):
        vec.step(actions, out=out)
    with pytest.raises(
        ValueError, match=rf"^action {2**63 + 5} is out of range: action ids are integers 0\.\.{vec.num_actions - 1}$"
    ):
        vec.step(np.full(3, 2**63 + 5, np.uint64), out=out)
    frozen = empty_batch(3, vec.observation_size, vec.num_actions, vec.num_players)
    frozen.observation.flags.writeable = False
    size = vec.observation_size
    message = f"out.observation must be a writeable C-contiguous float32 array of shape (3, {size}): it is read-only"
    with pytest.raises(ValueError, match=whole(message)):
        vec.step_random(out=frozen)
    with pytest.raises(ValueError, match=f"^seed={2**64} is out of range: seed must be an int from 0 to {2**64 - 1}$"):
        cls(2, seed=2**64, **options)
    assert cls(2, seed=2**64 - 1, **options).seed == 2**64 - 1


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec])
def test_stacked_decks_deal_the_stacked_hands(cls):
    deck = gin_stack_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    vec = cls(2, seed=0)
    batch = vec.reset(decks=[deck, deck], dealers=np.array([1, 1]))
    pass_, knock_kh = gin_rummy_v0.raw_env.string_to_action("pass"), gin_rummy_v0.raw_env.string_to_action("knock KH")
    assert vec.deal_of(0) == {"deck": deck, "dealer": 1}
    assert batch.current_player.tolist() == [0, 0]
    batch = vec.step(np.array([pass_, pass_]))
    batch = vec.step(np.array([pass_, pass_]))
    assert batch.current_player.tolist() == [0, 0] and batch.action_mask[:, knock_kh].all()
    batch = vec.step(np.array([knock_kh, knock_kh]))
    assert batch.terminated.all() and batch.rewards.tolist() == [[1.0, -1.0], [1.0, -1.0]]
    assert vec.scores.tolist() == [[34, 0], [34, 0]]
    batch = vec.step(np.array([0, 0]))  # the autoreset: actions ignored, new hands dealt
    assert not batch.terminated.any() and vec.deal_of(0) != {"deck": deck, "dealer": 1}


def test_the_compiled_engines_name_the_missing_extra_without_numba():
    code = (
        "import sys\nsys.modules['numba'] = None\n"
        "from rummy_env.vector import ReferenceGinRummyVec\n"
        "ReferenceGinRummyVec(2).reset()\n"
        "try:\n    from rummy_env.vector import GinRummyVec\nexcept ImportError as err:\n    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout == (
        "rummy_env.vector.GinRummyVec is compiled with numba, which is not installed: "
        'pip install -e ".[fast]" (or use the pure-Python ReferenceGinRummyVec, same API)\n'
    )


@pytest.mark.parametrize(
    ("cls", "options", "backend"),
    [
        (GinRummyVec, {}, "threads"),
        (RummyVec, {"num_players": 4}, "threads"),
        (CrazyRummyVec, {"num_players": 5, "reward": "score"}, "threads"),
        (GinRummyVec, {}, "prange"),
        (RummyVec, {"num_players": 4}, "prange"),
        (CrazyRummyVec, {"num_players": 5, "reward": "score"}, "prange"),
        (GinRummyVec, {"episode": "game", "max_turns": 10, "knock_limit": 30}, "threads"),
    ],
)  # every kernel's prange drivers (they compile slowly, 10-15 s each, on a fresh machine)
def test_threads_play_the_same_games_as_one_thread(cls, options, backend):
    one = cls(512, seed=21, num_threads=1, **options)
    two = cls(512, seed=21, num_threads=2, backend=backend, **options)
    assert one.threads_used() == 1 and two.threads_used() == 2
    for a, b in zip(run_random(one, 60), run_random(two, 60), strict=True):
        for u, v in zip(a, b, strict=True):
            np.testing.assert_array_equal(u, v)
    seats = np.arange(512) % one.num_players
    for u, v in zip(one.step_opponents(seats), two.step_opponents(seats), strict=True):
        np.testing.assert_array_equal(u, v)
    two.close()
    card = "use 'threads' or 'prange' ('threads': nogil worker threads; 'prange': numba's parallel loops)"
    with pytest.raises(ValueError, match=f"^backend='gpu': {re.escape(card)}$"):
        cls(2, backend="gpu", **options)


@pytest.mark.parametrize(
    ("reference", "twin", "options"),
    [
        (ReferenceGinRummyVec, GinRummyVec, {}),
        (ReferenceRummyVec, RummyVec, {"num_players": 3}),
        (ReferenceCrazyRummyVec, CrazyRummyVec, {"num_players": 3}),
        (ReferenceRummikubVec, RummikubVec, {}),
    ],
)
def test_a_reference_engine_takes_its_twins_constructor_and_methods(reference, twin, options):
    # a drop-in swap: the compiled engine's backend argument, threads_used() and close()
    kwargs = {"num_threads": 2, "backend": "threads", **options}
    vec, compiled = reference(4, seed=3, **kwargs), twin(4, seed=3, **kwargs)
    assert vec.threads_used() == 1 and vec.close() is None
    for u, v in zip(vec.reset(), compiled.reset(), strict=True):
        np.testing.assert_array_equal(u, v)
    compiled.close()
    card = "use 'threads' or 'prange' ('threads': nogil worker threads; 'prange': numba's parallel loops)"
    for cls in (reference, twin):
        with pytest.raises(ValueError) as err:
            cls(2, backend="gpu", **options)
        if twin is RummikubVec:
            assert str(err.value) == "backend='gpu': use 'threads' ('threads': nogil worker threads)"
        else:
            assert str(err.value) == f"backend='gpu': {card}"
    if twin is RummikubVec:  # its masks run on threads only, so the reference refuses prange too
        for cls in (reference, twin):
            with pytest.raises(
                ValueError, match=whole("backend='prange': use 'threads' ('threads': nogil worker threads)")
            ):
                cls(2, backend="prange", **options)


def test_seed_streams_are_splitmix64_of_seed_and_game_index():
    """Game ``i``'s generators start at ``mix64(seed + mix64(2i + 1))`` (deals) and
    ``mix64(seed + mix64(2i + 2))`` (actions), modulo 2**64, as the Python reference
    arithmetic gives them; pinned for one seed, and equal to it for seeds that wrap."""
    deal, act = seed_streams(0, 2)
    assert deal.dtype == act.dtype == np.uint64
    assert [int(x) for x in deal] == [mix64(mix64(1)), mix64(mix64(3))]
    assert int(deal[0]) == 0x7AB40E090F363A7D
    for seed in (1, 2**63 + 5, 2**64 - 1):
        deal, act = seed_streams(seed, 50)
        assert [int(x) for x in deal] == [mix64(seed + mix64(2 * i + 1)) for i in range(50)]
        assert [int(x) for x in act] == [mix64(seed + mix64(2 * i + 2)) for i in range(50)]


@pytest.mark.parametrize(
    ("cls", "options", "expected"),
    [
        (GinRummyVec, {"oklahoma": np.True_, "knock_limit": np.int64(8)}, {"oklahoma": True, "knock_limit": 8}),
        (RummyVec, {"ace_high": np.True_, "num_players": np.int32(3)}, {"ace_high": True, "num_players": 3}),
        (CrazyRummyVec, {"num_players": np.int64(4), "wild_rank": np.int8(5)}, {"num_players": 4, "wild_rank": 5}),
        (RummyVec, {"episode": np.str_("game"), "reward": np.str_("score")}, {"episode": "game", "reward": "score"}),
        (
            RummikubVec,
            {"initial_meld_table_play": np.True_, "initial_meld_points": np.int64(20)},
            {"initial_meld_table_play": True, "initial_meld_points": 20},
        ),
    ],
)
def test_env_options_hold_the_options_given_as_python_values(cls, options, expected):
    import json

    vec = cls(2, **options)
    assert vec.env_options == expected
    assert [type(v) for v in vec.env_options.values()] == [type(v) for v in expected.values()]
    assert json.loads(json.dumps(vec.env_options)) == expected  # a record or summary can store them


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        (ReferenceGinRummyVec, {}),
        (GinRummyVec, {}),
        (ReferenceRummyVec, {"num_players": 3}),
        (RummyVec, {"num_players": 3}),
        (ReferenceCrazyRummyVec, {"num_players": 3}),
        (CrazyRummyVec, {"num_players": 3}),
        (ReferenceRummikubVec, {}),
        (RummikubVec, {}),
    ],
)
def test_lists_of_ids_are_refused_entry_by_entry_and_change_no_game(cls, options):
    # np.asarray would read True as 1 (a legal id or seat played as if given) and 2**63 as a
    # float (refused as "dtype float64", though every entry is an int)
    vec = cls(3, seed=4, **options)
    batch = vec.reset()
    before = Batch(*(a.copy() for a in batch))
    deals = [vec.deal_of(i) for i in range(3)]
    legal = [int(np.flatnonzero(batch.action_mask[i])[0]) for i in range(3)]
    ids = f"action ids are integers 0..{vec.num_actions - 1}"
    seats = f"seats are 0..{vec.num_players - 1}, one per game"
    dealers = f"dealers are 0..{vec.num_players - 1}, one per game"
    if cls in (ReferenceRummikubVec, RummikubVec):
        dealers = f"dealers (Rummikub: first players) are 0..{vec.num_players - 1}, one per game"
    refusals = [
        (lambda: vec.step([True, *legal[1:]]), f"actions[0]=True is not an integer: {ids}"),
        (lambda: vec.step([legal[0], np.True_, legal[2]]), f"actions[1]=np.True_ is not an integer: {ids}"),
        (lambda: vec.step([*legal[:2], 2**63]), f"actions[2]=9223372036854775808 is out of range: {ids}"),
        (lambda: vec.step((legal[0], [legal[1]], legal[2])), f"actions[1]=[{legal[1]}] is not an integer: {ids}"),
        (lambda: vec.step_opponents([0, False, 0]), f"seats[1]=False is not an integer: {seats}"),
        (lambda: vec.reset(seed=1, dealers=[0, 0, True]), f"dealers[2]=True is not an integer: {dealers}"),
    ]
    for call, message in refusals:
        with pytest.raises(ValueError, match=whole(message)):
            call()
    for kept, was in zip(batch, before, strict=True):  # the refused calls wrote nothing
        np.testing.assert_array_equal(kept, was)
    assert [vec.deal_of(i) for i in range(3)] == deals
    replay = cls(3, seed=4, **options)
    replay.reset()
    # a list of 0-d arrays (SB3's model.predict gives one per observation) is read as ints
    for got, want in zip(vec.step([np.array(a) for a in legal]), replay.step(np.array(legal)), strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_backend_that_is_not_a_string_is_refused_by_name():
    # an array's `in` asked for its truth: "The truth value of an array ... is ambiguous"
    with pytest.raises(
        ValueError,
        match=whole(
            "backend=array(['threads', 'prange'], dtype='<U7'): use 'threads' or 'prange' ('threads': nogil worker"
            " threads; 'prange': numba's parallel loops)"
        ),
    ):
        ReferenceGinRummyVec(2, backend=np.array(["threads", "prange"]))
    assert type(ReferenceGinRummyVec(2, backend=np.str_("prange")).backend) is str


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec, ReferenceRummikubVec, RummikubVec])
def test_a_2d_array_of_card_strings_stacks_decks_as_its_rows(cls):
    # it was refused ("decks must be an int array ... or lists of ... strings") though its rows are such lists
    vec = cls(2, seed=3)
    vec.reset()
    deals = [vec.deal_of(i) for i in range(2)]
    rows = [d["deck"] for d in deals]
    got = Batch(*(a.copy() for a in vec.reset(decks=np.array(rows))))
    assert [vec.deal_of(i)["deck"] for i in range(2)] == rows
    twin = cls(2, seed=3)
    twin.reset()
    want = twin.reset(decks=rows)  # the same streams: the same dealers drawn
    for u, v in zip(got, want, strict=True):
        np.testing.assert_array_equal(u, v)


def test_a_bad_card_in_a_2d_array_of_strings_is_named_as_in_a_list():
    # its rows were numpy rows: the message named the card np.str_('ZZ')
    vec = ReferenceGinRummyVec(2, seed=3)
    vec.reset()
    row = vec.deal_of(0)["deck"]
    with pytest.raises(ValueError) as refused:
        vec.reset(decks=np.array([row, [*row[:-1], "ZZ"]]))
    with pytest.raises(ValueError) as listed:
        vec.reset(decks=[row, [*row[:-1], "ZZ"]])
    assert str(refused.value) == str(listed.value)
    assert str(refused.value) == (
        "deck of game 1: bad deck: card 'ZZ' is not a card: write rank (A 2-9 T J Q K, or 10) then suit (C D H S),"
        " e.g. 'AH', 'TS', '10S'; missing cards: 7H"
    )
