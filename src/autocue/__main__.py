"""``python -m autocue``: the ``autocue`` command."""

import sys

from autocue.cli.main import main

sys.exit(main())
