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
  it('pass a tree that keeps them (commands -> engines -> store/api -> core)', async () => {
    const r = await cruiseTree({
      'src/commands/run.ts': imports('../upload/engine.js'),
      'src/upload/engine.ts': `${imports('../store/journal.js')}export { x as z } from '../api/client.js';\n`,
      'src/store/journal.ts': imports('../files/lock.js'),
      // The resolver imports each back end (dynamically); a back end imports the interface and the core.
      'src/store/resolve.ts':
        "export const f = () => import('./files/store.js');\nexport const p = () => import('./postgres/store.js');\n",
      'src/store/files/store.ts': `${imports('../journal.js')}export { x as w } from './journal.js';\n`,
      'src/store/files/journal.ts': imports('../../files/lock.js'),
      'src/store/postgres/store.ts': imports('../journal.js'),
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
      'the store importing an engine',
      'store-and-api-not-up',
      { 'src/store/ledger.ts': imports('../hooks/record.js'), 'src/hooks/record.ts': leaf },
    ],
    [
      'the transport importing an engine',
      'store-and-api-not-up',
      { 'src/api/raw.ts': imports('../reach/deliver.js'), 'src/reach/deliver.ts': leaf },
    ],
    [
      'a dynamic import() climbing up',
      'store-and-api-not-up',
      {
        'src/store/resolve.ts': "export const o = () => import('../commands/store.js');\n",
        'src/commands/store.ts': leaf,
      },
    ],
    [
      'the store importing the transport',
      'store-and-api-apart',
      { 'src/store/journal.ts': imports('../api/client.js'), 'src/api/client.ts': leaf },
    ],
    [
      'the transport importing the store',
      'api-not-store',
      { 'src/api/client.ts': imports('../store/journal.js'), 'src/store/journal.ts': leaf },
    ],
    [
      'the core importing the store',
      'core-not-up',
      { 'src/schemas/hooks-output.ts': imports('../store/events.js'), 'src/store/events.ts': leaf },
    ],
    [
      'an engine naming a back end of the store',
      'store-back-ends-behind-the-interface',
      { 'src/hooks/intake.ts': imports('../store/files/events.js'), 'src/store/files/events.ts': leaf },
    ],
    [
      'a command loading a back end of the store with a dynamic import()',
      'store-back-ends-behind-the-interface',
      {
        'src/commands/store/status.ts': "export const s = () => import('../../store/postgres/store.js');\n",
        'src/store/postgres/store.ts': leaf,
      },
    ],
    [
      'a store module beside the resolver naming a back end',
      'store-back-ends-behind-the-interface',
      { 'src/store/ledger.ts': imports('./files/ledger.js'), 'src/store/files/ledger.ts': leaf },
    ],
    [
      'one back end of the store importing the other',
      'store-back-ends-apart',
      { 'src/store/postgres/lock.ts': imports('../files/lock-file.js'), 'src/store/files/lock-file.ts': leaf },
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
