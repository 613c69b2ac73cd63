import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from './helpers/cli.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const run = promisify(execFile);
let sandbox: ChildProcess | undefined;

afterAll(() => {
  sandbox?.kill('SIGTERM');
});

/** Starts `callctl sandbox --port 0` as a person would and returns what it printed on stderr. */
async function startSandbox(env: Record<string, string> = {}): Promise<string> {
  sandbox?.kill('SIGTERM');
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  sandbox = child;
  let text = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('Ctrl-C to stop')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${text}`)));
  });
  return text;
}

describe("the sandbox's export line", () => {
  it('sets everything the tour needs: push and template send work from it as written', async () => {
    const banner = await startSandbox();
    // The export command as printed: from "export" through its continued lines.
    const lines = banner.split('\n');
    const start = lines.findIndex((l) => l.trimStart().startsWith('export '));
    expect(start).toBeGreaterThan(0);
    let end = start;
    while (lines[end]!.endsWith('\\')) end++;
    const exportCommand = lines.slice(start, end + 1).join('\n');
    for (const name of [
      'CALLCTL_BASE_URL',
      'CALLCTL_APP_KEY',
      'CALLCTL_APP_SECRET',
      'CALLCTL_FLEX_URL',
      'CALLCTL_PUSH_TOKEN',
      'CALLCTL_SIGN_KEY',
      'CALLCTL_SIGN_SECRET',
    ]) {
      expect(exportCommand).toContain(`${name}=`);
    }
    // Only the environment the line sets (and PATH for sh): no CALLCTL_* from the test's own.
    // HOME too: the pushes' ledger goes to the state folder under it (the suite's, not the user's).
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      NO_COLOR: '1',
    };
    const callctl = `"${process.execPath}" "${bin}"`;
    const script = [
      exportCommand,
      `${callctl} robots > /dev/null`,
      `${callctl} push --caller-id +6281234567001 --client-name Budi --var debt_amount=1500000 --yes`,
      `${callctl} template send --template-id 7 --channel whatsapp --channel-id +6281234567001 --var date=2026-12-01 --var name=Budi --reply-url https://example.com/replies --yes`,
      `${callctl} push --test --caller-id +6281234567001 --var debt_amount=1 --yes`,
    ].join(' && \\\n');
    const result = await run('sh', ['-c', script], { env }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect((result as { code?: number }).code ?? 0, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/call pushed for \+6281234567001, trace_id \S+/);
    expect(result.stderr).toMatch(/message sent \(.*\), task_id \S+/);
    expect(result.stderr).toMatch(/call pushed for \+6281234567001 \(test\)/);
  });
});

describe("a second sandbox, started where the first one's export line was pasted", () => {
  it('prints its credentials as they are, never *** as a value to paste', async () => {
    const first = await startSandbox();
    const exported = Object.fromEntries(
      [...first.matchAll(/(CALLCTL_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!] as [string, string]),
    );
    expect(Object.keys(exported)).toContain('CALLCTL_APP_SECRET');
    const second = await startSandbox(exported);
    expect(second).not.toContain('***');
    const line = (text: string) => text.slice(text.indexOf('export '), text.indexOf('callctl robots'));
    expect(line(second).replace(/127\.0\.0\.1:\d+/g, 'HOST')).toBe(line(first).replace(/127\.0\.0\.1:\d+/g, 'HOST'));
    expect(second).toMatch(/app secret\s+sbx-/);
  });
});

describe("the README's dates", () => {
  it('the tour starts the sandbox at the simulated time the samples were rendered at, and it serves those dates', async () => {
    const { SAMPLE_START_TIME } = await import('../scripts/readme-samples.mjs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`$ callctl sandbox --port 8780 --start-time ${SAMPLE_START_TIME}\n`);
    // The sandbox started as the tour says serves the dates the samples show.
    const shown = /^Schedule {2}(\S+) - /m.exec(readme)![1]!;
    const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--start-time', SAMPLE_START_TIME], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let text = '';
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (c: Buffer) => ((text += c.toString()), text.includes('Ctrl-C to stop') && resolve())),
    );
    const url = /base URL\s+(\S+)/.exec(text)![1]!;
    try {
      const env = {
        ...process.env,
        CALLCTL_BASE_URL: url,
        CALLCTL_APP_KEY: 'demo-app-key',
        CALLCTL_APP_SECRET: /app secret\s+(\S+)/.exec(text)![1]!,
        CALLCTL_CONFIG_DIR: tempConfigDir(),
      };
      const { stdout } = await run(process.execPath, [bin, 'task', 'detail', 'T-DEBT-0001'], { env });
      expect(stdout).toContain(`Schedule\t${shown} - `);
    } finally {
      child.kill('SIGTERM');
    }
    const bad = await run(process.execPath, [bin, 'sandbox', '--start-time', 'yesterday']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((bad as { code: number }).code).toBe(2);
  });
});
