/**
 * The layer rules of .dependency-cruiser.cjs (run by `npm run lint`) fire: each is shown a small
 * tree that breaks it, laid out at the paths the rules name, and must refuse it; a tree that keeps
 * every rule passes. The real tree is checked by `npm run lint` itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: object[];
  options: Record<string, unknown>;
};

/** Writes `files` (path -> text) under a fresh folder and cruises its src/ with the project's rules. */
async function cruiseTree(files: Record<string, string>): Promise<{ ok: boolean; rules: string[] }> {
  const dir = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const { tsConfig: _tsConfig, ...options } = config.options;
  const result = await cruise(['src'], {
    ...options,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
    baseDir: dir,
    outputType: 'json',
  } as Parameters<typeof cruise>[1]);
  const report = JSON.parse(String(result.output)) as { summary: { violations: Array<{ rule: { name: string } }> } };
  const rules = [...new Set(report.summary.violations.map((v) => v.rule.name))];
  return { ok: rules.length === 0, rules };
}

const imports = (path: string) => `import { x } from '${path}';\nexport const y = x;\n`;
const leaf = 'export const x = 1;\n';

describe('the layer rules', () => {
  it('pass a tree that keeps them (commands -> engines -> state/api -> core)', async () => {
    const r = await cruiseTree({
      'src/commands/run.ts': imports('../upload/engine.js'),
      'src/upload/engine.ts': `${imports('../state/journal.js')}export { x as z } from '../api/client.js';\n`,
      'src/state/journal.ts': imports('../files/lock.js'),
      'src/api/client.ts': imports('../schemas/robot.js'),
      'src/files/lock.ts': leaf,
      'src/schemas/robot.ts': leaf,
      'src/sandbox/server.ts': imports('./routes.js'),
      'src/sandbox/routes.ts': leaf,
    });
    expect(r).toEqual({ ok: true, rules: [] });
  });

  it.each([
    [
      'an engine importing a command',
      'engines-not-up',
      { 'src/reach/send.ts': imports('../commands/push.js'), 'src/commands/push.ts': leaf },
    ],
    [
      'state importing an engine',
      'state-and-api-not-up',
      { 'src/state/ledger.ts': imports('../hooks/record.js'), 'src/hooks/record.ts': leaf },
    ],
    [
      'the transport importing an engine',
      'state-and-api-not-up',
      { 'src/api/raw.ts': imports('../reach/deliver.js'), 'src/reach/deliver.ts': leaf },
    ],
    [
      'a dynamic import() climbing up',
      'state-and-api-not-up',
      {
        'src/state/open.ts': "export const o = () => import('../commands/store.js');\n",
        'src/commands/store.ts': leaf,
      },
    ],
    [
      'state importing the transport',
      'state-and-api-apart',
      { 'src/state/journal.ts': imports('../api/client.js'), 'src/api/client.ts': leaf },
    ],
    [
      'the transport importing state',
      'api-not-state',
      { 'src/api/client.ts': imports('../state/journal.js'), 'src/state/journal.ts': leaf },
    ],
    [
      'the core importing state',
      'core-not-up',
      { 'src/schemas/hooks-output.ts': imports('../state/event-log.js'), 'src/state/event-log.ts': leaf },
    ],
    [
      'a small core module importing a command',
      'core-not-up',
      { 'src/errors.ts': imports('./commands/x.js'), 'src/commands/x.ts': leaf },
    ],
    [
      'the sandbox importing the client',
      'sandbox-apart',
      { 'src/sandbox/routes.ts': imports('../schemas/robot.js'), 'src/schemas/robot.ts': leaf },
    ],
    [
      'the client importing the sandbox',
      'nobody-imports-the-sandbox',
      { 'src/hooks/samples.ts': imports('../sandbox/samples.js'), 'src/sandbox/samples.ts': leaf },
    ],
    ['a circle of two', 'no-circular', { 'src/reach/a.ts': imports('./b.js'), 'src/reach/b.ts': imports('./a.js') }],
    [
      'a circle closed by a dynamic import()',
      'no-circular',
      {
        'src/commands/push.ts': "export const x = 1; export const csv = () => import('./push-csv.js');\n",
        'src/commands/push-csv.ts': imports('./push.js'),
      },
    ],
    ['an import that resolves to nothing', 'not-to-unresolvable', { 'src/reach/a.ts': imports('./missing.js') }],
  ])('refuse %s (%s)', async (_what, rule, files) => {
    const r = await cruiseTree(files);
    expect(r.ok).toBe(false);
    expect(r.rules).toEqual([rule]);
  });
});
