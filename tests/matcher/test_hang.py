"""Hangs: the table ranks x last collective and the rank that never reached it, in both matchers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_site.matcher.diagnosis import Diagnosis

from .test_matcher import LOGS, OOM, engine_of, node_results, python_result


@pytest.fixture(scope="module")
def bundle_path(real_site: Path) -> Path:
    return real_site / "api/signatures.json"


def timeout(
    rank: int, seq: int, op: str = "ALLREDUCE", numel: int | None = 1, prefix: str = "[Rank {r}]"
) -> str:
    sizes = f", NumelIn={numel}, NumelOut={numel}" if numel is not None else ""
    return (
        f"[rank{rank}]:[E1130 02:24:09.170233118 ProcessGroupNCCL.cpp:632] {prefix.format(r=rank)} Watchdog caught "
        f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}{sizes}, Timeout(ms)=600000) ran for "
        "600049 milliseconds before timing out."
    )


def progress(rank: int, enqueued: int, completed: int) -> str:
    return (
        f"[rank{rank}]:[E703 15:37:17.178360488 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
        "Received a dump signal due to a collective timeout from  rank 7 and we will try our best to dump the debug "
        f"info. Last enqueued NCCL work: {enqueued}, last completed NCCL work: {completed}.This is most likely caused"
    )


CASES: dict[str, tuple[list[str], int | None, str]] = {
    "one-rank-silent": (
        [timeout(1, 15173), timeout(2, 15173), timeout(3, 15173)],
        0,
        "rank 0 printed no watchdog",
    ),
    "one-rank-behind": (
        [timeout(0, 4123), timeout(1, 4123), timeout(2, 4122), timeout(3, 4123)],
        2,
        "rank 2 never reached SeqNum 4123 (ALLREDUCE): its last collective is SeqNum 4122",
    ),
    "progress-lines": (
        [timeout(r, 56118, prefix="[PG ID 0 PG GUID 0(default_pg) Rank {r}]") for r in (0, 1, 2)]
        + [progress(0, 56118, 56117), progress(3, 56117, 56117)],
        3,
        "rank 3 never reached SeqNum 56118",
    ),
    "sizes-differ": (
        [timeout(0, 7, numel=1024), timeout(1, 7, numel=2048)],
        None,
        "different sizes (NumelIn [1024, 2048])",
    ),
    "all-waited": ([timeout(0, 9, numel=None), timeout(1, 9, numel=None)], None, "no rank is behind here"),
    "two-silent": ([timeout(0, 5), timeout(3, 5)], None, "ranks 1, 2 printed no watchdog line"),
}


def test_the_rank_that_never_arrived_is_named(bundle_path: Path, tmp_path: Path) -> None:
    files = []
    for name, (lines, rank, reason) in CASES.items():
        path = tmp_path / f"{name}.log"
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
        result = python_result(bundle_path, [path])
        hang = result["hang"][0]
        assert hang["rank"] == rank and reason in hang["reason"], (name, hang["reason"])
        if rank is not None:
            assert result["initiating"]["rank"] == rank and result["initiating"]["reason"] == hang["reason"]
    assert node_results(bundle_path, [[f] for f in files]) == [python_result(bundle_path, [f]) for f in files]


def test_one_file_per_rank_and_process_groups_apart(bundle_path: Path, tmp_path: Path) -> None:
    """A per-rank file without NCCL's own prefix names the rank; each process group has its table."""
    rank1 = tmp_path / "rank1.log"
    rank1.write_text(timeout(1, 30, prefix="[Rank {r}]").replace("[rank1]:", "") + "\n")
    rank2 = tmp_path / "rank2.log"
    line = "[E ProcessGroupNCCL.cpp:475] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=30, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802710 milliseconds before timing out."
    tp = timeout(2, 11, op="ALLGATHER", prefix="[PG ID 1 PG GUID 3(tp_group) Rank {r}]")
    rank2.write_text(line + "\n" + tp + "\n")
    result = python_result(bundle_path, [rank1, rank2])
    groups = {h["pg"]: h for h in result["hang"]}
    assert [r["rank"] for r in groups[None]["ranks"]] == [1, 2] and groups[None]["rank"] == 0
    assert groups["tp_group"]["seq"] == 11 and groups["tp_group"]["rank"] is None
    assert result["hang"][0]["pg"] is None  # the default group first
    assert node_results(bundle_path, [[rank1, rank2]]) == [result]


def test_no_hang_without_watchdog_lines(bundle_path: Path) -> None:
    diagnosis = Diagnosis(engine_of(bundle_path))
    diagnosis.add_text(OOM + "\n")
    result = json.loads(json.dumps(diagnosis.result()))
    assert result["hang"] == [] and result["initiating"]["reason"] is None


def test_records_of_one_length_are_not_taken_for_a_wrapped_log(bundle_path: Path) -> None:
    """Three ranks print the same watchdog message, so their lines have one length; they are
    separate records (each followed by a line that starts like them), not a terminal's wrapping."""
    log = LOGS / "hang-ranks-same-length.log"
    result = python_result(bundle_path, [log])
    assert [r["rank"] for r in result["hang"][0]["ranks"]] == [0, 1, 2, 3]
    assert result["initiating"]["rank"] == 0 and "never reached SeqNum 4123" in result["initiating"]["reason"]
    assert node_results(bundle_path, [[log]]) == [result]
