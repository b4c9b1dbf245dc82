// Main-thread client of the calc worker: one worker per page, promise-based calculate().
//
//   const client = getCalcClient({pyodideUrl, wheelUrl});
//   client.onStatus((status) => ...);   // {state: "idle"|"loading"|"ready"|"failed", stage, reason}
//                                       // (loading: bytes = runtime bytes received so far)
//   client.start();                     // idempotent
//   const response = await client.calculate("memory", {...});   // calc.api.run(...) response
//   const display = await client.present({calculator, values}, lang); // calc.display.present
//
// calculate()/present() wait for ready; they reject once the worker has failed (terminal).
// The worker is started in one place only: overrides/partials/calc-boot.html (in the page head);
// this client adopts it.

let singleton = null;

class CalcClient {
  constructor({ pyodideUrl, wheelUrl }) {
    this.pyodideUrl = pyodideUrl;
    this.wheelUrl = wheelUrl;
    this.status = { state: "idle", stage: null, reason: null };
    this.listeners = new Set();
    this.pending = new Map();
    this.nextId = 1;
    this.worker = null;
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
    if (!this.adoptBootWorker()) this.fail("worker", "the calc worker was not started (calc-boot)");
  }

  // The worker started in the page head (overrides/partials/calc-boot.html) for the same
  // runtime: take it over and replay the messages it sent before this module was loaded.
  adoptBootWorker() {
    const boot = window.__nfgCalcBoot;
    if (!boot || (!boot.worker && !boot.error) || boot.adopted) return false;
    if (boot.pyodideUrl !== this.pyodideUrl || boot.wheelUrl !== this.wheelUrl) return false;
    boot.adopted = true;
    this.startedAt = boot.startedAt;
    if (!boot.worker) {
      this.fail("worker", boot.error);
      return true;
    }
    this.worker = boot.worker;
    boot.listener = (event) => this.handle(event.data || {});
    boot.errorListener = (event) => this.fail(this.status.stage || "worker", event.message || "worker error");
    for (const event of boot.buffer.splice(0)) this.handle(event.data || {});
    if (boot.error) this.fail(this.status.stage || "worker", boot.error);
    return true;
  }

  fail(stage, reason) {
    if (this.status.state === "failed") return;
    this.setStatus({ state: "failed", stage, reason });
    this.rejectReady(new Error(reason));
    for (const { reject } of this.pending.values()) reject(new Error(reason));
    this.pending.clear();
    if (this.worker) this.worker.terminate();
  }

  handle(message) {
    switch (message.type) {
      case "progress":
        if (this.status.state === "ready" || this.status.state === "failed") break; // terminal
        this.setStatus({ state: "loading", stage: message.stage, reason: null,
                         bytes: message.bytes });
        break;
      case "ready":
        this.readyMs = message.ms;
        this.readyMarks = message.marks || {};
        this.startedFromSnapshot = message.snapshot === true; // memory snapshot or normal start
        this.snapshotError = message.snapshotError || null;
        this.setStatus({ state: "ready", stage: null, reason: null });
        this.resolveReady();
        break;
      case "failed":
        this.fail(message.stage, message.reason);
        break;
      case "result":
      case "display":
      case "error": {
        const entry = this.pending.get(message.id);
        if (!entry) return;
        this.pending.delete(message.id);
        if (message.type === "result") entry.resolve(message.response);
        else if (message.type === "display") entry.resolve(message.display);
        else entry.reject(new Error(message.reason));
        break;
      }
      default:
        break;
    }
  }

  async present(request, lang) {
    this.start();
    await this.readyPromise;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: "present", id, request, lang });
    });
  }

  async calculate(kind, params) {
    this.start();
    await this.readyPromise;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: "request", id, kind, params });
    });
  }
}

export function getCalcClient(options) {
  if (!singleton) singleton = new CalcClient(options);
  return singleton;
}
