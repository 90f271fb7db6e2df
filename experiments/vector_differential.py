"""``python -m experiments.vector_differential``: the name the batched engines' exactness
check is known by; it runs :mod:`experiments.dev.vector_differential`."""

import sys

from experiments.dev.vector_differential import main

if __name__ == "__main__":
    sys.exit(main())
