import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { completeLength, firstInvalidUtf8, notUtf8Error, utf16Error } from '../csv/read.js';
import type { InputError } from '../errors.js';

/** Read size of the hashing pass: large reads keep the per-chunk overhead small. */
export const READ_CHUNK_BYTES = 1 << 20;

export interface Fingerprint {
  /** Hex SHA-256 of the file's bytes: names the upload's journal. */
  sha256: string;
  bytes: number;
}

/**
 * Pass 0 over the file: its SHA-256, and a check that it is UTF-8 (with or without BOM), naming
 * the line of the first byte that is not. Cheap next to parsing (native hashing and validation),
 * and it lets the journal and the lock be found before the rows are read.
 */
export async function fingerprint(
  path: string,
  display: string,
  options: { signal?: AbortSignal; onBytes?: (bytes: number) => void } = {},
): Promise<Fingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  // A multi-byte character may straddle two chunks: its first bytes wait for the next chunk.
  let carry: Buffer | undefined;
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, signal: options.signal });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (bytes === 0 && chunk.includes(0)) throw utf16Error(display, chunk, chunk.indexOf(0));
    hash.update(chunk);
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    const start = bytes - (carry?.length ?? 0);
    const cut = completeLength(data);
    if (!isUtf8(data.subarray(0, cut)))
      throw await notUtf8(path, display, start + firstInvalidUtf8(data.subarray(0, cut)));
    carry = cut < data.length ? Buffer.from(data.subarray(cut)) : undefined;
    bytes += chunk.length;
    options.onBytes?.(bytes);
  }
  if (carry) throw await notUtf8(path, display, bytes - carry.length);
  return { sha256: hash.digest('hex'), bytes };
}

/** Line feeds in `buffer` before `end`. */
function newlines(buffer: Buffer, end = buffer.length): number {
  let n = 0;
  for (let i = buffer.indexOf(10); i !== -1 && i < end; i = buffer.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * The error of a byte that is not UTF-8 at `offset` (0-based) of the file: its line, its place in
 * that line and in the file, its value (reading the file again up to it, a chunk at a time: this
 * only runs on the error path).
 */
async function notUtf8(path: string, display: string, offset: number): Promise<InputError> {
  let line = 1;
  let lineStart = 0; // offset of the first byte of the bad byte's line
  let value: number | undefined;
  let read = 0;
  for await (const chunk of createReadStream(path, {
    highWaterMark: READ_CHUNK_BYTES,
    end: offset,
  }) as AsyncIterable<Buffer>) {
    const before = chunk.subarray(0, Math.max(0, offset - read));
    line += newlines(before);
    const last = before.lastIndexOf(10);
    if (last !== -1) lineStart = read + last + 1;
    if (read + chunk.length > offset) value = chunk[offset - read];
    read += chunk.length;
  }
  return notUtf8Error(display, { line, lineByte: offset - lineStart + 1, byte: offset + 1, value });
}
