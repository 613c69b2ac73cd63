import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { REJECT_LINE_COLUMN, REJECT_REASON_COLUMN } from './columns.js';
import { redact } from '../redact.js';

const FLUSH_CHARS = 1 << 16;

/** The rejects file cannot be written (its folder is missing, say). The command names the file and its flag. */
export class RejectsFileError extends Error {
  readonly details: { reason: string };

  constructor(readonly reason: string) {
    super(`cannot write the rejects file: ${reason}`);
    this.details = { reason };
  }
}

/**
 * Writes each rejected row as it was read (every field, in the file's delimiter), after two
 * columns: the line it came from and why it was rejected. The reader ignores those two columns,
 * so the file, once fixed, uploads again as it is. `path` is a temporary name: the upload
 * renames it into place once the file proves to have rows (src/upload/prepare.ts).
 */
export class RejectsWriter {
  private fd: number;
  private buffer = '';
  private drop = new Set<number>();
  private needsQuote: RegExp;
  count = 0;

  constructor(
    readonly path: string,
    private readonly delimiter: string,
  ) {
    try {
      this.fd = openSync(path, 'w', 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new RejectsFileError(
        code === 'ENOENT' ? 'no such folder' : code === 'EACCES' ? 'permission denied' : (e as Error).message,
      );
    }
    this.needsQuote = new RegExp(`["\\r\\n]|${escapeRegExp(delimiter)}|^\\s|\\s$`);
  }

  /** The header of the file read; a rejects file's own two columns are replaced, not repeated. */
  header(fields: readonly string[]): void {
    const lower = fields.map((f) => f.trim().toLowerCase());
    lower.forEach((name, i) => {
      if (name === REJECT_LINE_COLUMN || name === REJECT_REASON_COLUMN) this.drop.add(i);
    });
    this.row([REJECT_LINE_COLUMN, REJECT_REASON_COLUMN, ...this.keep(fields)]);
  }

  reject(line: number, reason: string, fields: readonly string[]): void {
    this.count++;
    this.row([String(line), redact(reason), ...this.keep(fields)]);
  }

  private keep(fields: readonly string[]): readonly string[] {
    return this.drop.size === 0 ? fields : fields.filter((_, i) => !this.drop.has(i));
  }

  private row(fields: readonly string[]): void {
    this.buffer +=
      fields.map((f) => (this.needsQuote.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(this.delimiter) + '\n';
    if (this.buffer.length >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.buffer) writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  /** Abandons a file the run did not finish reading. */
  discard(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.path, { force: true });
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
