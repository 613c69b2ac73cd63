import { beforeEach } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../helpers/sandbox.js';

export { tempDir, writeIn } from '../helpers/temp.js';

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
 * The sandbox fixture (test/helpers/sandbox.ts) for a push or template test file, and the
 * environment that points the CLI at it for that kind of send. `use` is told of both before each test.
 */
export function useSendSandbox(
  kind: 'push' | 'template',
  use: (sandbox: Sandbox, env: Record<string, string>) => void,
): void {
  const fixture = useSandbox();
  beforeEach(() => {
    const { sandbox, configDir: config } = fixture;
    const target: Record<string, string> =
      kind === 'push'
        ? { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken }
        : { CALLCTL_BASE_URL: sandbox.url, CALLCTL_SIGN_KEY: sandbox.signKey, CALLCTL_SIGN_SECRET: sandbox.signSecret };
    use(sandbox, {
      ...target,
      CALLCTL_CONFIG_DIR: config,
      XDG_STATE_HOME: `${config}/state`,
      XDG_CACHE_HOME: `${config}/cache`,
    });
  });
}
