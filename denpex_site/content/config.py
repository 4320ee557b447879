"""Site settings read from content/site.yaml."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from denpex_site.content.documents import read_yaml
from denpex_site.content.model import HttpsUrl, Line, Model
from denpex_site.content.validate import validate
from denpex_site.errors import Problems


class SiteConfig(Model):
    title: Line
    tagline: Line
    base_url: HttpsUrl
    repo_url: HttpsUrl
    branch: Line = "main"
    build_date: dt.date | None = None
    """Fixed date for the feed's <updated>; defaults to the newest entry date (keeps builds deterministic)."""

    def edit_url(self, relpath: str) -> str:
        return f"{self.repo_url.rstrip('/')}/edit/{self.branch}/{relpath}"

    def absolute(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


def load_config(content_root: Path, problems: Problems) -> SiteConfig | None:
    doc = read_yaml(content_root / "site.yaml", problems)
    if doc is None:
        return None
    return validate(doc, SiteConfig, problems)
