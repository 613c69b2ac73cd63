import { isUtf8 } from 'node:buffer';
import { csvCell, type CsvMode } from './csv.js';
import {
  BACKSLASH,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  isDigit,
  isNumberByte,
  move,
  nested,
  nestedCell,
  numberOrDate,
  sameAsString,
  skipSpace,
  skipString,
} from './json-bytes.js';
import { OutBuffer } from './out-buffer.js';

/** Around a cell by its kind (0 bare, 1 quoted, 2 the text formula `="..."`, 3 an apostrophe): as csv.ts's textCell. */
const PRE = ['', '"', '"=""', '"\''].map((s) => Buffer.from(s));
const POST = ['', '"', '"""', '"'].map((s) => Buffer.from(s));
/** In a string: 1 its end or an escape, 2 a comma, 3 beyond ASCII. */
const BYTE_KIND = new Uint8Array(256).fill(3, 0x80);
BYTE_KIND[QUOTE] = BYTE_KIND[BACKSLASH] = 1;
BYTE_KIND[COMMA] = 2;

/**
 * CSV lines written byte by byte from each record's own JSON bytes (as the service sent them) into
 * one Buffer per group of records: no cell strings, no joined line, no encoding at write time
 * (which made a CSV export cost about 1.4x reading the answer). The cells are csvCell's (the same
 * quoting, spreadsheet and excel rules), except that a nested value (an object or an array) is the
 * service's own JSON text without its whitespace (its number spellings, escapes and key order, as
 * NDJSON keeps them) rather than JSON.stringify's; for the usual answer the two are the same.
 *
 * Only the usual record goes this way: exactly the named fields, in order, keys unescaped, which
 * the bytes' own keys are compared with (not the parsed record's: zod's output lists the declared
 * keys in the schema's order whatever the service's order was). `record` answers false, writing
 * nothing, for any other record (extra, missing, repeated or reordered fields, bytes that are not
 * UTF-8), which the caller writes from the parsed record. A cell that needs the parsed value (a
 * string with an escape, a number JavaScript spells otherwise, a spreadsheet-looking text beyond
 * ASCII) is written from it with csvCell. Plain loops that copy the bytes as they check them.
 */
export class CsvBytes extends OutBuffer {
  private readonly keys: Buffer[];
  constructor(
    private readonly columns: readonly string[],
    private readonly mode: CsvMode,
  ) {
    super();
    this.keys = columns.map((c) => Buffer.from(c));
  }

  /** Appends one record's line: its cells, an empty `extra` cell, CRLF. False, with nothing written, for a record that is not the usual one. */
  record(raw: Buffer, item: Record<string, unknown>): boolean {
    const begin = this.pos;
    if (this.line(raw, item)) return true;
    this.pos = begin;
    return false;
  }

  private line(raw: Buffer, item: Record<string, unknown>): boolean {
    const keys = this.keys;
    const n = raw.length;
    const excel = this.mode === 'excel';
    this.ensure(2 * n + 8 * keys.length + 8);
    let out = this.out;
    let p = this.pos;
    let high = false;
    let i = skipSpace(raw, 0);
    if (raw[i] !== OPEN_OBJECT) return false;
    i = skipSpace(raw, i + 1);
    for (let col = 0; col < keys.length; col++) {
      const key = keys[col]!;
      if (raw[i] !== QUOTE || raw[i + key.length + 1] !== QUOTE) return false;
      for (let k = 0; k < key.length; k++) if (raw[i + 1 + k] !== key[k]) return false;
      i += key.length + 2;
      if (raw[i] !== COLON && raw[(i = skipSpace(raw, i))] !== COLON) return false;
      let c = raw[++i]!;
      if (c <= 32) c = raw[(i = skipSpace(raw, i))]!;
      let cellFrom = -1; // >= 0: the cell is written from the parsed value; the raw value ends here
      if (c === QUOTE) {
        const first = raw[i + 1]!;
        // Could a spreadsheet read it as a formula, number or date? Guessed from its first byte: room for the quoting.
        const formula = first === 61 || first === 43 || first === 45 || first === 64; // = + - @
        const maybe = formula || isDigit(first) || first === 32 || first === 46 || first === 44;
        const guess = maybe ? (excel ? 4 : 1) : 0;
        let j = i + 1;
        let w = p + guess;
        let comma = false;
        let wide = false;
        for (; j < n; j++) {
          const b = raw[j]!;
          const kind = BYTE_KIND[b]!;
          if (kind !== 0) {
            if (kind === 1) break;
            if (kind === 2) comma = true;
            else wide = true;
          }
          out[w++] = b;
        }
        if (j >= n) return false;
        high ||= wide;
        const len = j - i - 1;
        if (raw[j] === BACKSLASH || (maybe && wide)) cellFrom = skipString(raw, j);
        else if (len > 0) {
          const sheet = formula || (maybe && numberOrDate(raw, i + 1, j));
          // 0 bare, 1 quoted, 2 the text formula ="...", 3 apostrophe (beyond Excel's formula literal)
          const kind = sheet ? (excel ? (len <= 255 ? 2 : 3) : 1) : comma || first === 32 || raw[j - 1] === 32 ? 1 : 0;
          if (kind === 1) {
            if (guess !== 1) move(out, p + guess, p + 1, len);
            out[p] = QUOTE;
            out[p + len + 1] = QUOTE;
            p += len + 2;
          } else if (kind === 0) {
            if (guess !== 0) move(out, p + guess, p, len);
            p += len;
          } else {
            const pre = PRE[kind]!;
            if (pre.length !== guess) move(out, p + guess, p + pre.length, len);
            for (let k = 0; k < pre.length; k++) out[p + k] = pre[k]!;
            w = p + pre.length + len;
            const post = POST[kind]!;
            for (let k = 0; k < post.length; k++) out[w++] = post[k]!;
            p = w;
          }
        }
        if (cellFrom < 0) i = j + 1;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        p = nestedCell(raw, i, out, p);
        if (p < 0) return false;
        i = nested.end;
        high ||= nested.high;
      } else if (c === 0x6e) {
        i += 4; // null: an empty cell
      } else if (c === 0x74 || c === 0x66) {
        const end = i + (c === 0x74 ? 4 : 5); // true, false
        while (i < end) out[p++] = raw[i++]!;
      } else {
        let j = i;
        while (j < n && isNumberByte(raw[j]!)) j++;
        if (j === i) return false;
        if (sameAsString(raw, i, j)) while (i < j) out[p++] = raw[i++]!;
        else cellFrom = j;
      }
      if (cellFrom >= 0) {
        this.pos = p;
        this.text(csvCell(item[this.columns[col]!], this.mode));
        this.ensure(2 * (n - cellFrom) + 8 * (keys.length - col) + 8);
        out = this.out;
        p = this.pos;
        i = cellFrom;
      }
      out[p++] = COMMA;
      let sep = raw[i];
      if (sep !== COMMA && sep !== CLOSE_OBJECT) sep = raw[(i = skipSpace(raw, i))];
      if (col < keys.length - 1) {
        if (sep !== COMMA) return false;
        if (raw[++i] !== QUOTE) i = skipSpace(raw, i);
      } else if (sep !== CLOSE_OBJECT) return false;
    }
    // Not UTF-8: the parsed record holds U+FFFD where the bytes are wrong, so it is written from that.
    if (high && !isUtf8(raw)) return false;
    out[p++] = 13;
    out[p++] = 10;
    this.pos = p;
    return true;
  }
}
