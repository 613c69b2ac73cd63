/** Byte-level helpers for reading JSON text as bytes (src/report/csv-bytes.ts). */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
const ZERO = 0x30;
const DOT = 0x2e;
const MINUS = 0x2d;
const SLASH = 0x2f;
const SPACE = 0x20;

export const isDigit = (b: number) => b >= ZERO && b <= 0x39;

/** A byte of a JSON number: digits, `.`, `e`, `E`, `+`, `-`. */
export const isNumberByte = (b: number) =>
  isDigit(b) || b === DOT || b === MINUS || b === 0x2b || b === 0x65 || b === 0x45;

/** The first position from `i` that is not JSON whitespace. */
export function skipSpace(raw: Uint8Array, i: number): number {
  while (i < raw.length) {
    const b = raw[i]!;
    if (b !== SPACE && b !== 0x0a && b !== 0x0d && b !== 0x09) return i;
    i++;
  }
  return i;
}

/** Where scanning resumes after the string that position `i` is inside (just past its closing quote). */
export function skipString(raw: Uint8Array, i: number): number {
  for (; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === BACKSLASH) i++;
    else if (b === QUOTE) return i + 1;
  }
  return raw.length;
}

/**
 * Whether JavaScript writes the JSON number `raw[from, to)` with the same text (`String(value)`,
 * what csvCell writes): no exponent, at most 15 digits (any such decimal is the shortest text of
 * its double), no trailing zero in a fraction, not -0, not below 1e-6 (written as 1e-7).
 */
export function sameAsString(raw: Uint8Array, from: number, to: number): boolean {
  const i = raw[from] === MINUS ? from + 1 : from;
  let digits = 0;
  let dot = -1;
  for (let k = i; k < to; k++) {
    const b = raw[k]!;
    if (isDigit(b)) digits++;
    else if (b === DOT && dot < 0) dot = k;
    else return false;
  }
  if (digits === 0 || digits > 15) return false;
  if (dot < 0) return !(i > from && to - i === 1 && raw[i] === ZERO);
  if (dot === to - 1 || raw[to - 1] === ZERO) return false;
  if (raw[i] === ZERO && dot === i + 1) {
    let zeros = 0;
    while (raw[dot + 1 + zeros] === ZERO) zeros++;
    if (zeros >= 6) return false;
  }
  return true;
}

/**
 * csv.ts's NUMBER_OR_DATE for the bytes of a JSON string `raw[from, to)` that are ASCII without
 * escapes (so its only whitespace is the space): `^\s*[\d.,]+([eE][+-]?\d+)?\s*$` or
 * `^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}`.
 */
export function numberOrDate(raw: Uint8Array, from: number, to: number): boolean {
  // a date: 1-4 digits, - or /, 1-2 digits, - or /, a digit
  let i = from;
  while (i < to && isDigit(raw[i]!)) i++;
  if (i > from && i - from <= 4 && (raw[i] === MINUS || raw[i] === SLASH)) {
    let j = i + 1;
    while (j < to && isDigit(raw[j]!)) j++;
    if (j > i + 1 && j - i - 1 <= 2 && j + 1 < to && (raw[j] === MINUS || raw[j] === SLASH) && isDigit(raw[j + 1]!))
      return true;
  }
  // a number: spaces, digits . and , then an exponent, then spaces
  i = from;
  while (i < to && raw[i] === SPACE) i++;
  let k = i;
  while (k < to && (isDigit(raw[k]!) || raw[k] === DOT || raw[k] === COMMA)) k++;
  if (k === i) return false;
  if (k < to && (raw[k] === 0x65 || raw[k] === 0x45)) {
    let m = k + 1;
    if (m < to && (raw[m] === 0x2b || raw[m] === MINUS)) m++;
    let q = m;
    while (q < to && isDigit(raw[q]!)) q++;
    if (q > m) k = q;
  }
  while (k < to && raw[k] === SPACE) k++;
  return k === to;
}

/** Moves `len` bytes of `out` from `from` to `to` (overlapping), in JavaScript when short: a native call costs more. */
export function move(out: Uint8Array, from: number, to: number, len: number): void {
  if (len > 32) out.copyWithin(to, from, from + len);
  else if (to < from) for (let k = 0; k < len; k++) out[to + k] = out[from + k]!;
  else for (let k = len - 1; k >= 0; k--) out[to + k] = out[from + k]!;
}

/** What nestedCell read: where the value ends in `raw`, and whether it holds bytes beyond ASCII. */
export const nested = { end: 0, high: false };

/**
 * Writes the CSV cell of the nested value (object or array) at `raw[i]` to `out` at `p`: its JSON
 * text without whitespace, quotes doubled, in quotes when it holds a quote or a comma (`[]`, `{}`
 * and `[1]` stay bare), as csvCell writes a nested value's JSON text. Returns where the cell ends
 * in `out` (-1 when the value is cut short); `nested` tells the rest.
 */
export function nestedCell(raw: Uint8Array, i: number, out: Uint8Array, p: number): number {
  const n = raw.length;
  let depth = 0;
  let special = false;
  let high = false;
  let w = p + 1;
  for (;;) {
    if (i >= n) return -1;
    const b = raw[i++]!;
    if (b === QUOTE) {
      special = true;
      out[w++] = QUOTE;
      out[w++] = QUOTE;
      for (;;) {
        if (i >= n) return -1;
        const s = raw[i++]!;
        if (s === QUOTE) break;
        out[w++] = s;
        if (s === BACKSLASH) {
          const e = raw[i++]!;
          out[w++] = e;
          if (e === QUOTE) out[w++] = QUOTE;
        } else if (s >= 0x80) high = true;
      }
      out[w++] = QUOTE;
      out[w++] = QUOTE;
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      depth++;
      out[w++] = b;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      out[w++] = b;
      if (--depth === 0) break;
    } else if (b === COMMA) {
      special = true;
      out[w++] = b;
    } else if (b > 32) out[w++] = b; // not whitespace
  }
  nested.end = i;
  nested.high = high;
  const len = w - p - 1;
  if (special && len > 2) {
    out[p] = QUOTE;
    out[w] = QUOTE;
    return w + 1;
  }
  move(out, p + 1, p, len);
  return p + len;
}
