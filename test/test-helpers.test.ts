/** The test fixtures themselves: temporary folders are removed, the sandbox starts each test clean. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from './helpers/sandbox.js';
import { tempDir } from './helpers/temp.js';

describe('tempDir', () => {
  const forTheFile = tempDir('callctl-helper-file-');
  let madeInTest = '';
  let keptForFile = '';

  it('makes an empty folder', () => {
    madeInTest = tempDir('callctl-helper-test-');
    keptForFile = tempDir('callctl-helper-kept-', 'file');
    writeFileSync(join(madeInTest, 'x'), 'x');
    expect(existsSync(join(madeInTest, 'x'))).toBe(true);
  });

  it('removes a folder made in a test once that test ends; keeps the file-wide ones', () => {
    expect(madeInTest).not.toBe('');
    expect(existsSync(madeInTest)).toBe(false);
    expect(existsSync(keptForFile)).toBe(true);
    expect(existsSync(forTheFile)).toBe(true);
  });
});

describe('tempDir in beforeEach', () => {
  const made: string[] = [];
  beforeEach(() => {
    made.push(tempDir('callctl-helper-each-'));
  });

  it('is there during its test', () => {
    expect(existsSync(made.at(-1)!)).toBe(true);
  });

  it('is removed once that test ends', () => {
    expect(made).toHaveLength(2);
    expect(existsSync(made[0]!)).toBe(false);
  });
});

describe('useSandbox', () => {
  const fixture = useSandbox({ variants: ['page-cap'] });

  it('gives a token the sandbox accepts and a config folder', async () => {
    const res = await fetch(`${fixture.env.CALLCTL_BASE_URL}/service/cloud/robot`, {
      headers: { authorization: `Token ${fixture.token}` },
    });
    expect(((await res.json()) as { code: number }).code).toBe(200);
    expect(existsSync(fixture.configDir)).toBe(true);
    fixture.sandbox.setFaults({ fail500: 3 });
    fixture.sandbox.setVariants(['errors-http']);
  });

  it('starts each test as the file started it: no fault, its own variants, nothing recorded', () => {
    expect(fixture.sandbox.faults.fail500).toBe(0);
    expect(fixture.sandbox.variants()).toEqual(['page-cap']);
    expect(fixture.sandbox.requests).toEqual([]);
  });
});
