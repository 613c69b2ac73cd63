/**
 * Several "hosts" sharing one PostgreSQL store, for the tests of what callctl on several machines
 * does with the same work (test/state/shared-*.test.ts): one sandbox for the test file, one fresh
 * database, each host its own config, state and cache folders, and runs of the built CLI
 * (bin/callctl.js, which loads dist/: `npm test` builds first) as child processes.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/server.js';
import { freshDatabase } from './postgres.js';
import { useSandbox } from './sandbox.js';
import { tempDir } from './temp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Hosts {
  /** The file's sandbox (from beforeAll on). */
  readonly sandbox: Sandbox;
  /** The database URL every host uses as its store, password included. */
  readonly store: string;
  /** A host's environment: its own folders, the one store, and `extra`. */
  host(name: string, extra: Record<string, string>): Record<string, string>;
}

/** Starts the file's sandbox (with `options`) and makes its database, named after `prefix`. */
export function useHosts(prefix: string, options: SandboxOptions = {}): Hosts {
  let store = '';
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    store = await freshDatabase(prefix);
  }, 60_000);
  const fixture = useSandbox(options);
  return {
    get sandbox() {
      return fixture.sandbox;
    },
    get store() {
      return store;
    },
    host(name, extra) {
      const dir = tempDir(`callctl-host-${name}-`);
      return {
        CALLCTL_CONFIG_DIR: join(dir, 'config'),
        XDG_STATE_HOME: join(dir, 'state'),
        XDG_CACHE_HOME: join(dir, 'cache'),
        CALLCTL_STORE: store,
        NO_COLOR: '1',
        ...extra,
      };
    },
  };
}

export interface BuiltRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the built CLI with `args` in a child process; one still running after `killAfterMs` is killed. */
export function runBuilt(args: string[], env: Record<string, string>, killAfterMs = 30_000): Promise<BuiltRun> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/callctl.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, out, err });
    }),
  );
}

/**
 * Runs `run` while, on the sandbox's `after`-th push from now, the server ends the store session
 * of every callctl named `application` ('callctl journal', 'callctl ledger'), as a database
 * restart would. Returns what `run` returned and whether the session was ended (`cut`: false
 * when the run never got that far).
 */
export async function cutSessionAfterPushes<T>(
  hosts: Hosts,
  application: string,
  after: number,
  run: () => Promise<T>,
): Promise<{ result: T; cut: boolean }> {
  const { sandbox } = hosts;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: hosts.store });
  await admin.connect();
  const before = sandbox.state.received.pushes.length;
  let cut: Promise<unknown> | undefined;
  const onPush = () => {
    if (sandbox.state.received.pushes.length - before === after)
      cut = admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        application,
      ]);
  };
  sandbox.events.on('push.received', onPush);
  try {
    const result = await run();
    const ended = cut !== undefined && (await cut) !== undefined;
    return { result, cut: ended };
  } finally {
    sandbox.events.off('push.received', onPush);
    await admin.end();
  }
}
