"""The decisive line (``first_error``): the line that most likely tells the cause, entry or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_site.matcher.decisive import LINES, Rules, rules
from denpex_site.matcher.diagnosis import Diagnosis

from .test_matcher import LOGS, engine_of


@pytest.fixture(scope="module")
def bundle_path(real_site: Path) -> Path:
    return real_site / "api/signatures.json"


def first_error(bundle: Path, text: str) -> dict:
    diagnosis = Diagnosis(engine_of(bundle))
    diagnosis.add_text(text)
    return json.loads(json.dumps(diagnosis.result()))["first_error"]


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("ValueError: r must be a positive integer", "exception"),
        ("torch.OutOfMemoryError: CUDA out of memory.", "exception"),
        ("lmdb.Error: mdb_env_open: No space left on device", "exception"),
        ("AssertionError", "exception"),
        ("  event_sync = storage._share_cuda_() RuntimeError: CUDA error: unknown error", "exception"),
        ("cannot import name '_get_submodules' from 'peft.utils'", "exception"),
        ("Killed", "kill"),
        ("Segmentation fault (core dumped)", "kill"),
        ("train.sh: line 7: 81234 Killed                  python train.py", "kill"),
        ("[12345.678] Out of memory: Killed process 4242 (python) total-vm:98765432kB", "kill"),
        ("terminate called after throwing an instance of 'c10::Error'", "fatal"),
        ("Fatal Python error: Segmentation fault", "fatal"),
        ("csrc/ops.cu:12:10: fatal error: cuda_runtime.h: No such file or directory", "error"),
        ("ERROR: No matching distribution found for torch==1.7.1+cu110", "error"),
        ("2024-05-01 10:00:00.123 | ERROR    | loader:load:40 - file missing", "error"),
        ("sudo: nvidia-docker: command not found", "error"),
        ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "wrapper"),
        (
            "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
            "wrapper",
        ),
        ("KeyboardInterrupt", "wrapper"),
        ("Sending process 4244 closing signal SIGTERM", "wrapper"),
        ("ERROR: Failed building wheel for flash-attn", "wrapper"),
        ("    except KeyError:", None),
        ("    raise ValueError(f'bad {x}')", None),
        ("Epoch 3: train loss 0.231, val error 0.04", None),
        ("Mean Absolute Error: 0.31", None),
    ],
)
def test_line_kinds(line: str, kind: str | None) -> None:
    assert Rules.compile(rules()).kind(line) == kind


def test_every_rule_has_a_case_above() -> None:
    """Each kind the rules know is exercised by test_line_kinds (a new kind needs a case)."""
    assert {k for k, _ in LINES} == {"wrapper", "kill", "fatal", "exception", "error"}


def test_raised_in_names_the_library_under_site_packages() -> None:
    r = Rules.compile(rules())
    win = r"C:\Users\dev\env\lib\site-packages\peft\tuners\lora\model.py"
    assert r.raised_in(win) == {"path": "peft/tuners/lora/model.py", "library": "peft"}
    assert r.raised_in("/usr/lib/python3/dist-packages/six.py")["library"] == "six"
    assert r.raised_in("/workspace/train.py") == {"path": "/workspace/train.py", "library": ""}


def test_worker_exception_beats_torchrun_summary(bundle_path: Path) -> None:
    got = first_error(bundle_path, (LOGS / "decisive-torchrun-worker-traceback.log").read_text())
    assert got["text"] == "[rank1]: ModuleNotFoundError: No module named 'einops'"
    assert (got["line"], got["rank"], got["kind"]) == (8, 1, "exception")


def test_exception_names_the_frame_it_was_raised_in(bundle_path: Path) -> None:
    got = first_error(bundle_path, (LOGS / "decisive-raised-in-library.log").read_text())
    assert got["text"].startswith("ValueError: Unsupported rank 0")
    assert got["raised_in"] == {"path": "peft/tuners/lora/model.py", "library": "peft"}


def test_shell_kill_is_decisive(bundle_path: Path) -> None:
    got = first_error(bundle_path, (LOGS / "decisive-shell-killed.log").read_text())
    assert (got["line"], got["kind"]) == (3, "kill")


def test_flattened_traceback_counts_as_a_traceback(bundle_path: Path) -> None:
    text = (LOGS / "decisive-flattened-traceback.log").read_text()
    noise = "ERROR: pip's dependency resolver does not currently take into account all the packages\n"
    got = first_error(bundle_path, noise + text)
    assert (got["line"], got["kind"]) == (2, "exception")


def test_a_wrapper_is_chosen_only_when_nothing_else_is_there(bundle_path: Path) -> None:
    wrapper_only = (LOGS / "decisive-wrapper-only.log").read_text()
    got = first_error(bundle_path, wrapper_only)
    assert got["kind"] in ("wrapper", "collateral") and got["line"] == 1
    got = first_error(bundle_path, wrapper_only + "Killed\n")
    assert got["kind"] == "kill"


def test_earliest_of_equally_decisive_lines(bundle_path: Path) -> None:
    text = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyError: 'x'\n"
    got = first_error(
        bundle_path, text + text.replace("KeyError: 'x'", "IndexError: list index out of range")
    )
    assert got["text"] == "KeyError: 'x'"


def test_a_matched_entry_and_the_decisive_line_agree(bundle_path: Path) -> None:
    diagnosis = Diagnosis(engine_of(bundle_path))
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    diagnosis.add_text(f"ValueError: something earlier\n{oom}\n")
    result = diagnosis.result()
    lead = next(f for f in result["findings"] if f["role"] == "root-cause")
    assert result["first_error"]["kind"] == "signature"
    assert result["first_error"]["line"] == lead["first"]["line"] == 2


def test_no_candidate_no_first_error(bundle_path: Path) -> None:
    assert first_error(bundle_path, "step 1 loss 2.3\nstep 2 loss 2.2\n") is None


def test_an_entry_matching_a_code_line_agrees_with_the_exception_that_ends_its_traceback(
    bundle_path: Path,
) -> None:
    """diffusers-lora-needs-peft matches the import line in the traceback; the decisive line is
    the exception that ends it."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/app/site-packages/diffusers/loaders/peft.py", line 300, in load_lora_adapter\n'
        "    from peft import LoraConfig, inject_adapter_in_model, set_peft_model_state_dict\n"
        "ModuleNotFoundError: No module named 'peft'\n"
    )
    diagnosis = Diagnosis(engine_of(bundle_path))
    diagnosis.add_text(log)
    result = diagnosis.result()
    assert result["findings"][0]["id"] == "diffusers-lora-needs-peft"
    assert result["findings"][0]["first"]["line"] == 3
    first = result["first_error"]
    assert (first["line"], first["kind"]) == (4, "exception")
    assert first["raised_in"] == {"path": "diffusers/loaders/peft.py", "library": "diffusers"}


def test_the_message_goes_on_below_the_exception_line(bundle_path: Path) -> None:
    """An exception's message on several lines (a state_dict diff) is the decisive line, up to the blank."""
    got = first_error(bundle_path, (LOGS / "decisive-message-continues.log").read_text())
    assert got["line"] == 6 and got["text"].splitlines() == [
        "RuntimeError: Error(s) in loading state_dict for Net:",
        '\tMissing key(s) in state_dict: "fc.weight", "fc.bias".',
        '\tUnexpected key(s) in state_dict: "head.weight", "head.bias".',
    ]


@pytest.mark.parametrize(
    ("below", "kept"),
    [
        ("[rank1]: ValueError: x\n[rank0]:   - package b requires c\n", 1),  # another rank's line
        ('ValueError: x\n  File "b.py", line 2, in g\n', 1),  # a frame
        ("ValueError: x\n2024-05-01 10:00:00 INFO step 3\n", 1),  # a timestamped record
        ("ValueError: x\nKeyError: 'y'\n", 1),  # another candidate line
        ("ValueError: x\n" + "".join(f"  detail {i}\n" for i in range(9)), 5),  # at most four more
    ],
)
def test_the_message_ends_where_another_record_begins(bundle_path: Path, below: str, kept: int) -> None:
    head = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n'
    got = first_error(bundle_path, head + below)
    assert len(got["text"].splitlines()) == kept, got["text"]


def test_a_known_warning_is_decisive_when_nothing_else_is_there(bundle_path: Path) -> None:
    warning = (
        "/home/user/venv/lib/python3.10/site-packages/torch/utils/checkpoint.py:87: UserWarning: None of the "
        "inputs have requires_grad=True. Gradients will be None\n"
    )
    got = first_error(bundle_path, "step 1 loss 2.3\n" + warning)
    assert (got["line"], got["kind"]) == (2, "warning")
    assert first_error(bundle_path, warning + "Killed\n")["kind"] == "kill"


def test_ipython_frames_name_where_it_was_raised(bundle_path: Path) -> None:
    got = first_error(bundle_path, (LOGS / "paste-ipython8.log").read_text())
    assert (got["text"], got["kind"], got["line"]) == (
        "ValueError: r must be a positive integer",
        "exception",
        15,
    )
    assert got["raised_in"] == {"path": "peft/tuners/lora/model.py", "library": "peft"}


def test_a_rich_traceback_in_prose_gives_its_exception(bundle_path: Path) -> None:
    got = first_error(bundle_path, (LOGS / "paste-rich-box.log").read_text())
    assert (got["text"], got["kind"]) == (
        "TypeError: train() got an unexpected keyword argument 'foo'",
        "exception",
    )


def test_evidence_of_a_long_line_is_a_window_around_the_match(bundle_path: Path) -> None:
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    diagnosis = Diagnosis(engine_of(bundle_path))
    diagnosis.add_text("x" * 5000 + " " + oom + " " + "y" * 3000 + "\n")
    evidence = diagnosis.result()["findings"][0]["first"]
    assert oom in evidence["text"] and len(evidence["text"]) == 2000
    assert evidence["text"].index(evidence["matched"]) == 200  # what precedes the match is kept too


def test_a_paste_wrapped_at_100_columns_is_rejoined(bundle_path: Path) -> None:
    """Each record that fills the width stays whole; the cut ones are joined again."""
    got = first_error(bundle_path, (LOGS / "wrapped-paste-100.log").read_text())
    assert got["line"] == 10 and got["kind"] == "exception"
    assert got["text"].endswith("and 1.85 GiB is reserved by PyTorch but unallocated.")
    assert got["raised_in"] == {"path": "torch/nn/modules/module.py", "library": "torch"}
