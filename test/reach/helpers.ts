import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { tempConfigDir } from '../helpers/cli.js';

/** A fresh temporary folder. */
export function tempDir(prefix = 'callctl-send-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a file in `dir` and returns its path. */
export function writeIn(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Requests the sandbox received on a route, by route key such as `POST /flex/api/push/<token>`. */
export function received(sandbox: Sandbox, pathPrefix: string) {
  return sandbox.requests.filter((r) => r.path.startsWith(pathPrefix));
}

/** A CSV of push rows: caller ids +628000000001.. with a debt amount per row. */
export function pushCsv(rows: number, start = 1): string {
  const lines = ['caller_id,client_name,debt_amount'];
  for (let i = start; i < start + rows; i++) lines.push(`+628${String(i).padStart(9, '0')},Client ${i},${i * 1000}`);
  return `${lines.join('\n')}\n`;
}

/**
 * One sandbox for a push or template test file, started once and reset before each test, and the
 * environment that points the CLI at it. `use` is told of both before each test.
 */
export function useSendSandbox(kind: 'push' | 'template', use: (sandbox: Sandbox, env: Record<string, string>) => void): void {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.resetFaults();
    sandbox.requests.length = 0;
    sandbox.state.received.pushes.length = 0;
    sandbox.state.received.templates.length = 0;
    const target: Record<string, string> =
      kind === 'push'
        ? { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken }
        : { CALLCTL_BASE_URL: sandbox.url, CALLCTL_SIGN_KEY: sandbox.signKey, CALLCTL_SIGN_SECRET: sandbox.signSecret };
    const config = tempConfigDir();
    use(sandbox, { ...target, CALLCTL_CONFIG_DIR: config, XDG_STATE_HOME: `${config}/state`, XDG_CACHE_HOME: `${config}/cache` });
  });
}
