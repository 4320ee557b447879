"""``denpex-site serve``: build, serve on 127.0.0.1, rebuild on change and reload the browser."""

from __future__ import annotations

import argparse
from typing import Any

from denpex_site.cli.common import root


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve", help="build, serve on 127.0.0.1 and rebuild on change"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    p.add_argument("--open", action="store_true", help="open a browser")
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.build.devserver import serve

    return serve(root(args), host=args.host, port=args.port, open_browser=args.open)
