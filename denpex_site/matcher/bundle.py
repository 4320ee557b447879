"""The signature bundle file: its format version, where it is read from, and how files name ranks.

The bundle (``/api/signatures.json``) is the one versioned document both matchers run on: the
normalisation rules and every compiled signature. The generator writes it
(:mod:`denpex_site.render.api`); this module only reads it.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

from denpex_site.errors import BundleError

BUNDLE_VERSION = 2


_RANK_IN_NAME = re.compile(
    r"(?:^|[^A-Za-z])(?:rank|worker|proc|process)[-_.]?([0-9]{1,6})(?:\.[A-Za-z0-9]+)*$", re.I
)


def rank_from_file_name(name: str) -> int | None:
    """The rank of a per-rank file such as ``rank3.log``, ``train-rank3.log`` or ``worker_3.out``, else None.

    The rank must end the name (before its extensions), so ``rank2-notes.log`` names no rank.
    """
    m = _RANK_IN_NAME.search(Path(name).name)
    return int(m.group(1)) if m else None


def find_bundle(root: Path, given: Path | None = None) -> Path:
    """Where the signature bundle is: ``given``, else ``$DENPEX_BUNDLE``, else the project's built site
    (``<root>/_site/api/signatures.json``), else the copy a wheel of the package carries."""
    if given is not None:
        return given
    if os.environ.get("DENPEX_BUNDLE"):
        return Path(os.environ["DENPEX_BUNDLE"])
    for candidate in (
        root / "_site/api/signatures.json",
        Path(str(resources.files("denpex_site"))) / "data/signatures.json",
    ):
        if candidate.is_file():
            return candidate
    raise BundleError(
        "no signature bundle: build the site first (python build.py) or pass --bundle FILE "
        "(the public site serves it at /api/signatures.json)"
    )


def load_bundle(path: Path) -> dict[str, Any]:
    """The signature bundle read from ``path``; any problem with it is a :class:`BundleError`."""
    try:
        bundle = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BundleError(f"cannot read the signature bundle {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"the signature bundle {path} is not JSON: {exc}") from exc
    if not isinstance(bundle, dict) or bundle.get("schema_version") != BUNDLE_VERSION:
        version = bundle.get("schema_version") if isinstance(bundle, dict) else None
        raise BundleError(
            f"the signature bundle {path} has format version {version!r}; this matcher reads version "
            f"{BUNDLE_VERSION} (rebuild the site, or upgrade denpex-site)"
        )
    return bundle
