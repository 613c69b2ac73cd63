/** Thrown by the writers below when the value may not fit; `notFitting` turns it into -1. */
const FULL = Symbol('full');

/** One value's JSON, written into a buffer (see BatchWriter). */
export interface JsonSource {
  /** Writes the JSON into `buffer` from `at` and returns the end, or -1 when it may not fit. */
  writeTo(buffer: Buffer, at: number): number;
  /** The same JSON as a string, for a value larger than any buffer. */
  toJson(): string;
}

/** In a catch around the `write*` functions below: -1 when the value did not fit, else rethrows. */
export function notFitting(error: unknown): -1 {
  if (error === FULL) return -1;
  throw error;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/**
 * Writes `value`'s JSON into `buffer` from `at`, byte for byte what
 * `buffer.write(JSON.stringify(value), at)` writes, and returns the end; or -1 when it may not
 * fit (what was written past `at` is then garbage). An upload spools a million entries: building
 * each one's JSON string and then encoding it cost more than csv-parse's own work on the row.
 * Here plain objects are walked and printable ASCII strings are copied byte by byte; anything
 * else (non-ASCII, characters JSON escapes, numbers, arrays) goes through JSON.stringify.
 */
export function writeJson(value: unknown, buffer: Buffer, at: number): number {
  try {
    return writeValue(value, buffer, at);
  } catch (error) {
    return notFitting(error);
  }
}

/** Writes `value`'s JSON from `at`; throws when it may not fit (see `notFitting`). */
export function writeValue(value: unknown, buffer: Buffer, at: number): number {
  if (typeof value === 'string') return writeString(value, buffer, at);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return writeObject(value as Record<string, unknown>, buffer, at);
  }
  return writeText(JSON.stringify(value), buffer, at);
}

function writeObject(object: Record<string, unknown>, buffer: Buffer, at: number): number {
  room(buffer, at, 2);
  buffer[at++] = OPEN;
  let first = true;
  // for...in visits the keys in JSON.stringify's order (integer-like keys first, then insertion).
  for (const key in object) {
    const v = object[key];
    // JSON.stringify leaves these properties out.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!first) {
      room(buffer, at, 1);
      buffer[at++] = COMMA;
    }
    first = false;
    at = writeString(key, buffer, at);
    room(buffer, at, 1);
    buffer[at++] = COLON;
    at = writeValue(v, buffer, at);
  }
  room(buffer, at, 1);
  buffer[at++] = CLOSE;
  return at;
}

/** Writes a string's JSON from `at`; throws when it may not fit (see `notFitting`). */
export function writeString(s: string, buffer: Buffer, at: number): number {
  room(buffer, at, s.length + 2);
  const start = at;
  buffer[at++] = QUOTE;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x80 || c === QUOTE || c === BACKSLASH) return writeText(JSON.stringify(s), buffer, start);
    buffer[at++] = c;
  }
  buffer[at++] = QUOTE;
  return at;
}

function writeText(text: string, buffer: Buffer, at: number): number {
  // UTF-8 takes at most 3 bytes per UTF-16 unit (JSON.stringify leaves no lone surrogate).
  room(buffer, at, text.length * 3);
  return at + buffer.write(text, at);
}

/** Copies `bytes` to `at`; throws when they do not fit (see `notFitting`). */
export function writeBytes(bytes: Uint8Array, buffer: Buffer, at: number): number {
  room(buffer, at, bytes.length);
  for (let i = 0; i < bytes.length; i++) buffer[at++] = bytes[i]!;
  return at;
}

function room(buffer: Buffer, at: number, bytes: number): void {
  if (at + bytes > buffer.length) throw FULL;
}
