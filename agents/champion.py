"""``champion``: the strongest agent the project has for each variant, by name.

``make_agent("champion", env)`` builds the agent :data:`CHAMPIONS` names for the env's
variant, at its default settings (every job that names agents takes it, ``--agents
champion``, but self-play's ``--league`` and ``--teacher-agent``: they play on the batched
engine's rows, which a search agent cannot).  What
"strongest" means here is issue 25's bar: measured against the whole opponent panel
(:mod:`agents.panel`, ``python -m experiments.evaluate --agent champion``), not against one
opponent, at about 100 ms per decision at most on one core.  The figures behind each
choice are on the docs' results page with their commands.  Champions are chosen and
measured on single hands (``episode="hand"``, the default).  With ``episode="game"`` the
searches of Gin, basic Rummy and Crazy Rummy play the current hand of the game out in their
compiled playouts (``agents.search.fast.playout_config``), each decision judged by the
hand's points margin (``fast.GIN_MARGIN_SCALE``, ``RUMMY_MARGIN_SCALE``,
``CRAZY_MARGIN_SCALE``); a variant whose whole games have another champion is in
:data:`GAME_CHAMPIONS` (Crazy Rummy's; a warning says so when one is played).

The champion of a variant is a name the registry already knows (a search agent with its
options, a committed ``policy:`` model), so a champion is never a second copy of an agent.
A change of champion is recorded in the CHANGELOG, its figures on the results page.

- Gin Rummy: ``pimc:model=mix,guide=docs/results/selfplay-gin-league/model.pt,prior=0.05``:
  determinized search (compiled heuristic playouts, worlds weighted by a mixture over the
  heuristic's styles fitted to the opponent's decisions) guided by the league model (the
  self-play model fine-tuned against a population of the heuristic's styles and its own
  snapshots, ``experiments/recipes/gin_league.toml``): the model's choice gets 0.05 more
  value, so the search overrules it only where its worlds agree by more than that.  Against
  every member of panel version 2 its point estimate is above 0.5, but against
  ``pimc:model=1`` it is level in hands won (0.502 [0.491, 0.513] over 8,100 hands; +2.62
  [+1.54, +3.71] points a hand over 2,000 of them; the league model
  0.528 [0.506, 0.549] over 2,100; the heuristic 0.615 over 2,300); against OpenSpiel's bot 0.594 [0.577, 0.611] over
  3,300 hands, where the league model alone wins 0.580 on 3,000 of them (paired gain on
  held-out deals +0.013 [-0.003, +0.030]: a little better, not beyond doubt); about 47 ms
  a decision on a quiet core.  It replaced the league model itself on
  2026-12-03, which had replaced ``pimc:model=mix`` the same day
  (``docs/results/champion-gin/README.md``).  ``experiments.exploit --agent champion``
  trains against its guide and evaluates against the search.
- basic Rummy: ``pimc:worlds=600,playouts=12000``: the compiled heuristic playouts of
  ``pimc`` with three times its default worlds (uniform worlds), about 75 ms a decision on
  average, so that it differs from the panel's ``pimc:model=1`` (200 worlds).
- Crazy Rummy: ``pimc:playout_style=hold_wilds``: ``pimc`` at its defaults (500 worlds,
  uniform worlds, compiled one-round playouts) whose own seat plays the heuristic's
  ``hold_wilds`` style in its playouts, the other seats the default style.  Against two
  copies of ``pimc:model=1`` (the search with default playouts, the previous champion)
  it has the lowest penalty in 0.379 [0.341, 0.418] of 1,800 rounds (1/3 is an equal
  share; ``docs/results/champion-crazy/README.md``).  Whole games (13 rounds, the penalty
  total counts) have their own: ``pimc:playout_style=shed_high`` (:data:`GAME_CHAMPIONS`).
- Rummikub: ``pimc:model=mix``: whole-play search whose playouts play each opponent as
  max-play or patient, drawn from a posterior over the two fitted on its public turns
  (:mod:`agents.search.rummikub_mix`), where plain ``pimc`` rolls every opponent out as
  max-play; it also keeps a decision within the budget (plain ``pimc``'s max-play playouts
  of a patient opponent's 30-tile rack take seconds at times).
"""

from __future__ import annotations

from pathlib import Path

#: The repository (the committed models' paths are relative to it).
ROOT = Path(__file__).resolve().parents[1]

#: The champion of each variant (env name) as an agent name; ``policy:`` and ``guide=`` paths are relative
#: to :data:`ROOT`.
CHAMPIONS: dict[str, str] = {
    # the mixture-model search guided by the league model (docs/results/champion-gin/README.md,
    # "guided/": above 0.5 against every panel member on the point estimates)
    "gin_rummy_v0": "pimc:model=mix,guide=docs/results/selfplay-gin-league/model.pt,prior=0.05",
    # pimc with compiled heuristic playouts, 600 worlds (docs/results/champion-rummy/README.md:
    # against pimc:model=1, 200 worlds, 0.576 [0.545, 0.606] over 1,000 games; 75 ms a decision)
    "rummy_v0": "pimc:worlds=600,playouts=12000",
    # pimc with compiled one-round playouts (500 worlds), its own seat playing hold_wilds there
    # (docs/results/champion-crazy/README.md: against two pimc:model=1, 0.379 [0.341, 0.418] of 1,800 rounds)
    "crazy_rummy_v0": "pimc:playout_style=hold_wilds",
    # pimc over whole plays from the exact solver, patient rollouts, opponents' playout style
    # from their turns (docs/results/champion-rummikub/README.md: against pimc:model=1
    # level, 0.494 [0.469, 0.519] over 1,500 games; mean 11 ms a decision where pimc takes 151 ms)
    "rummikub_v0": "pimc:model=mix",
}


#: Whole games (``episode="game"``) whose champion is another agent than on single hands.  Crazy
#: Rummy's is ``pimc:playout_style=shed_high``, the single-round champion's search with its own
#: seat shedding high cards in its playouts instead of holding wild cards: over 13 rounds the
#: penalty points count, and two ``pimc:model=1`` beat the single-round champion there (0.289
#: [0.158, 0.467] of 90 games, -1.19 points a round, seed 73) where this search is level with
#: them and does better than the champion paired by deal, on 24 fresh deals of seed 74 (0.347
#: [0.190, 0.546] of 72 games against them, -0.02 [-0.97, +0.94] points a round; +1.07 [-0.51,
#: +2.65] a round better than the champion), adopted by a rule set before the run
#: (``docs/results/champion-crazy/README.md``, "whole-games-shed-high-s74/").  No agent here
#: beats ``pimc:model=1`` on whole Crazy Rummy games yet.  Gin's was its guide, the league
#: model (0.587 [0.543, 0.629] of 1,000 whole games against ``openspiel_gin_bot``), until the
#: guided search's playouts valued a whole game's hand by its points
#: (``agents.search.fast.GIN_MARGIN_SCALE``): on 300 deals of seed 64 it then won 0.642 [0.586,
#: 0.694] of 600 whole games against the league model and 0.683 [0.629, 0.733] of 600 against
#: the bot, past the bar set beforehand (more than 0.5 and at least 0.58; valued by hands won
#: it had 0.567 and 0.538: docs/results/champion-gin/README.md, "whole-games/").
GAME_CHAMPIONS: dict[str, str] = {"crazy_rummy_v0": "pimc:playout_style=shed_high"}


def champion_name(variant: str, episode: str = "hand") -> str:
    """The agent name of ``variant``'s champion (``policy:`` and ``guide=`` paths made absolute);
    with ``episode="game"``, :data:`GAME_CHAMPIONS`' name where the variant has one.

    Raises:
        ValueError: a variant without a champion (the message lists the variants), an
            ``episode`` other than ``"hand"`` or ``"game"``.
    """
    if variant not in CHAMPIONS:
        raise ValueError(f"no champion for {variant!r}: variants with one are {', '.join(CHAMPIONS)}")
    if episode not in ("hand", "game"):
        raise ValueError(f"episode={episode!r}: a champion plays episode='hand' or 'game'")
    name = GAME_CHAMPIONS.get(variant, CHAMPIONS[variant]) if episode == "game" else CHAMPIONS[variant]
    if name.startswith("policy:"):
        return "policy:" + str(ROOT / name[len("policy:") :])
    from agents.search import quote_option, split_options

    kind, colon, options = name.partition(":")
    # quoted when the checkout's folder holds a comma, which would split the path
    resolved = [
        f"guide={quote_option(str(ROOT / v))}" if k == "guide" else i for i, k, v in split_options(options, name)
    ]
    return kind + colon + ",".join(resolved)
