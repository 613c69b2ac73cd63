import { statSync, type Stats } from 'node:fs';
import { fsReason, LocalError } from '../errors.js';
import { said } from '../said.js';

/**
 * An input CSV, checked before it is opened: one that cannot be read is local trouble (exit 6,
 * README's table), and one that is not a regular file (a FIFO, a device, `<(...)`) is refused at
 * once: reading it would wait for a writer that may never come, and it is read twice.
 */
export function inputFile(path: string, display = path): Stats {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LocalError(said`cannot read ${display}: ${fsReason(code)}`, { path, ...(code ? { code } : {}) });
  }
  if (!stats.isFile())
    throw new LocalError(said`cannot read ${display}: not a regular file (a pipe or device: save it to a file first)`, {
      path,
    });
  return stats;
}
