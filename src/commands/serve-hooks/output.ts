import { fsReason } from '../../errors.js';
import type { IO } from '../../io.js';
import { plural } from '../../plural.js';

type Name = 'stdout' | 'stderr';

/**
 * serve-hooks' own output (stdout: the events; stderr: what goes wrong), written in batches: lines
 * written in the same turn of the event loop go out in one write, one system call for many events
 * under load. Output that cannot be written (a full log disk, a closed pipe) does not stop the
 * receiver: the events are in the log or the store. What is lost is counted (`lost`: the metrics),
 * and told on the other stream when writing fails and again when it works once more.
 */
export function receiverOutput(io: IO, lost: (lines: number) => void, stamp: () => string) {
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
  return { stdout: batched('stdout'), stderr: batched('stderr'), close: off };
}
