"""Markdown to safe HTML: markdown-it-py with raw HTML off, Pygments highlighting, heading anchors.

Each rendering also reports the links it contains and the anchors it defines, so the site can
check every internal link before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from pygments import format as pygments_format
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.style import Style
from pygments.styles import get_style_by_name
from pygments.token import Text, _TokenType
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)


# Code colours: light, then dark (prefers-color-scheme).
_STYLES: tuple[type[Style], ...] = (get_style_by_name("friendly"), get_style_by_name("github-dark"))


# What a span around spaces can show: the rest (colour, weight, slant, font) needs a glyph.
_BOX = ("underline", "bgcolor", "border")


def slugify(text: str) -> str:
    slug = re.sub(r"[^\w\s-]", "", text.lower(), flags=re.ASCII).strip()
    return re.sub(r"[\s_-]+", "-", slug).strip("-") or "section"


@lru_cache(maxsize=256)
def lexer(language: str) -> Lexer:
    """The lexer of a language (text for unknown ones), made once per process: a process that
    calls this before forking spares its children the compiling of the lexer's patterns."""
    try:
        return get_lexer_by_name(language or "text", stripnl=False)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False)


@cache
def _plain(ttype: _TokenType, blank: bool) -> bool:
    """Whether a token looks like plain text in both schemes (``blank``: it is only spaces)."""
    for style in _STYLES:
        if not style.styles_token(ttype):  # a lexer's own subtype: its class has no CSS rule
            continue
        own: dict[str, object] = dict(style.style_for_token(ttype))
        text: dict[str, object] = dict(style.style_for_token(Text))
        if any(own[k] != text[k] for k in (_BOX if blank else own)):
            return False
    return True


@lru_cache(maxsize=4096)
def highlight(code: str, language: str) -> str:
    """Highlight a code block with Pygments; unknown languages are escaped as plain text.

    Tokens that would look like plain text anyway (names and punctuation in both schemes, spaces)
    get no span: that is over half of the spans, fewer elements for the browser and for Pagefind.
    """
    tokens = lexer(language).get_tokens(code)
    shown = ((Text if _plain(t, v.isspace()) else t, v) for t, v in tokens)
    return code_block(pygments_format(shown, _FORMATTER), language)


def code_block(body: str, language: str, extra_class: str = "") -> str:
    """The block that wraps code already turned into HTML."""
    lang = escape(language or "text")
    classes = f"code {extra_class}".strip()
    return f'<pre class="{classes}" data-lang="{lang}"><code class="language-{lang}">{body}</code></pre>\n'


def _fence_language(info: str) -> str:
    """The language of a fenced code block: the first word of its info string."""
    return info.strip().split(" ")[0] if info else "text"


def _fence_highlight(code: str, lang: str, _attrs: str) -> str:
    return highlight(code, _fence_language(lang))


_FENCE_INFO = re.compile(r"^ {0,3}(?:`{3,}|~{3,})(.*)$", re.M)


def fence_languages(text: str) -> set[str]:
    """The languages of the fenced code blocks in a Markdown text (closing fences give "text")."""
    if "```" not in text and "~~~" not in text:
        return set()
    return {_fence_language(info) for info in _FENCE_INFO.findall(text)}


_REFUSED: list[str] = []
"""Link targets markdown-it refused (javascript:, data:, vbscript:, file:) while rendering one text."""


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False, "highlight": _fence_highlight})
    allowed = md.validateLink

    def validate(url: str) -> bool:
        ok = allowed(url)
        if not ok:
            _REFUSED.append(url)
        return ok

    md.validateLink = validate  # type: ignore[method-assign]
    md.enable(["table", "strikethrough"])
    md.use(anchors_plugin, min_level=2, max_level=4, slug_func=slugify, permalink=True, permalinkSymbol="#")
    return md


_MD = _make_parser()


@dataclass(frozen=True)
class Rendered:
    html: str
    links: tuple[str, ...]
    anchors: tuple[str, ...]


_CODE_SPAN = re.compile(r"(?<!`)(`[^`\r\n]+`)(?!`)")


# Outside code spans, what could make markdown-it do more than escape the text: emphasis (an
# underscore not inside a word), links, entities, raw HTML, escapes, a second line.
_UNSAFE = re.compile(r"[\\*\[\]<>!#|~&\r\n`]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|https?://")


# What would start a block other than a paragraph: an indented code block, a list, a quote.
_BLOCK_START = re.compile(r" {4}| {0,3}\t| {0,3}(?:[-+>=]|[0-9]{1,9}[.)])(?:\s|$)")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def plain(text: str, inline: bool = False) -> str | None:
    """What markdown-it gives for one line of plain words and `code` spans (most table cells and
    short fields), without parsing; None for any other text."""
    if not inline:
        body = text.strip(" \t\n")
        if "\r" in text or body != body.strip():
            return None
        # The line the paragraph would start on, with its indentation.
        start = len(text) - len(text.lstrip(" \t\n"))
        if _BLOCK_START.match(text, text.rfind("\n", 0, start) + 1):
            return None
        if not body:
            return ""
        text = body
    out = []
    for i, part in enumerate(_CODE_SPAN.split(text)):
        if i % 2:
            code = part[1:-1]
            if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
                code = code[1:-1]
            out.append(f"<code>{_escape(code)}</code>")
        elif _UNSAFE.search(part):
            return None
        else:
            out.append(_escape(part))
    html = "".join(out)
    return html if inline else f"<p>{html}</p>\n"


def _walk(tokens: list[Token]) -> Iterator[Token]:
    """Every token in document order, children right after their parent."""
    for tok in tokens:
        yield tok
        if tok.children:
            yield from _walk(tok.children)


@lru_cache(maxsize=65536)
def render(text: str, inline: bool = False) -> Rendered:
    """Render Markdown; ``inline`` renders one paragraph without the surrounding <p>."""
    html = plain(text, inline)
    if html is not None:
        return Rendered(html, (), ())
    env: dict[str, object] = {}
    _REFUSED.clear()
    tokens = _MD.parseInline(text, env) if inline else _MD.parse(text, env)
    links: list[str] = list(_REFUSED)  # shown as text, and reported by the link check
    anchors: list[str] = []
    for tok in _walk(tokens):
        if tok.type == "link_open":
            href = str(tok.attrGet("href") or "")
            if not href.startswith("#") or tok.attrGet("class") != "header-anchor":
                links.append(href)
        elif tok.type == "heading_open" and tok.attrGet("id"):
            anchors.append(str(tok.attrGet("id")))
    html = _MD.renderer.render(tokens, _MD.options, env)
    return Rendered(html, tuple(links), tuple(anchors))


def pygments_css() -> str:
    """Token colours for light and dark schemes, scoped to code blocks."""

    def rules(style: type[Style]) -> str:
        defs = HtmlFormatter(style=style).get_style_defs(".code")
        lines = [line for line in defs.splitlines() if line.startswith(".code .")]
        text = style.style_for_token(Text)["color"]
        # Plain tokens get no span (see highlight): they take the scheme's text colour here.
        return "\n".join([f".code code {{ color: #{text} }}", *lines] if text else lines)

    light, dark = map(rules, _STYLES)
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
