"""A script and a data folder named like the libraries the project imports.

Run: python repro.py

CPU only, standard library only, about a second. Each variant builds a throwaway project in a
temporary folder and runs a child Python there, so nothing outside that folder is touched and no
library needs to be installed. Verified with CPython 3.7.16 to 3.13.0.

    python repro.py
        The project's own script is called transformers.py and starts with
        "from transformers import AutoTokenizer". Running it imports the script itself:
        3.8 to 3.13.0: "ImportError: cannot import name 'AutoTokenizer' from partially initialized
        module 'transformers' (most likely due to a circular import) (.../transformers.py)";
        3.13.1 and later add "(consider renaming '.../transformers.py' ...)" instead.
    python repro.py --folder
        The project keeps its CSV files in a folder called datasets/ and the interpreter has no
        Hugging Face datasets library (the child runs with -S, so site-packages is not searched,
        which is what an environment without the library looks like). The folder is imported as a
        namespace package: "ImportError: cannot import name 'load_dataset' from 'datasets'
        (unknown location)".
    python repro.py --fixed
        The script renamed to tokenize_corpus.py. The name transformers now resolves to the
        installed library, or to nothing if it is not installed; either way not to the project.
        Exit code 0.

The default and --folder variants exit with code 1, the child's exit code.
"""

import argparse
import os
import subprocess
import sys
import tempfile

SCRIPT = 'from transformers import AutoTokenizer\n\ntokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")\n'

WHERE = (
    "import importlib.util\n"
    "spec = importlib.util.find_spec('transformers')\n"
    "print('transformers resolves to:', spec.origin if spec else 'nothing (library not installed)')\n"
)


def run(cmd, cwd):
    shown = ["python"] + [repr(a) if " " in a else a for a in cmd[1:]]
    print("$ " + " ".join(shown), flush=True)
    proc = subprocess.run(
        cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True
    )
    sys.stdout.write(proc.stdout)
    sys.stdout.flush()
    return proc.returncode


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--folder", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    print("python " + sys.version.split()[0], flush=True)
    with tempfile.TemporaryDirectory() as project:
        if args.folder:
            os.mkdir(os.path.join(project, "datasets"))
            with open(os.path.join(project, "datasets", "train.csv"), "w") as f:
                f.write("text,label\ngreat movie,1\n")
            code = "from datasets import load_dataset"
            return run([sys.executable, "-S", "-c", code], project)
        name = "tokenize_corpus.py" if args.fixed else "transformers.py"
        with open(os.path.join(project, name), "w") as f:
            f.write(WHERE if args.fixed else SCRIPT)
        return run([sys.executable, name], project)


if __name__ == "__main__":
    sys.exit(main())
