import type { IO } from '../io.js';

/** Set and not empty (NO_COLOR counts only then, as no-color.org says). */
const given = (value: string | undefined): value is string => value !== undefined && value !== '';

/**
 * Whether to colour a stream, as clig.dev and supports-color read the variables (chalk and
 * cli-table3 do not check them here: every rule is in this one place), first rule that applies:
 *   1. `--no-color`: off, whatever the environment says;
 *   2. NO_COLOR set and not empty: off (it beats FORCE_COLOR);
 *   3. FORCE_COLOR: `0` or `false` off, anything else (empty, `1`, `2`, `3`, `true`) on;
 *   4. CLICOLOR_FORCE set and not `0`: on;
 *   5. CLICOLOR=0 or TERM=dumb: off;
 *   6. otherwise colour only when the stream is a terminal.
 */
export function useColor(io: IO, stream: 'stdout' | 'stderr', flag: boolean): boolean {
  const env = io.env;
  if (!flag) return false;
  if (given(env.NO_COLOR)) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR.toLowerCase() !== 'false';
  if (given(env.CLICOLOR_FORCE) && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0' || env.TERM === 'dumb') return false;
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}
