import type { IO } from '../io.js';
import { useColor } from './color.js';

/** The styles callctl's output uses; a chalk instance is one, and so is the plain painter. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const same = (text: string) => text;
const plain: Paint = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same, magenta: same };

/**
 * A painter for stdout and one for stderr, as useColor decides. chalk (the project's choice) is
 * loaded only when one of them colours: piped and `--json` runs, most of a cron job's, skip it.
 */
export async function paintersFor(io: IO, color: boolean): Promise<{ out: Paint; err: Paint }> {
  const out = useColor(io, 'stdout', color);
  const err = useColor(io, 'stderr', color);
  if (!out && !err) return { out: plain, err: plain };
  const { Chalk } = await import('chalk');
  return { out: out ? new Chalk({ level: 1 }) : plain, err: err ? new Chalk({ level: 1 }) : plain };
}
