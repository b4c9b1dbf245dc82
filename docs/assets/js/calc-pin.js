// Pin a result and compare it with the current one, side by side (issue 14). Formats nothing:
// both columns are calc.display.present text (the pinned one is the presenter's answer for the
// pinned inputs; after a reload or a shared link the worker computes it again from `pin=`).
//
// The share link carries the pinned inputs in one query parameter, `pin`, itself a query string
// of the inputs as typed in the page language (`pin=model%3Dllama-3.1-8b%26batch%3D8...`).
// A `pin` that cannot be restored (not a setup of this calculator, an input refused or given
// twice, more than one `pin`) pins nothing, never the defaults: it stays in the address and the
// widget has present() say why (calc-widget.js setLinkPin, a `pin_invalid` note).
//
// The current column is the widget's: the inputs on screen (an input row for each that differs
// from the pinned setup) and the numbers the widget shows, struck through with them (calc.css
// .nfg-calc__pin-current) while they do not answer those inputs (data-results updating, error,
// stale), and no number at all once the widget removed its numbers (cleared: a new model, a
// shared link not yet computed or refused) until a new result comes.
(function () {
  "use strict";

  function text(tag, value, className) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    el.textContent = value;
    return el;
  }

  // the pinned inputs as a query; "" is kept where the page's default is not empty (the
  // advisor's automatic dtype), as the widget writes the address
  function encodeValues(values, defaults) {
    var query = new URLSearchParams();
    Object.keys(values).forEach(function (name) {
      var value = values[name];
      if (value === null || value === undefined) return;
      if (value === "" && (defaults[name] || "") === "") return;
      query.set(name, value);
    });
    return query.toString();
  }

  function Pin(root) {
    this.root = root;
    this.widget = root.nfgWidget;
    this.strings = this.widget.config.action;
    this.pinned = null; // a calc.display.present result
    this.refused = null; // the link's `pin` values that could not be restored
    this.restoring = false;
    // the widget result whose numbers the widget removed (data-results cleared): not shown as
    // current; the widget may have cleared a shared link's numbers before this script ran
    this.removed = null;
    if (this.outputsRemoved()) this.removed = this.widget.lastGood;
    this.mount();
    var query = new URLSearchParams(window.location.search);
    if (query.has("pin")) this.restore(query.getAll("pin"));
  }

  Pin.prototype.mount = function () {
    var self = this;
    this.button = text("button", this.strings.pin, "md-button nfg-calc__pin-button");
    this.button.type = "button";
    this.button.setAttribute("aria-pressed", "false");
    this.button.addEventListener("click", function () {
      if (self.pinned) self.unpin();
      else if (self.widget.exportable()) self.pin(self.widget.exportable());
    });
    this.root.querySelector(".nfg-calc__actions").prepend(this.button);
    this.box = document.createElement("section");
    this.box.className = "nfg-calc__pin";
    this.box.hidden = true;
    this.box.setAttribute("aria-label", this.strings.pin_heading);
    this.box.setAttribute("aria-live", "polite");
    this.root.querySelector(".nfg-calc__results").after(this.box);
    new MutationObserver(function () { self.render(); }).observe(
      this.root.querySelector(".nfg-calc__results"),
      { subtree: true, childList: true, characterData: true, attributes: true,
        attributeFilter: ["hidden", "data-value"] });
    // only numbers that answer the inputs on screen can be pinned (as only they are exported);
    // the values data-results took since the last call: each record's oldValue is the value
    // before it, so those after each change are the next records' old values and the current one
    new MutationObserver(function (records) {
      var after = records.slice(1).map(function (r) { return r.oldValue; });
      after.push(self.root.dataset.results);
      if (after.indexOf("cleared") >= 0) self.removed = self.widget.lastGood;
      self.render();
    }).observe(this.root, { attributes: true, attributeOldValue: true,
                            attributeFilter: ["data-results"] });
    // the inputs on screen (the current column's input rows) follow every edit at once
    this.widget.form.addEventListener("input", function () { self.render(); });
  };

  // The widget's numbers were removed and no result came since: its outputs are empty (once a
  // result is shown every output has a text, "—" included).
  Pin.prototype.outputsRemoved = function () {
    if (this.root.dataset.results === "cleared") return true;
    var outputs = this.root.querySelectorAll(".nfg-calc__outputs:not([hidden]) dd[data-field]");
    if (!outputs.length) return false;
    for (var i = 0; i < outputs.length; i++) if (outputs[i].textContent.trim()) return false;
    return true;
  };

  // The result whose numbers the widget shows (live, or struck through), null when it shows none.
  Pin.prototype.shownResult = function () {
    var good = this.widget.lastGood;
    if (this.root.dataset.results === "cleared" || !good || good === this.removed) return null;
    return good;
  };

  Pin.prototype.restore = function (given) {
    var self = this;
    if (given.length !== 1 || !given[0].trim()) {
      this.refuse(given);
      return;
    }
    var values = Object.create(null);
    var names = [];
    var twice = {};
    new URLSearchParams(given[0]).forEach(function (value, name) {
      if (name in values) {
        (twice[name] = twice[name] || [values[name]]).push(value);
      } else {
        values[name] = value;
        names.push(name);
      }
    });
    // every name goes to Python as possibly unknown (it names those that are no input); an
    // input given twice as a link fact: either makes the pin one that cannot be restored
    var request = { calculator: this.widget.config.name, values: values, unknown: names.slice() };
    var facts = this.widget.linkFacts({ twice: twice });
    if (facts) request.link = facts;
    this.restoring = true;
    this.widget.start();
    this.widget.client.present(request, this.widget.config.lang).then(function (display) {
      self.restoring = false;
      if (self.pinned) return; // the reader pinned a result meanwhile
      var linkNote = ((display && display.notes) || []).some(function (note) {
        return note.key === "ignored" || note.key === "pin_invalid";
      });
      if (display && display.ok && !(display.errors || []).length && !linkNote) self.pin(display);
      else self.refuse(given);
    }, function () {
      self.restoring = false;
      if (self.pinned) return;
      // an error the worker returned for this request: refused (and said); the worker restarted
      // or failed before answering: restored once it is ready again (a retry after "failed"
      // too), never dropped unannounced
      if (self.widget.client.status.state === "ready") self.refuse(given);
      else self.restoreWhenReady(given);
    });
  };

  Pin.prototype.restoreWhenReady = function (given) {
    var self = this;
    var done = false;
    var stop = null;
    this.restoring = true; // the language links keep the link's pin as it is meanwhile
    stop = this.widget.client.onStatus(function (status) {
      if (done || status.state !== "ready") return;
      done = true;
      if (stop) stop();
      self.restoring = false;
      if (!self.pinned) self.restore(given);
    });
    if (done) stop();
  };

  Pin.prototype.refuse = function (given) {
    this.refused = given;
    this.widget.setLinkPin(given);
  };

  Pin.prototype.pin = function (display) {
    this.pinned = display;
    if (this.widget.forgetDropped) this.widget.forgetDropped("pin");
    this.dropRefused();
    this.button.textContent = this.strings.unpin;
    this.button.setAttribute("aria-pressed", "true");
    this.writeUrl();
    this.render();
  };

  Pin.prototype.unpin = function () {
    this.pinned = null;
    if (this.widget.forgetDropped) this.widget.forgetDropped("pin");
    this.dropRefused();
    this.button.textContent = this.strings.pin;
    this.button.setAttribute("aria-pressed", "false");
    this.writeUrl();
    this.render();
  };

  // the reader pinned or unpinned: the link's refused pin is gone from the address
  Pin.prototype.dropRefused = function () {
    if (!this.refused) return;
    this.refused = null;
    this.widget.setLinkPin(null);
  };

  Pin.prototype.writeUrl = function () {
    var query = new URLSearchParams(window.location.search);
    if (this.pinned) query.set("pin", encodeValues(this.pinned.values, this.widget.config.defaults));
    else query.delete("pin");
    var search = query.toString();
    window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : "")
      + window.location.hash);
  };

  // the pinned inputs as the page in `lang` reads them (calc.display.present's values_by_lang);
  // undefined: leave the link's `pin` as it is while it is being restored (the language switcher
  // waits for that); null: no pin in the other page's link, also for a refused one (this page
  // said nothing was pinned; its text read in another language could be another setup, "1.500"
  // hours here is 1.5 there)
  Pin.prototype.queryFor = function (lang) {
    if (!this.pinned) return this.restoring ? undefined : null;
    var values = (this.pinned.values_by_lang || {})[lang] || this.pinned.values;
    return encodeValues(values, this.widget.config.defaults);
  };

  // an input's value as the form shows it: a select's option text, else the typed text
  Pin.prototype.inputText = function (name, value) {
    var control = this.widget.controls.get(name);
    if (control && control.tagName === "SELECT") {
      for (var i = 0; i < control.options.length; i++) {
        if (control.options[i].value === value) return control.options[i].textContent;
      }
    }
    return value;
  };

  Pin.prototype.inputLabel = function (name) {
    var control = this.widget.controls.get(name);
    var label = control && this.root.querySelector('label[for="' + control.id + '"]');
    return label ? label.textContent : name;
  };

  Pin.prototype.render = function () {
    if (this.rendering) return;
    this.rendering = true;
    try {
      this.draw();
    } finally {
      this.rendering = false;
    }
  };

  Pin.prototype.draw = function () {
    var pinned = this.pinned;
    var canPin = Boolean(pinned || this.widget.exportable());
    if (this.button.disabled === canPin) this.button.disabled = !canPin;
    this.box.hidden = !pinned;
    if (!pinned) {
      this.box.replaceChildren();
      return;
    }
    var current = this.shownResult() || {};
    var onScreen = this.widget.rawValues();
    var table = document.createElement("table");
    table.className = "nfg-calc__pin-table"; // not Material's scrolling table: it wraps (ux.css)
    var head = document.createElement("thead");
    var headRow = document.createElement("tr");
    [this.strings.pin_quantity, this.strings.pin_pinned, this.strings.pin_current].forEach(
      function (label) {
        var th = text("th", label);
        th.scope = "col";
        headRow.append(th);
      });
    head.append(headRow);
    var body = document.createElement("tbody");
    var self = this;
    // the inputs that differ between the pinned setup and the one on screen
    Object.keys(pinned.values).forEach(function (name) {
      if (!self.widget.controls.has(name)) return;
      var a = pinned.values[name];
      var b = onScreen[name];
      if (a === b) return;
      var row = document.createElement("tr");
      row.dataset.input = name;
      var th = text("th", self.inputLabel(name));
      th.scope = "row";
      var currentCell = text("td", self.inputText(name, b));
      currentCell.className = "nfg-calc__pin-current"; // struck with the numbers (calc.css)
      row.append(th, text("td", self.inputText(name, a)), currentCell);
      body.append(row);
    });
    // every result of either setup
    var currentByField = {};
    (current.outputs || []).forEach(function (o) { currentByField[o.field] = o; });
    var seen = {};
    var outputs = (pinned.outputs || []).concat((current.outputs || []).filter(function (o) {
      return !pinned.outputs.some(function (p) { return p.field === o.field; });
    }));
    outputs.forEach(function (out) {
      if (seen[out.field]) return;
      seen[out.field] = true;
      var mine = pinned.outputs.filter(function (o) { return o.field === out.field; })[0];
      var now = currentByField[out.field];
      var row = document.createElement("tr");
      row.dataset.field = out.field;
      var th = text("th", out.label);
      th.scope = "row";
      var pinnedCell = text("td", mine ? mine.text : "");
      pinnedCell.className = "nfg-calc__pin-pinned";
      var currentCell = text("td", now ? now.text : "");
      currentCell.className = "nfg-calc__pin-current";
      row.append(th, pinnedCell, currentCell);
      body.append(row);
    });
    table.append(head, body);
    // unchanged (most calls: every edit, every output the widget writes): left as it is, so
    // the live region says nothing again
    var shown = this.box.querySelector("table");
    if (shown && shown.outerHTML === table.outerHTML) return;
    this.box.replaceChildren(text("p", this.strings.pin_heading, "nfg-calc__pin-heading"), table);
  };

  function mountAll() {
    var roots = document.querySelectorAll(".nfg-calc");
    for (var i = 0; i < roots.length; i++) {
      var root = roots[i];
      if (root.nfgPin || !root.nfgWidget) continue;
      root.nfgPin = new Pin(root);
    }
  }

  function whenMounted() {
    var roots = document.querySelectorAll(".nfg-calc");
    if (!roots.length) return;
    mountAll();
    for (var i = 0; i < roots.length; i++) {
      if (roots[i].nfgWidget) continue;
      // calc-widget.js (a module) mounts the widget later: wait for its data-mounted mark
      new MutationObserver(function (records, observer) {
        mountAll();
        if (records[0].target.nfgPin) observer.disconnect();
      }).observe(roots[i], { attributes: true, attributeFilter: ["data-mounted", "data-state"] });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", whenMounted);
  else whenMounted();
})();
