// @ts-check
/* Cuckoo: the live table (Telegram Mini App page).
 *
 * Native ES modules, type-checked as written (tsconfig.json): model.js (pure functions, exported
 * on window.CuckooTable so tests can call them), cards.js (the cards' SVG), page.js (state,
 * theme), stream.js (the network) and draw.js (the DOM); this module starts the page.
 * The server's API: GET /app/api/table, the SSE stream /app/api/events (read with fetch,
 * since EventSource cannot send the Authorization header), POST /app/api/move and
 * /app/api/again. The views they bring are typed in contract.js (generated from
 * cuckoo_bot/transport/webapp/contract.py, the one definition): PageView, TableView, SeatJson.
 *
 * Names are hostile user input: they only ever reach the page through textContent.
 * The only markup built from strings is the cards' SVG, and only from a validated card code.
 */

import { backSvg, cardSvg, checkedFace, esc, faceOf } from "./cards.js";
import { render, tick } from "./draw.js";
import { FALLBACK, TELEGRAM_WAIT_MS, apiBase, banner, fmt, isDark, isNewer, isWarning, iso, layoutFor, nextActive, parseIso, parseLaunch, parseSse, prompt, remainingMs, ringPositions, seatModel, secondsLeft, texts, themeVars } from "./model.js";
import { S, applyTheme, tg } from "./page.js";
import { fail, loadTable, setConn, stream } from "./stream.js";

const api = {
  FALLBACK: FALLBACK,
  parseLaunch: parseLaunch,
  apiBase: apiBase,
  themeVars: themeVars,
  isDark: isDark,
  parseSse: parseSse,
  isNewer: isNewer,
  parseIso: parseIso,
  remainingMs: remainingMs,
  secondsLeft: secondsLeft,
  isWarning: isWarning,
  fmt: fmt,
  iso: iso,
  texts: texts,
  nextActive: nextActive,
  seatModel: seatModel,
  layoutFor: layoutFor,
  ringPositions: ringPositions,
  banner: banner,
  prompt: prompt,
  checkedFace: checkedFace,
  faceOf: faceOf,
  esc: esc,
  cardSvg: cardSvg,
  backSvg: backSvg,
};
/** @type {any} */ (window).CuckooTable = api; // the page's tests call the pure functions

let telegramDone = false;

/** Tell Telegram the page is ready, take the whole height, follow its theme. */
function telegramReady() {
  const app = tg();
  if (!app || telegramDone) return;
  telegramDone = true;
  try {
    app.ready();
    app.expand();
    app.onEvent("themeChanged", applyTheme);
  } catch (_) {
    /* an old client */
  }
  applyTheme();
}

function readLaunch() {
  const app = tg();
  S.launch = parseLaunch(
    location.search,
    location.hash,
    app && app.initData ? app.initData : "",
    app && app.themeParams ? app.themeParams : null
  );
}

async function start() {
  readLaunch();
  S.base = apiBase(location.pathname);
  applyTheme();
  if (tg()) telegramReady();
  else {
    const script = document.getElementById("telegram-js");
    if (script) script.addEventListener("load", telegramReady);
  }
  setInterval(tick, 250);
  render();
  // No launch data in the address (a reload, say): Telegram's script may still bring it.
  for (let waited = 0; !S.launch.initData && !tg() && waited < TELEGRAM_WAIT_MS; waited += 100) {
    await new Promise(function (done) { setTimeout(done, 100); });
  }
  if (!S.launch.initData && tg()) {
    readLaunch();
    telegramReady();
  }
  if (!S.launch.initData) return fail("unauthorized");
  if (S.launch.game === null) return fail("bad_link");
  try {
    await loadTable();
  } catch (_) {
    setConn("off");
  }
  if (!S.fatal) stream();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
