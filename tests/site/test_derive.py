"""Entries are derived (Markdown, own checks) in forked processes while others load."""

from __future__ import annotations

import os
import time

import pytest

from denpex_site.forked import Forked, can_fork
from denpex_site.site import derive as derive_module
from denpex_site.site.derive import Deriver

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs the fork start method")


@pytest.fixture(autouse=True)
def no_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Fake has no signatures or code to prepare while it loads."""
    monkeypatch.setattr(derive_module, "_prepare", lambda b: None)


class Fake:
    """Stands for a bundle: the patched derivation only needs its position."""

    def __init__(self, number: int) -> None:
        self.number = number


def test_deriver_returns_every_bundle_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # Results larger than a pipe's buffer: a child blocks in send until the parent reads.
    monkeypatch.setattr(derive_module, "derive", lambda b: (b.number, os.getpid(), "x" * 100_000))
    monkeypatch.setattr(Deriver, "CHUNK", 3)
    deriver = Deriver(jobs=2)
    bundles = [Fake(i) for i in range(10)]
    for bundle in bundles:
        deriver.add(bundle)  # type: ignore[arg-type]
    got = deriver.results()
    assert [got[id(b)][0] for b in bundles] == list(range(10))
    # Three full chunks went to children; the last, partial one was derived here.
    assert {got[id(b)][1] for b in bundles[:9]}.isdisjoint({os.getpid()})
    assert got[id(bundles[9])][1] == os.getpid()


def test_deriver_raises_what_a_child_raised_and_stops_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    def derive(bundle: Fake) -> str:
        if bundle.number == 0:
            raise ValueError("entry 0 is broken")
        time.sleep(0.2)
        return "x" * 100_000

    monkeypatch.setattr(derive_module, "derive", derive)
    monkeypatch.setattr(Deriver, "CHUNK", 2)
    deriver = Deriver(jobs=2)
    with pytest.raises(ValueError, match="entry 0 is broken"):
        for i in range(8):  # the third chunk waits for the first, which failed
            deriver.add(Fake(i))  # type: ignore[arg-type]
        deriver.results()
    others = list(deriver.running)
    assert others, "the second chunk was still running"
    deriver.close()  # what the build does on any error
    assert deriver.running == []
    assert all(not child._proc.is_alive() for child in others)


def test_forked_reports_a_child_that_died() -> None:
    job = Forked(lambda: os._exit(3))
    with pytest.raises(RuntimeError, match="exit code 3"):
        job.result()


def test_one_job_derives_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive_module, "derive", lambda b: os.getpid())
    monkeypatch.setattr(Deriver, "CHUNK", 2)
    deriver = Deriver(jobs=1)
    bundles = [Fake(i) for i in range(5)]
    for bundle in bundles:
        deriver.add(bundle)  # type: ignore[arg-type]
    assert set(deriver.results().values()) == {os.getpid()}
