// @ts-check
/* The network: the table read once, then the event stream (read with fetch, since
 * EventSource cannot send the Authorization header), falling back to polling; a move and Play
 * again posted; what the server refuses told. */

/** @typedef {import("./contract.js").PageView} PageView */
/** @typedef {import("./contract.js").SeatJson} SeatJson */

import { render, renderKeys, toast } from "./draw.js";
import { ERROR_TEXT, POLL_MS, RETRY_MS, STREAM_FAILS_BEFORE_POLLING, STREAM_RETRY_SLOW_MS, STREAM_SILENCE_MS, isNewer, parseSse, texts } from "./model.js";
import { $, S, haptic, live } from "./page.js";

// -- network -----------------------------------------------------------------------------------

export function url(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== null && v !== undefined) q.set(k, v);
  const s = q.toString();
  return S.base + "/api/" + path + (s ? "?" + s : "");
}

export function headers(json) {
  const h = { Authorization: "tma " + S.launch.initData };
  if (json) h["Content-Type"] = "application/json";
  return h;
}

export async function readJson(res) {
  try {
    return await res.json();
  } catch (_) {
    return null;
  }
}

/** A refusal the page cannot get past by trying again: show it and stop. */
export function fatalFor(status, body) {
  if (status === 401 || status === 403 || status === 404 || status === 400) {
    const code = body && typeof body.error === "string" ? body.error : "";
    if (body && body.strings) S.t = texts(body.strings);
    if (ERROR_TEXT[code]) return ERROR_TEXT[code];
    return status === 401 ? "unauthorized" : status === 403 ? "not_member" : status === 404 ? "no_game" : "bad_link";
  }
  return null;
}

export function stopLive() {
  clearTimeout(live.retryTimer);
  clearInterval(live.pollTimer);
  live.polling = false;
  if (live.controller) live.controller.abort();
}

export function fail(key) {
  S.fatal = key;
  stopLive();
  setConn("stopped");
  render();
}

export function acceptView(view) {
  if (!view || !isNewer(view, S.view)) return false;
  const before = S.view;
  S.view = view;
  S.at = performance.now();
  if (view.strings) S.t = texts(view.strings); // sent once a stream: later views keep them
  // The page reads in the game's language (screen readers, hyphenation), not the file's "en".
  if (typeof view.lang === "string" && /^[a-z]{2}$/.test(view.lang)) {
    document.documentElement.lang = view.lang;
  }
  if (view.actor === view.viewer && view.viewer !== null && (view.options || []).length) {
    if (!before || before.turn !== view.turn || before.round !== view.round) haptic("notify", "warning");
  }
  render();
  return true;
}

/** The table; when polling, only if newer than the version shown (204: nothing new). */
export async function loadTable(newer) {
  const query = { game: S.launch.game };
  if (newer && S.view) query.after = S.view.version;
  const res = await fetch(url("table", query), { headers: headers(), cache: "no-store" });
  if (res.status === 204) return true;
  const body = await readJson(res);
  if (res.ok) {
    acceptView(body);
    return true;
  }
  const fatal = fatalFor(res.status, body);
  if (fatal) fail(fatal);
  return false;
}

export function setConn(state) {
  S.conn = state;
  const box = $("conn");
  if (!box) return;
  box.dataset.state = state;
  const label = { live: "live", polling: "polling", connecting: "reconnecting", off: "connection_lost" }[state];
  const text = label ? S.t(label) : "";
  box.title = text;
  box.setAttribute("aria-label", text);
  box.querySelector("span").textContent = state === "live" ? text : state === "polling" ? "…" : "";
}

export function startPolling() {
  if (live.polling) return;
  live.polling = true;
  setConn("polling");
  live.pollTimer = setInterval(function () {
    if (S.fatal) return;
    loadTable(true)
      .then(function (answered) {
        // The server is back (a restart, say): the stream is tried again at once, not at its
        // slow retry's time.
        if (answered && S.conn === "off") {
          setConn("polling");
          scheduleStream(0);
        }
      })
      .catch(function () { setConn("off"); }); // nothing answers: say so
  }, POLL_MS);
}

export function stopPolling() {
  if (!live.polling) return;
  live.polling = false;
  clearInterval(live.pollTimer);
}

export function scheduleStream(ms) {
  clearTimeout(live.retryTimer);
  live.retryTimer = setTimeout(stream, ms);
}

/** One connection to the event stream; on its end, the next one (or polling) is scheduled. */
export function stream() {
  if (S.fatal) return;
  const controller = new AbortController();
  live.controller = controller;
  let got = false;
  let watchdog = 0;
  const arm = function () {
    clearTimeout(watchdog);
    watchdog = setTimeout(function () { controller.abort(); }, STREAM_SILENCE_MS);
  };
  if (!live.polling && S.conn !== "live") setConn("connecting");
  arm();
  (async function () {
    const after = S.view ? S.view.version : null;
    const res = await fetch(url("events", { game: S.launch.game, after: after }), {
      headers: headers(),
      cache: "no-store",
      signal: controller.signal,
    });
    if (!res.ok) {
      const fatal = fatalFor(res.status, await readJson(res));
      if (fatal) fail(fatal);
      return;
    }
    if (!live.polling) setConn("live");
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      arm();
      if (!got) {
        got = true;
        live.fails = 0;
        stopPolling();
        setConn("live");
      }
      buffer += decoder.decode(chunk.value, { stream: true });
      const parsed = parseSse(buffer);
      buffer = parsed.rest;
      for (const event of parsed.events) {
        if (event.event !== "table") continue;
        let view = null;
        try {
          view = JSON.parse(event.data);
        } catch (_) {
          continue;
        }
        acceptView(view);
      }
    }
  })()
    .catch(function () { /* a network error: counted below */ })
    .finally(function () {
      clearTimeout(watchdog);
      if (S.fatal || live.controller !== controller) return;
      if (!got) live.fails += 1;
      if (live.fails >= STREAM_FAILS_BEFORE_POLLING) {
        startPolling();
        scheduleStream(STREAM_RETRY_SLOW_MS);
      } else {
        if (!live.polling && !got) setConn("connecting");
        scheduleStream(RETRY_MS);
      }
    });
}

export async function post(path, body) {
  const res = await fetch(S.base + "/api/" + path, {
    method: "POST",
    headers: headers(true),
    body: JSON.stringify(body),
    cache: "no-store",
  });
  const data = await readJson(res);
  if (res.ok || res.status === 409) return data || {};
  const fatal = fatalFor(res.status, data);
  if (fatal) fail(fatal);
  throw new Error("HTTP " + res.status);
}

/** A key pressed on the page: the keys wait while it is asked; the answer comes as a toast
 *  and a haptic (``onward`` reads it too), and the view it carries is shown. */
export async function press(path, body, onward) {
  const view = S.view;
  if (!view || S.busy) return;
  haptic("impact", "medium");
  S.busy = true;
  renderKeys();
  let shown = false;
  try {
    const answer = await post(path, body(view));
    if (answer.reply) toast(answer.reply);
    haptic("notify", answer.ok ? "success" : "error");
    S.busy = false;
    if (onward) onward(answer);
    shown = acceptView(answer.view);
  } catch (_) {
    S.busy = false;
    if (!S.fatal) toast(S.t("error"));
  }
  if (!shown) renderKeys();
}

export function move(kind) {
  return press("move", function (view) {
    return { game: view.game, move: kind, turn: view.turn, round: view.round };
  });
}

export function again() {
  return press(
    "again",
    function (view) { return { game: view.game }; },
    function (answer) {
      // The game the group goes on with (a new lobby, or the one open there): the page shows
      // it from now on, and a reload opens it too.
      if (typeof answer.game !== "number" || answer.game === S.launch.game) return;
      S.launch.game = answer.game;
      S.view = null;
      const address = new URL(location.href);
      address.searchParams.set("game", String(answer.game));
      history.replaceState(null, "", address.toString());
      clearTimeout(live.retryTimer);
      if (live.controller) live.controller.abort();
      live.fails = 0;
      scheduleStream(0);
    }
  );
}
