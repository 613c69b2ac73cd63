/**
 * A Buffer written into at a position and handed to a stream whole (one per group of records, so
 * that nothing is encoded at write time); it grows when a group needs more than it was sized for.
 */
export class OutBuffer {
  protected out: Buffer = Buffer.alloc(0);
  protected pos = 0;

  /** Starts a new buffer (the last one is the stream's now), sized for about `bytes`. */
  begin(bytes: number): void {
    this.out = Buffer.allocUnsafe(bytes);
    this.pos = 0;
  }

  /** What was written since `begin`. */
  take(): Buffer {
    return this.out.subarray(0, this.pos);
  }

  /** Appends text. */
  text(text: string): void {
    this.ensure(text.length * 3);
    this.pos += this.out.write(text, this.pos);
  }

  /** Room for `bytes` more at `pos`. */
  protected ensure(bytes: number): void {
    if (this.pos + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.pos + bytes));
    this.out.copy(bigger, 0, 0, this.pos);
    this.out = bigger;
  }
}
