// Registers the site's service worker (sw.js at the site root, generated at build time by
// scripts/build_service_worker.py): offline reading after one visit. An external script (no
// inline code: strict Content-Security-Policy with worker-src 'self').
//
// The site root is two levels above this file (assets/js/), so it works under any sub-path.
// Registration waits for the page's load event and, on a calculator page, for the calculator to
// be live (or failed): installing the worker downloads the whole site, which must not compete
// with the first result or Pyodide's start.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !document.currentScript) return;
  var root = new URL("../../", document.currentScript.src);
  var MAX_WAIT_MS = 30000;

  function register() {
    navigator.serviceWorker.register(new URL("sw.js", root).href, { scope: root.href })
      .catch(function () {}); // no service worker: the site still works online
  }

  function calculatorSettled() {
    var roots = document.querySelectorAll(".nfg-calc");
    for (var i = 0; i < roots.length; i++) {
      var state = roots[i].dataset.state;
      if (state !== "ready" && state !== "failed") return false;
    }
    return true;
  }

  function whenCalculatorSettled(callback) {
    if (calculatorSettled()) { callback(); return; }
    var done = false;
    var finish = function () {
      if (done) return;
      done = true;
      observer.disconnect();
      callback();
    };
    var observer = new MutationObserver(function () { if (calculatorSettled()) finish(); });
    observer.observe(document.body, { subtree: true, attributes: true,
                                      attributeFilter: ["data-state"] });
    setTimeout(finish, MAX_WAIT_MS);
  }

  function whenIdle(callback) {
    if ("requestIdleCallback" in window) window.requestIdleCallback(callback, { timeout: 5000 });
    else setTimeout(callback, 1000);
  }

  function start() { whenCalculatorSettled(function () { whenIdle(register); }); }

  if (document.readyState === "complete") start();
  else window.addEventListener("load", start, { once: true });
})();
