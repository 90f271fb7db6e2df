"""Maintainers' measurement and oracle scripts, run on purpose (not user jobs):

- ``vector_differential``: the batched engines against ``raw_env``, field by field;
- ``truncation_rates``: how often random play ends a game at the move limit;
- ``heuristic_vs_random``: one baseline heuristic against random agents, episode by episode;
- ``openspiel_timing``: OpenSpiel's ``random_sim_test`` and IS-MCTS games per variant;
- ``rummikub_oracle``: brute-force and integer-programming oracles of the Rummikub solver;
- ``rummikub_worst_cases`` and ``bench_rummikub_solver``: the solver's kept worst cases, timed;
- ``rss_plateau``: the process's memory over a long Rummikub run (the solver's caches).

Each runs as ``python -m experiments.dev.<name> --help``.
"""
