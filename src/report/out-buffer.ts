/** Below this, Buffer.allocUnsafe hands out slices of Node's shared pool, which cannot be reused. */
const MIN_BUFFER = 64 * 1024;

/**
 * A Buffer written into at a position, handed to a stream whole, and taken back for the next
 * group once the stream is done with it: a new buffer per group made a fifth of the garbage
 * collector's work in a large export.
 */
export class OutBuffer {
  protected out: Buffer = Buffer.alloc(0);
  protected pos = 0;
  private readonly spare: Buffer[] = [];

  /** Starts a new buffer (the last one is the stream's now), sized for about `bytes`. */
  begin(bytes: number): void {
    const spare = this.spare.pop();
    this.out = spare && spare.length >= bytes ? spare : Buffer.allocUnsafe(Math.max(bytes, MIN_BUFFER));
    this.pos = 0;
  }

  /** What was written since `begin`. */
  take(): Buffer {
    return this.out.subarray(0, this.pos);
  }

  /** Takes back what `take` gave, once the stream is done with it (its write callback). */
  recycle(taken: Buffer): void {
    if (taken.byteOffset === 0 && taken.buffer.byteLength >= MIN_BUFFER && this.spare.length < 8) this.spare.push(Buffer.from(taken.buffer));
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
