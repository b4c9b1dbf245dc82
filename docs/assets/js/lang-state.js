// The language switcher keeps the calculator state (issue 14). Formats nothing.
//
// Material's language links (header, a[hreflang]) point at the same page in another language.
// On a calculator page this copies the calculator's inputs into those links, written as the other
// language's page reads them: calc.display.present returns them as `values_by_lang` (Python
// writes the numbers; "1,500" in English is "1500", not the Spanish 1,5). An input Python has not
// read yet is not carried as typed (the same text can be another number there): a click waits
// for the answer (a moment, or the start-up), and what still has none is left out and named in
// `dropped`, which the other page says (calc-widget.js carriedTo). The pinned setup (calc-pin.js)
// travels the same way in `pin`.
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
      var widget = roots[i].nfgWidget;
      var carried = widget.carriedTo(lang);
      var values = carried.values;
      var names = Object.keys(values);
      // the pin: Python's text for that language, or none; one not yet checked is never
      // carried as typed (its text can be another setup there): left out and named
      var pin = roots[i].nfgPin;
      if (pin && pin.queryFor) {
        var pinned = pin.queryFor(lang);
        if (pinned) query.set("pin", pinned);
        else query.delete("pin");
        if (pinned === undefined) carried.dropped.push("pin");
      }
      // only a state the reader has: in the query (the widget writes it all on a change) or typed
      var any = widget.urlDirty || carried.dropped.length
        || names.some(function (name) { return query.has(name); });
      if (!any) continue;
      var twice = widget.linkTwice || {};
      var defaults = widget.config.defaults || {};
      for (var j = 0; j < names.length; j++) {
        if (twice[names[j]]) continue; // given twice in the link: kept as given, refused there too
        // "" is left out only where the page's default is empty too (as the widget writes it)
        if (values[names[j]] === "" && (defaults[names[j]] || "") === "") query.delete(names[j]);
        else query.set(names[j], values[names[j]]);
      }
      for (var k = 0; k < carried.dropped.length; k++) query.delete(carried.dropped[k]);
      if (carried.dropped.length) query.set("dropped", carried.dropped.join(","));
      else query.delete("dropped");
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

  // A click while a calculator has not read the inputs on screen (a moment after typing, or while
  // Python starts) follows the link once it has, or after waitMs(): what has no answer by then is
  // dropped and named, never carried as typed.
  function waitMs() {
    var given = (window.__nfgCalcTimeouts || {}).langWaitMs;
    return typeof given === "number" ? given : 10000;
  }

  function waitForAnswers(link, event) {
    var waiting = widgets().filter(function (root) { return root.nfgWidget.awaitingAnswer(); });
    if (!waiting.length) return false;
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
      return false; // a new tab or window: followed at once, with what is carried now
    }
    event.preventDefault();
    event.stopPropagation();
    if (link.dataset.nfgWaiting) return true; // a second click while waiting: the first one goes
    link.dataset.nfgWaiting = "true";
    link.setAttribute("aria-busy", "true");
    // seen while it waits: a busy cursor and the link marked (site.css), not a dead click
    document.documentElement.setAttribute("data-nfg-switching", "true");
    var limit = waitMs();
    Promise.all(waiting.map(function (root) { return root.nfgWidget.settled(limit); }))
      .then(function () {
        delete link.dataset.nfgWaiting;
        link.removeAttribute("aria-busy");
        document.documentElement.removeAttribute("data-nfg-switching");
        rewrite(link);
        window.location.assign(link.href);
      });
    return true;
  }

  // before the link is followed (mouse, touch, keyboard), and whenever it may be shown or copied
  ["click", "auxclick", "contextmenu", "focusin", "pointerover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var link = event.target && event.target.closest && event.target.closest("a[hreflang]");
      if (!link || !link.closest(".md-header, .md-select")) return;
      rewrite(link);
      if (name === "click" && !event.defaultPrevented && waitForAnswers(link, event)) return;
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
