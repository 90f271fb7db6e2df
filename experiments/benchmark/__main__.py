import sys

from experiments.benchmark.cli import main

sys.exit(main())
