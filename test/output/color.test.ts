import { describe, expect, it } from 'vitest';
import { testIO } from '../helpers/io.js';
import { useColor } from '../../src/output/color.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const ANSI = /\u001b\[\d+m/;
type Env = Record<string, string>;

// env x --no-color x terminal -> colour, as clig.dev and supports-color read the variables.
const TABLE: Array<[Env, boolean /* --no-color */, boolean /* tty */, boolean /* colour */]> = [
  [{}, false, true, true],
  [{}, false, false, false],
  [{}, true, true, false],
  // --no-color beats every variable.
  [{ FORCE_COLOR: '1' }, true, true, false],
  [{ FORCE_COLOR: '3' }, true, false, false],
  [{ CLICOLOR_FORCE: '1' }, true, false, false],
  // NO_COLOR beats FORCE_COLOR and CLICOLOR_FORCE; an empty NO_COLOR does not count.
  [{ NO_COLOR: '1' }, false, true, false],
  [{ NO_COLOR: '1', FORCE_COLOR: '1' }, false, true, false],
  [{ NO_COLOR: '1', CLICOLOR_FORCE: '1' }, false, false, false],
  [{ NO_COLOR: '' }, false, true, true],
  [{ NO_COLOR: '', FORCE_COLOR: '1' }, false, false, true],
  // FORCE_COLOR: 0 and false are off (even on a terminal); anything else is on (even piped).
  [{ FORCE_COLOR: '0' }, false, true, false],
  [{ FORCE_COLOR: 'false' }, false, true, false],
  [{ FORCE_COLOR: '1' }, false, false, true],
  [{ FORCE_COLOR: '2' }, false, false, true],
  [{ FORCE_COLOR: 'true' }, false, false, true],
  [{ FORCE_COLOR: '' }, false, false, true],
  [{ FORCE_COLOR: '0', CLICOLOR_FORCE: '1' }, false, false, false],
  // CLICOLOR_FORCE=1 forces; 0 does not.
  [{ CLICOLOR_FORCE: '1' }, false, false, true],
  [{ CLICOLOR_FORCE: '1', CLICOLOR: '0' }, false, false, true],
  [{ CLICOLOR_FORCE: '0' }, false, false, false],
  [{ CLICOLOR_FORCE: '0' }, false, true, true],
  // CLICOLOR=0 and TERM=dumb turn a terminal's colour off.
  [{ CLICOLOR: '0' }, false, true, false],
  [{ CLICOLOR: '1' }, false, false, false],
  [{ TERM: 'dumb' }, false, true, false],
  [{ TERM: 'dumb', FORCE_COLOR: '1' }, false, false, true],
];

describe('colour', () => {
  it.each(TABLE)('env %j, --no-color %s, terminal %s -> colour %s', (env, noColor, tty, colour) => {
    const io = testIO({ env, tty });
    expect(useColor(io, 'stdout', !noColor)).toBe(colour);
    expect(useColor(io, 'stderr', !noColor)).toBe(colour);
  });

  it.each(TABLE)(
    'a real command (config set): env %j, --no-color %s, terminal %s -> ANSI codes %s',
    async (env, noColor, tty, colour) => {
      // The ✓ of `config set` on stderr (piped data on stdout is plain TSV whatever the colour rules say).
      const r = await runCli([...(noColor ? ['--no-color'] : []), 'config', 'set', 'base-url', 'http://x.example'], {
        env: { ...env, CALLCTL_CONFIG_DIR: tempConfigDir() },
        tty,
      });
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/base-url set/);
      expect(ANSI.test(r.err)).toBe(colour);
    },
  );
});
