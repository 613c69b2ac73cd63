import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderSamples, SAMPLE_COLUMNS, samplePages } from '../scripts/readme-samples.mjs';
import { itWith } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (page: string) => readFileSync(join(root, page), 'utf8');
const pages = samplePages();
const readme = read('README.md');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('README', () => {
  it('gives the two set-up commands first', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).toMatch(/^npm install && npm run demo/m);
    expect(firstBlock).toMatch(/^npm test/m);
    // The tour types `callctl`: the first block says how it works (issue 23 item 1).
    expect(firstBlock).toMatch(/^npm link .*`npx callctl`/m);
  });

  it('a fresh npm install runs or declines every install script on purpose: none is left unreviewed (no npm warning)', async () => {
    const { spawnSync } = await import('node:child_process');
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
    const r = spawnSync('npm', ['ls', '--all', '--json'], { cwd: root, encoding: 'utf8' });
    const problems = (JSON.parse(r.stdout) as { problems?: string[] }).problems ?? [];
    expect(problems.filter((p) => /^invalid|peer/.test(p))).toEqual([]);
  });

  it('is the first hour: at most 250 lines, no pointers into src/ or test/, no figures of benchmarks', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).not.toMatch(/\b(src|test|bench)\/[\w./-]+/);
    expect(readme).not.toMatch(/\bbench:|design\.md|\d\.\d+x\b/);
  });

  it('links every page of the manual, and the manual links every page of docs/', () => {
    const manual = read('docs/README.md');
    for (const page of pages.filter((p) => p.startsWith('docs/') && !p.startsWith('docs/internals/'))) {
      if (page === 'docs/README.md') continue;
      expect(readme, page).toContain(`(${page}`);
      expect(manual, page).toContain(`(${page.slice('docs/'.length)}`);
    }
    for (const page of pages.filter((p) => p.startsWith('docs/internals/') && !p.endsWith('README.md')))
      expect(read('docs/internals/README.md'), page).toContain(`(${page.slice('docs/internals/'.length)}`);
  });

  it("the tour pastes the sandbox's export line before the first command that needs it", () => {
    const tour = readme.slice(readme.indexOf('## A ten-minute tour'), readme.indexOf('## Exit codes'));
    const commands = [...tour.matchAll(/^\$ callctl (.+)$/gm)].map((m) => m[1]!);
    expect(commands[0]).toMatch(/^sandbox /);
    expect(commands[1]).toBe('auth login');
    const between = tour.slice(tour.indexOf('Ctrl-C to stop.'), tour.indexOf('$ callctl auth login'));
    expect(between).toMatch(/paste the `export` line/);
    // push and template send need what only the export line sets (flex-url, sign-key).
    expect(tour.indexOf('$ callctl push ')).toBeGreaterThan(tour.indexOf('$ callctl auth login'));
  });

  it('says what its samples show: the width of their terminal, and that a cron run stamps its lines (#36)', () => {
    const tour = readme.slice(readme.indexOf('## A ten-minute tour'), readme.indexOf('<!-- sample -->'));
    expect(tour).toContain(`${SAMPLE_COLUMNS}-column terminal`);
    const beforeUpload = readme.slice(0, readme.indexOf('<!-- sample -->\n```console\n$ callctl workflow update '));
    const sentence = beforeUpload.slice(beforeUpload.trimEnd().lastIndexOf('\n\n'));
    expect(sentence).toMatch(/from cron, each line starts with its time/);
  });

  it('carries no figures that go stale: release sizes are in CHANGELOG.md, measured (#36)', () => {
    expect(readme).not.toMatch(/\d+(\.\d+)? ?(MiB|MB|KiB|KB|kB)\b/);
    expect(readme).toMatch(/sizes: \[CHANGELOG\.md\]\(CHANGELOG\.md\)/);
    expect(read('CHANGELOG.md')).toMatch(
      /\*\*Release files\*\* \(`npm run release`[^)]*\): the npm tarball [\d.]+ MiB/,
    );
  });

  it('shows stdout and stderr in the order a terminal shows them (a note after the table it is about)', () => {
    const sample = /\$ callctl workflow list --size 5\n([\s\S]*?)```/.exec(read('docs/commands.md'))![1]!;
    expect(sample.indexOf('left out to fit')).toBeGreaterThan(sample.indexOf('└'));
    const upload = /\$ callctl workflow update [^\n]*--dry-run\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(upload.indexOf('checked demo.csv')).toBeLessThan(upload.indexOf('Batches it would send'));
    // On a terminal: no time stamps (they are for logs), and a progress line redrawn in place.
    expect(upload).not.toMatch(/^\d{4}-\d\d-\d\dT/m);
    expect(upload).not.toMatch(/checking demo\.csv/);
  });
});

describe('the docs', () => {
  it('every relative link reaches a file, and every #anchor a heading of it', () => {
    const broken: string[] = [];
    for (const page of [...pages, 'CHANGELOG.md', 'CONTRIBUTING.md']) {
      const text = read(page).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, hash] = target!.split('#') as [string, string | undefined];
        const path = file ? join(dirname(join(root, page)), file) : join(root, page);
        if (!existsSync(path)) {
          broken.push(`${page}: ${target} (no such file)`);
          continue;
        }
        if (!hash) continue;
        const headings = [...readFileSync(path, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!));
        if (!headings.includes(hash)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('show a fixture they name as it is: what goes in call.json for `api ... --flex --input` (#36)', () => {
    const api = read('docs/api.md');
    expect(api).toMatch(/--flex --input fixtures\/api\/call\.json/);
    const shown = [...api.matchAll(/`(fixtures\/[\w/.-]+\.json)` is one:\n\n```json\n([\s\S]*?)```/g)];
    expect(shown.map((m) => m[1])).toContain('fixtures/api/call.json');
    for (const [, file, text] of shown) expect(text, file).toBe(read(file!));
  });

  it('the pictures they show are in docs/', () => {
    for (const png of ['inspector.png', 'report.png']) expect(existsSync(join(root, 'docs', png)), png).toBe(true);
    expect(read('docs/inspector.md')).toContain('](inspector.png)');
    expect(read('docs/reports.md')).toContain('](report.png)');
  });
});

describe('the samples of every page', () => {
  it('are checked in README.md and every page under docs/', () => {
    expect(pages[0]).toBe('README.md');
    expect(pages).toEqual(expect.arrayContaining(['docs/commands.md', 'docs/reports.md', 'docs/internals/README.md']));
    expect(pages.filter((p) => /<!-- sample -->/.test(read(p))).length).toBeGreaterThan(3);
  });

  for (const page of pages.filter((p) => /<!-- sample -->/.test(read(p)))) {
    itWith(
      'script',
      `${page} shows what the commands print today, followed as the tour says (regenerate with \`npm run readme\`)`,
      async () => {
        const text = read(page);
        const rendered = await renderSamples(text, page);
        expect(rendered).toBe(text);
      },
      120_000,
    );
  }
});
