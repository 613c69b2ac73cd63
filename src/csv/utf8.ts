import { isUtf8 } from 'node:buffer';
import { InputError } from '../errors.js';
import { said } from '../said.js';

/**
 * Input CSV files are UTF-8 (with or without BOM). One that is not is nearly always a
 * spreadsheet's export in the machine's code page (Excel's "CSV" on Windows is Windows-1252) or
 * UTF-16 ("Unicode text"): refused before any row is read, naming where and how to convert it,
 * never decoded with replacement characters (a name would reach the service as "Jos�").
 */

/** Where the first byte that is not UTF-8 is: its line, its byte in that line and in the file (1-based), its value. */
export interface BadByte {
  line: number;
  lineByte: number;
  byte: number;
  value?: number;
}

/** The length of `data` without a trailing, incomplete UTF-8 sequence. */
export function completeLength(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const b = data[data.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? data.length - back : data.length;
  }
  return data.length;
}

/** The length of the UTF-8 sequence a lead byte begins, or 0 when no sequence begins with it. */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** Offset of the first byte of `data` that does not begin a valid UTF-8 sequence (`data.length` when none). */
export function firstInvalidUtf8(data: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // Halve the range while its first part decodes (only runs when the data is not UTF-8), then
  // step through the few sequences left: the bisection stops up to a sequence short of the byte.
  let lo = 0;
  let hi = data.length;
  while (hi - lo > 8) {
    const mid = completeLength(data.subarray(0, (lo + hi) >>> 1));
    if (mid <= lo) break;
    if (isUtf8(data.subarray(0, mid))) lo = mid;
    else hi = mid;
  }
  for (let at = lo; at < data.length;) {
    const need = sequenceLength(data[at]!);
    if (need === 0) return at;
    try {
      decoder.decode(data.subarray(at, at + need));
    } catch {
      return at;
    }
    at += need;
  }
  return data.length;
}

/** Where `offset` is in `bytes`, a whole file or its first part. */
export function badByteAt(bytes: Buffer, offset: number): BadByte {
  let line = 1;
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++;
  const lineStart = bytes.lastIndexOf(10, offset - 1) + 1;
  return { line, lineByte: offset - lineStart + 1, byte: offset + 1, value: bytes[offset] };
}

const shell = (name: string) => (/^[\w@%+=:,./-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`);

/** The error of a file that is not UTF-8: where, which byte, and how to convert it. */
export function notUtf8Error(display: string, at: BadByte): InputError {
  const hex = at.value === undefined ? '' : ` (0x${at.value.toString(16).toUpperCase().padStart(2, '0')})`;
  const converted = display.replace(/(\.[^./]*)?$/, (ext) => `-utf8${ext || '.csv'}`);
  return new InputError(
    said`${display}: line ${at.line}, byte ${at.lineByte} (byte ${at.byte} of the file): not valid UTF-8${hex}; the file is in another encoding (Windows-1252 if Excel saved it as "CSV"): save it as "CSV UTF-8", or convert it: iconv -f windows-1252 -t utf-8 ${shell(display)} > ${shell(converted)}`,
    { line: at.line, lineByte: at.lineByte, byte: at.byte },
  );
}

/** The error of a file holding NUL bytes (`offset`, in `bytes`, the first): UTF-16, most likely. */
export function utf16Error(display: string, bytes: Buffer, offset: number): InputError {
  return new InputError(
    said`${display}: line ${badByteAt(bytes, offset).line}: the file holds NUL bytes; is it UTF-16? Save it as UTF-8`,
  );
}

/**
 * Throws the error of a whole file's bytes that are not UTF-8 text. UTF-16 is told by its start (a
 * byte order mark, or a NUL in the first character); a NUL further on is a control character in a
 * field, which the row's checks name with its line and column.
 */
export function checkUtf8(bytes: Buffer, display: string): void {
  const bom16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (bom16 || (bytes.length >= 2 && (bytes[0] === 0 || bytes[1] === 0))) throw utf16Error(display, bytes, 0);
  if (!isUtf8(bytes)) throw notUtf8Error(display, badByteAt(bytes, firstInvalidUtf8(bytes)));
}
