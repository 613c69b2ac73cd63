// AssemblyScript, compiled to WebAssembly by the build (scripts/wasm.mjs): `--json`'s worker
// threads (src/api/group-worker.ts) write a group of records' text from the service's bytes with
// it, in place of JSON.stringify(JSON.parse(bytes), null, 2), when that gives the very same bytes.
// The bytes were parsed by JSON.parse first (for the answer's check), so they are valid JSON and
// valid UTF-8; what is left to know is whether they are spelled as JSON.stringify spells what
// JSON.parse made of them. Anything else answers NOT_CANONICAL and the group is written by
// JSON.stringify, as before:
//   - a string escape other than \" \\ \b \f \n \r \t and \u00XX for another control character
//     (lowercase): stringify writes `\/`, `\u00e9` or `\u0041` as the character itself;
//   - a number other than one with at most 15 significant digits, no exponent, no trailing zero
//     after a point, not -0, between 1e-6 and 1e21 (Number#toString writes those digits as they are);
//   - a key made only of digits (an object lists index keys first) or twice in an object (the
//     last value wins, at the first's place); an object of more than 256 keys.

const NOT_CANONICAL: i32 = -1;
const NO_ROOM: i32 = -2;

/** The scratch area's parts: a container type per depth, a frame per open object, key hashes. */
const MAX_DEPTH: i32 = 4096;
const FRAME: i32 = 16;
const MAX_KEYS: i32 = 16384;
const MAX_OBJECT_KEYS: i32 = 256;
/** The scratch area's size in bytes (told to src/api/json-indent.ts through `scratchBytes`). */
const SCRATCH: i32 = MAX_DEPTH + MAX_DEPTH * FRAME + MAX_KEYS * 4;

export function scratchBytes(): i32 {
  return SCRATCH;
}

/** Bytes seen in the strings of the last text written (and maybe a few after them): `\ % &`, `+`, `@`. */
let escapeStarts = i64x2.splat(0);
let pluses = i64x2.splat(0);
let ats = i64x2.splat(0);

/**
 * Which of the bytes that redaction asks about (src/redact.ts) the last text written may hold
 * (they can be nowhere but in its strings): 1 for `\`, `%` or `&` (what an escaped spelling of a
 * character begins with), 2 for `+` (a space's), 4 for `@` (a URL's credentials end with it).
 */
export function marks(): i32 {
  return (v128.any_true(escapeStarts) ? 1 : 0) | (v128.any_true(pluses) ? 2 : 0) | (v128.any_true(ats) ? 4 : 0);
}

/** Whether the `length` bytes at `needle` are in [hay, hayEnd) (the memory after hayEnd can be read). */
export function contains(hay: i32, hayEnd: i32, needle: i32, length: i32): bool {
  if (length == 0) return true;
  const end = hayEnd - length + 1;
  // 16 places at a time whose first and last bytes are the needle's; then the bytes between.
  const first = i8x16.splat(load<u8>(needle));
  const last = i8x16.splat(load<u8>(needle + length - 1));
  for (let p = hay; p < end; p += 16) {
    let mask = i8x16.bitmask(v128.and(i8x16.eq(v128.load(p), first), i8x16.eq(v128.load(p + length - 1), last)));
    while (mask != 0) {
      const at = p + ctz(mask);
      if (at >= end) break;
      let k = 1;
      while (k < length - 1 && load<u8>(at + k) == load<u8>(needle + k)) k++;
      if (k >= length - 1) return true;
      mask &= mask - 1;
    }
  }
  return false;
}

function isSpace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

/** A line break and `spaces` spaces at `out`; where output resumes. */
function newline(out: i32, spaces: i32): i32 {
  store<u8>(out, 0x0a);
  if (spaces <= 32) {
    // Two stores of 16 spaces are cheaper than a fill (the room check leaves them the room).
    const blank = i8x16.splat(0x20);
    v128.store(out + 1, blank);
    v128.store(out + 17, blank);
  } else memory.fill(out + 1, 0x20, spaces);
  return out + 1 + spaces;
}

/** Copies [from, from + length) to `out`, 16 bytes at a time (the room check leaves 16 more). */
function copy(out: i32, from: i32, length: i32): void {
  if (length <= 16) v128.store(out, v128.load(from));
  else memory.copy(out, from, length);
}

/**
 * Writes the elements of a JSON array, the bytes between its brackets at [input, inEnd), as JSON.stringify([[...elements]], null, 2)
 * writes them between its `[\n  [` and `\n  ]\n]` (src/output/json-stream.ts's recordsText): each
 * on a new line 4 spaces in, a comma between them. The output goes to [out, outEnd) and `scratch`
 * is SCRATCH bytes of room. Answers the output's length, NOT_CANONICAL, or NO_ROOM.
 */
export function indent(input: i32, inEnd: i32, out: i32, outEnd: i32, scratch: i32): i32 {
  const types = scratch;
  const frames = types + MAX_DEPTH;
  const hashes = frames + MAX_DEPTH * FRAME;
  const hashesEnd = hashes + MAX_KEYS * 4;
  const outStart = out;
  let pos = input;
  let depth = 1;
  store<u8>(types + depth, 0x5b);
  let objects = 0;
  let keysTop = hashes;
  let spaces = 4;
  let expectKey = false;
  out = newline(out, spaces);
  escapeStarts = i64x2.splat(0);
  pluses = i64x2.splat(0);
  ats = i64x2.splat(0);
  while (true) {
    while (pos < inEnd && isSpace(load<u8>(pos))) pos++;
    if (pos >= inEnd) break;
    const c: u32 = load<u8>(pos);
    // Room for what this step can write: the rest of the input as it is, or a line break.
    if (out + spaces + 40 + (inEnd - pos) > outEnd) return NO_ROOM;
    if (c == 0x22) {
      const start = pos;
      pos = copyString(pos, out);
      if (pos < 0) return NOT_CANONICAL;
      out += pos - start;
      if (expectKey) {
        expectKey = false;
        const frame = frames + (objects - 1) * FRAME;
        if (keysTop + 4 > hashesEnd) return NOT_CANONICAL;
        if (!newKey(start + 1, pos - 1, frame, load<i32>(frame), keysTop)) return NOT_CANONICAL;
        keysTop += 4;
      }
    } else if (c == 0x2c) {
      pos++;
      store<u8>(out++, 0x2c);
      out = newline(out, spaces);
      expectKey = load<u8>(types + depth) == 0x7b;
    } else if (c == 0x3a) {
      pos++;
      store<u16>(out, 0x203a);
      out += 2;
    } else if (c == 0x7b || c == 0x5b) {
      let next = pos + 1;
      let d: u32 = load<u8>(next);
      while (isSpace(d)) d = load<u8>(++next);
      if (d == c + 2) {
        // `{}` and `[]`, as stringify writes an empty object or array.
        store<u8>(out, c);
        store<u8>(out + 1, d);
        out += 2;
        pos = next + 1;
        continue;
      }
      if (++depth >= MAX_DEPTH) return NOT_CANONICAL;
      store<u8>(types + depth, c);
      if (c == 0x7b) {
        if (objects + 1 >= MAX_DEPTH) return NOT_CANONICAL;
        const frame = frames + objects * FRAME;
        store<i32>(frame, keysTop);
        store<u64>(frame + 8, 0);
        objects++;
        expectKey = true;
      }
      pos++;
      spaces += 2;
      store<u8>(out++, c);
      out = newline(out, spaces);
    } else if (c == 0x7d || c == 0x5d) {
      if (c == 0x7d) {
        objects--;
        keysTop = load<i32>(frames + objects * FRAME);
      }
      depth--;
      pos++;
      spaces -= 2;
      out = newline(out, spaces);
      store<u8>(out++, c);
    } else if (c == 0x2d || isDigit(c)) {
      const start = pos;
      pos = skipNumber(pos);
      if (pos < 0) return NOT_CANONICAL;
      copy(out, start, pos - start);
      out += pos - start;
    } else {
      // true, null or false.
      const length = c == 0x66 ? 5 : 4;
      store<u64>(out, load<u64>(pos));
      out += length;
      pos += length;
    }
  }
  return out - outStart;
}

/**
 * Copies the string at `start` (its opening quote) to `out` as it is: answers where it ends (after
 * its closing quote), or -1. Copied 16 bytes at a time, up to 15 bytes past its end.
 */
function copyString(start: i32, out: i32): i32 {
  let pos = start + 1;
  v128.store(out, v128.load(start));
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const control = i8x16.splat(0x20);
  const percent = i8x16.splat(0x25);
  const ampersand = i8x16.splat(0x26);
  const plus = i8x16.splat(0x2b);
  const at = i8x16.splat(0x40);
  while (true) {
    // 16 bytes at a time to the next quote, backslash or control character (the input's memory
    // runs on past its end, and the string ends before it).
    const v = v128.load(pos);
    v128.store(out + (pos - start), v);
    escapeStarts = v128.or(
      escapeStarts,
      v128.or(v128.or(i8x16.eq(v, backslash), i8x16.eq(v, percent)), i8x16.eq(v, ampersand)),
    );
    pluses = v128.or(pluses, i8x16.eq(v, plus));
    ats = v128.or(ats, i8x16.eq(v, at));
    const special = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, control));
    const mask = i8x16.bitmask(special);
    if (mask == 0) {
      pos += 16;
      continue;
    }
    pos += ctz(mask);
    const b: u32 = load<u8>(pos);
    if (b == 0x22) return pos + 1;
    if (b == 0x5c) {
      // The escape may run past the 16 bytes copied: copied again from its start.
      v128.store(out + (pos - start), v128.load(pos));
      const e: u32 = load<u8>(pos + 1);
      if (e == 0x75) {
        // \u00XX, lowercase, for a control character without a short escape.
        if (load<u8>(pos + 2) != 0x30 || load<u8>(pos + 3) != 0x30) return -1;
        const high: u32 = load<u8>(pos + 4);
        const low: u32 = load<u8>(pos + 5);
        if (high != 0x30 && high != 0x31) return -1;
        let value: u32;
        if (isDigit(low)) value = low - 0x30;
        else if (low - 0x61 < 6) value = low - 0x61 + 10;
        else return -1;
        value += (high - 0x30) << 4;
        if (value == 8 || value == 9 || value == 10 || value == 12 || value == 13) return -1;
        pos += 6;
        continue;
      }
      if (e == 0x22 || e == 0x5c || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
        pos += 2;
        continue;
      }
      return -1;
    }
    // A control character: not valid JSON, which JSON.parse would have refused.
    return -1;
  }
}

/** From a number's first byte: where it ends, or -1 when Number#toString would spell it otherwise. */
function skipNumber(from: i32): i32 {
  let pos = from;
  const negative = load<u8>(pos) == 0x2d;
  if (negative) pos++;
  const whole = pos;
  while (isDigit(load<u8>(pos))) pos++;
  const wholeLength = pos - whole;
  let fraction = pos;
  let fractionLength = 0;
  if (load<u8>(pos) == 0x2e) {
    fraction = ++pos;
    while (isDigit(load<u8>(pos))) pos++;
    fractionLength = pos - fraction;
    if (load<u8>(pos - 1) == 0x30) return -1;
  }
  const e: u32 = load<u8>(pos);
  if (e == 0x65 || e == 0x45 || wholeLength > 21) return -1;
  let significant: i32;
  if (load<u8>(whole) == 0x30) {
    if (fractionLength == 0) return negative ? -1 : pos;
    let zeros = 0;
    while (load<u8>(fraction + zeros) == 0x30) zeros++;
    if (zeros >= 6) return -1;
    significant = fractionLength - zeros;
  } else if (fractionLength > 0) {
    significant = wholeLength + fractionLength;
  } else {
    let end = pos;
    while (load<u8>(end - 1) == 0x30) end--;
    significant = end - whole;
  }
  return significant > 15 ? -1 : pos;
}

/**
 * Records the key at [start, end) in its object's frame (the keys from `first` to `top`, and a
 * 64-bit filter of them): false when it is an index (digits only) or the object has it already
 * (or one of the same hash: rare, and then stringify decides).
 */
function newKey(start: i32, end: i32, frame: i32, first: i32, top: i32): bool {
  let hash: u32 = 2166136261;
  let digits = true;
  for (let p = start; p < end; p++) {
    const b: u32 = load<u8>(p);
    digits = digits && isDigit(b);
    hash = (hash ^ b) * 16777619;
  }
  if (digits && end > start) return false;
  // An object of more keys is left to stringify: the filter would be full, and each key compared with all before it.
  if (top - first >= MAX_OBJECT_KEYS * 4) return false;
  const bit: u64 = (<u64>1) << (hash & 63);
  const filter = load<u64>(frame + 8);
  if (filter & bit) {
    for (let k = first; k < top; k += 4) if (load<u32>(k) == hash) return false;
  }
  store<u64>(frame + 8, filter | bit);
  store<u32>(top, hash);
  return true;
}
