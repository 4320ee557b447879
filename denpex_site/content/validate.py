"""Validate a YAML document against a model, reporting each error at its line and column."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from denpex_site.content.documents import Document, Loc, dotted
from denpex_site.content.model import KEBAB, PLAIN
from denpex_site.errors import Problems


def _fields_of(model: type[BaseModel], loc: Loc) -> list[str]:
    """The field names allowed at ``loc`` inside ``model`` (for did-you-mean hints)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return []
        current = _inner_model(info.annotation)
        if current is None:
            return []
    return list(getattr(current, "model_fields", {}))


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def validate(doc: Document, model: type[BaseModel], problems: Problems) -> Any | None:
    """Validate a document against a model, reporting every error at its YAML position."""
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc: Loc = tuple(err["loc"])
            kind = err["type"]
            if kind == "extra_forbidden":
                line, col = doc.lines.at(loc, key=True)
                name = str(loc[-1])
                allowed = _fields_of(model, loc[:-1])
                hint = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
                message = f"unknown field '{name}'" + (f" (did you mean '{hint[0]}'?)" if hint else "")
            elif kind == "missing":
                line, col = doc.lines.at(loc[:-1])
                message = f"required field '{loc[-1]}' is missing"
            else:
                line, col = doc.lines.at(loc)
                message = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
                if kind == "string_pattern_mismatch":
                    wanted = (err.get("ctx") or {}).get("pattern")
                    if wanted == KEBAB:
                        message = "must be kebab-case: lowercase letters and digits joined by '-'"
                    elif wanted == PLAIN:
                        message = (
                            "must be plain text: backticks would show literally in tabs, feeds and links"
                        )
                    message = f"{message} (got {err['input']!r})"
            problems.add(doc.path, line, col, dotted(loc), message)
        return None
