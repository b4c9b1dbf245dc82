// The reader's experience (issue 14), every page. Moves strings only; formats nothing.
// - Material wraps wide tables in a horizontally scrolling box, and code blocks scroll too: they
//   become focusable, so a keyboard reader can scroll them (WCAG 2.1.1, axe
//   scrollable-region-focusable).
// - Calculator widgets get a compact summary of their first results, sticky at the top of the
//   form on narrow screens (assets/css/ux.css), so a change shows its effect while the reader
//   edits; the full result follows the form. Its text is copied from the result list, whose
//   strings come from calc.display.present.
(function () {
  "use strict";
  var SUMMARY_ITEMS = 3;

  function focusableScrollBoxes() {
    // tables (Material's scroll box) and code blocks (they scroll sideways on a phone)
    var boxes = document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset pre > code");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.hasAttribute("tabindex")) continue;
      box.setAttribute("tabindex", "0");
    }
  }

  function activeOutputs(root) {
    var lists = root.querySelectorAll(".nfg-calc__outputs");
    for (var i = 0; i < lists.length; i++) if (!lists[i].hidden) return lists[i];
    return null;
  }

  function fillSummary(root, summary) {
    var list = activeOutputs(root);
    var items = [];
    if (list) {
      // the mode's summary fields (calc/display/calculators.py Mode.summary), else the first ones
      var config = root.nfgWidget ? root.nfgWidget.config : null;
      var mode = config && config.modes.filter(function (m) { return m.id === list.dataset.mode; })[0];
      var fields = mode && mode.summary && mode.summary.length ? mode.summary : null;
      var rows = [];
      var all = list.querySelectorAll(".nfg-calc__output");
      for (var k = 0; k < all.length; k++) {
        var field = all[k].querySelector("dd") && all[k].querySelector("dd").dataset.field;
        if (!fields || fields.indexOf(field) >= 0) rows.push(all[k]);
      }
      if (fields) {
        rows.sort(function (a, b) {
          return fields.indexOf(a.querySelector("dd").dataset.field)
            - fields.indexOf(b.querySelector("dd").dataset.field);
        });
      }
      var limit = fields ? fields.length : SUMMARY_ITEMS;
      for (var i = 0; i < rows.length && items.length < limit; i++) {
        var dt = rows[i].querySelector("dt");
        var dd = rows[i].querySelector("dd");
        // a placeholder of a refused input (calc-widget.js renderRefused) is no result
        if (!dt || !dd || dd.textContent.trim() === "" || "placeholder" in dd.dataset) continue;
        var item = document.createElement("span");
        item.className = "nfg-calc__summary-item";
        item.dataset.summaryOf = dd.dataset.field || "";  // not data-field: that names result values
        var label = document.createElement("span");
        label.textContent = dt.textContent + ": ";
        var value = document.createElement("b");
        value.textContent = dd.textContent;
        item.append(label, value);
        items.push(item);
      }
    }
    summary.replaceChildren.apply(summary, items);
  }

  function mountSummary(root) {
    var form = root.querySelector(".nfg-calc__form");
    var results = root.querySelector(".nfg-calc__results");
    if (!form || !results || root.querySelector(".nfg-calc__summary")) return;
    var summary = document.createElement("div");
    summary.className = "nfg-calc__summary";
    // the full result below is the accessible one; this is a visual echo of it
    summary.setAttribute("aria-hidden", "true");
    form.prepend(summary);
    var update = function () { fillSummary(root, summary); };
    update();
    new MutationObserver(update).observe(results, {
      subtree: true, childList: true, characterData: true, attributes: true,
      attributeFilter: ["hidden", "data-value"],
    });
    // calc-widget.js (a module) mounts later: its config names the summary fields
    new MutationObserver(update).observe(root, {
      attributes: true, attributeFilter: ["data-mounted", "data-state", "data-mode"],
    });
  }

  function init() {
    focusableScrollBoxes();
    var roots = document.querySelectorAll(".nfg-calc");
    for (var i = 0; i < roots.length; i++) mountSummary(roots[i]);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
  // Material wraps tables when its bundle mounts the content: look again once the page is loaded
  window.addEventListener("load", focusableScrollBoxes);
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var added = records[i].addedNodes;
      for (var j = 0; j < added.length; j++) {
        var node = added[j];
        if (node.nodeType === 1 && (node.classList.contains("md-typeset__scrollwrap")
            || node.querySelector(".md-typeset__scrollwrap"))) {
          focusableScrollBoxes();
          return;
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
