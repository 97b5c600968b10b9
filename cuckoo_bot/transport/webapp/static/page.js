// @ts-check
/* The page's state (the shown view, its texts, the connection), Telegram's script when it
 * came, the theme, and the few DOM helpers every part uses. */

/** @typedef {import("./contract.js").PageView} PageView */
/** @typedef {import("./contract.js").SeatJson} SeatJson */

import { isDark, texts, themeVars } from "./model.js";

// == the page ===================================================================================

// Telegram's script loads on its own (async, and it may never come): ask for it each time.
export function tg() {
  const telegram = /** @type {any} */ (window).Telegram; // Telegram's own script, if it came
  return telegram && telegram.WebApp ? telegram.WebApp : null;
}
export const S = {
  launch: null,
  base: "/app",
  view: /** @type {PageView | null} */ (null),
  at: 0, // performance.now() when the shown View arrived
  t: texts(null),
  fatal: null,
  busy: false,
  conn: "connecting",
  revealedRounds: new Set(), // rounds whose flip has played
  toastTimer: 0,
};
export const live = { fails: 0, polling: false, pollTimer: 0, retryTimer: 0, controller: null };

export function $(id) {
  return document.getElementById(id);
}

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

export function haptic(kind, style) {
  const app = tg();
  const h = app && app.HapticFeedback;
  if (!h) return;
  try {
    if (kind === "impact") h.impactOccurred(style || "medium");
    else if (kind === "notify") h.notificationOccurred(style || "success");
  } catch (_) {
    /* an old client: no haptics */
  }
}

export function applyTheme() {
  const root = document.documentElement;
  const app = tg();
  const params = (app && app.themeParams && Object.keys(app.themeParams).length && app.themeParams) ||
    (S.launch && S.launch.theme) || null;
  for (const [name, value] of Object.entries(themeVars(params))) root.style.setProperty(name, value);
  let dark;
  if (params && params.bg_color) dark = isDark(params.bg_color);
  else if (app && app.colorScheme) dark = app.colorScheme === "dark";
  else dark = !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  root.dataset.scheme = dark ? "dark" : "light";
}
