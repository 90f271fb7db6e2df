"""Scripted tables, one per variant, for the golden images (stacked decks, moves as text).

``python -m tests.render.scenes`` rewrites the golden PNGs in tests/render/golden/ (look at
them before committing: they are the reference the image tests compare with).
"""

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games.crazy_rummy import stack_deck as crazy_deck
from rummy_env.games.gin_rummy import stack_deck as gin_deck
from rummy_env.games.rummikub import stack_pool
from rummy_env.games.rummy import stack_deck as rummy_deck


def play(env, reset_options, moves):
    env.reset(seed=0, options=reset_options)
    for move in moves:
        env.unwrapped.step(env.unwrapped.string_to_action(move))  # raw: an illegal move raises
    return env


def rummy():
    """Player_0 has melded two runs (R-RUMMY-07) and still holds the three twos."""
    deck = rummy_deck(
        ["3S 4S 5S 7H 8H 9H 2C 2D 2H KD", "AC AD 5C 6C 9C JC QD KH 4D 8D"], upcard="QS", stock=["6S"], dealer=1
    )
    env = rummy_v0.env(render_mode="rgb_array")
    return play(env, {"deck": deck, "dealer": 1}, ["draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H"])


def crazy_rummy():
    """Round 5 (fives wild): player_1 melds 8S 9S TS with the five of clubs as the 8S."""
    deck = crazy_deck(
        ["AC 2C 3C 4C 6C 7C 8C", "5C 9S TS 2D 2H 2S 3D KH", "AH 3H 4H 6H 7H 8H 9H"], stock=["JD"], dealer=0
    )
    env = crazy_rummy_v0.env(num_players=3, wild_rank=5, render_mode="rgb_array")
    return play(env, {"deck": deck, "dealer": 0}, ["meld 8S 9S TS", "meld 2D 2H 2S"])


def gin_rummy():
    """After player_0's knock: both hands laid out, 7D and 8D laid off (R-GIN-08)."""
    deck = gin_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    env = gin_rummy_v0.env(render_mode="rgb_array")
    return play(env, {"deck": deck, "dealer": 1}, ["pass", "pass", "knock KH"])


def rummikub():
    """Player_0 made the initial meld; player_1 drew; player_0 builds a group of sevens."""
    pool = stack_pool(
        [
            "R10 R11 R12 R7 B7 K7 Y2 Y3 B9 K1 K13 JK R1 B2",
            "R2 R3 R4 B11 B12 K5 K6 Y9 Y10 Y11 B1 K9 R13 Y13",
        ],
        pool_top=["Y6"],
        first_player=0,
    )
    env = rummikub_v0.env(render_mode="rgb_array")
    moves = ["add R10", "add R11", "add R12", "commit", "draw", "add R7", "add B7"]
    return play(env, {"deck": pool, "first_player": 0}, moves)


SCENES = {"rummy": rummy, "crazy_rummy": crazy_rummy, "gin_rummy": gin_rummy, "rummikub": rummikub}


if __name__ == "__main__":
    from pathlib import Path

    from PIL import Image

    out = Path(__file__).parent / "golden"
    out.mkdir(exist_ok=True)
    for name, scene in SCENES.items():
        # 128 colours keep the files small; the tests compare within a tolerance that covers it
        image = Image.fromarray(scene().render()).quantize(128, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        image.save(out / f"{name}.png", optimize=True)
        print(out / f"{name}.png")
