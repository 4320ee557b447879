"""``python -m denpex_site`` runs the command line."""

import sys

from denpex_site.cli import main

sys.exit(main())
