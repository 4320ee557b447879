"""Entries are derived (Markdown, search terms, own checks) in forked processes while others load."""

from __future__ import annotations

import pytest

from denpex_site import site
from denpex_site.site import Deriver


class Fake:
    """Stands for a bundle: the patched derivation only needs its position."""


def test_deriver_returns_every_bundle_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(site, "_derive", lambda i: f"derived {site._PENDING[i].__class__.__name__} {i}")
    monkeypatch.setattr(Deriver, "CHUNK", 3)
    deriver = Deriver()
    bundles = [Fake() for _ in range(10)]
    for bundle in bundles:
        deriver.add(bundle)  # type: ignore[arg-type]
    got = deriver.results()
    assert [got[id(b)] for b in bundles] == [f"derived Fake {i}" for i in range(10)]


def test_deriver_raises_what_a_worker_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(index: int) -> None:
        raise ValueError(f"entry {index} is broken")

    monkeypatch.setattr(site, "_derive", broken)
    monkeypatch.setattr(Deriver, "CHUNK", 2)
    deriver = Deriver()
    for _ in range(3):
        deriver.add(Fake())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="entry 0 is broken"):
        deriver.results()
