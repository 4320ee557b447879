"""Static assets: fingerprinted file names and the import graph of the JavaScript modules."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from denpex_site.render.markdown import pygments_css

"""The repository this package lives in (its own content is what the package ships)."""


@dataclass
class Paths:
    root: Path

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def static(self) -> Path:
        return self.root / "static"


@dataclass
class Assets:
    """Static files renamed with a content hash: logical name -> (output path, bytes)."""

    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)

    def url(self, name: str) -> str:
        return "/" + self.files[name][0]


_JS_IMPORT = re.compile(r"""(["'])\./([A-Za-z0-9_.-]+\.js)\1""")


def collect_assets(static: Path) -> Assets:
    """Fingerprint every file under static/; JS imports of ./x.js are rewritten to hashed names."""
    raw: dict[str, bytes] = {}
    for path in sorted(p for p in static.rglob("*") if p.is_file()):
        raw[path.relative_to(static).as_posix()] = path.read_bytes()
    if "css/site.css" in raw:
        raw["css/site.css"] += b"\n/* code highlighting */\n" + pygments_css().encode()
    assets = Assets()

    def add(name: str, stack: tuple[str, ...] = ()) -> str:
        if name in assets.files:
            return assets.files[name][0]
        if name in stack:
            raise ValueError(f"circular import between static files: {' -> '.join((*stack, name))}")
        data = raw[name]
        if name.endswith(".js"):
            folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""

            def rewrite(m: re.Match[str]) -> str:
                target = folder + m.group(2)
                if target not in raw:
                    return m.group(0)
                hashed = add(target, (*stack, name))
                return f"{m.group(1)}./{hashed.rsplit('/', 1)[-1]}{m.group(1)}"

            data = _JS_IMPORT.sub(rewrite, data.decode()).encode()
        digest = hashlib.sha256(data).hexdigest()[:10]
        stem, dot, ext = name.rpartition(".")
        out = f"assets/{stem}.{digest}.{ext}" if dot else f"assets/{name}.{digest}"
        assets.files[name] = (out, data)
        return out

    for name in raw:
        add(name)
    return assets
