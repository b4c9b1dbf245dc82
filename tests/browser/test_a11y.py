"""WCAG 2.2 AA (issue 14 point 4) in headless Chromium: axe-core (npm devDependency, injected by
the test only) finds no violation on any page of the three languages, nor on the calculators at
a phone viewport in the dark palette with an error, the math and a pinned result shown; every
calculator control is reachable and usable by keyboard and shows a visible focus indicator; the
error text has at least 4.5:1 contrast in both palettes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_calculators import page_url, wait_state
from ux_helpers import axe_violations, describe, ux_page_fixture  # noqa: F401 - fixture

from calc import display
from calc.display import calculators

pytestmark = pytest.mark.browser

LANGS = display.LANGS
CALCULATORS = tuple(calculators.CALCULATORS)
BAD_INPUT = {"memory": ("batch", "-3"), "performance": ("batch", "abc"),
             "price": ("hours", "-1")}


def site_pages(site_dir: Path, lang: str) -> list[str]:
    """Every page of one language, as paths under the site root ("ja/guide/memory/")."""
    root = site_dir if lang == LANGS[0] else site_dir / lang
    pages = []
    for html in sorted(root.rglob("index.html")):
        relative = html.parent.relative_to(site_dir).as_posix()
        first = relative.split("/", 1)[0]
        if first in ("assets", "search") or (lang == LANGS[0] and first in LANGS[1:]):
            continue
        pages.append("" if relative == "." else relative + "/")
    return pages


# every page of every language, each language at another viewport and palette (the slow scan:
# ~25 pages a language); the calculators get both palettes at a phone below
@pytest.mark.parametrize(("lang", "viewport", "scheme"), (("en", "desktop", "light"),
                                                          ("ja", "phone", "dark"),
                                                          ("es", "phone", "light")))
def test_axe_finds_nothing_on_any_page(browser_site: Any, ux_page: Any, lang: str,
                                       viewport: str, scheme: str) -> None:
    pages = site_pages(Path(browser_site.site_dir), lang)
    assert len(pages) >= 20, pages
    page = ux_page(browser_site.base_url + pages[0], viewport, scheme, axe=True)
    # no Python on calculator pages here (CPU): they show their failure state, which is scanned
    # too; the live states are scanned below
    page.context.route("**/pyodide.asm.wasm", lambda route: route.abort())
    found = {}
    for path in pages:
        page.goto(browser_site.base_url + path, wait_until="load")
        violations = axe_violations(page)
        if violations:
            found[path] = violations
    assert not found, describe([{"page": p, "violations": v} for p, v in found.items()])


@pytest.mark.parametrize("lang", LANGS)
def test_axe_calculators_on_a_phone_in_the_dark(browser_site: Any, ux_page: Any,
                                                lang: str) -> None:
    """The three calculators as first shown (prerendered), phone viewport, dark palette."""
    page = ux_page(page_url(browser_site.base_url, lang, CALCULATORS[0]), "phone", "dark",
                   axe=True)
    found = {}
    for name in CALCULATORS:
        page.goto(page_url(browser_site.base_url, lang, name), wait_until="load")
        violations = axe_violations(page)
        if violations:
            found[name] = violations
    assert not found, describe([{"page": p, "violations": v} for p, v in found.items()])


# each calculator once, each language once: live, with an error, the math and a pinned result
LIVE = (("en", "memory", "phone", "dark"), ("ja", "performance", "desktop", "light"),
        ("es", "price", "phone", "light"))


@pytest.mark.parametrize(("lang", "name", "viewport", "scheme"), LIVE)
def test_axe_live_calculator_with_error_math_and_pin(browser_site: Any, ux_page: Any,
                                                     lang: str, name: str, viewport: str,
                                                     scheme: str) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, name), viewport, scheme, axe=True)
    assert wait_state(page, "ready", "failed") == "ready"
    page.click(".nfg-calc__pin-button")
    field, bad = BAD_INPUT[name]
    page.fill(f'.nfg-calc [name="{field}"]', bad)
    page.wait_for_selector(".nfg-calc__error:not(:empty), .nfg-calc__form-error:not(:empty)",
                           timeout=20_000)
    page.click(".nfg-calc__math summary")
    page.wait_for_selector(".nfg-calc__pin:not([hidden]) tbody tr")
    violations = axe_violations(page)
    assert not violations, describe(violations)


CONTRAST_JS = """
el => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  let bg = el, color = null;
  while (bg) {
    const c = rgb(getComputedStyle(bg).backgroundColor);
    if (c.length < 4 || c[3] > 0.99) { color = c; break; }
    bg = bg.parentElement;
  }
  const fg = rgb(getComputedStyle(el).color);
  const a = lum(fg), b = lum(color || [255, 255, 255]);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"""


@pytest.mark.parametrize(("lang", "scheme"), (("en", "light"), ("ja", "dark"), ("es", "light")))
def test_error_text_contrast(browser_site: Any, ux_page: Any, lang: str, scheme: str) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, "memory"), "desktop", scheme)
    assert wait_state(page, "ready", "failed") == "ready"
    page.fill('.nfg-calc [name="batch"]', "-3")
    error = page.wait_for_selector(".nfg-calc__error:not(:empty)", timeout=20_000)
    assert error.evaluate(CONTRAST_JS) >= 4.5


FOCUS_JS = """
el => {
  const s = getComputedStyle(el);
  return [el.tagName, el.name || el.dataset.action || el.className,
          s.outlineStyle, parseFloat(s.outlineWidth), s.boxShadow];
}
"""


IDENT_JS = ("e => e.id || e.dataset.action || (e.classList.contains('nfg-calc__pin-button')"
            " ? 'pin' : '') || e.tagName")


@pytest.mark.parametrize(("lang", "name", "viewport"), (("en", "price", "desktop"),
                                                        ("ja", "memory", "phone"),
                                                        ("es", "performance", "desktop")))
def test_keyboard_use_of_the_whole_calculator(browser_site: Any, ux_page: Any, lang: str,
                                              name: str, viewport: str) -> None:
    page = ux_page(page_url(browser_site.base_url, lang, name), viewport)
    assert wait_state(page, "ready", "failed") == "ready"
    controls = page.eval_on_selector_all(
        ".nfg-calc :is(input, select, button, summary):not([hidden])",
        f"els => els.filter(e => e.offsetParent !== null).map({IDENT_JS})")
    # Tab from the first control reaches every visible control, in order, each with a visible
    # focus indicator (an outline of at least 2 px)
    page.focus(".nfg-calc .nfg-calc__form :is(input, select)")
    reached = []
    for _ in range(len(controls) + 12):
        state = page.evaluate("() => document.activeElement.closest('.nfg-calc') !== null")
        if not state:
            break
        info = page.evaluate(f"({FOCUS_JS})(document.activeElement)")
        reached.append(page.evaluate(f"({IDENT_JS})(document.activeElement)"))
        assert info[2] not in ("none", "") and info[3] >= 2, info
        page.keyboard.press("Tab")
    assert set(controls) <= set(reached), set(controls) - set(reached)
    # a select by arrow keys and a text field by typing change the result
    select = page.eval_on_selector(".nfg-calc__form select[name='instance']", "e => e.id")
    page.focus(f"#{select}")
    before = page.input_value(f"#{select}")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("([id, v]) => new URLSearchParams(location.search).get('instance')"
                           " !== v && document.getElementById(id).value !== v",
                           arg=[select, before], timeout=20_000)
    text = page.evaluate("() => [...document.querySelectorAll('.nfg-calc__form input')]"
                         ".find(e => e.offsetParent !== null).id")
    page.focus(f"#{text}")
    page.keyboard.press("End")
    page.keyboard.type("0")
    name_attr = page.get_attribute(f"#{text}", "name")
    typed = page.input_value(f"#{text}")
    page.wait_for_function("([n, v]) => new URLSearchParams(location.search).get(n) === v"
                           " || document.querySelector('.nfg-calc__error:not(:empty)')",
                           arg=[name_attr, typed], timeout=20_000)
    # the math opens and the pin toggles from the keyboard
    page.focus(".nfg-calc__math summary")
    page.keyboard.press("Enter")
    assert page.eval_on_selector(".nfg-calc__math", "e => e.open")
    page.focus(".nfg-calc__pin-button")
    page.keyboard.press("Space")
    assert page.get_attribute(".nfg-calc__pin-button", "aria-pressed") == "true"
    assert re.search(r"[?&]pin=", page.url)
