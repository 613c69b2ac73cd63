import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, shared with `npm run readme`
import { renderSamples } from '../scripts/readme-samples.mjs';

describe('README', () => {
  it('gives the two set-up commands first', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).toMatch(/^npm install && npm run demo/m);
    expect(firstBlock).toMatch(/^npm test/m);
    // The tour types `callctl`: the first block says how it works (issue 23 item 1).
    expect(firstBlock).toMatch(/^npm link .*`npx callctl`/m);
  });

  it('a fresh npm install runs or declines every install script on purpose: none is left unreviewed (no npm warning)', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = new URL('..', import.meta.url);
    const r = spawnSync('npm', ['install-scripts', 'ls'], { cwd: root, encoding: 'utf8' });
    if (
      r.status !== 0 &&
      /Unknown command|install-scripts/.test(`${r.stdout}${r.stderr}`) &&
      !/^No packages/m.test(r.stdout)
    ) {
      // npm before 11's install-script approvals has no such warning to avoid.
      console.log(
        `skipped: this npm (${spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim()}) has no install-scripts command`,
      );
      return;
    }
    expect(r.stdout.trim(), r.stderr).toBe('No packages with unreviewed install scripts.');
  });

  it("the installed tree has no peer range npm warns about (esbuild in the range vitest's vite asks for)", async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('npm', ['ls', '--all', '--json'], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
    const problems = (JSON.parse(r.stdout) as { problems?: string[] }).problems ?? [];
    expect(problems.filter((p) => /^invalid|peer/.test(p))).toEqual([]);
  });

  it('shows stdout and stderr in the order a terminal shows them (a note after the table it is about)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const sample = /\$ callctl workflow task-detail WT-IC-0001\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(sample.indexOf('(RING left out')).toBeGreaterThan(0);
    expect(sample.indexOf('(RING left out')).toBeLessThan(sample.indexOf('\nAnswers\n'));
    const upload = /\$ callctl workflow update [^\n]*--dry-run\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(upload.indexOf('checked demo.csv')).toBeLessThan(upload.indexOf('Batches it would send'));
  });

  it('shows what the commands print today (regenerate with `npm run readme`)', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rendered = (await renderSamples(readme)) as string;
    expect(readme.match(/<!-- sample -->/g)?.length ?? 0).toBeGreaterThan(5);
    expect(rendered).toBe(readme);
  }, 60_000);
});
