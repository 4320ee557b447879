"""A strict well-formedness check for generated HTML, and link extraction."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
OPTIONAL_END = {"p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "option"}


class StrictParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, int]] = []
        self.errors: list[str] = []
        self.links: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [a for a, _ in attrs]
        if len(names) != len(set(names)):
            self.errors.append(f"line {self.getpos()[0]}: duplicate attribute on <{tag}>")
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            if name == "id" and value is not None:
                self.ids.append(value)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.errors.append(f"line {self.getpos()[0]}: end tag for void element </{tag}>")
            return
        if not self.stack:
            self.errors.append(f"line {self.getpos()[0]}: stray </{tag}>")
            return
        open_tag, line = self.stack.pop()
        if open_tag != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes <{open_tag}> opened on line {line}")


def check_html(text: str) -> StrictParser:
    parser = StrictParser()
    parser.feed(text)
    parser.close()
    if not text.lstrip().lower().startswith("<!doctype html>"):
        parser.errors.append("missing <!doctype html>")
    for tag, line in parser.stack:
        parser.errors.append(f"<{tag}> opened on line {line} is never closed")
    if len(parser.ids) != len(set(parser.ids)):
        dupes = sorted({i for i in parser.ids if parser.ids.count(i) > 1})
        parser.errors.append(f"duplicate ids: {dupes}")
    return parser
