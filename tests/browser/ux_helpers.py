"""Shared helpers of the reader's-experience browser tests (issue 14): pages at a phone and a
desktop viewport, light or dark palette, and the axe-core scan (tests only: axe is injected by
the test through the DevTools protocol, never shipped with the site)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(name="ux_page")
def ux_page_fixture(chromium: Any) -> Iterator[Any]:
    """open(url, viewport="phone"|"desktop", scheme="light"|"dark") -> page (errors in .errors)."""
    contexts: list[Any] = []

    def _open(url: str, viewport: str = "desktop", scheme: str = "light",
              axe: bool = False) -> Any:
        # bypass_csp only where axe is injected: the site's strict policy (hooks/csp.py) is
        # checked by test_csp_browser.py; axe's own script is not part of the site
        context = chromium.new_context(viewport=VIEWPORTS[viewport], color_scheme=scheme,
                                       bypass_csp=axe, is_mobile=viewport == "phone",
                                       has_touch=viewport == "phone")
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.goto(url, wait_until="domcontentloaded")
        return page

    yield _open
    for context in contexts:
        context.close()


def hold_first_runtime(page: Any) -> list[Any]:
    """Hold the first Pyodide runtime request unanswered (that page's Python never starts);
    later ones (the next page's) are served. The held routes are returned."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.context.route("**/pyodide.asm.wasm", hold)
    return held


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.x A/AA violations on the page as it is now."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (axe-core is a devDependency)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        """async (tags) => {
          const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
          return result.violations.map(v => ({id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: '
              + (n.failureSummary || '').slice(0, 240))}));
        }""", AXE_TAGS)
    return list(found)


def describe(violations: list[dict[str, Any]]) -> str:
    return json.dumps(violations, ensure_ascii=False, indent=1)
