"""Batched simulators: thousands of games per call, arrays in and out.

``GinRummyVec`` and ``RummyVec`` (the numba kernels, the ``fast`` extra) and the
pure-Python ``ReferenceGinRummyVec`` / ``ReferenceRummyVec`` share one API
(``rummy_env.vector.batch``): ``reset() -> Batch``, ``step(actions) -> Batch``,
``step_random() -> Batch``, ``deal_of(i)``.
"""

from rummy_env.vector.batch import Batch, empty_batch
from rummy_env.vector.reference import ReferenceGinRummyVec, ReferenceRummyVec, ReferenceVec

__all__ = ["Batch", "ReferenceGinRummyVec", "ReferenceRummyVec", "ReferenceVec", "empty_batch"]
