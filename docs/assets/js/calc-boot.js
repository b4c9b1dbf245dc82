// Starts the calc worker as early as the page allows (loaded async from the top of the widget, so
// Pyodide downloads while the rest of the page is parsed). The worker runs off the main thread;
// calc-widget.js, loaded at the end of the widget, binds the UI to the same singleton client.

import { getCalcClient } from "./calc-client.js";

const root = document.querySelector(".nfg-calc");
const configBlock = root && root.querySelector(".nfg-calc__config");
if (configBlock) {
  const config = JSON.parse(configBlock.textContent);
  const client = getCalcClient({
    pyodideUrl: new URL(config.pyodideUrl, document.baseURI).href,
    wheelUrl: new URL(config.wheelUrl, document.baseURI).href,
  });
  const start = () => client.start();
  if ("requestIdleCallback" in window) window.requestIdleCallback(start, { timeout: 50 });
  else window.setTimeout(start, 0);
}
