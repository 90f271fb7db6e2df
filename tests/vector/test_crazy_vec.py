"""CrazyRummyVec (3-6 players, one-round episodes) against its judges: the pure-Python
batch (the same seed gives the same games), env() replaying ``deal_of`` with the same
actions, and a scripted round with exact penalties and rewards."""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import card_str
from rummy_env.games.crazy_rummy import action_to_string, stack_deck, string_to_action
from rummy_env.vector import Batch, CrazyRummyVec, ReferenceCrazyRummyVec
from rummy_env.vector import crazy_kernel as ck
from tests.helpers import whole
from tests.vector.differential import IGNORED, play_against_env

OPTIONS = [
    {},
    {"num_players": 3, "wild_rank": 1, "reward": "score"},
    {"num_players": 4, "max_turns": 25},
    {"num_players": 5, "wild_rank": 13, "reward": "score", "max_turns": 14},
    {"num_players": 6},
]


def prefer_table_moves(legal, rng):
    """A random legal id, melds, lay-offs and swaps ten times likelier than the rest
    (uniform play rarely reaches lay-offs and swaps)."""
    weights = np.where(legal >= ck.MELD, 10.0, 1.0)
    return int(rng.choice(legal, p=weights / weights.sum()))


def kind(action):
    if action >= ck.MELD:
        return "swap" if action >= ck.SWAP else "layoff" if action >= ck.LAYOFF else "meld"
    return "other"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_the_kernel_plays_the_reference_games_step_for_step(options):
    n, steps = 8, 360
    vec, ref = CrazyRummyVec(n, seed=11, **options), ReferenceCrazyRummyVec(n, seed=11, **options)
    batch, expected = vec.reset(), ref.reset()
    rng = np.random.default_rng(5)
    kinds, ends = set(), set()
    for step in range(steps):
        for name, got, want in zip(Batch._fields, batch, expected, strict=True):
            assert np.array_equal(got, want), (step, name, np.flatnonzero((got != want).reshape(n, -1).any(axis=1)))
        assert np.array_equal(vec.scores, ref.scores) and vec.deal_of(step % n) == ref.deal_of(step % n)
        ends |= {"terminated"} if batch.terminated.any() else set()
        ends |= {"truncated"} if batch.truncated.any() else set()
        if step % 3 == 0:  # the engines' own random streams
            batch, expected = vec.step_random(), ref.step_random()
            continue
        actions = np.full(n, IGNORED, np.int64)
        for i in range(n):
            if batch.action_mask[i].any():
                actions[i] = prefer_table_moves(np.flatnonzero(batch.action_mask[i]), rng)
                kinds.add(kind(actions[i]))
        batch, expected = vec.step(actions), ref.step(actions)
    assert kinds == {"meld", "layoff", "swap", "other"}
    assert ends == ({"terminated", "truncated"} if "max_turns" in options else {"terminated"})


@pytest.mark.parametrize(
    "options", [{"num_players": 3, "reward": "score"}, {"num_players": 6, "wild_rank": 7, "max_turns": 40}]
)
def test_rounds_replay_in_env_from_deal_of_with_the_same_actions(options):
    vec = CrazyRummyVec(5, seed=2, **options)
    counts = play_against_env(vec, crazy_rummy_v0, options, 260, np.random.default_rng(8), choose=prefer_table_moves)
    assert counts["episodes"] >= 5 and counts["resets"] >= 3
    assert set(vec.deal_of(0)) == {"deck", "dealer", "wild_rank"}


# dealer 2: player_0 holds 8 cards and plays first without drawing (R-CRAZY-03, 06); fives are wild
HANDS = ["2H 3H 5C 7C 7D 7H 7S KD", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
@pytest.mark.parametrize(
    ("reward", "rewards"),
    [("win", [1.0, -0.5, -0.5]), ("score", [89 / 3, 89 / 3 - 41, 89 / 3 - 48])],
)
def test_a_scripted_round_goes_out_in_one_turn_with_exact_penalties(cls, reward, rewards):
    deck = stack_deck(HANDS, dealer=2)
    vec = cls(2, seed=0, wild_rank=5, reward=reward)
    batch = vec.reset(decks=[deck, deck], dealers=np.array([2, 2]))
    assert vec.deal_of(1) == {"deck": deck, "dealer": 2, "wild_rank": 5}
    lay = vec.layout
    assert batch.current_player.tolist() == [0, 0] and batch.observation[0, lay.slice("phase")].tolist() == [0, 1]
    for text in ("meld 2H 3H 4H", "meld 7C 7D 7H 7S", "discard KD"):
        action = string_to_action(text)
        assert batch.action_mask[:, action].all(), text
        batch = vec.step(np.array([action, action]))
        if text == "meld 2H 3H 4H":  # the five of clubs stands for the four of hearts (R-CRAZY-05)
            assert np.flatnonzero(batch.observation[0, lay.slice("wild_C")]).tolist() == [13 * 2 + 3]
    # player_0 went out (R-CRAZY-09): AC 2C 3C 9S TD JD 6H = 41, 9C TC JC KC 2D 3D 4D = 48 (R-CRAZY-12)
    assert batch.terminated.all() and not batch.truncated.any() and not batch.action_mask.any()
    assert vec.scores.tolist() == [[0, 41, 48], [0, 41, 48]]
    assert batch.rewards.tolist() == [np.float32(rewards).tolist()] * 2
    assert batch.observation[0, lay.slice("totals")].tolist() == [0, 41, 48]
    batch = vec.step(np.array([0, 0]))  # the autoreset deals a new round
    assert not batch.terminated.any() and vec.deal_of(0)["deck"] != deck and vec.deal_of(0)["wild_rank"] == 5


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_the_mask_looks_ahead_to_a_swap_before_refusing_a_meld_r_crazy_08a(cls):
    # game 0: player_2 discards 4H, which the five of clubs stands for on the table;
    # game 1: player_2 discards 9D.  player_0 takes it and holds four sevens besides.
    p0, p1 = "2H 3H 5C 7C 7D 7H 7S QS", "AC 2C 3C 9S TD JD 6H"
    decks = [stack_deck([p0, p1, f"{c} TC JC KC 2D 3D 4D"], stock="KS KH", dealer=2) for c in ("4H", "9D")]
    vec = cls(2, seed=0, wild_rank=5)
    vec.reset(decks=decks, dealers=np.array([2, 2]))
    a = string_to_action
    for moves in (["meld 2H 3H 4H"] * 2, ["discard QS"] * 2, ["draw stock"] * 2, ["discard KS"] * 2):
        batch = vec.step(np.array([a(m) for m in moves]))
    batch = vec.step(np.array([a("draw stock")] * 2))
    batch = vec.step(np.array([a("discard 4H"), a("discard 9D")]))
    batch = vec.step(np.array([a("draw discard")] * 2))
    four_sevens, three_sevens = a("meld 7C 7D 7H 7S"), a("meld 7C 7D 7H")
    # game 0: melding the sevens leaves the card just taken, which can still be swapped
    # for the wild card and the wild card discarded; game 1: it would leave no legal discard
    assert batch.action_mask[0, four_sevens] == 1 and batch.action_mask[1, four_sevens] == 0
    assert batch.action_mask[:, three_sevens].tolist() == [1, 1]
    assert batch.action_mask[:, a("discard 4H")].tolist() == [0, 0] and batch.action_mask[1, a("discard 9D")] == 0
    batch = vec.step(np.array([four_sevens, three_sevens]))
    assert np.flatnonzero(batch.action_mask[0]).tolist() == [a("swap 4H")]
    batch = vec.step(np.array([a("swap 4H"), a("discard 7S")]))
    assert np.flatnonzero(batch.action_mask[0]).tolist() == [a("discard 5C")]
    batch = vec.step(np.array([a("discard 5C"), a("draw stock")]))
    assert batch.terminated.tolist() == [True, False] and batch.rewards[0].tolist() == [1.0, -0.5, -0.5]
    assert vec.scores[0].tolist() == [0, 41, 49]  # player_2: TC JC KC 2D 3D 4D KH (R-CRAZY-12)


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_the_wild_card_taken_from_the_discard_pile_fills_first_r_crazy_05_08(cls):
    # tests/envs/test_crazy_rummy_env.py's deal (kings wild): player_1 holds 4C 5C KC and takes
    # the wild KD; a meld or lay-off filled with KC would leave only KD, which may not go back
    hands = ["KD 2D 3D 6S 8S TS QD", "7H 8H 9H TH 4C 5C KC JS", "AS 2S 3S 9C 9D JC QC"]
    deck = stack_deck(hands, stock=["5D", "7D"], dealer=0)
    vec = cls(2, seed=0, wild_rank=13)
    vec.reset(decks=[deck, deck], dealers=np.array([0, 0]))
    a = string_to_action
    for move in ["meld 7H 8H 9H", "layoff TH high", "discard JS", "draw stock", "discard 5D", "draw stock"]:
        batch = vec.step(np.array([a(move)] * 2))
    for move in ["discard KD", "draw discard"]:
        batch = vec.step(np.array([a(move)] * 2))
    melds = [a(m) for m in ("meld 3C 4C 5C", "meld 4C 5C 6C", "meld 5C 6C 7C")]
    assert batch.action_mask[:, melds].tolist() == [[1, 1, 1]] * 2 and batch.action_mask[:, a("discard KD")].sum() == 0
    batch = vec.step(np.array([a("meld 4C 5C 6C"), a("meld 3C 4C 5C")]))
    assert [np.flatnonzero(m).tolist() for m in batch.action_mask] == [[a("discard KC")], [a("discard KC")]]
    # KD (the wild card of diamonds) stands for the meld's missing card: 6C, 3C
    stands = batch.observation[:, vec.layout.slice("wild_D")]
    assert [card_str(int(c)) for c in np.flatnonzero(stands) % 52] == ["6C", "3C"]
    batch = vec.step(np.array([a("discard KC")] * 2))
    assert batch.terminated.tolist() == [True, True] and batch.rewards[:, 1].tolist() == [1.0, 1.0]


def test_stacked_decks_draw_the_same_wild_ranks_and_dealers_in_both_implementations():
    decks = np.array([np.random.default_rng(k).permutation(52) for k in range(6)])
    kernel, reference = CrazyRummyVec(6, seed=4, num_players=4), ReferenceCrazyRummyVec(6, seed=4, num_players=4)
    got, want = kernel.reset(decks=decks), reference.reset(decks=decks)
    deals = [kernel.deal_of(i) for i in range(6)]
    assert deals == [reference.deal_of(i) for i in range(6)]
    assert [d["deck"] for d in deals] == [[card_str(int(c)) for c in deck] for deck in decks]
    assert [d["wild_rank"] for d in deals] == [4, 13, 12, 8, 7, 6]  # drawn per game from its deal stream
    for name, u, v in zip(Batch._fields, got, want, strict=True):
        assert np.array_equal(u, v), name


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_a_wild_card_whose_natural_card_is_stood_for_fills_nothing_r_crazy_05a(cls):
    # tests/golden/crazy_rummy's deal (tens wild): TD stands for TS, and player_1's natural TS
    # may not go down as a wild card (R-CRAZY-05a): only discards are left
    hands = ["7S 8S 9S TD 2H 3H 4H KD", "4C 5C TS AD 6D 8D QC", "9C JC KC 2D 3D 4D 9H"]
    deck = stack_deck(hands, stock=["JH"], dealer=2)
    vec = cls(1, seed=0, wild_rank=10)
    vec.reset(decks=[deck], dealers=np.array([2]))
    for move in ["meld 7S 8S 9S TS", "discard KD", "draw stock"]:
        batch = vec.step(np.array([string_to_action(move)]))
    legal = [action_to_string(int(x)) for x in np.flatnonzero(batch.action_mask[0])]
    assert legal == [f"discard {c}" for c in ["4C", "5C", "QC", "AD", "6D", "8D", "JH", "TS"]]


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_a_scripted_round_stacked_with_its_wild_rank_per_game(cls):
    # the scripted round above, its fives wild given per game instead of by the option
    deck = stack_deck(HANDS, dealer=2)
    vec = cls(2, seed=0)
    vec.reset(decks=[deck, deck], dealers=np.array([2, 2]), wild_ranks=np.array([5, 5]))
    assert vec.deal_of(0) == {"deck": deck, "dealer": 2, "wild_rank": 5}
    for text in ("meld 2H 3H 4H", "meld 7C 7D 7H 7S", "discard KD"):
        batch = vec.step(np.array([string_to_action(text)] * 2))
    assert batch.terminated.all() and vec.scores.tolist() == [[0, 41, 48], [0, 41, 48]]


def test_recorded_rounds_replay_in_a_batch_from_deal_of_with_their_wild_ranks():
    n = 6
    recorded = CrazyRummyVec(n, seed=21, num_players=4)
    first = [field.copy() for field in recorded.reset()]
    deals = [recorded.deal_of(i) for i in range(n)]
    assert [d["wild_rank"] for d in deals] == [11, 12, 3, 1, 13, 10]
    stacked = {
        "decks": [d["deck"] for d in deals],
        "dealers": np.array([d["dealer"] for d in deals]),
        "wild_ranks": np.array([d["wild_rank"] for d in deals]),
    }
    kernel, reference = CrazyRummyVec(n, seed=5, num_players=4), ReferenceCrazyRummyVec(n, seed=5, num_players=4)
    got, want = kernel.reset(**stacked), reference.reset(**stacked)
    for name, u, v, w in zip(Batch._fields, first, got, want, strict=True):
        assert np.array_equal(u, v) and np.array_equal(u, w), name
    assert [kernel.deal_of(i) for i in range(n)] == deals == [reference.deal_of(i) for i in range(n)]
    ended = 0
    for step in range(200):  # a given rank draws nothing: both engines' streams stay in step
        got, want = kernel.step_random(), reference.step_random()
        for name, u, v in zip(Batch._fields, got, want, strict=True):
            assert np.array_equal(u, v), (step, name)
        ended += int((got.terminated | got.truncated).sum())
    assert ended == 11  # later rounds were dealt from the streams, with drawn wild ranks


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
@pytest.mark.parametrize(
    ("options", "wild_ranks", "message"),
    [
        (
            {"episode": "game"},
            [3, 3],
            "wild_ranks is for episode='hand': a whole game plays the wild ranks A..K in order (R-CRAZY-02)",
        ),
        ({}, [3], "wild_ranks must be 2 integers 1..13 (one per game), got shape (1,) and dtype int64"),
        ({}, [True, True], "wild_ranks must be 2 integers 1..13 (one per game), got shape (2,) and dtype bool"),
        ({}, [3, 14], "wild rank 14 of game 1 is not a rank: ranks are 1..13 (A..K)"),
        ({}, [0, 3], "wild rank 0 of game 0 is not a rank: ranks are 1..13 (A..K)"),
        (
            {"wild_rank": 3},
            [3, 4],
            "wild rank 4 of game 1 differs from the wild_rank option 3: with the option set every game plays round 3",
        ),
    ],
)
def test_bad_wild_ranks_are_refused_and_leave_the_games_as_they_were(cls, options, wild_ranks, message):
    vec = cls(2, seed=1, num_players=3, **options)
    vec.reset()
    deals = [vec.deal_of(i) for i in range(2)]
    with pytest.raises(ValueError, match=whole(message)):
        vec.reset(seed=9, wild_ranks=np.array(wild_ranks))
    assert [vec.deal_of(i) for i in range(2)] == deals
    after = vec.step_random()  # the same stream as before the refused reset
    again = cls(2, seed=1, num_players=3, **options)
    again.reset()
    for name, u, v in zip(Batch._fields, after, again.step_random(), strict=True):
        assert np.array_equal(u, v), name


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_a_bool_in_a_list_of_wild_ranks_is_refused_not_read_as_aces(cls):
    vec = cls(2, seed=1, num_players=3)
    vec.reset()
    deals = [vec.deal_of(i) for i in range(2)]
    with pytest.raises(
        ValueError, match=r"^wild_ranks\[0\]=True is not an integer: wild ranks are 1\.\.13 \(A\.\.K\), one per game$"
    ):
        vec.reset(seed=9, wild_ranks=[True, 3])  # np.asarray would make it rank 1
    assert [vec.deal_of(i) for i in range(2)] == deals
