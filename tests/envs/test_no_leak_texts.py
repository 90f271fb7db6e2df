"""The texts and pictures a seat is shown hold only what its player may know: the
``ansi``/``human`` table (``render()`` for the acting seat, the renderer for any seat),
the picture of ``rgb_array`` and ``render_svg`` (its shapes), and the message
``env()`` puts in ``infos[agent]["illegal_action"]`` for each illegal id of the acting
seat.  At positions of seeded games, the hidden cards or tiles of a seat's view (the
other hands or racks, the stock or pool) are exchanged (``scrambled``: the same
information, another true deal); the seat's texts must be exactly the same.
(Observations: ``test_no_leak.py``, ``test_gin_no_leak.py``, ``test_rummikub_env.py``;
``tests/render/test_image.py`` shuffles whole decks for the pictures of basic and Crazy
Rummy, not Gin Rummy or Rummikub.)
"""

import numpy as np
import pytest

from agents import make_agent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.render.scene import table_picture
from tests.games.resample_helpers import scrambled

CASES = [
    (rummy_v0, {"num_players": 2}),
    (rummy_v0, {"num_players": 4, "episode": "game"}),
    (crazy_rummy_v0, {"num_players": 3}),
    (crazy_rummy_v0, {"num_players": 3, "episode": "game"}),
    (gin_rummy_v0, {}),
    (gin_rummy_v0, {"episode": "game", "oklahoma": True}),
    (rummikub_v0, {"num_players": 2}),
    (rummikub_v0, {"num_players": 3, "episode": "game"}),
]
IDS = [f"{m.__name__.split('.')[-1]}-{o}" for m, o in CASES]


def holdings_of(state):
    """Every hand or rack and the stock or pool: whether a twin's deal differs from the truth."""
    if hasattr(state, "racks"):
        return [r.tolist() for r in state.racks], list(state.pool)
    return list(state.hands), list(state.stock)


def illegal_reasons(state, num_actions):
    """The engine's message for every illegal id of the acting seat: what ``env()``
    writes in ``infos[agent]["illegal_action"]`` (``wrappers._illegal_reason`` applies the
    id to a clone; ``apply_action`` refuses it in ``check_action``, which touches nothing)."""
    legal = set(state.legal_actions())
    reasons = {}
    for action in range(num_actions):
        if action not in legal:
            with pytest.raises(ValueError) as refused:
                state.check_action(action)
            reasons[action] = str(refused.value)
    return reasons


#: (positions compared, of them after a move, illegal-action reasons compared, pictures
#: compared) of each case's seeded deals
COMPARED = {
    ("rummy_env.crazy_rummy_v0", "{'num_players': 3, 'episode': 'game'}"): (180, 180, 37509, 60),
    ("rummy_env.crazy_rummy_v0", "{'num_players': 3}"): (99, 99, 20676, 39),
    ("rummy_env.gin_rummy_v0", "{'episode': 'game', 'oklahoma': True}"): (74, 74, 3711, 26),
    ("rummy_env.gin_rummy_v0", "{}"): (50, 50, 2630, 18),
    ("rummy_env.rummikub_v0", "{'num_players': 2}"): (240, 240, 6393, 80),
    ("rummy_env.rummikub_v0", "{'num_players': 3, 'episode': 'game'}"): (180, 180, 3167, 60),
    ("rummy_env.rummy_v0", "{'num_players': 2}"): (94, 94, 26966, 34),
    ("rummy_env.rummy_v0", "{'num_players': 4, 'episode': 'game'}"): (240, 240, 34442, 80),
}


@pytest.mark.parametrize(("module", "options"), CASES, ids=IDS)
def test_the_texts_a_seat_is_shown_do_not_change_when_hidden_cards_are_permuted(module, options):
    env = module.env(render_mode="ansi", **options)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    compared = moved = reasons = pictures = 0
    for deal in range(2 if options.get("episode") == "game" else 4):  # whole games: longer hands
        env.reset(seed=deal)
        agents = [make_agent(("heuristic", "random")[i % 2], env, seed=deal + i) for i in range(len(env.agents))]
        for step, agent in enumerate(env.agent_iter(max_iter=120)):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            truth = raw.game_state
            if step % 4 == 0:
                for seat in range(truth.num_players):
                    twin = scrambled(truth, seat, rng)
                    moved += holdings_of(twin) != holdings_of(truth)
                    assert raw.renderer(twin, seat) == raw.renderer(truth, seat), (deal, step, seat)
                    if step % 12 == 0:  # the picture of rgb_array and render_svg (Pillow draws its shapes)
                        picture = table_picture(truth, seat, raw.last_move).shapes
                        assert table_picture(twin, seat, raw.last_move).shapes == picture, (deal, step, seat)
                        pictures += 1
                    if seat == truth.current_player():
                        told = illegal_reasons(truth, raw.num_actions)
                        assert illegal_reasons(twin, raw.num_actions) == told, (deal, step, seat)
                        reasons += len(told)
                        raw.game_state = twin  # render() draws the acting seat's table
                        assert env.render() == raw.renderer(truth, seat)
                        raw.game_state = truth
                    compared += 1
            env.step(agents[raw.agent_name_mapping[agent]].act(obs))
    assert (compared, moved, reasons, pictures) == COMPARED[module.__name__, repr(options)]  # seeded: exact
