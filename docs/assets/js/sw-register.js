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

  // A first visit to a calculator page: once the service worker takes control (it has stored
  // the whole build), a throwaway module worker imports Pyodide's runtime script through it, so
  // the next visit finds that script's module code cache (see assets/js/calc-prime.js). The
  // outcome is kept as window.__nfgCalcBoot.codeCache: "primed", "failed" or "timeout".
  function primeCodeCache() {
    var boot = window.__nfgCalcBoot;
    if (!boot || !boot.pyodideUrl || !boot.worker) return;
    var worker = null;
    var timer = null;
    var finish = function (outcome) {
      if (timer !== null) clearTimeout(timer);
      if (worker) worker.terminate();
      boot.codeCache = outcome;
    };
    try {
      worker = new Worker(new URL("assets/js/calc-prime.js", root).href, { type: "module" });
    } catch (err) {
      finish("failed");
      return;
    }
    timer = setTimeout(function () { finish("timeout"); }, MAX_WAIT_MS);
    worker.onmessage = function (event) {
      finish(event.data && event.data.ok ? "primed" : "failed");
    };
    worker.onerror = function (event) {
      event.preventDefault();
      finish("failed");
    };
    worker.postMessage({ url: new URL("pyodide.asm.js", boot.pyodideUrl).href });
  }

  function register() {
    if (!navigator.serviceWorker.controller) { // a first visit: this worker will take control
      navigator.serviceWorker.addEventListener("controllerchange", primeCodeCache,
                                               { once: true });
    }
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
