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
 * ``face`` if the page can draw it (a suit it has the shape of, pips it has a layout for,
 * texts where texts go), else null: whatever a view holds, nothing else is drawn.
 * @param {any} face
 * @returns {FaceJson | null}
 */
export function checkedFace(face) {
  if (!face || typeof face !== "object") return null;
  const texts = typeof face.label === "string" && typeof face.corner === "string" &&
    typeof face.picture === "string";
  const pips = face.pips === 0 || face.pips === 1 || (Number.isInteger(face.pips) && has(PIPS, face.pips));
  return texts && pips && has(SUIT_PATHS, face.suit) && typeof face.red === "boolean" ? face : null;
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

export function pip(suit, cx, cy, size, flip) {
  const s = size / 20;
  const x = r1(cx - size / 2);
  const y = r1(cy - size / 2);
  const turn = flip ? " rotate(180 10 10)" : "";
  return '<path transform="translate(' + x + " " + y + ") scale(" + r1(s * 100) / 100 + ")" +
    turn + '" d="' + SUIT_PATHS[suit] + '"/>';
}

/**
 * One card face as an SVG string (viewBox 100 x 140): a big corner index top left and,
 * turned, bottom right; in the middle the pips, one big suit (an Ace) or a framed picture.
 * Its texts are escaped; anything that is not a face (``checkedFace``) draws the back.
 * @param {any} face
 * @param {string} code the card's code, as the seats name it
 */
export function cardSvg(face, code) {
  const card = checkedFace(face);
  if (!card) return backSvg();
  const colour = card.red ? RED : BLACK;
  const long = card.corner.length > 1;
  const index =
    '<text x="13" y="31" text-anchor="middle" font-size="' + (long ? 25 : 30) + '"' +
    (long ? ' letter-spacing="-2"' : "") + ' font-weight="700">' + esc(card.corner) + "</text>" +
    pip(card.suit, 13, 43, 15, false);
  let middle = "";
  if (card.pips === 1) {
    middle = pip(card.suit, 50, 70, 46, false);
  } else if (card.pips === 0) {
    middle =
      '<rect x="25" y="22" width="50" height="96" rx="6" fill="' + colour +
      '" fill-opacity=".08" stroke="' + colour + '" stroke-width="2"/>' +
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
