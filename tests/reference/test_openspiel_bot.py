"""``openspiel_gin_bot`` (``agents/openspiel_bot.py``): OpenSpiel's simple Gin bot as our
agent.  Its moves are legal and its rule adjustments counted; it cannot see hidden cards;
on stacked decks it plays exactly what the bot plays in OpenSpiel's own ``gin_rummy``;
the same seed gives the same game."""

import sys

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from agents import make_agent
from agents.openspiel_bot import (
    FROM_OS,
    GR,
    REASONS,
    STOCK_CARD,
    TO_OS,
    OpenSpielGinBot,
    openspiel_moves,
    standalone_state,
)
from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.core.cards import card_str, cards_of, mask_of, parse_card, parse_deck
from rummy_env.games.gin_rummy import DRAW_STOCK, PASS, action_to_string, stack_deck
from tests.helpers import play, scripted_env


def counts(**nonzero):
    return {reason: nonzero.get(reason, 0) for reason in REASONS}


def bot_games(options, opponent, games, seed):
    """``games`` hands of the bot against ``opponent`` (seats alternate), one bot across
    them (reset per hand); asserts every move of the bot is legal.

    Returns (the bot, its decisions, decisions at which big gin was legal)."""
    env = gin_rummy_v0.env(**options)
    bot = make_agent("openspiel_gin_bot", env, seed=seed)
    decisions = big_gin = 0
    for g in range(games):
        other = make_agent(opponent, env, seed=seed + g)
        seat = f"player_{g % 2}"
        bot.reset(seed=seed + g)
        env.reset(seed=seed * 1000 + g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if agent != seat:
                env.step(other.act(obs))
                continue
            action = bot.act(obs)
            assert obs["action_mask"][action] == 1, action_to_string(action)
            decisions += 1
            big_gin += int(obs["action_mask"][-1])
            env.step(action)
    return bot, decisions, big_gin


# ---------------------------------------------------------------- (a) legality
@pytest.mark.parametrize(
    "options, opponent, seed, games, expected",
    [
        ({}, "heuristic", 1, 25, counts(upcard_only_to_discard=1)),
        ({}, "random", 8, 25, counts(big_gin_as_gin=1)),
        ({"oklahoma": True}, "random", 1, 25, counts(upcard_only_to_discard=2, big_gin_as_gin=1)),
        ({"knock_limit": 14, "big_gin": False}, "random", 2, 15, counts(knock_limit_above_10="decisions")),
        ({"episode": "game", "target_score": 50}, "heuristic", 4, 4, counts()),  # hands after hands
    ],
)
def test_every_move_is_legal_and_the_adjustments_are_counted(options, opponent, seed, games, expected):
    bot, decisions, big_gin = bot_games(options, opponent, games, seed)
    expected = {k: decisions if v == "decisions" else v for k, v in expected.items()}
    assert bot.adjustments == expected
    # the bot goes gin whenever its eleven cards meld: each legal big gin was counted
    assert bot.adjustments["big_gin_as_gin"] == big_gin and decisions > 200


def test_an_upcard_it_would_throw_back_is_not_taken():
    """Dealt 5 points of deadwood, OpenSpiel's bot takes any upcard, knocks and sheds its
    highest unmelded card, here the upcard KC itself (legal in OpenSpiel, not here,
    R-GIN-04): it passes instead, then knocks at once on its next draw."""
    deck = stack_deck(
        ["3S 4S 5S 7H 8H 9H 2C 2D 2H 5D", "AC 5C 9C 6D 8D TD 4H 6H JS 9S"], upcard="KC", stock=["KH"], dealer=1
    )
    env = scripted_env(gin_rummy_v0, deck, dealer=1)
    bot = make_agent("openspiel_gin_bot", env, seed=0)
    os_state, os_player, _, replayed = bot.openspiel_state(env.observe("player_0"))
    theirs = [bot._bots[os_player].step(os_state)]
    os_state.apply_action(theirs[0])
    theirs.append(bot._bots[os_player].step(os_state))
    os_state.apply_action(theirs[1])
    theirs.append(bot._bots[os_player].step(os_state))
    assert replayed and theirs == [GR.DRAW_UPCARD_ACTION, GR.KNOCK_ACTION, TO_OS[parse_card("KC")]]
    moves = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        moves.append(action_to_string(bot.act(obs) if agent == "player_0" else make_agent("heuristic", env).act(obs)))
        env.step(env.unwrapped.string_to_action(moves[-1]))
    assert moves == ["pass", "pass", "knock KH"]
    assert bot.adjustments == counts(upcard_only_to_discard=1)


def test_past_openspiels_upcard_draw_limit_it_decides_on_its_own_cards(monkeypatch):
    """OpenSpiel's hand ends at the 50th upcard draw; past it the bot is asked in a
    stand-alone state.  There it would shed the card it just took (R-GIN-04 forbids it):
    it knocks with the card that keeps the least deadwood instead."""
    deck = stack_deck(["3S 4S 5S 7H 8H 9H 2C 2D 2H 5D", "AC 5C 9C 6D 8D TD 4H 6H JS 9S"], upcard="KC", dealer=1)
    env = scripted_env(gin_rummy_v0, deck, dealer=1)
    bot = make_agent("openspiel_gin_bot", env, seed=0)
    assert action_to_string(bot.act(env.observe("player_0"))) == "pass"  # as in the test above
    play(env, "draw upcard")  # what OpenSpiel's bot plays
    monkeypatch.setattr(OpenSpielGinBot, "_replay", lambda *args: None)  # as if OpenSpiel's hand were over
    action = bot.act(env.observe("player_0"))
    assert action_to_string(action) == "knock 5D"  # keeps KC: 10 points, the knock limit
    assert bot.adjustments == counts(upcard_only_to_discard=1, upcard_draw_limit=1, taken_card_discard=1)


def test_the_stand_alone_state_gives_the_same_decisions():
    """The bot reads only its hand, the upcard and the knock card: at every draw and
    discard of the bot in whole games, the stand-alone state decides as the replay."""
    env = gin_rummy_v0.env()
    compared = 0
    for g in range(6):
        env.reset(seed=40 + g)
        agents = [make_agent("openspiel_gin_bot", env, seed=q) for q in range(2)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            bot = agents[int(agent[-1])]
            state = env.unwrapped.game_state
            view = state.observation(state.current_player())
            if view.phase != 0:  # not the upcard offer
                legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
                os_state, os_player, _, _ = bot.openspiel_state(obs)
                twin = OpenSpielGinBot(env, seed=0)
                assert twin._bot_move(standalone_state(view), 0, view, legal) == (
                    bot._bot_move(os_state, os_player, view, legal)
                )
                compared += 1
            env.step(bot.act(obs))
    assert compared > 60


def test_it_refuses_other_variants_and_names_the_extra(monkeypatch):
    with pytest.raises(ValueError, match="openspiel_gin_bot plays Gin Rummy \\(gin_rummy_v0\\) only, not rummy_v0"):
        make_agent("openspiel_gin_bot", rummy_v0.env())
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # open_spiel not installed
    monkeypatch.delitem(sys.modules, "agents.openspiel_bot")
    with pytest.raises(ValueError, match=r'needs the reference extra .*pip install -e "\.\[reference\]"'):
        make_agent("openspiel_gin_bot", gin_rummy_v0.env())


def test_it_must_be_asked_at_every_decision_of_its_seat():
    env = gin_rummy_v0.env()
    env.reset(seed=2)
    heuristic = make_agent("heuristic", env)
    for _ in range(6):
        env.step(heuristic.act(env.observe(env.agent_selection)))
    with pytest.raises(ValueError, match="was not asked at its seat's first decision of this hand"):
        make_agent("openspiel_gin_bot", env).act(env.observe(env.agent_selection))


# ----------------------------------------------------------- (b) no peeking
def permuted(state, seat, rng):
    """A copy of ``state`` with the cards ``seat`` cannot see (the opponent's cards not
    taken from the pile, the stock) dealt again in a random order."""
    new = state.clone()
    other = 1 - seat
    known = state.known[other]
    hidden = cards_of(state.hands[other] & ~known) + list(state.stock)
    shuffled = [hidden[i] for i in rng.permutation(len(hidden))]
    k = (state.hands[other] & ~known).bit_count()
    new.hands[other] = known | mask_of(shuffled[:k])
    new.stock = shuffled[k:]
    new._legal = None
    return new


@pytest.mark.parametrize("opponent", ["heuristic", "random"])
def test_permuting_the_cards_it_cannot_see_changes_no_decision(opponent):
    env, scratch = gin_rummy_v0.env(), gin_rummy_v0.env()
    scratch.reset(seed=0)
    rng = np.random.default_rng(7)
    checked = changed = 0
    for g in range(5):
        env.reset(seed=70 + g)
        seat = f"player_{g % 2}"
        bot = make_agent("openspiel_gin_bot", env, seed=1)
        twin = make_agent("openspiel_gin_bot", scratch, seed=2)  # another generator too
        other = make_agent(opponent, env, seed=g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if agent != seat:
                env.step(other.act(obs))
                continue
            truth = env.unwrapped.game_state
            scratch.unwrapped.game_state = permuted(truth, truth.current_player(), rng)
            changed += scratch.unwrapped.game_state.stock != truth.stock
            # the twin reads the observation encoded from the permuted deal
            arrays = scratch.unwrapped._observe_arrays(truth.current_player())
            again = dict(zip(("observation", "action_mask"), arrays, strict=True))
            assert all(np.array_equal(again[k], obs[k]) for k in obs)
            mine, player, _, _ = bot.openspiel_state(obs)
            theirs, _, _, _ = twin.openspiel_state(again)
            assert mine.observation_tensor(player) == theirs.observation_tensor(player)
            action = bot.act(obs)
            assert twin.act(again) == action
            checked += 1
            env.step(action)
    assert checked > 40 and changed == checked


# ------------------------------------------------------------- (c) fidelity
def openspiel_game(deck, moves):
    """OpenSpiel's own ``gin_rummy`` on our stacked ``deck`` with its simple bot in both
    seats, for as many OpenSpiel actions as ``moves`` (ours, as OpenSpiel actions with
    the stock cards dealt): the bots' decisions and the chance cards."""
    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in (0, 1)]
    state = game.new_initial_state()
    for c in deck[0:20:2] + deck[1:20:2] + [deck[20]]:  # OpenSpiel's player 0: our non-dealer
        state.apply_action(TO_OS[c])
    stock, played = iter(deck[21:]), []
    while len(played) < len(moves) and not state.is_terminal():
        action = TO_OS[next(stock)] if state.is_chance_node() else bots[state.current_player()].step(state)
        played.append(action)
        state.apply_action(action)
    return played


def as_openspiel(deck, actions):
    stock, out, passes = iter(deck[21:]), [], 0
    for a in actions:
        out += [TO_OS[next(stock)] if m == STOCK_CARD else m for m in openspiel_moves(a, a == PASS and passes == 1)]
        passes += a == PASS
    return out


GOLDEN = [
    (  # both pass JS; the upcard TH makes the dealer's set of tens and a knock
        ["2H 6H TH JD 5H 4C QD KD QH 8D", "7C 3D 4D TD AS 2D TC QS AC 8C"],
        "JS",
        ["3H", "5D", "7D"],
        "pass, pass, discard QH, draw stock, discard QS, draw stock, discard TH, draw upcard, knock 8C",
        counts(),
    ),
    (  # eleven melded cards: gin with a discard that keeps gin (OpenSpiel has no big gin)
        ["3S 4S 5S 6S 7H 8H 9H 2C 2D 2H", "AC KS QC JC 9C 8D 7D 4C QS TD"],
        "TH",
        ["AD"],
        "draw upcard, knock 3S",
        counts(big_gin_as_gin=1),
    ),
]


@pytest.mark.parametrize("hands, upcard, stock, expected, adjustments", GOLDEN)
def test_on_a_stacked_deck_it_plays_as_openspiels_bot_in_openspiels_game(hands, upcard, stock, expected, adjustments):
    deck = parse_deck(stack_deck(hands, upcard=upcard, stock=stock, dealer=1))
    env = scripted_env(gin_rummy_v0, [card_str(c) for c in deck], dealer=1)
    bots = [make_agent("openspiel_gin_bot", env, seed=q) for q in range(2)]
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        actions.append(bots[int(agent[-1])].act(obs))
        env.step(actions[-1])
    assert ", ".join(action_to_string(a) for a in actions) == expected
    ours = as_openspiel(deck, actions)
    assert openspiel_game(deck, ours) == ours
    assert {k: bots[0].adjustments[k] + bots[1].adjustments[k] for k in REASONS} == adjustments


def test_hands_against_other_agents_replay_the_bots_openspiel_decisions():
    """Hands against the heuristic and random play, replayed in OpenSpiel with the
    opponent's moves: each decision of the bot here is the bot's there."""
    env = gin_rummy_v0.env()
    compared, adjustments = 0, counts()
    for g in range(12):
        env.reset(seed=90 + g)
        state = env.unwrapped.game_state
        seat = g % 2
        bot = make_agent("openspiel_gin_bot", env, seed=g)
        other = make_agent(["heuristic", "random"][g // 6], env, seed=g)
        deck, dealer, actions = list(state.initial_deck), state.initial_dealer, []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            actions.append(bot.act(obs) if agent == f"player_{seat}" else other.act(obs))
            env.step(actions[-1])
        ours = as_openspiel(deck, actions)
        game = pyspiel.load_game("gin_rummy")
        os_seat = 0 if seat != dealer else 1
        os_bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), os_seat)
        os_state = game.new_initial_state()
        for c in deck[0:20:2] + deck[1:20:2] + [deck[20]]:
            os_state.apply_action(TO_OS[c])
        for action in ours:
            # a decision of the bot (not OpenSpiel's forced stock draw after two passes)
            if os_state.current_player() == os_seat and len(os_state.legal_actions()) > 1:
                assert os_bot.step(os_state) == action
                compared += 1
            os_state.apply_action(action)
        adjustments = {k: adjustments[k] + bot.adjustments[k] for k in REASONS}
    assert adjustments == counts() and compared > 120


def test_card_and_action_maps():
    assert [card_str(FROM_OS[TO_OS[c]]) for c in range(52)] == [card_str(c) for c in range(52)]
    assert openspiel_moves(DRAW_STOCK) == (GR.DRAW_STOCK_ACTION, STOCK_CARD)
    assert openspiel_moves(PASS, second_pass=True) == (GR.PASS_ACTION, GR.DRAW_STOCK_ACTION, STOCK_CARD)
    assert openspiel_moves(52 + 12) == (GR.KNOCK_ACTION, TO_OS[12])  # knock KC: knock, then the discard
    with pytest.raises(ValueError, match="OpenSpiel has no big gin"):
        openspiel_moves(107)
    with pytest.raises(ValueError, match="action -1 is not a Gin Rummy action id"):
        openspiel_moves(-1)


# --------------------------------------------------------------- (d) seeded
def test_the_same_seed_plays_the_same_game():
    def game():
        env = gin_rummy_v0.env(episode="game")
        env.reset(seed=123)
        agents = [make_agent("openspiel_gin_bot", env, seed=5), make_agent("random", env, seed=6)]
        moves = []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            moves.append(agents[int(agent[-1])].act(obs))
            env.step(moves[-1])
        return moves

    first = game()
    assert len(first) > 20 and game() == first
