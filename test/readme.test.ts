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
  });

  it('shows what the commands print today (regenerate with `npm run readme`)', async () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rendered = (await renderSamples(readme)) as string;
    expect(readme.match(/<!-- sample -->/g)?.length ?? 0).toBeGreaterThan(5);
    expect(rendered).toBe(readme);
  }, 60_000);
});
