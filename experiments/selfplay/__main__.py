import sys

from experiments.selfplay.trainer import main

sys.exit(main())
