"""Build the site: ``python build.py [build|serve|check|new|schema] ...`` (see ``--help``)."""

import sys

from denpex_site.cli import main

if __name__ == "__main__":
    sys.exit(main())
