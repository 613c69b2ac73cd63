import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { HookRecord } from '../../src/store/events.js';
import type { EventLog } from '../../src/store/files/event-log.js';
import { NdjsonEvents } from '../../src/store/files/events.js';
import { testIO } from '../helpers/io.js';
import * as listener from '../../src/hooks/listener.js';
import type { VerifyOptions } from '../../src/hooks/verify.js';
import { createVerifier as verifier } from '../../src/hooks/verify.js';

export type { Listener, ListenerEvent } from '../../src/hooks/listener.js';
import { tempDir } from '../helpers/temp.js';

export { tempDir };

/** serve-hooks' defaults (its flags'), in the listener's units: what a test leaves out. */
export const LISTENER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8787,
  maxBodyBytes: 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  keepAliveTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 512,
  maxConnectionsPerPeer: 64,
  forwardLeaseMs: 120_000,
  forwardQueue: 1_000,
  forwardQueueBytes: 64 * 1024 * 1024,
  drainTimeoutMs: 10_000,
  refusedLogRate: 10,
  signCommandTimeoutMs: 5_000,
  signConcurrency: 8,
  maxAgeMs: 15 * 60_000,
} satisfies Partial<listener.ListenerOptions>;

type Defaulted<T> = Omit<T, keyof typeof LISTENER_DEFAULTS> & Partial<T>;

/** A listener's options as a test gives them: serve-hooks' defaults for what it leaves out. */
export type ListenerOptions = Defaulted<listener.ListenerOptions>;

/** startListener with serve-hooks' defaults for what the test leaves out (undefined included). */
export function startListener(options: ListenerOptions): Promise<listener.Listener> {
  return listener.startListener(withDefaults(options));
}

/** The verifier with serve-hooks' defaults for what the test leaves out. */
export function createVerifier(options: Defaulted<VerifyOptions>) {
  return verifier(withDefaults(options));
}

export function withDefaults<T extends object>(options: T): T & typeof LISTENER_DEFAULTS {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return { ...LISTENER_DEFAULTS, ...given } as T & typeof LISTENER_DEFAULTS;
}

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The files store's events over a log the test opened (EventLog.open), or in memory without one:
 * what serve-hooks gets from Store.events for `--log FILE`, or for no log.
 */
export function logEvents(log?: EventLog): NdjsonEvents {
  return new NdjsonEvents(log?.path, log);
}

/**
 * The same over a log that already holds records: those received within `rememberMs` count as
 * seen (a restart), as serve-hooks opens it.
 */
export function reopenedLog(path: string, rememberMs = 60_000, now?: () => number): NdjsonEvents {
  return NdjsonEvents.open(path, { write: true, rememberMs, now });
}

/** POSTs bytes over loopback and reads the answer. */
export async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
): Promise<Answer> {
  const res = await request(url, {
    method: method as 'POST',
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : body,
  });
  return { status: res.statusCode, body: await res.body.text(), headers: res.headers };
}

/** The records of an NDJSON log, skipping a line cut short. */
export function readRecords(path: string): HookRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as HookRecord];
      } catch {
        return [];
      }
    });
}

export const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/hooks/sign-vectors.json', import.meta.url), 'utf8'),
) as {
  md5: Array<{ kind: 'task' | 'plan'; value: string; key: string; sign: string }>;
  hmac: Array<{ body: string; secret: string; sign: string }>;
};

/** Runs `serve-hooks` in-process (its real command module) with a test IO, until stopped. */
export async function startServeHooks(
  opts: Partial<import('../../src/commands/serve-hooks/serve.js').ServeOptions>,
  io = testIO(),
  globals: { json?: boolean; configDir?: string } = {},
) {
  const { Context } = await import('../../src/context.js');
  const { runServeHooks: run } = await import('../../src/commands/serve-hooks/serve.js');
  const ctx = new Context(io, {
    json: false,
    color: false,
    verbose: false,
    input: false,
    configDir: tempDir('callctl-cfg-'),
    ...globals,
  });
  const stopper = new AbortController();
  let ready!: (url: string) => void;
  const listening = new Promise<string>((r) => (ready = r));
  const done = run(ctx, {
    ...(await declaredDefaults()),
    host: '127.0.0.1',
    port: 0,
    ...opts,
    stop: stopper.signal,
    onListening: ready,
  });
  const url = await Promise.race([
    listening,
    done.then(() => Promise.reject(new Error(`serve-hooks ended: ${io.err()}`))),
  ]);
  return {
    url,
    io,
    /** Stops as SIGTERM would and resolves with the exit code. */
    stop: () => {
      stopper.abort();
      return done;
    },
    /** The NDJSON objects printed so far. */
    shown: () =>
      io
        .out()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** serve-hooks' options as its declaration gives them with no flag (the defaults), parsed by the real tree. */
async function declaredDefaults() {
  const [{ buildProgram }, { makeDeps }] = await Promise.all([
    import('../../src/program.js'),
    import('../../src/commands/action.js'),
  ]);
  const io = testIO();
  const state = { exitCode: 0 };
  let declared: unknown;
  const deps = makeDeps(io, state, async (_command, opts) => {
    declared = opts;
    return 0;
  });
  await (await buildProgram(io, state, deps, ['serve-hooks'])).parseAsync(['serve-hooks'], { from: 'user' });
  return declared as import('../../src/commands/serve-hooks/serve.js').ServeOptions;
}

/** Polls until `cond` holds (or fails after `ms`). */
export async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
