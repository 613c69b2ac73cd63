import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { InputError } from '../errors.js';

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
  options: { signal?: AbortSignal; onBytes?: (bytes: number) => void; onChunk?: (chunk: Buffer) => void } = {},
): Promise<Fingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  // A multi-byte character may straddle two chunks: its first bytes wait for the next chunk.
  let carry: Buffer | undefined;
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, signal: options.signal });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (bytes === 0 && chunk.includes(0)) {
      throw new InputError(
        `${display}: line ${lineAt(chunk, chunk.indexOf(0))}: the file holds NUL bytes; is it UTF-16? Save it as UTF-8`,
      );
    }
    hash.update(chunk);
    options.onChunk?.(chunk);
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    const start = bytes - (carry?.length ?? 0);
    const cut = completeLength(data);
    if (!isUtf8(data.subarray(0, cut))) throw await notUtf8(path, display, start + firstInvalid(data.subarray(0, cut)));
    carry = cut < data.length ? Buffer.from(data.subarray(cut)) : undefined;
    bytes += chunk.length;
    options.onBytes?.(bytes);
  }
  if (carry) throw await notUtf8(path, display, bytes - carry.length);
  return { sha256: hash.digest('hex'), bytes };
}

/** The length of `data` without a trailing, incomplete UTF-8 sequence. */
function completeLength(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const b = data[data.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? data.length - back : data.length;
  }
  return data.length;
}

/** Offset of the first byte of `data` that does not start a valid UTF-8 sequence. */
function firstInvalid(data: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // Halve the range until the bad sequence is found; only runs when the file is not UTF-8.
  let lo = 0;
  let hi = data.length;
  while (hi - lo > 4) {
    const mid = completeLength(data.subarray(0, (lo + hi) >>> 1));
    if (mid <= lo) break;
    try {
      decoder.decode(data.subarray(0, mid));
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  return lo;
}

/** Line feeds in `buffer` before `end`. */
function newlines(buffer: Buffer, end = buffer.length): number {
  let n = 0;
  for (let i = buffer.indexOf(10); i !== -1 && i < end; i = buffer.indexOf(10, i + 1)) n++;
  return n;
}

function lineAt(buffer: Buffer, offset: number): number {
  return 1 + newlines(buffer, offset);
}

/** Counts the lines before `offset` (reading the file again: this only runs on the error path). */
async function notUtf8(path: string, display: string, offset: number): Promise<InputError> {
  let line = 1;
  if (offset > 0) {
    for await (const chunk of createReadStream(path, {
      highWaterMark: READ_CHUNK_BYTES,
      end: offset - 1,
    }) as AsyncIterable<Buffer>) {
      line += newlines(chunk);
    }
  }
  return new InputError(`${display}: line ${line}: not valid UTF-8 (byte ${offset + 1}); save the file as UTF-8`, {
    line,
    byte: offset + 1,
  });
}
