// @ts-check
/* The drawing: the table's seats, the banner and its clock, the note, the podium and the keys,
 * from the shown view (names only ever through textContent). */

/** @typedef {import("./contract.js").PageView} PageView */
/** @typedef {import("./contract.js").SeatJson} SeatJson */

import { backSvg, cardSvg, heartSvg } from "./cards.js";
import { banner, isWarning, layoutFor, prompt, remainingMs, ringPositions, seatModel, seatOf, secondsLeft, titleOf } from "./model.js";
import { $, S, el } from "./page.js";
import { again, move, setConn } from "./stream.js";

// -- drawing -----------------------------------------------------------------------------------

export function toast(text) {
  const box = $("toast");
  box.textContent = text;
  // Above the keys (and their question) when they show, never over them.
  const keys = $("keys");
  const above = keys.hidden ? 0 : keys.getBoundingClientRect().height;
  box.style.bottom = Math.round(above + 16) + "px";
  box.classList.add("show");
  clearTimeout(S.toastTimer);
  S.toastTimer = setTimeout(function () { box.classList.remove("show"); }, 2800);
}

export function cardNode(model, flip) {
  const wrap = el("div", "card3d");
  if (model.face === "none") return null;
  const inner = el("div", "inner");
  const back = el("div", "face back");
  back.innerHTML = backSvg();
  inner.appendChild(back);
  if (model.face === "up") {
    const front = el("div", "face front");
    front.innerHTML = cardSvg(model.front, model.card); // a checked face, escaped (cards.js)
    inner.appendChild(front);
    wrap.setAttribute("role", "img");
    wrap.setAttribute("aria-label", model.front ? model.front.label : "");
    if (flip) {
      wrap.classList.add("flip");
      requestAnimationFrame(function () {
        requestAnimationFrame(function () { wrap.classList.add("up"); });
      });
    } else {
      wrap.classList.add("up");
    }
  } else {
    wrap.setAttribute("role", "img");
    wrap.setAttribute("aria-label", S.t("card_back"));
  }
  wrap.appendChild(inner);
  return wrap;
}

export function heartsNode(model) {
  const box = el("div", "hearts");
  if (!model.hearts.show) return box;
  box.setAttribute("aria-label", S.t("lives", { n: model.hearts.full }));
  let html = "";
  for (let i = 0; i < model.hearts.full; i++) html += heartSvg("full");
  for (let i = 0; i < model.hearts.breaking; i++) html += heartSvg("breaking");
  for (let i = 0; i < model.hearts.empty; i++) html += heartSvg("empty");
  box.innerHTML = html; // static SVG only
  return box;
}

export function seatNode(model, flip) {
  const seat = el("div", "seat");
  seat.dataset.player = String(model.player);
  for (const [flag, on] of [["me", model.you], ["turn", model.turn], ["out", model.out], ["lost", model.lost], ["dealer", model.dealer], ["spent", model.spent]]) {
    if (on) seat.classList.add(flag);
  }
  const slot = el("div", "slot");
  const card = cardNode(model, flip);
  if (card) slot.appendChild(card);
  else slot.appendChild(el("div", "nocard"));
  if (model.dealer) {
    const chip = el("div", "chip", S.t("dealer_chip"));
    chip.title = S.t("dealer");
    chip.setAttribute("aria-label", S.t("dealer"));
    slot.appendChild(chip);
  }
  if (model.shown) {
    const king = el("div", "shown");
    king.innerHTML = cardSvg(model.shownFace, model.shown); // the blocking card (seatModel)
    slot.appendChild(king);
  }
  seat.appendChild(slot);
  const name = el("div", "name");
  name.dir = "auto";
  const who = el("bdi", null, model.name);
  name.appendChild(who);
  if (model.you) name.appendChild(el("span", "you", S.t("you")));
  seat.appendChild(name);
  seat.appendChild(heartsNode(model));
  const status = el("div", "status" + (model.tone ? " " + model.tone : ""), model.status);
  status.dir = "auto";
  seat.appendChild(status);
  if (model.spent) seat.appendChild(el("div", "spent", S.t("spent"))); // why it is the lowest
  return seat;
}

export function renderTable(view) {
  const table = $("table");
  table.replaceChildren();
  const seats = view.seats || [];
  if (view.status === "cancelled" || !seats.length) {
    table.className = "table empty";
    return;
  }
  const layout = layoutFor(seats.length);
  table.className = "table " + layout + " n" + seats.length;
  const key = view.game + ":" + view.round;
  const flip = !!view.revealed && !S.revealedRounds.has(key);
  if (view.revealed) S.revealedRounds.add(key);
  const felt = el("div", "felt");
  table.appendChild(felt);
  const center = el("div", "center");
  if (view.status === "lobby") center.textContent = S.t("lobby_players", { count: seats.length });
  else if (view.round) center.textContent = S.t("round", { round: view.round });
  felt.appendChild(center);
  const bottom = seats.findIndex((s) => s.player === view.viewer);
  const spots = layout === "ring" ? ringPositions(seats.length, bottom) : null;
  seats.forEach(function (seat, i) {
    const node = seatNode(seatModel(view, seat, S.t), flip);
    if (spots) {
      node.style.left = spots[i].x + "%";
      node.style.top = spots[i].y + "%";
    }
    (layout === "ring" ? table : felt).appendChild(node);
  });
}

export function renderBanner(view) {
  const box = $("banner");
  box.replaceChildren();
  const b = banner(view, S.t);
  box.className = "banner " + b.kind;
  if (!b.text) return;
  box.appendChild(el("div", "text", b.text));
  if (b.detail) box.appendChild(el("div", "detail", b.detail));
  if (b.clock && view.deadline) {
    const clock = el("div", "clock");
    clock.appendChild(el("span", "secs"));
    const bar = el("div", "bar");
    bar.appendChild(el("i"));
    clock.appendChild(bar);
    box.appendChild(clock);
    tick();
  }
}

// The turn's full length: the View's turn_seconds, else (an older server) the first
// remaining time seen for a turn, so the bar starts full and empties at the clock's pace.
export const turnLength = new Map();

export function tick() {
  const view = S.view;
  const clock = /** @type {HTMLElement | null} */ (document.querySelector("#banner .clock"));
  if (!view || !clock) return;
  const ms = remainingMs(view.deadline, view.now, performance.now() - S.at);
  const secs = secondsLeft(ms);
  if (secs === null) {
    clock.hidden = true;
    return;
  }
  const key = view.game + ":" + view.round + ":" + view.turn;
  if (!turnLength.has(key)) {
    const full = typeof view.turn_seconds === "number" ? view.turn_seconds * 1000 : ms;
    turnLength.set(key, Math.max(full, ms, 1000));
  }
  clock.querySelector(".secs").textContent = S.t("seconds", { seconds: secs });
  /** @type {HTMLElement} */ (clock.querySelector(".bar i")).style.width = Math.min(100, (100 * ms) / turnLength.get(key)) + "%";
  clock.classList.toggle("warn", isWarning(secs));
}

export function renderNote(view) {
  const box = $("note");
  box.replaceChildren();
  box.className = "note";
  if (S.fatal) {
    box.className = "note fatal";
    box.appendChild(el("div", null, S.t(S.fatal)));
    return;
  }
  if (!view) {
    box.appendChild(el("div", "hint", S.t("loading")));
    return;
  }
  const lines = [];
  if (view.status === "running" && (view.viewer === null || view.viewer === undefined)) {
    lines.push(["spectating", "watch"]);
  }
  if (view.status === "running" && view.revealed) lines.push(["next_round", "hint"]);
  else if (view.status === "running" && view.viewer !== null && view.actor !== view.viewer) {
    const me = seatOf(view, view.viewer);
    if (me && me.acted && !me.out) lines.push(["wait_reveal", "hint"]);
  }
  for (const [key, cls] of lines) box.appendChild(el("div", cls, S.t(key)));
}

export function renderPodium(view) {
  const box = $("podium");
  box.replaceChildren();
  if (view.status !== "finished") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.appendChild(el("h2", null, S.t("podium")));
  const winners = (view.winners || []).map((p) => seatOf(view, p)).filter(Boolean);
  const place = (s) => (typeof s.place === "number" ? s.place : 999);
  const rest = (view.seats || [])
    .filter((s) => (view.winners || []).indexOf(s.player) < 0)
    .sort((a, b) => place(a) - place(b)); // the finishing order: who went out last first
  const stand = el("div", "stand");
  const top = el("div", "step first");
  for (const seat of winners) {
    const who = el("div", "winner");
    who.appendChild(el("div", "cup", "🏆"));
    const name = el("bdi", "wname", seat.name || S.t("player"));
    who.appendChild(name);
    top.appendChild(who);
  }
  top.appendChild(el("div", "block", "1"));
  stand.appendChild(top);
  box.appendChild(stand);
  if (rest.length) {
    const list = el("ol", "others");
    for (const seat of rest) {
      const item = el("li");
      if (typeof seat.place === "number") {
        item.value = seat.place; // a shared place shows once
        item.appendChild(el("span", "place", seat.place + ".")); // the list draws no numbers
      }
      item.appendChild(el("bdi", null, seat.name || S.t("player")));
      list.appendChild(item);
    }
    box.appendChild(list);
  }
}

export function keyButton(label, cls, onPress) {
  const button = el("button", "key " + cls, label);
  button.type = "button";
  button.disabled = S.busy;
  button.addEventListener("click", onPress);
  return button;
}

export function renderKeys() {
  const box = $("keys");
  box.replaceChildren();
  const view = S.view;
  if (!view || S.fatal) {
    box.hidden = true;
    return;
  }
  box.classList.toggle("end", view.status === "finished");
  if (view.status === "finished") {
    // Play again is not urgent: it ends the page, over no seat (yours is at the bottom).
    box.hidden = false;
    const row = el("div", "row");
    row.appendChild(keyButton(S.t("play_again"), "again", again));
    box.appendChild(row);
    return;
  }
  const options = view.status === "running" && !view.revealed && view.actor === view.viewer ? view.options || [] : [];
  if (!options.length) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.appendChild(el("div", "prompt", prompt(view, S.t)));
  const row = el("div", "row");
  for (const option of /** @type {const} */ (["keep", "swap", "cut"])) {
    if (options.indexOf(option) < 0) continue;
    const button = keyButton(S.t(option), option, function () { move(option); });
    button.dataset.move = option;
    row.appendChild(button);
  }
  box.appendChild(row);
}

export function render() {
  const view = S.view;
  const title = titleOf(S.t, view);
  document.title = title;
  $("title").textContent = title;
  const round = view && view.round && view.status !== "lobby" ? S.t("round", { round: view.round }) : "";
  const pot = view && view.pot !== null && view.pot !== undefined ? S.t("pot", { n: view.pot }) : "";
  $("round").textContent = [round, pot].filter(Boolean).join(" · ");
  // The rules in force (the group's house rules, the Kille deck), as the chat's tables say.
  $("rules").textContent = view && !S.fatal && typeof view.rules === "string" ? view.rules : "";
  if (view && !S.fatal) {
    renderBanner(view);
    renderTable(view);
    renderPodium(view);
    document.body.dataset.status = view.status;
  } else {
    $("banner").replaceChildren();
    $("table").replaceChildren();
    $("podium").hidden = true;
  }
  renderNote(view);
  renderKeys();
  setConn(S.conn);
}
