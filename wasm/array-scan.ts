// AssemblyScript, compiled to WebAssembly by the build (scripts/wasm.mjs): the inner loop of
// src/api/array-stream.ts's ArraySplitter, inside the array it splits, for the large answers
// whose groups go to worker threads (it counts the elements and finds the last cut; it does not
// hand out each element's place). The same reading as ArraySplitter's loop, 16 bytes at a time
// through strings (most of a call record).

/** The state at `state`, as i32s: in a string; just after a backslash in one; containers open inside the current element. */
const IN_STRING = 0;
const ESCAPED = 4;
const DEPTH = 8;
/** What a scan answers, as i32s: commas between elements, the last one's place, where the array closes (-1: not here). */
const COMMAS = 12;
const LAST_COMMA = 16;
const CLOSED_AT = 20;

/**
 * Reads the bytes at [from, end), inside the array, from the state at `state`: counts the commas
 * between its elements, keeps the last one's place, and stops where the array closes. The memory
 * after `end` can be read (16-byte loads).
 */
export function scan(from: i32, end: i32, state: i32): void {
  let inString = load<i32>(state + IN_STRING) != 0;
  let depth = load<i32>(state + DEPTH);
  let commas = 0;
  let lastComma = -1;
  let closedAt = -1;
  let pos = from;
  if (load<i32>(state + ESCAPED) != 0) pos++;
  let escaped = false;
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  while (pos < end) {
    if (inString) {
      const v = v128.load(pos);
      const mask = i8x16.bitmask(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)));
      if (mask == 0) {
        pos += 16;
        continue;
      }
      pos += ctz(mask);
      if (pos >= end) break;
      if (load<u8>(pos) == 0x5c) {
        if (pos + 1 >= end) {
          escaped = true;
          break;
        }
        pos += 2;
        continue;
      }
      inString = false;
      pos++;
      continue;
    }
    const c: u32 = load<u8>(pos);
    if (c == 0x22) inString = true;
    else if (c == 0x7b || c == 0x5b) depth++;
    else if (c == 0x7d || c == 0x5d) {
      if (depth == 0) {
        closedAt = pos;
        break;
      }
      depth--;
    } else if (c == 0x2c && depth == 0) {
      commas++;
      lastComma = pos;
    }
    pos++;
  }
  store<i32>(state + IN_STRING, inString ? 1 : 0);
  store<i32>(state + ESCAPED, escaped ? 1 : 0);
  store<i32>(state + DEPTH, depth);
  store<i32>(state + COMMAS, commas);
  store<i32>(state + LAST_COMMA, lastComma);
  store<i32>(state + CLOSED_AT, closedAt);
}
