"""Gin Rummy against OpenSpiel's ``gin_rummy``, the reference implementation.

OpenSpiel comes with the ``reference`` extra (part of ``test``), so this runs in CI.
Card and action ids are mapped by ``agents.openspiel_bot`` (``TO_OS``, ``openspiel_moves``,
shared with the ``openspiel_gin_bot`` agent), the card map checked here through the card
text: ours are suit-major C D H S (``AC`` = 0), OpenSpiel's suit-major s c d h (``As`` = 0).

1. Our deadwood of 10-card hands equals OpenSpiel's ``MinDeadwood`` (exact for 10
   cards; for 11 it takes a shortcut, see ``tests/core/test_deadwood.py``).
2. Hands played in our env are replayed move for move in OpenSpiel, with the same deal,
   the same draws, our knocker's melds and our defender's lay-offs and melds, and the
   returns must agree wherever both rule sets apply.  They differ by design when
   OpenSpiel's 11-card shortcut withholds a legal knock, when a chain of three lay-offs
   goes onto one end of a run (OpenSpiel extends a run by at most two lay-offs on a
   side), on an equal-deadwood undercut (OpenSpiel scores it 0; R-GIN-11 gives the
   defender the bonus) and after OpenSpiel's limit of 50 upcard draws; those hands are
   counted, not compared.
"""

import numpy as np
import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pyspiel = pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from agents import make_agent
from agents.openspiel_bot import GR, STOCK_CARD, TO_OS, openspiel_moves
from rummy_env import gin_rummy_v0
from rummy_env.core.cards import card_str, cards_of
from rummy_env.core.deadwood import deadwood
from rummy_env.core.melds import MELDS, RUN
from rummy_env.games.gin_rummy import KNOCK, PASS
from tests.core.test_deadwood import random_hands

UTILS = GR.GinRummyUtils(13, 4, 10)


def test_the_card_map_is_a_bijection_that_keeps_the_text():
    assert sorted(TO_OS) == list(range(52))
    assert TO_OS[0] == UTILS.card_int("Ac") and TO_OS[51] == UTILS.card_int("Ks")
    for c, o in enumerate(TO_OS):
        assert UTILS.card_string(o).upper() == card_str(c)  # "TS" is OpenSpiel's "Ts"
        assert UTILS.card_value(o) == min(c % 13 + 1, 10)


def test_ten_card_deadwood_equals_openspiel():
    checked = 0
    for h in random_hands(300, 10, 6000):
        assert deadwood(h) == UTILS.min_deadwood([TO_OS[c] for c in cards_of(h)]), card_str(cards_of(h)[0])
        checked += 1
    assert checked == 6000


def os_melds(meld_ids):
    """OpenSpiel meld actions for our melds: runs longer than 5 cards split into pieces
    of 3 to 5 (OpenSpiel's melds have at most 5 cards; the split lays off the same)."""
    out = []
    for m in meld_ids:
        cards = list(MELDS[m].cards)
        pieces = []
        if MELDS[m].kind == RUN:
            while len(cards) > 5:
                pieces.append(cards[:3])
                cards = cards[3:]
        pieces.append(cards)
        out += [GR.MELD_ACTION_BASE + UTILS.meld_to_int([TO_OS[c] for c in piece]) for piece in pieces]
    return out


class Differs(Exception):
    """The hand leaves the ground both rule sets share."""


def apply(os_state, action):
    if action not in os_state.legal_actions():
        raise Differs(f"OpenSpiel refuses {os_state.action_to_string(action)}")
    os_state.apply_action(action)


def replay_in_openspiel(game, deck, dealer, actions, options):
    """OpenSpiel's returns (ours seats) after replaying our hand; raises Differs."""
    env = gin_rummy_v0.raw_env(**options)
    env.reset(options={"deck": [card_str(c) for c in deck], "dealer": dealer})
    ours = env.game_state
    seat_of_os = [1 - dealer, dealer]  # OpenSpiel's player 0 is offered the upcard first: our non-dealer
    os_of_seat = {s: p for p, s in enumerate(seat_of_os)}
    os_state = game.new_initial_state()
    for c in deck[0:20:2] + deck[1:20:2] + [deck[20]]:  # player 0's ten cards, player 1's, the upcard
        os_state.apply_action(TO_OS[c])

    def deal_stock_top():
        assert os_state.is_chance_node()
        os_state.apply_action(TO_OS[ours.stock[-1]])

    for action in actions:
        if os_state.is_terminal():
            raise Differs("OpenSpiel's game is over (50 upcard draws)")
        mover = ours.current_player()
        assert os_state.current_player() == os_of_seat[mover]
        # both passed: OpenSpiel's player 0 draws from the stock; no big gin (played with big_gin=False)
        for move in openspiel_moves(action, second_pass=action == PASS and ours.passes == 1):
            if move == STOCK_CARD:
                deal_stock_top()
            else:
                apply(os_state, move)
        env.step(action)
        if action < KNOCK and ours.is_terminal():  # R-GIN-09 dead hand: OpenSpiel's wall, then pass
            apply(os_state, GR.PASS_ACTION)
    last = ours.last_hand
    if last["result"] in ("knock", "gin", "undercut"):
        sd = last["showdown"]
        if last["result"] == "undercut" and sd.knocker_deadwood == sd.defender.deadwood:
            raise Differs("equal deadwood: an undercut by R-GIN-11, a draw in OpenSpiel")
        for a in os_melds(sd.knocker_melds):
            apply(os_state, a)
        apply(os_state, GR.PASS_ACTION)
        if sd.knocker_deadwood > 0:
            for layoff in sd.defender.layoffs:
                apply(os_state, TO_OS[layoff.card])
            apply(os_state, GR.PASS_ACTION)
        for a in os_melds(sd.defender.melds):
            apply(os_state, a)
        apply(os_state, GR.PASS_ACTION)
    assert os_state.is_terminal(), last["result"]
    returns = os_state.returns()
    return [returns[os_of_seat[0]], returns[os_of_seat[1]]], last


def our_points(last):
    """Our hand's result as zero-sum points per seat."""
    scores = last["hand_scores"]
    return [scores[0] - scores[1], scores[1] - scores[0]]


@pytest.mark.parametrize("oklahoma, knock_limit", [(False, 10), (True, 10)])  # OpenSpiel refuses limits above 10
def test_scoring_agrees_with_openspiel(oklahoma, knock_limit):
    options = {"big_gin": False, "oklahoma": oklahoma, "knock_limit": knock_limit}
    game = pyspiel.load_game(
        "gin_rummy", {"oklahoma": oklahoma, "knock_card": knock_limit, "gin_bonus": 25, "undercut_bonus": 25}
    )
    env = gin_rummy_v0.env(**options)
    compared = {"knock": 0, "gin": 0, "undercut": 0, "dead hand": 0, "layoffs": 0}
    differs = []
    rng = np.random.default_rng(11 + oklahoma + knock_limit)
    for hand in range(600):
        lineup = [["heuristic", "heuristic"], ["heuristic", "random"], ["random", "heuristic"], ["random", "random"]][
            hand % 4
        ]
        seed = int(rng.integers(1 << 30))
        env.reset(seed=seed)
        agents = {a: make_agent(lineup[i], env, seed=seed + i) for i, a in enumerate(env.possible_agents)}
        actions = []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            actions.append(agents[agent].act(obs))
            env.step(actions[-1])
        state = env.unwrapped.game_state
        try:
            theirs, last = replay_in_openspiel(game, state.initial_deck, state.initial_dealer, actions, options)
        except Differs as why:
            differs.append(str(why))
            continue
        assert theirs == our_points(last), (last["result"], theirs, last["hand_scores"])
        compared[last["result"]] += 1
        compared["layoffs"] += bool(last["showdown"] and last["showdown"].defender.layoffs)
    assert sum(compared[k] for k in ("knock", "gin", "undercut", "dead hand")) >= 500, (compared, differs)
    assert compared["knock"] >= 100 and compared["gin"] >= 5 and compared["undercut"] >= 1, compared
    assert compared["layoffs"] >= 20 and compared["dead hand"] >= 20, compared


SCRIPTED = [  # (hands of player_0 and player_1, upcard, stock top, moves): the golden hands
    (["3S 4S 5S 7H 8H 9H 2C 2D 2H KD", "QC JC 9C 8D 7D 4C TD KS QS JD"], "AC", "6S", ["draw upcard", "knock KD"]),
    (["3S 4S 5S 7H 8H 9H 2C 2D 2H 9C", "JC QC KC 5D 6D 7D 8S 8C 8D 5C"], "KH", "KS", ["pass", "pass", "knock KS"]),
    (["3S 4S 5S 7H 8H 9H 2C 2D 2H KD", "7S TH QC JC 9C 8D 7D 4C KS QS"], "AC", "6S", ["pass", "pass", "knock KD"]),
    (["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], "AS", "KH", ["pass", "pass", "knock KH"]),
    (["5H 6H 7H 2C 3C 4C JS QS KS 3D", "8H 9H QC JC 9C 8S 7D 4S 2D AD"], "AS", "KD", ["pass", "pass", "knock KD"]),
    (["5C 5D 5H 5S 6S 7S 8S AD 2D 2C", "4S KC QD JD 9H 9C TC 3H 7D KH"], "AS", "KS", ["pass", "pass", "knock KS"]),
    (["3S 4S 5S 6S 7H 8H 9H 2C 2D 2H", "AC KS QC JC 9C 8D 7D 4C QS TD"], "TH", "AD", ["draw upcard", "knock 3S"]),
]


@pytest.mark.parametrize("hands, upcard, stock, moves", SCRIPTED)
def test_golden_hands_score_the_same_in_openspiel(hands, upcard, stock, moves):
    """Knock, strict undercut, gin, lay-offs from a kept meld and onto an extended
    meld, the knocker's tie-break (R-GIN-06), gin by discarding from 11 melded cards."""
    from rummy_env.core.cards import parse_deck
    from rummy_env.games.gin_rummy import stack_deck, string_to_action

    deck = parse_deck(stack_deck(hands, upcard=upcard, stock=[stock], dealer=1))
    actions = [string_to_action(m) for m in moves]
    game = pyspiel.load_game("gin_rummy")
    theirs, last = replay_in_openspiel(game, deck, 1, actions, {"big_gin": False})
    assert theirs == our_points(last) and theirs != [0, 0]
