/**
 * The lint rule that keeps messages written with `said` (eslint.config.js, src/said.ts) fires: a
 * message given as a plain string would be redacted whole, callctl's own flag names with it.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The lines of `code`, as src/x.ts, that the rule refuses. */
async function refused(code: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: 'src/x.ts' });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line);
}

describe('messages are written with said', () => {
  it('refuses an error or a message of the output given as a plain string', async () => {
    const code = [
      "import { UsageError } from './errors.js';",
      "import { said } from './said.js';",
      'export function f(x: string, out: { warn(m: unknown): void; line(m: unknown): void }): void {',
      '  if (x === "a") throw new UsageError(`--flag: ${x}`);',
      "  if (x === 'b') throw new UsageError('--flag is empty');",
      "  if (x === 'c') throw new UsageError(x ? '--a' : said`--b`);",
      "  out.warn('--flag: ' + x);",
      "  out.line('done');",
      '  if (x) throw new UsageError(said`--flag: ${x}`);',
      "  out.warn(x === 'd' ? said`a` : said`b`);",
      "  console.error('not a message of callctl');",
      '}',
    ].join('\n');
    expect(await refused(code)).toEqual([4, 5, 6, 7, 8]);
  });
});
