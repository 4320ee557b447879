"""A package installed in one environment and a job started with the interpreter of another.

Run: python repro.py

CPU only, standard library only, well under a second. Two throwaway virtual environments are
created without pip in a temporary folder: "train" receives a small package (written into its
site-packages, where pip would put it) and "eval" gets nothing. Nothing outside the folder is
touched.

    python repro.py
        1. `eval/bin/python -m pip ...` prints "<...>/eval/bin/python: No module named pip": the
           interpreter that runs the job has no pip, so any pip you ran belongs to another one.
        2. A torchrun launcher, written the way pip writes console scripts, whose first line names
           eval's python, fails at "from torch.distributed.run import main" with
           "ModuleNotFoundError: No module named 'torch'".
        3. `eval/bin/python train.py` fails with "ModuleNotFoundError: No module named
           'mytokenizer'", while train's python imports it; sys.executable and sys.prefix of both
           are printed.
    python repro.py --fixed
        The job runs with train's interpreter: the import succeeds and the module's file lies
        under train's site-packages. Exit code 0.

The default run exits with code 1.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

LAUNCHER = """\
#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from torch.distributed.run import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def make_env(path: Path) -> Path:
    venv.EnvBuilder(with_pip=False, symlinks=True).create(path)
    return path / "bin" / "python"


def site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def show(cmd: list[str], cwd: Path) -> int:
    print("$ " + " ".join(cmd), flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout, end="", flush=True)
    return proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixed", action="store_true", help="run the job with train's interpreter")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="wimnf-") as tmp:
        root = Path(tmp)
        train_py = make_env(root / "train")
        eval_py = make_env(root / "eval")
        pkg = site_packages(train_py) / "mytokenizer"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("VERSION = '0.1'\n")
        (root / "train.py").write_text(
            "import sys\nprint(sys.executable, sys.prefix)\nimport mytokenizer\nprint(mytokenizer.__file__)\n"
        )
        if args.fixed:
            return show([str(train_py), "train.py"], root)

        show([str(eval_py), "-m", "pip", "install", "mytokenizer"], root)
        launcher = root / "eval" / "bin" / "torchrun"
        launcher.write_text(LAUNCHER.format(python=eval_py))
        launcher.chmod(0o755)
        show(["head", "-1", str(launcher)], root)
        show([str(launcher), "--nproc_per_node=2", "train.py"], root)
        show([str(train_py), "-c", "import mytokenizer; print(mytokenizer.__file__)"], root)
        return show([str(eval_py), "train.py"], root)


if __name__ == "__main__":
    sys.exit(main())
