// @ts-check
/* The cards as SVG, built from the faces a view sends (checked, their texts escaped: the only
 * markup the page builds from strings), the card back, and the hearts of a seat's lives. */

/** @typedef {import("./contract.js").FaceJson} FaceJson */

// -- cards ---------------------------------------------------------------------------------------
// The page knows no deck: the server sends the face of each card a view shows (``faces.py``),
// and the page draws it from that alone.

export const RED = "#d0312d";
export const BLACK = "#1b1c20";

// Suit shapes in a 20 x 20 box, drawn rather than typed: every font draws them alike.
export const SUIT_PATHS = {
  H: "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z",
  D: "M10 1 18 10 10 19 2 10z",
  S: "M10 1C8.6 3 2 7.6 2 12c0 2.5 2 4.2 4.2 4.2 1.4 0 2.5-.6 3.1-1.5-.2 1.8-1 3.2-2.3 4.3h6c-1.3-1.1-2.1-2.5-2.3-4.3.6.9 1.7 1.5 3.1 1.5 2.2 0 4.2-1.7 4.2-4.2 0-4.4-6.6-9-8-11z",
  C: "M10 1.2a4.3 4.3 0 0 0-3.3 7.1A4.3 4.3 0 1 0 9.2 15c-.2 1.7-1 3-2.2 4h6c-1.2-1-2-2.3-2.2-4a4.3 4.3 0 1 0 2.5-6.7A4.3 4.3 0 0 0 10 1.2z",
};

// Pip layouts for 2..10: [column (-1 left, 0 middle, 1 right), row from 0 (top) to 1].
export const PIPS = {
  2: [[0, 0], [0, 1]],
  3: [[0, 0], [0, 0.5], [0, 1]],
  4: [[-1, 0], [1, 0], [-1, 1], [1, 1]],
  5: [[-1, 0], [1, 0], [0, 0.5], [-1, 1], [1, 1]],
  6: [[-1, 0], [1, 0], [-1, 0.5], [1, 0.5], [-1, 1], [1, 1]],
  7: [[-1, 0], [1, 0], [0, 0.25], [-1, 0.5], [1, 0.5], [-1, 1], [1, 1]],
  8: [[-1, 0], [1, 0], [0, 0.25], [-1, 0.5], [1, 0.5], [0, 0.75], [-1, 1], [1, 1]],
  9: [[-1, 0], [1, 0], [-1, 1 / 3], [1, 1 / 3], [0, 0.5], [-1, 2 / 3], [1, 2 / 3], [-1, 1], [1, 1]],
  10: [[-1, 0], [1, 0], [0, 1 / 6], [-1, 1 / 3], [1, 1 / 3], [-1, 2 / 3], [1, 2 / 3], [0, 5 / 6], [-1, 1], [1, 1]],
};

// A Kille number's ornament, a quatrefoil in a 20 x 20 box: beside its figure, as a suit is.
export const ORNAMENT =
  "M10 1C13 4 13 7 10 10 7 7 7 4 10 1zM19 10C16 13 13 13 10 10 13 7 16 7 19 10zM10 19C7 16 7 13 10 10 13 13 13 16 10 19zM1 10C4 7 7 7 10 10 7 13 4 13 1 10z";

const INK = ' stroke="' + BLACK + '" stroke-width="1.5" stroke-linejoin="round"';

/** The Kille wreath's leaves around a ring, open at the bottom for its bow. */
function wreathLeaves() {
  let leaves = "";
  for (let i = 0; i < 14; i++) {
    const deg = 115 + (i * 310) / 13; // from 115 to 425 degrees: the bottom (90) is the bow's
    const a = (deg * Math.PI) / 180;
    const x = r1(30 + 19 * Math.cos(a));
    const y = r1(28 + 19 * Math.sin(a));
    const turn = r1(deg + 90 + (i % 2 ? 28 : -28));
    leaves += '<ellipse cx="' + x + '" cy="' + y + '" rx="6" ry="2.8" transform="rotate(' + turn +
      " " + x + " " + y + ')" fill="' + (i % 2 ? "#2e7d32" : "#4caf50") + '"/>';
  }
  return leaves;
}

/** The Kille harlequin's collar: lozenges in his colours. */
function lozenges() {
  const colours = ["#d0312d", "#2e7d32", "#f2c200", "#2d4fa0", "#d0312d"];
  return colours.map(function (fill, i) {
    const x = 14 + i * 8;
    return '<path d="M' + x + " 46 " + (x + 4) + " 52 " + x + " 58 " + (x - 4) + ' 52z" fill="' +
      fill + '"' + INK + "/>";
  }).join("");
}

// The Kille deck's nine pictures, drawn in a 60 x 60 box (shapes, not emoji: every browser
// draws them alike); static markup, nothing in it comes from a view.
export const MOTIFS = {
  // a carnival mask on its stick, with a plume
  mask:
    '<path d="M30 21C28 14 23 9 16 7M30 21C32 14 37 9 44 7" fill="none" stroke="#c9a227" stroke-width="2.2"/>' +
    '<path d="M52 38 57 58" stroke="#8a5a2b" stroke-width="3.2" stroke-linecap="round"/>' +
    '<path d="M5 24C9 15 21 15 30 21 39 15 51 15 55 24 58 35 50 43 41 41 35 40 33 35 30 35 27 35 25 40 19 41 10 43 2 35 5 24z" fill="#6a3d9a"' + INK + "/>" +
    '<ellipse cx="18" cy="28" rx="6.5" ry="4" fill="#fff"/><ellipse cx="42" cy="28" rx="6.5" ry="4" fill="#fff"/>' +
    '<circle cx="30" cy="21" r="2.5" fill="#c9a227"/>',
  // a flower in a clay pot
  flowerpot:
    '<path d="M30 36V14" stroke="#2e7d32" stroke-width="2.5"/>' +
    '<ellipse cx="23" cy="27" rx="6.5" ry="3" transform="rotate(-30 23 27)" fill="#4caf50"/>' +
    '<ellipse cx="37" cy="24" rx="6.5" ry="3" transform="rotate(30 37 24)" fill="#4caf50"/>' +
    '<g fill="#e53935"><circle cx="30" cy="6.5" r="4.5"/><circle cx="35.2" cy="10.3" r="4.5"/>' +
    '<circle cx="33.2" cy="16.4" r="4.5"/><circle cx="26.8" cy="16.4" r="4.5"/><circle cx="24.8" cy="10.3" r="4.5"/></g>' +
    '<circle cx="30" cy="12" r="3" fill="#fdd835"/>' +
    '<path d="M17 40H43L39 58H21z" fill="#c0652b"' + INK + "/>" +
    '<rect x="14" y="35" width="32" height="6" rx="1.5" fill="#d9793a"' + INK + "/>",
  // a laurel wreath tied with a red bow
  wreath:
    '<circle cx="30" cy="28" r="19" fill="none" stroke="#5d4037" stroke-width="1.5"/>' + wreathLeaves() +
    '<path d="M30 47 21 42V52zM30 47 39 42V52z" fill="#d0312d"/>' +
    '<path d="M29 48 25 58M31 48 35 58" stroke="#d0312d" stroke-width="2.5"/>' +
    '<circle cx="30" cy="47" r="2.6" fill="#a32020"/>',
  // a house with a chimney, a door, windows and a hanging sign
  inn:
    '<rect x="34" y="10" width="5" height="12" fill="#7a3b2e"' + INK + "/>" +
    '<rect x="8" y="28" width="36" height="28" fill="#e8c79a"' + INK + "/>" +
    '<path d="M4 30 26 10 48 30z" fill="#a5372f"' + INK + "/>" +
    '<rect x="21" y="40" width="10" height="16" fill="#6d4c41"' + INK + "/>" +
    '<rect x="11" y="33" width="8" height="7" fill="#9ecbf0"' + INK + "/>" +
    '<rect x="34" y="33" width="7" height="7" fill="#9ecbf0"' + INK + "/>" +
    '<path d="M44 34H57M50 34V37M56 34V37" fill="none" stroke="' + BLACK + '" stroke-width="1.5"/>' +
    '<rect x="48" y="37" width="10" height="9" rx="1" fill="#c9a227"' + INK + "/>" +
    '<path d="M2 56H58" stroke="' + BLACK + '" stroke-width="1.5"/>',
  // a horse's head with its bridle, as the knight of a chess set
  cavalier:
    '<path d="M20 54H46C47 44 45 36 42 30 46 26 48 18 45 12 42 7 36 4 30 5L27 1 24 7C18 10 12 17 9 24 7 28 9 32 13 32 17 32 20 29 24 28 25 34 21 40 19 46z" fill="#8b5a2b"' + INK + "/>" +
    '<path d="M30 5C38 7 44 14 42 30 41 36 44 44 46 54" fill="none" stroke="#3e2412" stroke-width="3"/>' +
    '<path d="M12 27 29 20M29 20 24 28" fill="none" stroke="#c9a227" stroke-width="1.8"/>' +
    '<circle cx="29" cy="14" r="2.2" fill="#fff"/><circle cx="11.5" cy="25.5" r="1.2" fill="' + BLACK + '"/>' +
    '<rect x="15" y="52" width="36" height="6" rx="2" fill="#8b5a2b"' + INK + "/>",
  // a pig, side on, with its curly tail
  pig:
    '<path d="M51 30C55 27 58 31 55 33 52 35 54 39 58 37" fill="none" stroke="#d9777f" stroke-width="2" stroke-linecap="round"/>' +
    '<rect x="18" y="40" width="6" height="15" rx="2" fill="#f4a6b0"' + INK + "/>" +
    '<rect x="39" y="40" width="6" height="15" rx="2" fill="#f4a6b0"' + INK + "/>" +
    '<ellipse cx="33" cy="34" rx="20" ry="13" fill="#f4a6b0"' + INK + "/>" +
    '<path d="M14 19 20 11 22 22z" fill="#e88c98"' + INK + "/>" +
    '<circle cx="14" cy="29" r="10" fill="#f4a6b0"' + INK + "/>" +
    '<ellipse cx="5.5" cy="31" rx="4" ry="5" fill="#e88c98"' + INK + "/>" +
    '<g fill="' + BLACK + '"><ellipse cx="5.3" cy="29.3" rx="1" ry="1.3"/><ellipse cx="5.3" cy="32.7" rx="1" ry="1.3"/>' +
    '<circle cx="13" cy="25" r="1.6"/></g>',
  // two sabres crossed, gold at the hilts
  hussar:
    '<path d="M14 48Q28 36 52 6M46 48Q32 36 8 6" fill="none" stroke="#8d96a0" stroke-width="4.2" stroke-linecap="round"/>' +
    '<path d="M14 48Q28 36 52 6M46 48Q32 36 8 6" fill="none" stroke="#e4e8ec" stroke-width="1.2"/>' +
    '<path d="M15 47 9 53M45 47 51 53" stroke="#5d4037" stroke-width="4" stroke-linecap="round"/>' +
    '<path d="M10 42 20 51M50 42 40 51" stroke="#c9a227" stroke-width="3.2" stroke-linecap="round"/>' +
    '<circle cx="8" cy="54.5" r="2.8" fill="#c9a227"' + INK + '/><circle cx="52" cy="54.5" r="2.8" fill="#c9a227"' + INK + "/>",
  // a cuckoo on a branch
  cuckoo:
    '<path d="M3 51Q30 44 57 51" fill="none" stroke="#6d4c41" stroke-width="3" stroke-linecap="round"/>' +
    '<path d="M38 34 58 21 56 30 41 41z" fill="#4e5d6c"' + INK + "/>" +
    '<ellipse cx="30" cy="36" rx="15" ry="10" transform="rotate(-15 30 36)" fill="#7b8a9a"' + INK + "/>" +
    '<path d="M20 40H29M20 43.5H30M23 47H30" stroke="#e9edf0" stroke-width="1.5"/>' +
    '<path d="M26 32C32 27 42 29 45 36 38 39 30 38 26 32z" fill="#5a6978"' + INK + "/>" +
    '<path d="M26 45V50M33 45V50" stroke="#e0a106" stroke-width="2"/>' +
    '<circle cx="16" cy="26" r="8" fill="#7b8a9a"' + INK + "/>" +
    '<path d="M9 24 1 27.5 9 29z" fill="#e0a106"' + INK + "/>" +
    '<circle cx="14" cy="24" r="2.3" fill="#fff"/><circle cx="13.5" cy="24" r="1.2" fill="' + BLACK + '"/>',
  // a harlequin's head: the two-pointed hat with bells, the black mask, the lozenges
  harlequin:
    '<path d="M14 27C12 16 6 11 2 10 10 7 22 10 30 20V27z" fill="#d0312d"' + INK + "/>" +
    '<path d="M46 27C48 16 54 11 58 10 50 7 38 10 30 20V27z" fill="#2e7d32"' + INK + "/>" +
    '<circle cx="3.5" cy="11" r="3" fill="#f2c200"' + INK + '/><circle cx="56.5" cy="11" r="3" fill="#f2c200"' + INK + "/>" +
    '<circle cx="30" cy="34" r="11" fill="#f8dcc0"' + INK + "/>" +
    '<rect x="15" y="23" width="30" height="5" rx="2.5" fill="#f2c200"' + INK + "/>" +
    '<path d="M19 31C24 28 27 30 30 32 33 30 36 28 41 31 41 35 36 36 30 34 24 36 19 35 19 31z" fill="' + BLACK + '"/>' +
    '<path d="M25 39Q30 43 35 39" fill="none" stroke="' + BLACK + '" stroke-width="1.5"/>' + lozenges(),
};

/** ``text`` made safe in SVG markup, as an element's text or an attribute's value. */
export function esc(text) {
  return String(text).replace(/[&<>"']/g, function (c) {
    return "&#" + c.charCodeAt(0) + ";";
  });
}

/** @param {object} obj @param {any} key */
function has(obj, key) {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * ``face`` if the page can draw it (a suit it has the shape of and pips it has a layout for,
 * or no suit and a motif it draws: a Kille picture or number), texts where texts go, else
 * null: whatever a view holds, nothing else is drawn.
 * @param {any} face
 * @returns {FaceJson | null}
 */
export function checkedFace(face) {
  if (!face || typeof face !== "object") return null;
  const texts = typeof face.label === "string" && typeof face.corner === "string" &&
    typeof face.picture === "string" && typeof face.sign === "string";
  if (!texts || typeof face.red !== "boolean" || typeof face.motif !== "string") return null;
  if (face.motif !== "") {
    const drawn = face.motif === "number" || has(MOTIFS, face.motif);
    return drawn && face.suit === "" && face.pips === 0 ? face : null;
  }
  const pips = face.pips === 0 || face.pips === 1 || (Number.isInteger(face.pips) && has(PIPS, face.pips));
  return pips && has(SUIT_PATHS, face.suit) ? face : null;
}

/**
 * The face of the card ``code`` as ``view`` sends it (its ``faces``), or null: a card the
 * view sends no face for is never drawn face up.
 * @param {any} view
 * @param {any} code
 * @returns {FaceJson | null}
 */
export function faceOf(view, code) {
  const faces = view && view.faces && typeof view.faces === "object" ? view.faces : {};
  return typeof code === "string" && has(faces, code) ? checkedFace(faces[code]) : null;
}

export function r1(n) {
  return Math.round(n * 10) / 10;
}

/** The path ``d`` (drawn in a 20 x 20 box) at ``size``, centred on ``cx, cy``. */
export function shape(d, cx, cy, size, flip) {
  const s = size / 20;
  const x = r1(cx - size / 2);
  const y = r1(cy - size / 2);
  const turn = flip ? " rotate(180 10 10)" : "";
  return '<path transform="translate(' + x + " " + y + ") scale(" + r1(s * 100) / 100 + ")" +
    turn + '" d="' + d + '"/>';
}

export function pip(suit, cx, cy, size, flip) {
  return shape(SUIT_PATHS[suit], cx, cy, size, flip);
}

/** A Kille picture (``MOTIFS``, a 60 x 60 drawing) at ``size``, centred on ``cx, cy``. */
export function motif(name, cx, cy, size) {
  const s = r1((size / 60) * 100) / 100;
  return '<g class="motif" data-motif="' + esc(name) + '" transform="translate(' + r1(cx - size / 2) +
    " " + r1(cy - size / 2) + ") scale(" + s + ')">' + MOTIFS[name] + "</g>";
}

/** The big index in a corner: the letter or figure, and under it the suit or an ornament. */
function cornerIndex(card) {
  if (card.motif !== "" && card.motif !== "number") return motif(card.motif, 13, 22, 21);
  const long = card.corner.length > 1;
  const under = card.motif === "number" ? shape(ORNAMENT, 13, 43, 14, false) : pip(card.suit, 13, 43, 15, false);
  return '<text x="13" y="31" text-anchor="middle" font-size="' + (long ? 25 : 30) + '"' +
    (long ? ' letter-spacing="-2"' : "") + ' font-weight="700">' + esc(card.corner) + "</text>" + under;
}

/** The frame in the middle of a picture (tinted) or of a Kille number (cream). */
function frame(colour, kille) {
  const fill = kille ? '"#f8f0dc"' : '"' + colour + '" fill-opacity=".08"';
  return '<rect x="25" y="22" width="50" height="96" rx="6" fill=' + fill + ' stroke="' + colour +
    '" stroke-width="2"/>';
}

/** The middle of a Kille card: its picture, wide between the corners' small copies of it, or
 * its figure between two ornaments. */
function killeMiddle(card, colour) {
  if (card.motif !== "number") {
    return '<rect x="19" y="35" width="62" height="70" rx="6" fill="#f8f0dc" stroke="' + BLACK +
      '" stroke-width="2"/>' + motif(card.motif, 50, 70, 58);
  }
  const long = card.picture.length > 1;
  return frame(colour, true) +
    '<g class="motif" data-motif="number"><text x="50" y="86" text-anchor="middle" font-size="' +
    (long ? 40 : 46) + '"' + (long ? ' letter-spacing="-2"' : "") + ' font-weight="700">' +
    esc(card.picture) + "</text>" + shape(ORNAMENT, 50, 37, 16, false) +
    shape(ORNAMENT, 50, 103, 16, true) + "</g>";
}

/**
 * One card face as an SVG string (viewBox 100 x 140): a big corner index top left and,
 * turned, bottom right; in the middle the pips, one big suit (an Ace), a framed picture, or
 * (a Kille card) its motif or its figure. Its texts are escaped; anything that is not a face
 * (``checkedFace``) draws the back.
 * @param {any} face
 * @param {string} code the card's code, as the seats name it
 */
export function cardSvg(face, code) {
  const card = checkedFace(face);
  if (!card) return backSvg();
  const colour = card.red ? RED : BLACK;
  const index = cornerIndex(card);
  let middle = "";
  if (card.motif !== "") {
    middle = killeMiddle(card, colour);
  } else if (card.pips === 1) {
    middle = pip(card.suit, 50, 70, 46, false);
  } else if (card.pips === 0) {
    middle = frame(colour, false) +
      '<text x="50" y="86" text-anchor="middle" font-size="46" font-weight="700">' +
      esc(card.picture) + "</text>" + pip(card.suit, 50, 36, 17, false) +
      pip(card.suit, 50, 104, 17, true);
  } else {
    for (const [col, row] of PIPS[card.pips]) {
      middle += pip(card.suit, 50 + col * 17, 34 + row * 72, 17, row > 0.5);
    }
  }
  return (
    '<svg class="svgcard" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg" role="img"' +
    ' aria-label="' + esc(card.label) + '" data-card="' + esc(code) + '">' +
    '<rect x="1" y="1" width="98" height="138" rx="9" fill="#fff" stroke="#c9ccd3" stroke-width="1.5"/>' +
    '<g fill="' + colour + '" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif">' +
    index + '<g transform="rotate(180 50 70)">' + index + "</g>" + middle + "</g></svg>"
  );
}

/** The back of every card: a lattice in a frame, with a medallion; the same for all cards. */
export function backSvg() {
  const x0 = 9, y0 = 9, x1 = 91, y1 = 131;
  let lines = "";
  for (let c = -140; c <= 240; c += 10) {
    // y = x + c and y = -x + c, clipped to the frame
    let a = Math.max(x0, y0 - c), b = Math.min(x1, y1 - c);
    if (a < b) lines += "M" + a + " " + (a + c) + "L" + b + " " + (b + c);
    a = Math.max(x0, c - y1);
    b = Math.min(x1, c - y0);
    if (a < b) lines += "M" + a + " " + (c - a) + "L" + b + " " + (c - b);
  }
  return (
    '<svg class="svgcard back" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg"' +
    ' aria-hidden="true">' +
    '<rect x="1" y="1" width="98" height="138" rx="9" fill="#fff" stroke="#c9ccd3" stroke-width="1.5"/>' +
    '<rect x="' + x0 + '" y="' + y0 + '" width="' + (x1 - x0) + '" height="' + (y1 - y0) +
    '" rx="5" fill="#2d4fa0"/>' +
    '<path d="' + lines + '" stroke="#fff" stroke-opacity=".28" stroke-width="1.6"/>' +
    '<ellipse cx="50" cy="70" rx="21" ry="27" fill="#2d4fa0" stroke="#fff" stroke-width="2.4"/>' +
    '<g fill="#fff">' + pip("S", 50, 70, 20, false) + "</g>" +
    '<rect x="' + x0 + '" y="' + y0 + '" width="' + (x1 - x0) + '" height="' + (y1 - y0) +
    '" rx="5" fill="none" stroke="#c63d4a" stroke-width="2"/></svg>'
  );
}

export const HEART = "M10 18.5C9 17.6 1 12.4 1 6.6 1 3.6 3.3 1.5 6 1.5c1.8 0 3.3 1 4 2.5.7-1.5 2.2-2.5 4-2.5 2.7 0 5 2.1 5 5.1 0 5.8-8 11-9 11.9z";

export function heartSvg(kind) {
  return '<svg class="heart ' + kind + '" viewBox="0 0 20 20" aria-hidden="true"><path d="' +
    HEART + '"/></svg>';
}
