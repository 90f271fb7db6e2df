"""The compiled Crazy Rummy round (``vector.crazy_kernel``) against the reference engine:
a loaded state or world steps as ``CrazyRummyState`` does, legal ids, hands, table and
penalties included, and the kernel's re-deal keeps what the seat knows."""

import numpy as np
import pytest

from rummy_env.games.crazy_rummy.hands import penalty
from rummy_env.games.crazy_rummy.state import CrazyRummyGame
from rummy_env.vector import crazy_kernel as ck
from rummy_env.vector import crazy_world


def _legal_ids(words):
    return [64 * w + a for w in range(words.shape[0]) for a in range(64) if int(words[w]) >> a & 1]


def _assert_same(ints, masks, stock, pile, legal, state):
    n = state.num_players
    assert _legal_ids(legal[0]) == state.legal_actions()
    assert masks[0, ck.HAND : ck.HAND + n].tolist() == state.hands
    assert masks[0, ck.KNOWN : ck.KNOWN + n].tolist() == state.known
    assert int(masks[0, ck.TABLE]) == state.table.mask and int(masks[0, ck.PILE_MASK]) == state.discard_mask
    assert pile[0, : ints[0, ck.PILE_LEN]].tolist() == state.discard
    assert stock[0, : ints[0, ck.STOCK_LEN]].tolist() == state.stock
    stands = {int(ints[0, ck.STAND + s]): 13 * s + state.wild_rank for s in range(4) if ints[0, ck.STAND + s] >= 0}
    assert stands == {rep: wild for rep, (wild, _) in state.wild_for.items()}
    assert (int(ints[0, ck.CUR]), int(ints[0, ck.PHASE]), int(ints[0, ck.TAKEN]), int(ints[0, ck.MUST])) == (
        state.current,
        state.phase,
        state.taken_discard,
        state.must_discard,
    )
    assert ints[0, ck.MELDED : ck.MELDED + n].tolist() == [int(m) for m in state.melded]


def _prefer_table_moves(legal, rng):
    """A random legal move, melds, lay-offs and swaps ten times likelier than the rest
    (random play alone rarely reaches swaps and wild lay-offs)."""
    weights = np.array([10.0 if a >= ck.MELD else 1.0 for a in legal])
    return int(rng.choice(legal, p=weights / weights.sum()))


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_loaded_crazy_world_steps_as_the_reference_engine(players):
    ints, masks, stock, pile, legal = arrays = crazy_world.arrays(1)
    rng = np.random.default_rng(players)
    kinds, ends, compared = set(), set(), 0
    for g in range(60):  # enough rounds that every way a round ends comes up
        game = CrazyRummyGame(num_players=players, max_turns=200 if g % 5 else 9)
        cfg = crazy_world.config_vector(game.config)
        state = game.new_initial_state(rng=int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, 20))):  # a few moves before the world is taken
            state.apply_action(_prefer_table_moves(state.legal_actions(), rng))
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        world = state.resample(state.current_player(), rng)
        crazy_world.load_state(world, 0, *arrays, cfg)
        while not world.is_terminal():
            _assert_same(ints, masks, stock, pile, legal, world)
            action = _prefer_table_moves(world.legal_actions(), rng)
            kinds.add(
                "swap"
                if action >= ck.SWAP
                else "layoff"
                if action >= ck.LAYOFF
                else "meld"
                if action >= ck.MELD
                else "other"
            )
            world.apply_action(action)
            ck.apply(0, action, ints, masks, stock, pile, cfg)
            ck.compute_legal(0, ints, masks, legal, cfg)
            compared += 1
        last = world.last_hand
        ended = ck.TRUNCATED if last["truncated"] else ck.TERMINATED
        assert (int(ints[0, ck.ENDED]), int(ints[0, ck.WINNER])) == (ended, last["winner"])
        assert ints[0, ck.PENALTY : ck.PENALTY + players].tolist() == last["hand_scores"]
        ends.add("out" if last["winner"] >= 0 else "truncated" if last["truncated"] else "stock")
    assert compared > 1000 and kinds == {"swap", "layoff", "meld", "other"}
    assert ends == {"out", "truncated", "stock"}


def test_the_kernel_penalty_is_the_engines():
    rng = np.random.default_rng(5)
    for _ in range(200):
        hand = int(rng.integers(2**52, dtype=np.uint64))
        rank = int(rng.integers(13))
        assert ck.penalty(np.uint64(hand), rank) == penalty(hand, rank)


def test_the_kernels_redeal_keeps_what_the_seat_knows():
    game = CrazyRummyGame(num_players=3, wild_rank=5)
    state = game.new_initial_state(rng=11)
    rng = np.random.default_rng(2)
    while state.turn < 9 or state.current_player() != 0 or state.phase != 0:
        state.apply_action(_prefer_table_moves(state.legal_actions(), rng))
        assert not state.is_terminal()
    cfg = crazy_world.config_vector(game.config)
    ints, masks, stock, pile, legal = arrays = crazy_world.arrays(1)
    crazy_world.load_state(state, 0, *arrays, cfg)
    before = masks[0].copy(), stock[0].copy()
    hidden = int(masks[0, ck.HAND + 1] | masks[0, ck.HAND + 2]) & ~int(masks[0, ck.KNOWN + 1] | masks[0, ck.KNOWN + 2])
    hidden |= sum(1 << int(c) for c in stock[0, : ints[0, ck.STOCK_LEN]])
    kernel_rng = np.array([7], np.uint64)
    moved = 0
    for _ in range(50):
        crazy_world.redeal_hidden(0, 0, ints, masks, stock, cfg, kernel_rng, 0)
        assert masks[0, ck.HAND] == before[0][ck.HAND] and masks[0, ck.TABLE] == before[0][ck.TABLE]
        for q in (1, 2):
            hand, known = int(masks[0, ck.HAND + q]), int(masks[0, ck.KNOWN + q])
            assert hand & known == known and hand.bit_count() == int(before[0][ck.HAND + q]).bit_count()
        now = int(masks[0, ck.HAND + 1] | masks[0, ck.HAND + 2]) & ~int(masks[0, ck.KNOWN + 1] | masks[0, ck.KNOWN + 2])
        now |= sum(1 << int(c) for c in stock[0, : ints[0, ck.STOCK_LEN]])
        assert now == hidden  # the same cards, dealt again
        moved += int(masks[0, ck.HAND + 1] != before[0][ck.HAND + 1])
    assert moved >= 45
