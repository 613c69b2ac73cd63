import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { LocalError } from '../errors.js';
import { commitFile, tempBeside } from '../files/atomic-write.js';
import { said } from '../said.js';

/**
 * A file written atomically: into a temporary file beside it, renamed over the target only when
 * everything was written and the answer checked, so a reader never sees half an export and a
 * failed run leaves the previous file as it was.
 */
export class AtomicFile {
  private current: WriteStream | undefined;
  readonly temp: string;

  constructor(readonly path: string) {
    this.temp = tempBeside(path);
  }

  stream(): WriteStream {
    if (!this.current) {
      this.current = createWriteStream(this.temp, { mode: 0o644, highWaterMark: 1 << 20 });
      // Reported when written to or closed; keep the process from failing on the event itself.
      this.current.on('error', () => {});
    }
    return this.current;
  }

  /** Empties the file to write it again from the start. */
  async restart(): Promise<void> {
    await this.close();
    this.current = createWriteStream(this.temp, { mode: 0o644, highWaterMark: 1 << 20 });
    this.current.on('error', () => {});
  }

  /** Flushes, closes and renames the file into place (src/files/atomic-write.ts: fsync, rename). */
  async commit(): Promise<void> {
    this.stream();
    await this.close();
    try {
      commitFile(this.temp, this.path);
    } catch (error) {
      throw this.localError(error);
    }
  }

  /** Removes the temporary file (after a failure). */
  async discard(): Promise<void> {
    this.current?.destroy();
    this.current = undefined;
    await rm(this.temp, { force: true });
  }

  private async close(): Promise<void> {
    const s = this.current;
    if (!s) return;
    this.current = undefined;
    if (s.errored) throw this.localError(s.errored);
    s.end();
    const [error] = await Promise.race([once(s, 'close').then(() => [s.errored]), once(s, 'error')]);
    if (error) throw this.localError(error);
  }

  /** The error a write to the file met, as the user reads it. */
  failed(error: Error): LocalError {
    return this.localError(error);
  }

  private localError(error: unknown): LocalError {
    const e = error as NodeJS.ErrnoException;
    return new LocalError(said`cannot write ${this.path}: ${e.code ?? e.message}`);
  }
}
