// @ts-check
/* The live table's model: pure functions (no DOM, no clock, no network) from the launch
 * parameters, the server's views (contract.js) and the page's texts to what the page shows.
 * The page's tests call them through window.CuckooTable (table.js). */

/** @typedef {import("./contract.js").PageView} PageView */
/** @typedef {import("./contract.js").SeatJson} SeatJson */

import { faceOf } from "./cards.js";

// What the page says before any View has brought the game's own texts (the catalogs' English,
// kept equal to cuckoo_bot/i18n/messages.py's web_ entries by the page's tests).
export const FALLBACK = {
  title: "🃏 {name}",
  name_cuckoo: "Cuckoo",
  name_chase_the_ace: "Chase the Ace",
  name_ranter_go_round: "Ranter-Go-Round",
  loading: "Laying out the table…",
  live: "Live",
  reconnecting: "Reconnecting…",
  polling: "Slow connection: checking every few seconds",
  connection_lost: "Connection lost: trying again…",
  expired: "This table was opened a while ago: open it again from the chat.",
  unauthorized: "Telegram could not confirm who you are: open the table from the chat.",
  not_member: "This game belongs to a group you are not in.",
  no_game: "There is no such game.",
  bad_link: "This link names no game: open the table from the chat.",
  error: "Something went wrong: nothing changed. Try again.",
  player: "Player",
};

// The API's error codes -> the text that explains them.
export const ERROR_TEXT = {
  expired: "expired",
  unauthorized: "unauthorized",
  forbidden: "not_member",
  no_game: "no_game",
  bad_request: "bad_link",
};

export const RING_MAX = 8; // seats drawn around the oval; more sit in rows
export const WARN_SECONDS = 10;
export const RETRY_MS = 1000;
export const POLL_MS = 2000;
export const STREAM_RETRY_SLOW_MS = 30000;
export const STREAM_FAILS_BEFORE_POLLING = 3;
export const TELEGRAM_WAIT_MS = 3000; // for Telegram's script, when the address has no launch data
export const STREAM_SILENCE_MS = 40000; // the server pings every 15 s: silence this long is a dead stream

// -- launch parameters ------------------------------------------------------------------------

export function digitsOnly(value) {
  return typeof value === "string" && /^\d{1,18}$/.test(value) ? value : null;
}

export function parseJson(text) {
  if (typeof text !== "string" || !text) return null;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch (_) {
    return null;
  }
}

/**
 * Who and which game: initData from Telegram.WebApp (tgInitData) or the hash's tgWebAppData;
 * the game from ?game= or the initData's start_param; the theme from Telegram.WebApp
 * (tgTheme) or the hash's tgWebAppThemeParams.
 */
export function parseLaunch(search, hash, tgInitData, tgTheme) {
  const query = new URLSearchParams((search || "").replace(/^\?/, ""));
  const launch = new URLSearchParams((hash || "").replace(/^#/, ""));
  const initData = tgInitData || launch.get("tgWebAppData") || "";
  const data = new URLSearchParams(initData);
  const startParam = data.get("start_param") || launch.get("tgWebAppStartParam") || null;
  const game = digitsOnly(query.get("game")) || digitsOnly(startParam);
  let user = parseJson(data.get("user"));
  if (user && typeof user.id !== "number") user = null;
  const themed = tgTheme && Object.keys(tgTheme).length ? tgTheme : null;
  const theme = themed || parseJson(launch.get("tgWebAppThemeParams"));
  return {
    initData: initData,
    game: game === null ? null : Number(game),
    startParam: startParam,
    user: user,
    theme: theme,
    platform: launch.get("tgWebAppPlatform"),
  };
}

/** The page's base (".../app"), so the API is found under any path prefix. */
export function apiBase(pathname) {
  const match = /^(.*?\/app)(?:\/.*)?$/.exec(pathname || "");
  return match ? match[1] : "/app";
}

/** CSS variables for Telegram's themeParams: bg_color -> --tg-theme-bg-color. */
export function themeVars(params) {
  const vars = {};
  if (!params || typeof params !== "object") return vars;
  for (const key of Object.keys(params)) {
    const value = params[key];
    if (!/^[a-z_]{1,40}$/.test(key) || typeof value !== "string") continue;
    if (!/^#[0-9a-fA-F]{3,8}$/.test(value)) continue; // colours only: nothing else gets into CSS
    vars["--tg-theme-" + key.replace(/_/g, "-")] = value;
  }
  return vars;
}

/** True for a dark colour ("#rrggbb" or "#rgb"), by its relative luminance. */
export function isDark(hex) {
  if (typeof hex !== "string") return false;
  let h = hex.replace("#", "");
  if (h.length === 3) h = h.replace(/./g, "$&$&");
  if (!/^[0-9a-fA-F]{6}/.test(h)) return false;
  const channel = (i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  };
  const lum = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return lum < 0.2;
}

// -- the event stream ---------------------------------------------------------------------------

/**
 * SSE framing: the complete events in `buffer` and the incomplete rest.
 * Lines are "field: value" (one space after the colon dropped), ":" starts a comment, a blank
 * line ends an event; several data lines are joined with "\n".
 */
export function parseSse(buffer) {
  const events = [];
  const text = buffer.replace(/\r\n?/g, "\n");
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n\n", start);
    if (end < 0) break;
    const block = text.slice(start, end);
    start = end + 2;
    const event = { id: null, event: "message", data: null };
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line[0] === ":") continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value[0] === " ") value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
    }
    if (data.length) {
      event.data = data.join("\n");
      events.push(event);
    }
  }
  return { events: events, rest: text.slice(start) };
}

/** Whether `view` should replace `shown` (null: nothing shown yet). */
export function isNewer(view, shown) {
  if (!view || typeof view.version !== "number") return false;
  return !shown || view.version > shown.version;
}

// -- time ----------------------------------------------------------------------------------------

/** Milliseconds since the epoch of an ISO 8601 time with an offset (any fraction digits). */
export function parseIso(text) {
  if (typeof text !== "string") return NaN;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/.exec(text);
  if (!m) return NaN;
  const ms = m[2] ? Number((m[2] + "00").slice(0, 3)) : 0;
  let zone = m[3] || "Z";
  if (zone !== "Z" && zone.indexOf(":") < 0) zone = zone.slice(0, 3) + ":" + zone.slice(3);
  const base = Date.parse(m[1] + zone);
  return isNaN(base) ? NaN : base + ms;
}

/**
 * Milliseconds left of the turn: (deadline - now) of the View, less the time spent here since
 * it arrived (`elapsedMs`, from a monotonic clock). The local wall clock is never read.
 */
export function remainingMs(deadline, now, elapsedMs) {
  const end = parseIso(deadline);
  const then = parseIso(now);
  if (isNaN(end) || isNaN(then)) return null;
  return Math.max(0, end - then - (elapsedMs || 0));
}

/** The whole seconds to show for `ms` left (rounded up: "1 s" until the very end). */
export function secondsLeft(ms) {
  return ms === null || ms === undefined ? null : Math.ceil(ms / 1000);
}

export function isWarning(seconds) {
  return seconds !== null && seconds <= WARN_SECONDS;
}

// -- texts ---------------------------------------------------------------------------------------

/**
 * `template` with its {field}s filled from `values`, in one pass: a value is never read as a
 * template again (a name like "{name}" stays as it is). Unknown fields are left as written.
 */
export function fmt(template, values) {
  if (typeof template !== "string") return "";
  return template.replace(/\{(\w+)\}/g, function (whole, field) {
    return values && Object.prototype.hasOwnProperty.call(values, field)
      ? String(values[field])
      : whole;
  });
}

/**
 * The page's title: the game's name as the group calls it (Cuckoo until a View says).
 * @param {(key: string, values?: Object) => string} t
 * @param {PageView | null} view
 */
export function titleOf(t, view) {
  return t("title", { name: t("name_" + (view ? view.name : "cuckoo")) });
}

/** A translator over the View's strings, falling back to the page's own English. */
export function texts(strings) {
  const table = Object.assign({}, FALLBACK, strings || {});
  return function t(key, values) {
    const template = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : key;
    return fmt(template, values || {});
  };
}

/**
 * A name set inside a sentence, isolated (FSI ... PDI): a right-to-left name, or one holding
 * a direction override, never turns the rest of the sentence around.
 */
export function iso(name) {
  return "\u2068" + String(name) + "\u2069";
}

export function listNames(names) {
  return names.map(iso).join(", ");
}

// -- what the page shows -----------------------------------------------------------------------

export function seatOf(view, player) {
  return (view.seats || []).find((s) => s.player === player) || null;
}

export function nameOf(view, player, t) {
  const seat = seatOf(view, player);
  return seat && seat.name ? seat.name : t("player");
}

/** The next seat still in the game after `player`, in table order (whom a swap goes to). */
export function nextActive(view, player) {
  const seats = view.seats || [];
  const at = seats.findIndex((s) => s.player === player);
  if (at < 0) return null;
  for (let step = 1; step < seats.length; step++) {
    const seat = seats[(at + step) % seats.length];
    if (!seat.out) return seat;
  }
  return null;
}

export const ACTED = [
  "keep", "timeout", "swap", "blocked", "queen_blocked", "struck", "stopped", "cut", "cut_blocked",
];
// A swap asked of a seat whose card refused it: shown at that seat until the reveal.
const REFUSED = ["blocked", "queen_blocked", "struck", "stopped"];

/**
 * How a status names the card ``code`` (a King, a Queen, a Kille picture shown to the table):
 * its face's label, and the sign put before it when it sent an ask on or refused it weakly.
 * @param {any} view
 * @param {any} code
 */
export function shownCard(view, code) {
  const face = faceOf(view, code);
  return face ? { card: face.label, sign: face.sign } : { card: "", sign: "" };
}

/**
 * A seat's line for what it did: the outcome ("🔄 swapped with Zoë"), after how its ask was
 * sent on when it was ("👸 sent on by Eve's Q♥ · 🔄 swapped with Zoë").
 * @param {any} view
 * @param {SeatJson} seat
 * @param {(key: string, values?: Object) => string} t
 */
export function actedText(view, seat, t) {
  const target = seat.target !== null && seat.target !== undefined;
  const outcome = t("acted_" + seat.acted, Object.assign(shownCard(view, seat.shown), {
    target: target ? iso(nameOf(view, seat.target, t)) : "",
  }));
  if (seat.via === null || seat.via === undefined) return outcome;
  const via = t("acted_via", Object.assign(shownCard(view, seat.via_shown), {
    via: iso(nameOf(view, seat.via, t)),
  }));
  return via + " · " + outcome;
}

/**
 * What one seat shows: face "up" (with the card), "down" (a card back) or "none" (no card);
 * a card is face up only when it is the viewer's own or the round is revealed, whatever
 * else a View might hold. Also the seat's line of status and its hearts.
 */
export function seatModel(view, seat, t) {
  const you = view.viewer !== null && view.viewer !== undefined && seat.player === view.viewer;
  const playing = view.status === "running" || view.status === "finished";
  const revealed = !!view.revealed;
  const front = faceOf(view, seat.card); // only a card whose face the view sends
  const code = front ? seat.card : null;
  let face = "none";
  if (playing && code && (revealed || you)) face = "up";
  else if (view.status === "running" && !seat.out && !revealed) face = "down";
  const turn = view.status === "running" && view.actor === seat.player && !revealed;
  const lost = revealed && !!seat.lost;
  let status = "";
  let tone = "";
  if (lost) {
    status = seat.out ? t("out") : t("lost");
    tone = "bad";
  } else if (seat.out && view.status !== "lobby") {
    status = t("out");
    tone = "out";
  } else if (turn) {
    status = t("playing");
    tone = "turn";
  } else if (view.status === "running" && ACTED.indexOf(seat.acted) >= 0) {
    status = actedText(view, seat, t);
    const king = REFUSED.indexOf(seat.acted) >= 0 || seat.acted === "cut_blocked";
    tone = king ? "king" : "done";
  }
  // A card that refused a swap shown to the table, until the reveal: at the seat that holds
  // it (a swap was asked of it, or it sent one on), or at the dealer's who cut a King from
  // the deck (it is set aside there).
  const seats = view.seats || [];
  const blocked = seats.find(function (other) {
    return REFUSED.indexOf(other.acted) >= 0 && other.target === seat.player;
  });
  const passed = seats.find(function (other) {
    return other.via === seat.player;
  });
  let shownCode = seat.acted === "cut_blocked" ? seat.shown : blocked ? blocked.shown : null;
  if (!shownCode && passed) shownCode = passed.via_shown;
  const shownFace = view.status === "running" && !revealed ? faceOf(view, shownCode) : null;
  const max = Math.max(view.max_lives || 0, seat.lives || 0);
  const lives = Math.max(0, seat.lives || 0);
  const breaking = lost ? 1 : 0;
  return {
    player: seat.player,
    name: seat.name || t("player"),
    you: you,
    dealer: !!seat.dealer && view.status === "running",
    out: !!seat.out && view.status !== "lobby",
    turn: turn,
    face: face,
    card: face === "up" ? code : null,
    front: face === "up" ? front : null,
    status: status,
    tone: tone,
    shown: shownFace ? shownCode : null,
    shownFace: shownFace,
    // a Kille Harlequin face up that changed hands this round: it counts lowest
    spent: face === "up" && !!seat.spent,
    lost: lost,
    hearts: {
      full: lives,
      breaking: breaking,
      empty: Math.max(0, max - lives - breaking),
      show: view.status !== "lobby" && max > 0,
    },
  };
}

/** Ring for up to RING_MAX seats, rows beyond. */
export function layoutFor(count) {
  return count <= RING_MAX ? "ring" : "rows";
}

/**
 * Where each seat sits on the oval, in % of the table's box: the viewer (or the first seat)
 * at the bottom, the others clockwise after it in table order (the next player on its left).
 */
export function ringPositions(count, bottomIndex) {
  const out = [];
  const first = bottomIndex >= 0 ? bottomIndex : 0;
  for (let i = 0; i < count; i++) {
    const k = (i - first + count) % count;
    const angle = Math.PI / 2 + (k * 2 * Math.PI) / count;
    out.push({
      x: Math.round((50 + 39 * Math.cos(angle)) * 10) / 10,
      y: Math.round((50 + 41 * Math.sin(angle)) * 10) / 10,
    });
  }
  return out;
}

/** The line under the header: whose turn, the reveal, the end, or the lobby. */
export function banner(view, t) {
  if (view.status === "lobby") return { kind: "lobby", text: t("lobby") };
  if (view.status === "cancelled") return { kind: "cancelled", text: t("cancelled") };
  if (view.status === "finished") {
    const names = (view.winners || []).map((p) => nameOf(view, p, t));
    if (names.length === 1) return { kind: "finished", text: t("won", { name: iso(names[0]) }) };
    if (names.length > 1) {
      return { kind: "finished", text: t("won_shared", { names: listNames(names) }) };
    }
    return { kind: "finished", text: t("game_over") };
  }
  if (view.revealed) {
    const lost = (view.seats || []).filter((s) => s.lost).map((s) => s.name || t("player"));
    return {
      kind: "reveal",
      text: t("reveal"),
      detail: lost.length ? t("reveal_lowest", { names: listNames(lost) }) : "",
    };
  }
  if (view.actor !== null && view.actor !== undefined) {
    if (view.actor === view.viewer) return { kind: "you", text: t("your_turn"), clock: true };
    return { kind: "turn", text: t("turn_of", { name: iso(nameOf(view, view.actor, t)) }), clock: true };
  }
  return { kind: "wait", text: "" };
}

/** The question above the keys, on the viewer's turn. */
export function prompt(view, t) {
  const options = view.options || [];
  if (!options.length) return "";
  if (options.indexOf("cut") >= 0) {
    const me = seatOf(view, view.viewer);
    return me && me.acted === "cut" ? t("prompt_cut_again") : t("prompt_dealer");
  }
  const next = nextActive(view, view.viewer);
  return t("prompt", { name: iso(next ? next.name || t("player") : t("player")) });
}
