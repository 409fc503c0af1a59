"""`python -m betweencut.cli` runs the command line."""

import sys

from betweencut.cli import main

sys.exit(main())
