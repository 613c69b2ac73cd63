import type { IO } from '../io.js';

/**
 * Whether to colour a stream. chalk and cli-table3 do not check NO_COLOR themselves, so every
 * rule is here: FORCE_COLOR forces; `--no-color`, NO_COLOR, CLICOLOR=0 and TERM=dumb turn off;
 * otherwise colour only on a TTY.
 */
export function useColor(io: IO, stream: 'stdout' | 'stderr', flag: boolean): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return true;
  if (!flag) return false;
  if (io.env.NO_COLOR) return false;
  if (io.env.CLICOLOR === '0') return false;
  if (io.env.TERM === 'dumb') return false;
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}
