"""Every agent the registry builds uses only what its player can know: a whole seeded
hand is played, and at each decision of the agent's seat two twins of the agent (same
name, same seed) decide in other true deals with the same information, from the
observation encoded there: one where a few hidden cards or tiles of the other hands and
the stock or pool are exchanged (the deal records rewritten to match and the later deals
reseeded: ``swap_hidden``), one where every hidden card is dealt again (``resample``,
which keeps no deal record).  The observations, the actions and, for the searches, every value the search
computes must be the same, decision after decision.

The agents already checked this way elsewhere are listed in :data:`ELSEWHERE`; the
others are checked here (tiny search budgets: the worlds are drawn and weighted as at
full budget).  :func:`test_every_agent_of_the_registry_has_a_no_peeking_test` keeps the
two lists complete: a new panel member, style, model or champion without such a test
fails it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.base import Agent, legal_ids
from agents.champion import champion_name
from agents.panel import PANELS
from agents.registry import STYLES
from agents.search import is_search_spec, parse_search_spec, search_settings
from agents.search.rummikub_plan import RummikubPlanAgent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from tests.agents.search_spies import record_search_values
from tests.games.resample_helpers import scrambled

ROOT = Path(__file__).resolve().parents[2]
MODULES = {m.__name__.split(".")[-1]: m for m in (gin_rummy_v0, rummy_v0, crazy_rummy_v0, rummikub_v0)}

#: the committed models (docs/results/**/model.pt, by folder) by the variant they were trained on
MODELS = {
    "gin_rummy_v0": ["selfplay-gin", "selfplay-gin-league", "exploit/gin_rummy-champion-30min"],
    "rummy_v0": ["selfplay-rummy"],
    "crazy_rummy_v0": ["selfplay-crazy", "selfplay-crazy-discard", "selfplay-crazy-out", "selfplay-crazy-safe"],
    "rummikub_v0": ["selfplay-rummikub", "selfplay-rummikub-plan"],
}
#: the committed SB3 models (docs/results/*/model.zip, experiments.train) by variant
SB3_MODELS = {"gin_rummy_v0": ["sb3-gin"], "rummy_v0": ["sb3-rummy"], "crazy_rummy_v0": [], "rummikub_v0": []}

#: agents (or agent families) whose blindness to hidden cards another test checks
STYLES_TEST = "tests/agents/test_styles.py::test_a_style_decides_the_same_when_hidden_cards_are_permuted"
ELSEWHERE = {
    "heuristic": STYLES_TEST,  # style=default
    "heuristic:style=": STYLES_TEST,
    "openspiel_gin_bot": (
        "tests/reference/test_openspiel_bot.py::test_permuting_the_cards_it_cannot_see_changes_no_decision"
    ),
}

#: the agents checked here, per variant (search budgets made tiny by :func:`tiny`)
HERE = {
    variant: ["random", "champion", "pimc", "ismcts"]
    + [f"policy:docs/results/{run}/model.pt" for run in MODELS[variant]]
    + [f"policy:docs/results/{run}/model.zip" for run in SB3_MODELS[variant]]
    + {
        "gin_rummy_v0": [
            "pimc:model=1",  # uniform compiled worlds (the panel's search)
            "pimc:model=0.5",  # worlds weighted halfway
            "pimc:rollout=heuristic",  # Python playouts
            "pimc:rollout=random",
        ],
        "rummy_v0": ["pimc:model=1", "pimc:rollout=heuristic", "pimc:rollout=random", "pimc:halving=3"],
        "crazy_rummy_v0": [
            "pimc:model=1",
            "pimc:rollout=heuristic",
            "pimc:rollout=random",
            "pimc:halving=3",
            # the compiled playouts' styles of the other seats (the champion's hold_wilds is checked as champion)
            "pimc:playout_style=shed_high",
            "pimc:playout_style=defensive",
            "pimc:playout_style=hold_wilds_safe",
        ],
        "rummikub_v0": [
            "pimc:model=1",  # whole plays, uniform worlds (the panel's search)
            "pimc:model=0",  # whole plays, worlds that fit the others' last plays
            "pimc:plan=steps",  # the search over single env steps
        ],
    }[variant]
    for variant in MODULES
}
CASES = [(variant, name) for variant in MODULES for name in HERE[variant]]
IDS = [f"{variant}-{name.replace('docs/results/', '')}" for variant, name in CASES]

#: tiny budgets: worlds / simulations, and depth (turns of a whole-play search are not capped)
TINY = {"worlds": 3, "simulations": 4, "depth": 8}


def tiny(name: str, variant: str) -> str:
    """``name`` (``champion`` replaced by what it names) with a tiny search budget; whole
    Rummikub plays searched from the first turn (``late=106``)."""
    if name == "champion":
        name = champion_name(variant)
    if not is_search_spec(name):
        return name
    kind, options = parse_search_spec(name)
    cls, settings = search_settings(name, MODULES[variant].env())
    if cls is RummikubPlanAgent:
        options.update(worlds=min(settings["worlds"], TINY["worlds"]), candidates=3, late=106)
    elif kind == "pimc":
        options["worlds"] = min(settings["worlds"], TINY["worlds"])
        options.pop("playouts", None)
        if settings.get("rollout") != "fast":  # compiled playouts keep their depth: they are quick
            options["depth"] = TINY["depth"]
    else:
        options.update(simulations=TINY["simulations"], depth=TINY["depth"])
    return f"{kind}:" + ",".join(f"{k}={v}" for k, v in options.items())


def holdings(state) -> tuple[list, list]:
    """Every hand or rack and the stock or pool: whether a twin's deal differs from the truth."""
    if hasattr(state, "racks"):
        return [r.tolist() for r in state.racks], list(state.pool)
    return list(state.hands), list(state.stock)


def check_blind(
    variant: str,
    name: str,
    deals=(0, 1),
    twins: int = 2,
    max_decisions: int = 40,
    seed: int = 5,
    env_options: dict | None = None,
):
    """Play ``deals`` (agent ``name`` in seat ``deal % n``, the heuristic elsewhere) and, at
    each of its decisions (up to ``max_decisions`` per deal), let ``twins`` copies of it
    decide in other true deals, the even ones scrambled (``scrambled``), the odd ones dealt
    again (``resample``); assert the same observation, action and search values.

    Returns:
        (decisions checked, twin decisions in a deal other than the truth's for the kind
        of twin that saw the fewest: at most ``checked``, less where little or nothing
        is hidden (a resample of two hidden cards deals them as they were half the
        time), searches run by the agent).
    """
    env = MODULES[variant].env(**(env_options or {}))
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    checked = searched = 0
    moved = [0, 0]  # decisions where the scrambled / resampled twin's deal differed from the truth's
    for deal in deals:
        env.reset(seed=deal)
        n = len(env.possible_agents)
        seat = deal % n
        agent = make_agent(name, env, seed=seed)
        copies = [make_agent(name, env, seed=seed) for _ in range(twins)]
        others = make_agent("heuristic", env, seed=deal)
        decisions = 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            if decisions == max_decisions:
                break
            obs = env.observe(env.agent_selection)
            if env.possible_agents.index(env.agent_selection) != seat:
                env.step(others.act(obs))
                continue
            truth = raw.game_state
            action = agent.act(obs)
            for i, twin in enumerate(copies):
                # another true deal, the same information
                raw.game_state = scrambled(truth, seat, rng) if i % 2 == 0 else truth.resample(seat, rng)
                moved[i % 2] += holdings(raw.game_state) != holdings(truth)
                # encoded from the scrambled state (env.observe would hand out its cached arrays until the next step)
                again = dict(zip(("observation", "action_mask"), raw._observe_arrays(seat), strict=True))
                assert all(np.array_equal(again[k], obs[k]) for k in obs), (deal, decisions, "observation")
                assert twin.act(again) == action, (deal, decisions, "action")
                assert twin.__dict__.get("_values") == agent.__dict__.get("_values"), (deal, decisions, "values")
            raw.game_state = truth
            env.step(action)
            decisions += 1
            checked += 1
        searched += len(agent.__dict__.get("_values", []))
    kinds = (twins + 1) // 2, twins // 2  # twins of each kind per decision
    return checked, min(m / k for m, k in zip(moved, kinds, strict=True) if k), searched


@pytest.mark.parametrize(("variant", "name"), CASES, ids=IDS)
def test_decisions_and_values_do_not_change_when_hidden_cards_are_permuted(variant, name, monkeypatch):
    record_search_values(monkeypatch)
    spec = tiny(name, variant)
    checked, moved, searched = check_blind(variant, spec)
    assert checked >= 10 and moved >= 0.9 * checked  # the twins saw other true deals
    assert searched >= 5 or not is_search_spec(spec)  # the searches' values were compared too


class PeekingAgent(Agent):
    """Plays the legal action picked by the other seats' true hands (a cheat)."""

    def __init__(self, env, seed=None):
        super().__init__(seed)
        self.env = env

    def act(self, observation, info=None):
        state = self.env.unwrapped.game_state
        seat = state.current_player()
        if hasattr(state, "racks"):  # tile counts per type
            hidden = [int(np.dot(r, np.arange(1, r.size + 1))) for r in state.racks]
        else:  # card bitmasks
            hidden = [int(h) for h in state.hands]
        secret = sum(h * (q + 1) for q, h in enumerate(hidden) if q != seat)
        legal = legal_ids(observation)
        return int(legal[secret % legal.size])


class RecordPeekingAgent(PeekingAgent):
    """Plays the legal action picked by the true deal's record (a cheat)."""

    def act(self, observation, info=None):
        decks = self.env.unwrapped.game_state.hand_decks
        record = decks[-1] if decks else []  # a resampled world keeps no record
        legal = legal_ids(observation)
        return int(legal[sum(c * (i + 1) for i, c in enumerate(record)) % legal.size])


class SeedPeekingAgent(PeekingAgent):
    """Plays the legal action picked by the engine's generator, which deals the later hands
    (a cheat)."""

    def act(self, observation, info=None):
        key = self.env.unwrapped.game_state.rng.bit_generator.state["state"]["state"]
        legal = legal_ids(observation)
        return int(legal[key % legal.size])


@pytest.mark.parametrize("cheat", ["PeekingAgent", "RecordPeekingAgent", "SeedPeekingAgent"])
@pytest.mark.parametrize("variant", MODULES)
def test_the_check_catches_an_agent_that_reads_the_hidden_hands(variant, cheat):
    with pytest.raises(AssertionError, match=r"^\(0, \d+, 'action'\)"):
        check_blind(variant, f"{__name__}:{cheat}", deals=(0,))


def registry_names(variant: str) -> set[str]:
    """Every agent name the registry builds for ``variant`` without options beyond those of
    the panel and the champion: random, the heuristic and its styles, the searches, the
    panel, the champion, every committed model of the variant, OpenSpiel's bot on Gin."""
    names = {"random", "heuristic", "champion", "pimc", "ismcts", *PANELS[variant]}
    names |= {f"heuristic:style={s}" for s in STYLES[variant][1:]}
    names |= {f"policy:docs/results/{run}/model.pt" for run in MODELS[variant]}
    names |= {f"policy:docs/results/{run}/model.zip" for run in SB3_MODELS[variant]}
    if variant == "gin_rummy_v0":
        names.add("openspiel_gin_bot")
    return names


def test_every_agent_of_the_registry_has_a_no_peeking_test():
    from agents.torch_policy import load_model

    # every committed model is listed under the variant it was trained on
    results = ROOT / "docs" / "results"
    runs = {
        p.parent.relative_to(results).as_posix(): load_model(p).extra["variant"] for p in results.glob("**/model.pt")
    }
    assert runs == {run: variant for variant, listed in MODELS.items() for run in listed}
    zips = {p.parent.relative_to(results).as_posix() for p in results.glob("**/model.zip")}
    assert zips == {run for listed in SB3_MODELS.values() for run in listed}
    for test in set(ELSEWHERE.values()):  # the tests named there exist
        path, _, function = test.partition("::")
        assert f"def {function}(" in (ROOT / path).read_text(), test
    for variant in MODULES:
        for name in sorted(registry_names(variant)):
            family = "heuristic:style=" if name.startswith("heuristic:style=") else name
            assert name in HERE[variant] or family in ELSEWHERE, f"{variant}: {name} has no no-peeking test"


#: seat counts and whole games beyond the default options: (variant, env options)
SETTINGS = [
    ("rummy_v0", {"num_players": 6}),
    ("crazy_rummy_v0", {"num_players": 5}),
    ("rummikub_v0", {"num_players": 4}),
    ("gin_rummy_v0", {"episode": "game", "oklahoma": True}),
    ("rummy_v0", {"episode": "game"}),
    ("crazy_rummy_v0", {"episode": "game"}),
    ("rummikub_v0", {"episode": "game"}),
]


@pytest.mark.parametrize("name", ["heuristic", "pimc", "ismcts"])
@pytest.mark.parametrize(("variant", "options"), SETTINGS, ids=[f"{v}-{o}" for v, o in SETTINGS])
def test_more_seats_and_whole_games_keep_hidden_cards_hidden(variant, options, name, monkeypatch):
    """The heuristic over whole hands and into the next hand of a game, the searches (tiny
    budgets) over their first decisions, at every seat count's largest and in whole games;
    ``pimc``'s compiled playouts into the next hands of a game."""
    record_search_values(monkeypatch)
    spec = tiny(name, variant)
    decisions = 30  # the first hand's
    if name == "heuristic":
        decisions = 150
    elif name == "pimc" and options.get("episode") == "game" and variant != "rummikub_v0":
        decisions = 60  # the compiled playouts into later hands (they reach hands 2 to 7)
    checked, moved, searched = check_blind(variant, spec, max_decisions=decisions, env_options=options)
    assert checked >= 10 and moved >= 0.9 * checked
    assert searched >= 5 or not is_search_spec(spec)


STYLE_CASES = [(variant, style) for variant in MODULES for style in STYLES[variant][1:]]


@pytest.mark.parametrize(("variant", "style"), STYLE_CASES, ids=[f"{v}-{s}" for v, s in STYLE_CASES])
def test_every_heuristic_style_keeps_hidden_cards_hidden_over_whole_hands(variant, style):
    """The styles over two whole hands (``test_styles`` checks a few early positions)."""
    checked, moved, _ = check_blind(variant, f"heuristic:style={style}", max_decisions=150)
    assert checked >= 10 and moved >= 0.9 * checked
