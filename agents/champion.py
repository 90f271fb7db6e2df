"""``champion``: the strongest agent the project has for each variant, by name.

``make_agent("champion", env)`` builds the agent :data:`CHAMPIONS` names for the env's
variant, at its default settings (every job takes the name: ``--agents champion``).  What
"strongest" means here is issue 25's bar: measured against the whole opponent panel
(:mod:`agents.panel`, ``python -m experiments.evaluate --agent champion``), not against one
opponent, at about 100 ms per decision at most on one core.  The figures behind each
choice are on the docs' results page with their commands.

The champion of a variant is a name the registry already knows (a search agent with its
options, a committed ``policy:`` model), so a champion is never a second copy of an agent.
A change of champion is recorded in the CHANGELOG, its figures on the results page.

- Gin Rummy: ``policy:docs/results/selfplay-gin-league/model.pt``: the self-play model
  fine-tuned against a population of the heuristic's styles, itself and its snapshots
  (``experiments/recipes/gin_league.toml``).  It replaced ``pimc:model=mix`` (determinized
  search with a mixture over the heuristic's styles as the opponent model): the policy wins
  0.523 of 300 hands against it, 0.561 of 10,000 against OpenSpiel's bot (the search 0.550
  of 700), is as close to 0.5 against ``pimc:model=1`` (0.470 against 0.479); the search's
  point estimates against the heuristic's styles are a little higher, none beyond its
  interval: level in strength, the policy takes about a millisecond a decision and, being a
  policy, can be exploited by ``experiments.exploit``.  It is a member of its own panel
  (version 2): against itself it wins 0.5 by construction.
- basic Rummy: ``pimc:worlds=600,playouts=12000``: the compiled heuristic playouts of
  ``pimc`` with three times its default worlds (uniform worlds), about 75 ms a decision on
  average, so that it differs from the panel's ``pimc:model=1`` (200 worlds).
- Crazy Rummy: ``pimc`` at its defaults (uniform worlds: the panel's ``pimc:model=1``).
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

#: The champion of each variant (env name) as an agent name; ``policy:`` paths are relative
#: to :data:`ROOT`.
CHAMPIONS: dict[str, str] = {
    # the Gin model fine-tuned against a population (docs/results/selfplay-gin-league/README.md:
    # against OpenSpiel's simple bot 0.561 over 10,000 hands; against pimc:model=mix 0.523 over
    # 300, docs/results/champion-gin/README.md)
    "gin_rummy_v0": "policy:docs/results/selfplay-gin-league/model.pt",
    # pimc with compiled heuristic playouts, 600 worlds (docs/results/champion-rummy/README.md:
    # against pimc:model=1, 200 worlds, 0.545 [0.448, 0.639] over 200 games; 75 ms a decision)
    "rummy_v0": "pimc:worlds=600,playouts=12000",
    # pimc with compiled one-round playouts (500 worlds)
    "crazy_rummy_v0": "pimc",
    # pimc over whole plays from the exact solver, patient rollouts, opponents' playout style
    # from their turns (docs/results/champion-rummikub/README.md: against pimc:model=1
    # 0.510 [0.413, 0.606] over 100 games, mean 11 ms a decision where pimc takes 151 ms)
    "rummikub_v0": "pimc:model=mix",
}


def champion_name(variant: str) -> str:
    """The agent name of ``variant``'s champion (``policy:`` and ``guide=`` paths made absolute).

    Raises:
        ValueError: a variant without a champion (the message lists the variants).
    """
    if variant not in CHAMPIONS:
        raise ValueError(f"no champion for {variant!r}: variants with one are {', '.join(CHAMPIONS)}")
    name = CHAMPIONS[variant]
    if name.startswith("policy:"):
        return "policy:" + str(ROOT / name[len("policy:") :])
    kind, colon, options = name.partition(":")
    resolved = [f"guide={ROOT / o[len('guide=') :]}" if o.startswith("guide=") else o for o in options.split(",")]
    return kind + colon + ",".join(resolved)
