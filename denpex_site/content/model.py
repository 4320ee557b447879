"""The content model: what an entry, a category and a system are.

Every model forbids unknown fields, so a misspelt key is an error and never silently ignored.
Cross-references (categories, systems, related ids, links, signatures against logs) are checked
later, in :mod:`denpex_site.site`, once every file is loaded.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

SCHEMA_VERSION = 1


KEBAB = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


KebabId = Annotated[str, StringConstraints(pattern=KEBAB, max_length=80)]


Line = Annotated[str, StringConstraints(min_length=1, max_length=300, strip_whitespace=True)]


PLAIN = r"^[^`]+$"


PlainLine = Annotated[
    str, StringConstraints(min_length=1, max_length=300, strip_whitespace=True, pattern=PLAIN)
]
"""A line shown as plain text (browser tabs, feeds, search results, links): no Markdown backticks."""


Text = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]
"""Markdown: rendered with markdown-it-py, raw HTML disabled."""


TODO_MARK = "TODO"


def _https_url(value: str) -> str:
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?::\d+)?(?:/[^\s<>\"]*)?", value):
        raise ValueError("must be an absolute https:// URL without spaces")
    return value


HttpsUrl = Annotated[str, AfterValidator(_https_url)]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Severity(StrEnum):
    critical = "critical"
    high = "high"
    medium = "medium"
    low = "low"


SEVERITY_ORDER = {s: i for i, s in enumerate(Severity)}


class Role(StrEnum):
    root_cause = "root-cause"
    collateral = "collateral"
    warning = "warning"


DEFAULT_WEIGHT = {Role.root_cause: 10.0, Role.warning: 3.0, Role.collateral: 1.0}


class Stack(StrEnum):
    pytorch = "pytorch"
    hf_trainer = "hf-trainer"
    accelerate = "accelerate"
    deepspeed = "deepspeed"
    lightning = "lightning"
    megatron = "megatron"
    vllm = "vllm"
    fsdp = "fsdp"
    torchrun = "torchrun"
    slurm = "slurm"
    shell = "shell"
    config = "config"


STACK_LABELS = {
    Stack.pytorch: "PyTorch",
    Stack.hf_trainer: "HF Trainer",
    Stack.accelerate: "HF Accelerate",
    Stack.deepspeed: "DeepSpeed",
    Stack.lightning: "Lightning",
    Stack.megatron: "Megatron-LM",
    Stack.vllm: "vLLM",
    Stack.fsdp: "PyTorch FSDP",
    Stack.torchrun: "torchrun",
    Stack.slurm: "SLURM",
    Stack.shell: "Shell",
    Stack.config: "Config",
}


class QuickAnswer(Model):
    symptom: Line
    cause: Line
    fix: Line


class AffectedVersion(Model):
    system: KebabId = Field(description="A system id from content/systems.yaml.")
    versions: Line = Field(description="Affected range, e.g. '>=1.13, <2.14' or 'all'.")
    note: Line | None = None


class Observation(Model):
    text: Text = Field(description="A line exactly as the software prints it.")
    where: Line | None = Field(None, description="Which rank/process/stream prints it.")
    versions: Line | None = Field(None, description="Versions that print this wording.")


class Symptom(Model):
    symptom: Line
    why: Line


class Step(Model):
    step: Text = Field(description="What to do (Markdown).")
    shows: Text = Field(description="What it shows when this failure is the cause (Markdown).")


class Signature(Model):
    pattern: Annotated[str, StringConstraints(min_length=8, max_length=600)] = Field(
        description="A pattern in the signature dialect (see CONTRIBUTING.md)."
    )
    role: Role
    weight: float | None = Field(None, gt=0, le=100, description="Defaults by role: 10, 3 or 1.")
    raised_in: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}$")] | None = (
        Field(
            None,
            description="Match only an exception raised in this library ('peft') or module path "
            "('torch/utils/cpp_extension.py'): the innermost frame of the traceback must be there.",
        )
    )
    traceback_has: Annotated[str, StringConstraints(min_length=8, max_length=600)] | None = Field(
        None,
        description="Match only inside a traceback that also holds a line matching this pattern "
        "(a frame, a code line) above the matched line.",
    )
    source: Line = Field(description="Where this text comes from: upstream file, reproduction or log.")
    versions: Line | None = None
    examples: list[Annotated[str, StringConstraints(pattern=r"^logs/[A-Za-z0-9._-]+\.log$")]] = Field(
        min_length=1, description="Example logs in this bundle that this signature must match."
    )

    @property
    def effective_weight(self) -> float:
        return self.weight if self.weight is not None else DEFAULT_WEIGHT[self.role]


class LogKind(StrEnum):
    captured = "captured"
    assembled = "assembled"


class ExampleLog(Model):
    file: Annotated[str, StringConstraints(pattern=r"^logs/[A-Za-z0-9._-]+\.log$")]
    kind: LogKind
    origin: Line = Field(
        description="captured: the command and versions that produced it; assembled: the source of the text."
    )


class CodeExample(Model):
    stack: Stack
    title: Line
    language: Annotated[str, StringConstraints(pattern=r"^[a-z0-9+#-]+$")] = "python"
    before: str | None = Field(None, description="The failing code, when a before/after helps.")
    code: Text
    note: Text | None = None


class Fix(Model):
    summary: Text
    examples: list[CodeExample] = Field(min_length=1)
    cost: Text | None = None
    alternatives: Text | None = None


class FaqItem(Model):
    q: Line
    a: Text


class Related(Model):
    id: KebabId
    note: Line = Field(description="One line on how to tell the two apart.")


class Reference(Model):
    title: Line
    url: HttpsUrl


class Entry(Model):
    """One failure: the file content/failures/<id>/entry.yaml."""

    id: KebabId
    title: PlainLine
    category: KebabId
    severity: Severity
    added: dt.date
    updated: dt.date | None = None
    silent: bool = False
    tags: list[KebabId] = Field(min_length=1)
    systems: list[KebabId] = Field(min_length=1)
    versions: list[AffectedVersion] = []
    quick_answer: QuickAnswer
    described_as: list[PlainLine] = Field(
        [],
        max_length=8,
        description="How people describe this failure before they know its name: short phrases in "
        "their own words (what they saw, what they were doing), not error text. Shown on the page "
        "and used by search.",
    )
    mechanism: Text
    observations: list[Observation] = []
    symptoms: list[Symptom] = Field(min_length=2)
    confirm: list[Step] = Field(min_length=1)
    signatures: list[Signature] = []
    logs: list[ExampleLog] = []
    fix: Fix
    verify: Text
    prevention: list[Text] = Field(min_length=1)
    fingerprint: Text
    scale: Text | None = None
    operator_action: Text | None = None
    faq: list[FaqItem] = []
    related: list[Related] = []
    overlaps: list[KebabId] = Field(
        [],
        description="Entries whose example logs this entry's signatures may also match (shared error text).",
    )
    references: list[Reference] = Field(min_length=1)


class Category(Model):
    id: KebabId
    title: Line
    description: Line


class System(Model):
    id: KebabId
    title: Line
    description: Line
    url: HttpsUrl | None = None


class CategoryFile(Model):
    categories: list[Category] = Field(min_length=1)


class SystemFile(Model):
    systems: list[System] = Field(min_length=1)
