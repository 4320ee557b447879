"""Arguments and output shared by several commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from denpex_site.errors import Problems

PUBLIC_SITE = "https://denpex-site.netlify.app"


def root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format", choices=["text", "github", "json"], default="text", help="how to print problems"
    )


def matcher_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bundle",
        help="signature bundle to use (default: $DENPEX_BUNDLE, else _site/api/signatures.json of --root)",
    )
    p.add_argument("--base-url", help="site address used in links (default: the public site)")


def base_url(args: argparse.Namespace) -> str:
    return PUBLIC_SITE if not args.base_url else args.base_url.rstrip("/")


def bundle_path(args: argparse.Namespace) -> Path:
    from denpex_site.matcher.bundle import find_bundle

    return find_bundle(root(args), Path(args.bundle) if args.bundle else None)


def print_problems(problems: Problems, fmt: str) -> None:
    text = problems.format(fmt)
    if text:
        print(text)
