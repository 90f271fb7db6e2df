import sys

from experiments.train.cli import main

sys.exit(main())
