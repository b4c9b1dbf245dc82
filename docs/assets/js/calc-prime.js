// A throwaway module worker (issue 12), started once by sw-register.js on a calculator page when
// the service worker has just taken control (a first visit: it has stored the whole build). It
// imports Pyodide's runtime script through the service worker and does nothing else, so Chromium
// makes that script's module code cache now: the service worker stored the script again after
// install, without the classic-script cache a module import rejects (scripts/sw_template.js). The
// next visit's calculator then compiles the 1 MB script from that cache (Chromium 156, traced:
// 0.01 s instead of 0.15 s). Evaluating the script only defines Pyodide's module factory; no
// Python starts here.
//
// main → worker: {url}        worker → main: {ok: true} | {ok: false, reason}

self.onmessage = async (event) => {
  try {
    await import(event.data.url);
    self.postMessage({ ok: true });
  } catch (err) {
    self.postMessage({ ok: false, reason: String(err && err.message ? err.message : err) });
  }
};
