"""``python -m bench suite=cnn key=value …`` — see ``python -m bench --help``."""

import sys

from bench.cli import main

sys.exit(main(sys.argv[1:]))
