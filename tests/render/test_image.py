"""``render_mode="rgb_array"``, the SVG and the picture they share (rummy_env/render/)."""

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agents import make_agent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.render import shapes as sh
from rummy_env.render.image import to_array
from rummy_env.render.scene import HEIGHT, WIDTH, table_picture
from tests.envs.test_no_leak import record_hand, replay
from tests.envs.variants import VARIANTS
from tests.helpers import whole
from tests.render.scenes import SCENES

GOLDEN = Path(__file__).parent / "golden"
PLAYER_COUNTS = [
    (rummy_v0, range(2, 7)),
    (crazy_rummy_v0, range(3, 7)),
    (gin_rummy_v0, [2]),
    (rummikub_v0, range(2, 5)),
]
CASES = [(m, n) for m, counts in PLAYER_COUNTS for n in counts]


def options(module, n):
    return {} if module is gin_rummy_v0 else {"num_players": n}


@pytest.mark.parametrize("module, n", CASES, ids=[f"{m.__name__.split('.')[-1]}-{n}" for m, n in CASES])
def test_frames_are_uint8_rgb_of_one_size_through_a_game(module, n):
    env = module.env(render_mode="rgb_array", max_turns=12, **options(module, n))
    env.reset(seed=n)
    agents = [make_agent("random", env, seed=i) for i in range(n)]
    frames = [env.render()]
    for i, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agents[env.unwrapped.agent_name_mapping[agent]].act(obs))
        if i % 9 == 0:
            frames.append(env.render())
    frames.append(env.render())
    for frame in frames:
        assert frame.dtype == np.uint8 and frame.shape == (HEIGHT, WIDTH, 3) == (560, 960, 3)
    assert len({f.tobytes() for f in frames}) > 2  # the picture follows the game


def matches_golden(frame, name):
    """Mean channel difference below 1.5 and under 0.3% of the pixels more than 64 off."""
    ref = np.asarray(Image.open(GOLDEN / f"{name}.png").convert("RGB"), dtype=np.int16)
    diff = np.abs(frame.astype(np.int16) - ref)
    mean, far = float(diff.mean()), float((diff.max(axis=2) > 64).mean())
    return mean < 1.5 and far < 0.003, (mean, far)


@pytest.mark.parametrize("name", list(SCENES))
def test_image_matches_its_golden_picture(name):
    """Within a tolerance: the golden files are stored in 128 colours, and font
    rasterisation may differ a little between Pillow and FreeType versions."""
    env = SCENES[name]()
    ok, figures = matches_golden(env.render(), name)
    assert ok, figures
    # the tolerance tells pictures apart: the same table from another seat is far off
    other = (env.unwrapped.agent_name_mapping[env.agent_selection] + 1) % env.unwrapped.game.num_players
    frame = to_array(table_picture(env.unwrapped.game_state, other, env.unwrapped.last_move))
    ok, figures = matches_golden(frame, name)
    assert not ok, figures


def texts(picture):
    return [s.text for s in picture.shapes if isinstance(s, sh.Text)]


def test_gin_showdown_lays_out_both_hands_with_the_layoffs_framed():
    env = SCENES["gin_rummy"]()
    pic = table_picture(env.unwrapped.game_state, 1, env.unwrapped.last_move)
    words = texts(pic)
    assert "player_0 knocked · deadwood 3" in words
    # the defender's deadwood after its two lay-offs (R-GIN-08: 7D and 8D on 4D 5D 6D), and in its
    # seat line the hand's before them (R-GIN-05's least deadwood of its own melds)
    assert "player_1 lays out, lays off 2 · deadwood 37" in words
    assert "player_1 (this view) · deadwood 45 before laying off · 0 pts" in words
    knocker_view = texts(table_picture(env.unwrapped.game_state, 0, env.unwrapped.last_move))
    assert "player_0 (this view) · deadwood 3 · 34 pts" in knocker_view
    assert "last move: player_0 knock KH" in words
    assert "last hand: knock, won by player_0; hand scores player_0 34, player_1 0" in words
    # 7D and 8D are laid off on 4D 5D 6D: two green frames
    greens = [s for s in pic.shapes if isinstance(s, sh.Rect) and s.stroke == sh.GREEN_MARK]
    assert len(greens) == 2


def test_crazy_rummy_marks_a_wild_card_with_the_card_it_stands_for():
    env = SCENES["crazy_rummy"]()
    pic = table_picture(env.unwrapped.game_state, 0, None)
    words = texts(pic)
    assert "=8" in words  # the 5C on the table stands for the 8S
    assert "Crazy Rummy · round 5 · wild rank 5 · turn 0 · dealer player_0" in words
    tags = [s for s in pic.shapes if isinstance(s, sh.Rect) and s.fill == sh.GOLD]
    assert len(tags) == 1


def test_rummikub_shows_the_play_being_built_only_to_its_player():
    env = SCENES["rummikub"]()
    state = env.unwrapped.game_state
    mine = texts(table_picture(state, 0, env.unwrapped.last_move))
    theirs = texts(table_picture(state, 1, env.unwrapped.last_move))
    assert any("building a play: R7 B7 (green)" in t for t in mine)
    assert "last move: player_0 add B7" in mine
    assert not any("R7" in t or "B7" in t for t in theirs)
    assert "last move: player_0 added a tile to the play being built" in theirs


def test_suits_are_drawn_in_their_colours():
    """A heart's centre is red, a spade's black (suits are shapes, not font glyphs)."""
    for suit, colour in ((2, sh.RED), (3, sh.BLACK), (1, sh.RED), (0, sh.BLACK)):
        pic = sh.Picture(40, 40, background="#ffffff")
        pic.add(*sh.suit_shapes(suit, 20, 20, 15))
        frame = to_array(pic)
        want = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        assert np.abs(frame[20, 20].astype(int) - want).max() < 20, (suit, frame[20, 20])
        assert (frame[2, 2] == 255).all()  # and the corner stays white


@pytest.mark.parametrize("name", list(SCENES))
def test_svg_parses_and_holds_the_same_shapes(name):
    env = SCENES[name]()
    svg = env.unwrapped.render_svg()
    assert svg._repr_svg_() == str(svg)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root.get("width") == "960" and root.get("height") == "560"
    pic = table_picture(env.unwrapped.game_state, env.unwrapped.agent_name_mapping[env.agent_selection], None)
    assert [t.text for t in root.iter(f"{ns}text")][:-2] == texts(pic)[:-2]  # all but the last-move lines
    kinds = {sh.Rect: "rect", sh.Ellipse: "ellipse", sh.Polygon: "polygon", sh.Text: "text"}
    for kind, tag in kinds.items():
        count = sum(isinstance(s, kind) for s in pic.shapes) + (tag == "rect")  # + the background
        assert len(list(root.iter(f"{ns}{tag}"))) == count, tag


def test_render_svg_of_another_agent_and_bad_viewers():
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    assert "player_1 (this view)" in env.unwrapped.render_svg("player_1")
    # str() of a KeyError is the repr of its message, quotes included
    with pytest.raises(
        KeyError, match=whole(repr("agent 'player_7' is not an agent of this env: agents are player_0, player_1"))
    ):
        env.unwrapped.render_svg("player_7")
    with pytest.raises(
        KeyError, match=whole(repr("agent ['x'] is not an agent of this env: agents are player_0, player_1"))
    ):
        env.unwrapped.render_svg(["x"])  # not "unhashable type"
    with pytest.raises(ValueError, match=whole("viewer=2 is not a seat: use 0..1")):
        table_picture(env.unwrapped.game_state, 2)
    with pytest.raises(TypeError, match=whole("no picture for a dict: pass an engine state of rummy_env.games")):
        table_picture({}, 0)
    with pytest.raises(RuntimeError, match=whole("call reset() before render_svg()")):
        gin_rummy_v0.raw_env().render_svg()


LEAK = [(v, v.leak_options[0]) for v in VARIANTS if v.leak_options]


@pytest.mark.parametrize("variant, opts", LEAK, ids=[v.name for v, _ in LEAK])
def test_pictures_do_not_change_when_hidden_cards_are_shuffled(variant, opts):
    """As tests/envs/test_no_leak.py for observations: the cards a seat never saw are
    shuffled among the other hands and the stock; its picture stays the same."""
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(4):
        env, actions = record_hand(variant, opts, seed=int(rng.integers(1 << 30)), steps=int(rng.integers(5, 60)))
        state = env.unwrapped.game_state
        deck, dealer = state.initial_deck, state.initial_dealer
        replay_options = variant.replay_options(state, opts)
        for player in range(state.num_players):
            seen = [0]

            def look(s, player=player, seen=seen):
                seen[0] |= variant.public_cards(s, player)

            replay(variant, replay_options, deck, dealer, actions, player, look)
            hidden = [i for i, c in enumerate(deck) if not seen[0] >> c & 1]
            shuffled = list(deck)
            for place, card in zip(hidden, rng.permutation([deck[i] for i in hidden]), strict=True):
                shuffled[place] = int(card)
            a = replay(variant, replay_options, deck, dealer, [], player)
            b = replay(variant, replay_options, shuffled, dealer, [], player)
            for action in actions:
                if variant.public_signature(a.game_state) != variant.public_signature(b.game_state):
                    break
                pa = table_picture(a.game_state, player, a.last_move)
                pb = table_picture(b.game_state, player, b.last_move)
                assert pa.shapes == pb.shapes
                compared += 1
                if not b.observe(b.agent_selection)["action_mask"][action]:
                    break
                a.step(action)
                b.step(action)
    assert compared >= 40


def test_gin_text_showdown_says_the_hands_deadwood_counts_before_the_lay_offs():
    from rummy_env.render.text import render_gin

    state = SCENES["gin_rummy"]().unwrapped.game_state  # R-GIN-08: 7D 8D laid off, 45 -> 37
    defender, knocker = render_gin(state, 1).splitlines(), render_gin(state, 0).splitlines()
    assert defender[1] == "  player_1's hand: 7C 9C | 7D 8D | 2H 7H JH QH | 6S 7S (deadwood 45 before laying off)"
    assert defender[6] == "  player_1 lays out: melds 7C 7H 7S; lays off 7D 8D; deadwood 37 (9C | 2H JH QH | 6S)"
    assert knocker[1] == "  player_0's hand: 2C 3C 4C | 4D 5D 6D | 3H | JS QS KS (deadwood 3)"
