import { fsReason } from '../../errors.js';
import type { IO } from '../../io.js';
import { plural } from '../../plural.js';
import { redactValues } from '../../redact.js';
import type { Rendered } from './render.js';

type Name = 'stdout' | 'stderr';

/**
 * serve-hooks' own output (stdout: the events; stderr: what goes wrong), written in batches: lines
 * written in the same turn of the event loop go out in one write, one system call for many events
 * under load. Output that cannot be written (a full log disk, a closed pipe) does not stop the
 * receiver: the events are in the log or the store. What is lost is counted (`lost`: the metrics),
 * and told on the other stream when writing fails and again when it works once more.
 */
export function receiverOutput(io: IO, stamp: () => string) {
  let lost = (_lines: number): void => undefined;
  // The writes' callbacks below tell of it: the process goes on.
  const off = io.onOutputError(() => undefined);
  const tell = (name: Name, text: string) => {
    const other = name === 'stdout' ? io.stderr : io.stdout;
    if (!other.destroyed) other.write(`${stamp()}${text}`);
  };
  const batched = (name: Name) => {
    const stream = io[name];
    let pending: string[] = [];
    let failing = 0; // lines lost since writing last failed
    const failed = (lines: number, code?: string) => {
      lost(lines);
      if (failing === 0)
        tell(
          name,
          `warning: cannot write to ${name}: ${fsReason(code)}; receiving goes on, and what cannot be written is lost (callctl_hooks_output_lost_total)\n`,
        );
      failing += lines;
    };
    const flush = () => {
      if (pending.length === 0) return;
      const text = pending.join('');
      const lines = pending.length;
      pending = [];
      if (stream.destroyed) return failed(lines, 'EPIPE');
      stream.write(text, (error) => {
        if (error) failed(lines, (error as NodeJS.ErrnoException).code);
        else if (failing > 0) {
          tell(name, `writing to ${name} again: ${plural(failing, 'line')} lost meanwhile\n`);
          failing = 0;
        }
      });
    };
    return {
      write(text: string) {
        if (pending.length === 0) setImmediate(flush);
        pending.push(text);
      },
      flush,
    };
  };
  const stdout = batched('stdout');
  const stderr = batched('stderr');
  return {
    /** Writes what an event renders to; every known secret redacted, also where a body holds one. */
    write(text: Rendered) {
      if (text.out) stdout.write(redactValues(text.out));
      if (text.err) {
        stdout.flush(); // keep the order of what a person reads on one terminal
        stderr.write(`${stamp()}${redactValues(text.err)}`);
        stderr.flush();
      }
    },
    /** What counts the lines that could not be written (the receiver's metric). */
    onLost(count: (lines: number) => void) {
      lost = count;
    },
    /** Writes what is pending, and lets errors of the output end the process again. */
    close() {
      stdout.flush();
      off();
    },
  };
}
