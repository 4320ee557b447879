"""Run the property-based fuzz tests longer, with random seeds: ``python bench/fuzz.py [EXAMPLES]``.

CI runs tests/test_fuzz.py with 200 examples per property from a fixed seed; this runs each property
with EXAMPLES (default 20,000) random examples and prints what pytest prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    examples = sys.argv[1] if len(sys.argv) > 1 else "20000"
    env = dict(os.environ, DENPEX_FUZZ_EXAMPLES=examples, DENPEX_FUZZ_RANDOM="1")
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "tests/test_fuzz.py"], cwd=ROOT, env=env))
