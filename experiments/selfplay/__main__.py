import sys

from experiments.selfplay.run import main

sys.exit(main())
