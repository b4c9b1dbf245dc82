"""Two texts that used to stay English (or Spanish) on every page, now in the page's language:

- the heading anchors' tooltip: Markdown's toc wrote title="Permanent link" on the ja and es pages
  too; hooks/heading_links.py puts site.toml [text] permalink of the page language.
- the offline 404 page: the service worker answered every uncached URL with the root 404.html
  (English); it now answers with the 404 page of the URL's language (ja/404.html, es/404.html,
  written by hooks/not_found.py before the service worker lists the files), under any base path.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import calc.data
from calc.display import LANGS
from hooks import heading_links

pytestmark = pytest.mark.site

HEADERLINK = re.compile(r'<a\s[^>]*?\bclass="headerlink"[^>]*>')
TITLE = re.compile(r'\stitle="([^"]*)"')
ENGLISH = "Permanent link"


def permalink(lang: str) -> str:
    return str(calc.data.i18n(lang, "site")["text"]["permalink"])


def pages_of(site_dir: Path, lang: str) -> list[Path]:
    """The built pages of one language (the default language's at the root)."""
    others = [other for other in LANGS if other != "en"]
    if lang != "en":
        return sorted((site_dir / lang).rglob("index.html"))
    return sorted(p for p in site_dir.rglob("index.html")
                  if p.relative_to(site_dir).parts[0] not in (*others, "assets", "search"))


# ---- the hook alone (no build) -------------------------------------------------------------------

TOC_HTML = ('<h2 id="caveats">Caveats<a class="headerlink" href="#caveats" '
            'title="Permanent link">&para;</a></h2><p title="Permanent link">x</p>')


def _page(locale: str) -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(locale=locale))


def _config(title: str | None = None) -> SimpleNamespace:
    toc = {"permalink": True, **({"permalink_title": title} if title else {})}
    return SimpleNamespace(mdx_configs={"toc": toc}, plugins={})


def test_translations_exist_and_differ():
    assert permalink("en") == ENGLISH
    for lang in LANGS:
        assert permalink(lang).strip()
        if lang != "en":
            assert permalink(lang) != ENGLISH


@pytest.mark.parametrize("lang", LANGS)
def test_hook_translates_only_heading_anchors(lang):
    out = heading_links.on_page_content(TOC_HTML, _page(lang), _config(ENGLISH), None)
    assert f'class="headerlink" href="#caveats" title="{permalink(lang)}"' in out
    assert '<p title="Permanent link">' in out   # not a heading anchor: left alone


def test_hook_follows_the_configured_title_and_escapes():
    html = TOC_HTML.replace("Permanent link", "Link &amp; &quot;anchor&quot;")
    out = heading_links.translate(html, 'Link & "anchor"', 'Enlace <"x">')
    assert 'title="Enlace &lt;&quot;x&quot;&gt;"' in out
    assert heading_links.source_title(_config()) == ENGLISH
    assert heading_links.page_language(_page("xx"), _config()) == "en"


# ---- the built site ------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_heading_anchors_speak_the_page_language(built_site, lang):
    pages = pages_of(built_site.site_dir, lang)
    assert len(pages) >= 20, pages
    anchors = 0
    for path in pages:
        text = path.read_text("utf-8")
        titles = [TITLE.search(tag).group(1) for tag in HEADERLINK.findall(text)
                  if TITLE.search(tag)]
        anchors += len(titles)
        assert set(titles) <= {permalink(lang)}, (path, set(titles))
        if lang != "en":
            assert ENGLISH not in text, path
    assert anchors >= len(pages), lang   # every page has at least its h1's anchor


def _service_worker(site_dir: Path) -> str:
    return (site_dir / "sw.js").read_text("utf-8")


def _json_const(sw: str, name: str) -> list[str]:
    match = re.search(rf"^const {name} = (\[.*?\]);$", sw, re.M | re.S)
    assert match, name
    return list(json.loads(match.group(1)))


def test_service_worker_caches_every_languages_404(built_site):
    sw = _service_worker(built_site.site_dir)
    files = _json_const(sw, "FILES")
    for path in ("404.html", "ja/404.html", "es/404.html"):
        assert path in files, path
    dirs = _json_const(sw, "NOT_FOUND")
    assert dirs[-1] == "" and sorted(dirs[:-1]) == ["es/", "ja/"], dirs
    # the cached page is the language's (hooks/not_found.py ran before the worker was written)
    for lang in ("ja", "es"):
        page = (built_site.site_dir / lang / "404.html").read_text("utf-8")
        assert f'<html lang="{lang}"' in page


# Runs the generated sw.js in node with a cache holding its FILES and a network that is down, and
# reports which cached page answers each navigation (or null)
SW_HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
const [swPath, scope, urls, missing] = JSON.parse(fs.readFileSync(0, "utf-8"));
const listeners = {};
const stored = new Set();
const context = vm.createContext({
  URL, Request: class { constructor(url) { this.url = url; } }, Response: class {}, Headers,
  console,
  self: { location: { href: scope + "sw.js" }, addEventListener: (t, f) => { listeners[t] = f; } },
  caches: { open: async () => ({ match: async (key) => (stored.has(key) ? key : undefined) }) },
  fetch: async () => { throw new TypeError("Failed to fetch (offline)"); },
});
vm.runInContext(fs.readFileSync(swPath, "utf-8"), context);
for (const path of vm.runInContext("FILES", context)) {
  if (!missing.includes(path)) stored.add(new URL(path, scope).href);
}
(async () => {
  const answers = {};
  for (const url of urls) {
    let answer = null;
    const event = { request: { method: "GET", url, mode: "navigate" },
                    respondWith: (p) => { answer = p; } };
    listeners.fetch(event);
    answers[url] = answer === null ? "not handled" : await answer.catch(() => null);
  }
  process.stdout.write(JSON.stringify(answers));
})();
"""


def _offline_answers(sw_path: Path, scope: str, paths: list[str],
                     missing: tuple[str, ...] = ()) -> dict[str, str | None]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    urls = [scope + path for path in paths]
    proc = subprocess.run([node, "-e", SW_HARNESS], capture_output=True, text=True, timeout=60,
                          input=json.dumps([str(sw_path), scope, urls, list(missing)]))
    assert proc.returncode == 0, proc.stderr
    answers = json.loads(proc.stdout)
    return {url[len(scope):]: (None if answers[url] is None else answers[url][len(scope):])
            for url in urls}


OFFLINE_CASES = {
    "ja/no-such-page/": "ja/404.html",
    "ja/guide/no-such-page/": "ja/404.html",
    "ja": "ja/404.html",
    "es/reference/nope.html": "es/404.html",
    "no-such-page/": "404.html",
    "guide/no-such-page/": "404.html",
    "japan/": "404.html",          # a prefix of a language's name is not that language
    "ja/guide/memory/": "ja/guide/memory/",   # a cached page answers itself
}


@pytest.mark.parametrize("scope", ["http://127.0.0.1:8000/nfg/", "https://example.test/",
                                   "https://example.test/a/b/"])
def test_offline_fallback_follows_the_language(built_site, scope):
    """Under any base path: the same generated sw.js served at the root or under sub-paths."""
    answers = _offline_answers(built_site.site_dir / "sw.js", scope, list(OFFLINE_CASES))
    assert answers == OFFLINE_CASES


def test_offline_fallback_without_the_language_page_is_the_root_one(built_site):
    scope = built_site.base_url
    answers = _offline_answers(built_site.site_dir / "sw.js", scope,
                               ["ja/no-such-page/", "es/x/"], missing=("ja/404.html",))
    assert answers == {"ja/no-such-page/": "404.html", "es/x/": "es/404.html"}
