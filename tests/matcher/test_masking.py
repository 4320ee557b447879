"""The masking table (denpex_site.matcher.normalise.MASKS): one test per kind of private detail, and
the same output from the JavaScript matcher, which applies the same table from the bundle."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from denpex_site.matcher.normalise import MASKS, mask

from ..conftest import REPO

CASES = [
    # (kind, text, what must be gone, what must remain)
    (
        "aws-access-key",
        "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        "AWS_ACCESS_KEY_ID",
    ),
    ("aws-access-key", "key AKIAIOSFODNN7EXAMPLE in use", "AKIAIOSFODNN7EXAMPLE", "<aws-key>"),
    (
        "secret-assignment",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtn",
        "<secret>",
    ),
    (
        "secret-assignment",
        "WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567 python train.py",
        "0123456789abcdef",
        "train.py",
    ),
    ("secret-assignment", 'HF_TOKEN="abc123secretvalue"', "abc123secretvalue", "HF_TOKEN"),
    ("bearer", "Authorization: Bearer abcdef0123456789.ghijk", "abcdef0123456789", "Bearer <token>"),
    (
        "jwt",
        "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFU",
        "eyJhbGci",
        "<jwt>",
    ),
    ("hf-token", "login with hf_abcdefghijklmnopqrstuvwxyzABCD now", "hf_abcdefghij", "<hf-token>"),
    ("github-token", "token ghp_abcdefghijklmnopqrstuvwx12345 set", "ghp_abcdef", "<github-token>"),
    ("url-credentials", "git clone https://alice:pw@example.org/org/repo", "alice", "https://<user>@"),
    ("email", "contact alice.smith@corp-mail.example for access", "alice.smith", "<email>"),
    (
        "windows-user",
        r"C:\Users\alice\miniconda3\envs\train\lib\site-packages\torch\lib\fbgemm.dll",
        "alice",
        r"C:\Users\<user>\miniconda3",
    ),
    ("home-user", "File /home/bob/proj/train.py, line 3", "bob", "/home/<user>/proj/train.py"),
    ("home-user", "writing /opt/slurm/jobs/carol/out.log", "carol", "/opt/slurm/jobs/<user>/out.log"),
    ("root-home", "File /root/.cache/huggingface/modules/x.py", "/root/", "/<home>/.cache"),
    ("ipv4", "connect to 10.1.2.3:29500 failed", "10.1.2.3", "<ip>:29500"),
    ("ipv6", "[2001:db8::1]:29500 refused", "2001:db8", "[<ip>]:29500"),
    ("ipv6", "bound fd00::abcd and fe80::1%eth0 and fe80:: too", "fd00", "and <ip> too"),
    ("ipv6", "full 2001:0db8:85a3:0000:0000:8a2e:0370:7334 here", "85a3", "full <ip> here"),
    ("ipv6", "listening on [::1]:8080", "::1", "[<ip>]:8080"),
    (
        "nccl-host",
        "dgx-a100-07:1234:1234 [0] NCCL INFO Bootstrap : Using eth0",
        "dgx-a100-07",
        "<host>:1234:1234 [0] NCCL INFO",
    ),
    ("host-name", "resolving myhost.mycorp.com failed", "myhost", "<host>"),
    (
        "host-in-brackets",
        "failed to connect to [myhost.mycorp]:29500 (errno: 110)",
        "myhost",
        "[<host>]:29500",
    ),
    (
        "host-after-label",
        "MASTER_ADDR=myhost.mycorp and hostname: login7.mycorp",
        "mycorp",
        "MASTER_ADDR=<host>",
    ),
    (
        "node-name",
        "job on dgx-a100-07 and login01 and gpu-node-17",
        "a100",
        "job on <host> and <host> and <host>",
    ),
]

KEPT = [
    '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1553, in _call_impl',
    "[enforce fail at ../third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= op.nbytes",
    "E1201 12:00:00.123456 1234 ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout",
    "Epoch 3:  45%|####5     | 450/1000 [29:55<36:34,  3.99s/it, loss=2.31]",
    "2026-11-30 12:00:00,123 - INFO - step 10",
    "terminate called after throwing an instance of 'c10::Error' c10d::ProcessGroupNCCL std::abs at::Tensor",
    "RuntimeError: CUDA error: an illegal memory access was encountered on cuda:0 rank 3 layer12",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED",
]


@pytest.mark.parametrize(
    ("kind", "text", "gone", "kept"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_each_kind_of_private_detail_is_masked(kind: str, text: str, gone: str, kept: str) -> None:
    assert kind in {k for k, _, _ in MASKS} or kind == "ipv6"
    out = mask(text)
    assert gone not in out, out
    assert kept in out, out


@pytest.mark.parametrize("text", KEPT)
def test_times_and_code_names_are_left_alone(text: str) -> None:
    assert mask(text) == text


def test_the_javascript_matcher_masks_the_same() -> None:
    node = shutil.which("node")
    assert node is not None, "node is required for the JavaScript matcher"
    texts = [c[1] for c in CASES] + KEPT
    script = (
        'import { compileMasks, mask } from "./static/js/matcher.js";\n'
        'import { readFileSync } from "node:fs";\n'
        "const { masks, texts } = JSON.parse(readFileSync(0, 'utf8'));\n"
        "const m = compileMasks(masks);\n"
        "process.stdout.write(JSON.stringify(texts.map((t) => mask(t, m))));\n"
    )
    masks = [{"kind": k, "regex": r, "replacement": t} for k, r, t in MASKS]
    out = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"masks": masks, "texts": texts}),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert json.loads(out.stdout) == [mask(t) for t in texts]
