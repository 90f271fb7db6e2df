import sys

from experiments.tournament.cli import main

sys.exit(main())
