// Main-thread client of the calc worker: one worker per page, promise-based requests.
//
//   const client = getCalcClient({pyodideUrl, wheelUrl});
//   client.onStatus((status) => ...);   // {state: "idle"|"loading"|"ready"|"failed", stage, reason}
//                                       // (loading: bytes = runtime bytes received so far)
//   client.start();                     // idempotent
//   const response = await client.calculate("memory", {...});   // calc.api.run(...) response
//   const display = await client.present({calculator, values}, lang); // calc.display.present
//   client.retry();                     // after "failed": a fresh worker
//
// Requests carry ids and a timeout; an idle worker is pinged (liveness). A worker that dies
// (error event), stops answering pings or lets a request time out is restarted ONCE (status
// loading, stage "restarting"); if that happens again the client fails with stage "stuck".
// Start-up has a limit that restarts with every progress message (so it scales with what is
// still downloading): no progress for `startupIdleMs` fails with stage "timeout".
// calculate()/present() wait for ready; they reject when the worker fails or is restarted.
// The worker is started in one place only: overrides/partials/calc-boot.html (in the page head);
// this client adopts it and, to restart, starts a new one from the same URLs.

let singleton = null;

// Timeouts (ms); a test may override them with window.__nfgCalcTimeouts before the page loads.
const TIMEOUTS = {
  requestMs: 20000, // one present/calculate answer
  pingEveryMs: 4000, // liveness check of an idle, ready worker
  pongMs: 3000, // a ping unanswered this long: the worker is dead
  startupIdleMs: 45000, // start-up with no progress message this long: failed ("timeout")
  maxRestarts: 1,
};

class CalcClient {
  constructor({ pyodideUrl, wheelUrl }) {
    this.pyodideUrl = pyodideUrl;
    this.wheelUrl = wheelUrl;
    this.timeouts = { ...TIMEOUTS, ...(window.__nfgCalcTimeouts || {}) };
    this.status = { state: "idle", stage: null, reason: null };
    this.listeners = new Set();
    this.pending = new Map();
    this.nextId = 1;
    this.worker = null;
    this.restarts = 0;
    this.answered = false;
    this.newReadyPromise();
  }

  newReadyPromise() {
    this.readyPromise = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.readyPromise.catch(() => {}); // failure is reported through onStatus
  }

  onStatus(listener) {
    this.listeners.add(listener);
    listener(this.status);
    return () => this.listeners.delete(listener);
  }

  setStatus(status) {
    this.status = status;
    for (const listener of this.listeners) listener(status);
  }

  start() {
    if (this.worker || this.status.state === "failed") return;
    this.setStatus({ state: "loading", stage: "runtime-download", reason: null });
    this.armStartup();
    if (!this.adoptBootWorker()) this.fail("worker", "the calc worker was not started (calc-boot)");
  }

  // The worker started in the page head (overrides/partials/calc-boot.html) for the same
  // runtime: take it over and replay the messages it sent before this module was loaded.
  adoptBootWorker() {
    const boot = window.__nfgCalcBoot;
    if (!boot || (!boot.worker && !boot.error) || boot.adopted) return false;
    if (boot.pyodideUrl !== this.pyodideUrl || boot.wheelUrl !== this.wheelUrl) return false;
    boot.adopted = true;
    this.boot = boot;
    this.startedAt = boot.startedAt;
    if (!boot.worker) {
      this.fail("worker", boot.error);
      return true;
    }
    this.worker = boot.worker;
    const worker = this.worker;
    boot.listener = (event) => { if (this.worker === worker) this.handle(event.data || {}); };
    boot.errorListener = (event) => {
      if (this.worker === worker) this.lost(event.message || "worker error");
    };
    for (const event of boot.buffer.splice(0)) this.handle(event.data || {});
    if (boot.error) this.lost(boot.error);
    return true;
  }

  // A new worker from the boot script's URLs and init message (restart and retry).
  spawn() {
    const boot = this.boot || window.__nfgCalcBoot || {};
    let worker;
    try {
      worker = new Worker(boot.workerUrl, { type: "module" });
    } catch (err) {
      this.fail("worker", String(err));
      return;
    }
    this.worker = worker;
    worker.onmessage = (event) => { if (this.worker === worker) this.handle(event.data || {}); };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker === worker) this.lost(event.message || "worker error");
    };
    const init = { ...(boot.initMessage || {}), type: "init", pyodideUrl: this.pyodideUrl,
                   wheelUrl: this.wheelUrl, timeoutMs: boot.timeoutMs || 60000 };
    worker.postMessage(init);
  }

  stopTimers() {
    clearTimeout(this.startupTimer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.startupTimer = this.pingTimer = this.pongTimer = null;
  }

  armStartup() {
    clearTimeout(this.startupTimer);
    this.startupTimer = setTimeout(() => {
      if (this.status.state === "loading") this.fail("timeout", "no start-up progress");
    }, this.timeouts.startupIdleMs);
  }

  // Liveness: while ready and idle, a ping every pingEveryMs must get its pong within pongMs.
  armPing() {
    clearTimeout(this.pingTimer);
    if (this.status.state !== "ready") return;
    this.pingTimer = setTimeout(() => {
      if (this.status.state !== "ready") return;
      if (this.pending.size) {
        this.armPing(); // busy: each request has its own timeout
        return;
      }
      const id = this.nextId++;
      this.pingId = id;
      this.pongTimer = setTimeout(() => this.lost("no answer to a liveness check"),
                                  this.timeouts.pongMs);
      this.worker.postMessage({ type: "ping", id });
    }, this.timeouts.pingEveryMs);
  }

  // The worker died or is stuck: restart it once, then give up (stage "stuck").
  lost(reason) {
    if (this.status.state === "failed") return;
    this.stopTimers();
    const old = this.worker;
    this.worker = null;
    if (old) old.terminate();
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error(`restarting: ${reason}`));
    }
    this.pending.clear();
    if (this.restarts >= this.timeouts.maxRestarts) {
      this.fail("stuck", reason);
      return;
    }
    this.restarts += 1;
    this.answered = false;
    this.newReadyPromise();
    this.setStatus({ state: "loading", stage: "restarting", reason, restarts: this.restarts });
    this.armStartup();
    this.spawn();
  }

  fail(stage, reason) {
    if (this.status.state === "failed") return;
    this.stopTimers();
    this.setStatus({ state: "failed", stage, reason });
    this.rejectReady(new Error(reason));
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error(reason));
    }
    this.pending.clear();
    if (this.worker) this.worker.terminate();
    this.worker = null;
  }

  // After "failed": a fresh worker with a fresh restart budget.
  retry() {
    if (this.status.state !== "failed") return;
    this.timeouts = { ...TIMEOUTS, ...(window.__nfgCalcTimeouts || {}) };
    this.restarts = 0;
    this.answered = false;
    this.newReadyPromise();
    this.setStatus({ state: "loading", stage: "runtime-download", reason: null });
    this.armStartup();
    this.spawn();
  }

  handle(message) {
    switch (message.type) {
      case "progress":
        if (this.status.state === "ready" || this.status.state === "failed") break; // terminal
        this.armStartup(); // any progress (a stage, more bytes) restarts the start-up limit
        this.setStatus({ state: "loading", stage: message.stage, reason: null,
                         bytes: message.bytes });
        break;
      case "ready":
        clearTimeout(this.startupTimer);
        this.readyMs = message.ms;
        this.readyMarks = message.marks || {};
        this.startedFromSnapshot = message.snapshot === true; // memory snapshot or normal start
        this.snapshotError = message.snapshotError || null;
        this.readFromCache = message.fromCache === true; // a repeat visit (service worker cache)
        this.setStatus({ state: "ready", stage: null, reason: null });
        this.resolveReady();
        this.armPing();
        break;
      case "failed":
        this.fail(message.stage, message.reason);
        break;
      case "pong":
        if (message.id === this.pingId) {
          clearTimeout(this.pongTimer);
          this.pongTimer = null;
          this.armPing();
        }
        break;
      case "result":
      case "display":
      case "error": {
        const entry = this.pending.get(message.id);
        if (!entry) return;
        this.pending.delete(message.id);
        clearTimeout(entry.timer);
        this.answered = true;
        if (message.type === "result") entry.resolve(message.response);
        else if (message.type === "display") entry.resolve(message.display);
        else entry.reject(new Error(message.reason));
        break;
      }
      default:
        break;
    }
  }

  async send(message) {
    this.start();
    await this.readyPromise;
    const id = this.nextId++;
    // a ping already sent waits behind this request: the request's own timeout covers liveness
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
    return new Promise((resolve, reject) => {
      // the first request after a start also loads the data files: twice the time
      const limit = this.timeouts.requestMs * (this.answered ? 1 : 2);
      const timer = setTimeout(() => {
        if (!this.pending.has(id)) return;
        this.lost(`request ${id} timed out`);
      }, limit);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ ...message, id });
    });
  }

  present(request, lang) {
    return this.send({ type: "present", request, lang });
  }

  calculate(kind, params) {
    return this.send({ type: "request", kind, params });
  }
}

export function getCalcClient(options) {
  if (!singleton) singleton = new CalcClient(options);
  return singleton;
}
