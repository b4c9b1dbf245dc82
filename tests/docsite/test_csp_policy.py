"""Every built page carries a strict Content-Security-Policy (hooks/csp.py): a <meta> as the first
element of <head>, with the hash of every inline script the page executes, 'wasm-unsafe-eval' for
Pyodide, and no 'unsafe-inline' / 'unsafe-eval' for scripts. The HTML is read with the stdlib
parser here (not with the hook's own regular expressions)."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hooks import csp

pytestmark = pytest.mark.site

NON_EXECUTABLE_TYPES = {"application/json", "application/ld+json", "importmap", "text/plain"}


@dataclass
class _Head:
    first_head_element: tuple[str, dict[str, str]] | None = None
    policies: list[str] = field(default_factory=list)
    inline_scripts: list[tuple[dict[str, str], str]] = field(default_factory=list)
    inline_handlers: list[str] = field(default_factory=list)
    javascript_urls: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found = _Head()
        self._in_head = False
        self._script: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "head":
            self._in_head = True
        elif self._in_head and self.found.first_head_element is None:
            self.found.first_head_element = (tag, values)
        if tag == "meta" and values.get("http-equiv", "").lower() == "content-security-policy":
            self.found.policies.append(values.get("content", ""))
        if tag == "script" and "src" not in values:
            self._script, self._text = values, []
        for name, value in values.items():
            if name.startswith("on"):
                self.found.inline_handlers.append(f"<{tag} {name}>")
            if name in ("href", "src", "action") and value.strip().lower().startswith(
                    "javascript:"):
                self.found.javascript_urls.append(value)

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.found.inline_scripts.append((self._script, "".join(self._text)))
            self._script = None


def _parse(path: Path) -> _Head:
    parser = _Parser()
    parser.feed(path.read_text("utf-8"))
    return parser.found


def _directives(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def _sha256(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.fixture(scope="module")
def pages(built_site) -> list[Path]:  # type: ignore[no-untyped-def]
    found = sorted(built_site.site_dir.rglob("*.html"))
    assert len(found) > 60
    return found


def test_every_page_has_one_policy_first_in_head(pages: list[Path]) -> None:
    for path in pages:
        head = _parse(path)
        assert len(head.policies) == 1, path
        tag, attrs = head.first_head_element or ("", {})
        assert tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy", path
        # the charset declaration must stay inside the first 1024 bytes
        assert path.read_bytes().find(b"charset") < 1024, path


def test_every_inline_script_is_hashed_and_scripts_are_strict(pages: list[Path]) -> None:
    executed = 0
    for path in pages:
        head = _parse(path)
        policy = _directives(head.policies[0])
        scripts = policy["script-src"]
        assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts, path
        assert "'strict-dynamic'" not in scripts
        assert "'wasm-unsafe-eval'" in scripts and "'self'" in scripts
        assert policy["default-src"] == ["'self'"]
        assert policy["object-src"] == ["'none'"]
        assert policy["base-uri"] == ["'self'"]
        assert policy["worker-src"] == ["'self'"]
        assert not any(s.startswith(("http:", "https:", "*", "blob:", "data:")) or s in
                       ("http:", "https:") for s in scripts), scripts
        for attrs, text in head.inline_scripts:
            if attrs.get("type", "").lower() in NON_EXECUTABLE_TYPES:
                continue
            executed += 1
            assert _sha256(text) in scripts, (path, text[:80])
        assert not head.inline_handlers, (path, head.inline_handlers)
        assert not head.javascript_urls, (path, head.javascript_urls)
    assert executed >= 3 * len(pages)  # Material's snippets at least


def test_policy_follows_the_html_it_is_given() -> None:
    html = ("<html><head><meta charset=utf-8><script>a()</script>"
            "<script type=\"application/json\">{}</script><script type=module>b()</script>"
            "<script src=x.js></script></head><body><script>\r\nc()</script></body></html>")
    out = csp.with_policy(html)
    policy = _directives(_parse_text(out).policies[0])
    assert {_sha256("a()"), _sha256("b()"), _sha256("\nc()")} <= set(policy["script-src"])
    assert _sha256("{}") not in policy["script-src"]
    assert csp.with_policy(out).count("Content-Security-Policy") == 1  # idempotent


def _parse_text(html: str) -> _Head:
    parser = _Parser()
    parser.feed(html)
    return parser.found
