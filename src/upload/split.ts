/** Where a file can be cut in two for checking its halves at once, found while it is hashed. */
export interface SplitPoint {
  /** The first byte of a record. */
  offset: number;
  /** The line that byte is on. */
  line: number;
  /** The file's record delimiter: "\n" or "\r\n". */
  recordDelimiter: string;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Finds the first record start at or after `target`: a line break outside quoted fields (an even
 * number of quotes before it, as `""` inside a quoted field keeps the count even), of the same
 * kind as the file's first line break, which csv-parse takes as the record delimiter. Counts line
 * breaks as the reader does (CRLF, LF or CR once each). A file whose first break is a lone CR,
 * or that has no break after `target`, has no split point.
 */
export class SplitFinder {
  private position = 0;
  private quotes = 0;
  private breaks = 0;
  private previous = 0;
  /** LF or CRLF once the first line break outside quotes is seen; null for a lone CR. */
  private delimiter: string | null | undefined;
  found: SplitPoint | undefined;
  private done = false;

  constructor(private readonly target: number) {}

  /** The file's next chunk, in order. */
  push(chunk: Buffer): void {
    if (this.done) return;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      const previous = this.previous;
      this.previous = b;
      if (b === QUOTE) {
        this.quotes++;
        continue;
      }
      if (b === CR) {
        this.breaks++;
        continue;
      }
      if (b !== LF) {
        // A lone CR seen first (not followed by LF) is the file's delimiter: no split.
        if (previous === CR && this.delimiter === undefined && (this.quotes & 1) === 0) return this.stop();
        continue;
      }
      if (previous !== CR) this.breaks++;
      if ((this.quotes & 1) !== 0) continue;
      const kind = previous === CR ? '\r\n' : '\n';
      this.delimiter ??= kind;
      const offset = this.position + i + 1;
      if (offset >= this.target && kind === this.delimiter) {
        this.found = { offset, line: this.breaks + 1, recordDelimiter: kind };
        return this.stop();
      }
    }
    this.position += chunk.length;
  }

  private stop(): void {
    this.done = true;
  }
}
