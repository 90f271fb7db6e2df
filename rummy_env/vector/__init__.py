"""Batched simulators: thousands of games per call, arrays in and out.

``GinRummyVec``, ``RummyVec``, ``CrazyRummyVec`` and ``RummikubVec`` are numba engines
(the ``fast`` extra); the pure-Python ``ReferenceGinRummyVec`` / ``ReferenceRummyVec`` /
``ReferenceCrazyRummyVec`` / ``ReferenceRummikubVec`` (one ``raw_env`` per game) share
their API, their seeding and their random streams (``rummy_env.vector.batch``)::

    from rummy_env.vector import GinRummyVec
    vec = GinRummyVec(4096, seed=0, num_threads=2)     # options as gin_rummy_v0.env(...)
    batch = vec.reset()                                # Batch of (4096, ...) arrays
    batch = vec.step(actions)                          # int array (4096,), legal ids
    batch = vec.step_random()                          # random legal ids, drawn inside
    env.reset(options=vec.deal_of(7))                  # replays game 7 in env()

Design (one architecture for every card variant).  A variant is a kernel module of plain
numba functions over struct-of-arrays state -- an ``int32`` matrix of named scalar
columns, a ``uint64`` matrix of named bitmask columns, a few ``int8`` card stacks,
the legal-action bits as ``uint64`` words -- with per-game ``reset_one`` /
``step_one`` / ``opponents_one`` functions and their drivers (``*_range``, serial and
``nogil`` for worker threads; ``*_parallel``, numba ``prange``), plus a small
``gin_vec.KernelVec`` subclass that allocates the arrays and fills the config vector.  Everything else (options,
layout, seeding, recorded deals, output buffers, argument checks, autoreset) is
``batch.VecBase``.  Crazy Rummy (``crazy_batch_kernel``) reuses the one-round rules
of the search playouts (``crazy_kernel``): its wild rank, dealer and totals and the
card each wild card on the table stands for are more columns.  Whole games
(``episode="game"``: dealer rotation, scores, Crazy Rummy's 13 rounds and their wild
ranks) are the ``whole_games.WholeGames`` mixin of every engine: the step that ends a
hand deals the game's next one from the same deal stream.
Rummikub (``rummikub_vec``) is the exception: a decision's cost is its exact mask, the
solver's sweep over table and rack (hundreds of microseconds in random play), so its
rules and observations are vectorised numpy over the batch (microseconds a decision)
and only the masks are compiled: one ``nogil`` call per thread runs the solver's own
numba sweep for every game (``rummikub_masks``).  Its pools of 106 tiles and first
players come from the same deal streams (``rummikub_world``).
"""

from rummy_env.vector.batch import Batch, empty_batch

__all__ = [
    "Batch",
    "CrazyRummyVec",
    "GinRummyVec",
    "ReferenceCrazyRummyVec",
    "ReferenceGinRummyVec",
    "ReferenceRummikubVec",
    "ReferenceRummyVec",
    "ReferenceVec",
    "RummikubVec",
    "RummyVec",
    "empty_batch",
]

_KERNELS = {
    "CrazyRummyVec": "rummy_env.vector.crazy_vec",
    "GinRummyVec": "rummy_env.vector.gin_vec",
    "RummikubVec": "rummy_env.vector.rummikub_vec",
    "RummyVec": "rummy_env.vector.rummy_vec",
}


#: the pure-Python twins drive the PettingZoo ``raw_env``: loaded when asked for, so that the
#: engines themselves load no framework (tests/test_architecture.py)
_REFERENCES = {
    "ReferenceCrazyRummyVec": "rummy_env.vector.reference",
    "ReferenceGinRummyVec": "rummy_env.vector.reference",
    "ReferenceRummyVec": "rummy_env.vector.reference",
    "ReferenceVec": "rummy_env.vector.reference",
    "ReferenceRummikubVec": "rummy_env.vector.rummikub_reference",
}


def __getattr__(name: str):
    import importlib

    if name in _REFERENCES:
        return getattr(importlib.import_module(_REFERENCES[name]), name)
    # the compiled engines load numba only when asked for
    module = _KERNELS.get(name)
    if module is None:
        raise AttributeError(f"module 'rummy_env.vector' has no attribute {name!r}")
    try:
        import numba  # noqa: F401
    except ImportError as err:
        raise ImportError(
            f"rummy_env.vector.{name} is compiled with numba, which is not installed: "
            f'pip install -e ".[fast]" (or use the pure-Python Reference{name}, same API)'
        ) from err
    return getattr(importlib.import_module(module), name)
