// The language switcher keeps the calculator state (issue 14). Formats nothing.
//
// Material's language links (header, a[hreflang]) point at the same page in another language.
// On a calculator page this copies the calculator's inputs into those links, written as the other
// language's page reads them: calc.display.present returns them as `values_by_lang` (Python
// writes the numbers; "1,500" in English is "1500", not the Spanish 1,5). The pinned setup
// (calc-pin.js) travels the same way in `pin`.
(function () {
  "use strict";

  function languageLinks() {
    return document.querySelectorAll(".md-header a[hreflang], .md-select a[hreflang]");
  }

  function widgets() {
    var found = [];
    var roots = document.querySelectorAll(".nfg-calc");
    for (var i = 0; i < roots.length; i++) if (roots[i].nfgWidget) found.push(roots[i]);
    return found;
  }

  function queryFor(lang) {
    var query = new URLSearchParams(window.location.search);
    var roots = widgets();
    for (var i = 0; i < roots.length; i++) {
      var shown = roots[i].nfgWidget.lastGood || {};
      var values = (shown.values_by_lang || {})[lang];
      if (!values) continue;
      // only inputs the reader already has in the query (the widget writes them all on a change)
      var names = Object.keys(values);
      var any = names.some(function (name) { return query.has(name); });
      if (!any) continue;
      var twice = roots[i].nfgWidget.linkTwice || {};
      var defaults = roots[i].nfgWidget.config.defaults || {};
      for (var j = 0; j < names.length; j++) {
        if (twice[names[j]]) continue; // given twice in the link: kept as given, refused there too
        // "" is left out only where the page's default is empty too (as the widget writes it)
        if (values[names[j]] === "" && (defaults[names[j]] || "") === "") query.delete(names[j]);
        else query.set(names[j], values[names[j]]);
      }
      var pin = roots[i].nfgPin;
      if (pin && pin.queryFor) {
        var pinned = pin.queryFor(lang);
        if (pinned) query.set("pin", pinned);
        else if (pinned === null) query.delete("pin");
        // undefined: the link's pin is kept as it is (being restored, or refused and announced)
      }
    }
    return query.toString();
  }

  function rewrite(link) {
    var lang = link.getAttribute("hreflang");
    if (!lang) return;
    var url = new URL(link.getAttribute("href"), window.location.href);
    var query = queryFor(lang);
    url.search = query ? "?" + query : "";
    url.hash = window.location.hash;
    link.setAttribute("href", url.href);
  }

  function rewriteAll() {
    var links = languageLinks();
    for (var i = 0; i < links.length; i++) rewrite(links[i]);
  }

  // before the link is followed (mouse, touch, keyboard), and whenever it may be shown or copied
  ["click", "auxclick", "contextmenu", "focusin", "pointerover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var link = event.target && event.target.closest && event.target.closest("a[hreflang]");
      if (!link || !link.closest(".md-header, .md-select")) return;
      rewrite(link);
      // Material's own handler (on document.body) rebuilds the target from the current location
      // and the site root, which is wrong below /ja/ and /es/ (ja -> es became es/ja/page, not in
      // the sitemap, so the reader landed on the home page) and drops pages with a query: the
      // link, already pointing at the same page in that language (mkdocs-static-i18n) with the
      // state, is followed as it is
      if (name === "click") event.stopPropagation();
    }, true);
  });
  document.addEventListener("input", function () { window.setTimeout(rewriteAll, 0); });
  window.nfgLangState = { rewriteAll: rewriteAll };
})();
