"""Code written for huggingface_hub < 0.26 imports cached_download, which 0.26.0 removed.

Run: python repro.py

CPU only, one process, about 1 s, no network. Verified with huggingface_hub 2.4.0 and 0.26.0
(and, with the real package, diffusers 0.25.1 on huggingface_hub 0.26.0).

    python repro.py
        Runs the import line that diffusers <= 0.28 has in diffusers/utils/dynamic_modules_utils.py:
        "from huggingface_hub import cached_download, hf_hub_download, model_info"
        -> "ImportError: cannot import name 'cached_download' from 'huggingface_hub' (...)".
    python repro.py --check
        Prints the installed huggingface_hub and which legacy names it still exports
        (cached_download, url_to_filename, filename_to_url: removed in 0.26;
        HfFolder, Repository: removed in 1.0). Exit code 0.
    python repro.py --fixed
        The same download written with hf_hub_download (repo_id + filename instead of a URL),
        checked against the installed signature without downloading anything. Exit code 0.

The default variant exits with code 1.
"""

import argparse
import inspect
import sys

import huggingface_hub

LEGACY = {
    "cached_download": "0.26.0",
    "url_to_filename": "0.26.0",
    "filename_to_url": "0.26.0",
    "HfFolder": "1.0",
    "Repository": "1.0",
}


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    print(f"huggingface_hub {huggingface_hub.__version__}", flush=True)
    if args.check:
        for name, removed in LEGACY.items():
            state = "present" if hasattr(huggingface_hub, name) else f"missing (removed in {removed})"
            print(f"  {name:16s} {state}")
        return
    if args.fixed:
        from huggingface_hub import hf_hub_download

        params = inspect.signature(hf_hub_download).parameters
        call = dict(
            repo_id="runwayml/stable-diffusion-v1-5",
            filename="model_index.json",
            revision="main",
            cache_dir=None,
        )
        assert all(k in params for k in call), params
        print("hf_hub_download(" + ", ".join(f"{k}={v!r}" for k, v in call.items()) + ") accepted")
        return
    # The line an old library runs at import time:
    from huggingface_hub import cached_download, hf_hub_download, model_info  # noqa: F401

    print("imported cached_download", file=sys.stderr)


if __name__ == "__main__":
    main()
