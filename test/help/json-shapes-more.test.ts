/**
 * The `--json` of the commands that need more than the sandbox, parsed with their schemas (the shapes
 * their help pages show; test/help/json-shapes.test.ts has the rest): serve-hooks receiving real
 * signed requests sent by `hooks trigger`, the hooks commands reading what it recorded (an NDJSON
 * log and the real PostgreSQL store, with forwards), the store commands, and the sandbox command.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_TYPES } from '../../src/commands/hooks/trigger.js';
import { testIO } from '../helpers/io.js';
import { main } from '../../src/main.js';
import { runCli, signalIO, tempConfigDir, type CliResult } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { post, startServeHooks, until } from '../hooks/helpers.js';
import { parseWith, SHAPES, type ShapeName } from './shape-table.js';

/** Expects the command's stdout to be JSON (NDJSON with `lines`) that the shape's schema accepts. */
function expectShape(shape: ShapeName, r: CliResult | string, lines = false): unknown[] {
  const out = typeof r === 'string' ? r : r.out;
  const { problems, docs } = parseWith(SHAPES[shape].schema, out, lines);
  expect(docs.length, typeof r === 'string' ? out : r.err).toBeGreaterThan(0);
  expect(problems).toBeUndefined();
  return docs;
}

const KEY = 'shape-key';
const SECRET = 'shape-chatbot-secret';
const TYPES = SAMPLE_TYPES;

describe('serve-hooks and the hooks commands', () => {
  const log = join(tempDir('callctl-shapes-', 'file'), 'events.ndjson');
  let store = '';
  let receiver: Awaited<ReturnType<typeof startServeHooks>>;
  let shared: Awaited<ReturnType<typeof startServeHooks>>;
  const triggers: CliResult[] = [];
  const env = () => ({ CALLCTL_CONFIG_DIR: tempConfigDir(), CALLCTL_STORE: store, CALLCTL_CHATBOT_SECRET: SECRET });

  beforeAll(async () => {
    store = await freshDatabase('shapes');
    // The receiver keeps an NDJSON log; the shared one records in PostgreSQL and forwards to the receiver.
    const hookEnv = { CALLCTL_CHATBOT_SECRET: SECRET };
    receiver = await startServeHooks({ log, key: [KEY] }, testIO({ env: hookEnv }), { json: true });
    shared = await startServeHooks(
      { key: [KEY], forwardTo: receiver.url },
      testIO({ env: { ...hookEnv, CALLCTL_STORE: store } }),
      { json: true },
    );
    // task.end twice with the same ids: the second is the service's retry of the first.
    const same = (type: string) =>
      type === 'task.end' ? ['--set', 'TaskID=T-SHAPES-1', '--set', 'PlanName=P-SHAPES'] : [];
    for (const type of [...TYPES, 'task.end'])
      triggers.push(
        await runCli(['hooks', 'trigger', type, ...same(type), '--url', shared.url, '--key', KEY, '--json'], {
          env: env(),
        }),
      );
    // A wrong signature (rejected), and a request refused before its type was known.
    triggers.push(
      await runCli(['hooks', 'trigger', 'task.end', '--url', shared.url, '--key', KEY, '--tamper', 'sign', '--json'], {
        env: env(),
      }),
    );
    expect((await post(shared.url, 'not json')).status).toBe(400);
    // Each accepted first arrival is forwarded to the receiver and recorded there.
    await until(() => receiver.io.out().split('\n').filter(Boolean).length >= TYPES.length);
  });
  afterAll(async () => {
    await shared?.stop();
    await receiver?.stop();
  });

  it('hooks trigger', () => {
    expect(triggers.map((r) => r.code)).toEqual([...TYPES.map(() => 0), 0, 1]);
    for (const r of triggers) expectShape('hooksTrigger', r);
  });

  it('serve-hooks, one line per event (both receivers)', () => {
    const lines = expectShape('serveHooks', shared.io.out(), true) as Array<Record<string, unknown>>;
    expect(lines.map((l) => l.verdict)).toContain('rejected');
    expect(lines.some((l) => l.duplicate === true)).toBe(true);
    expectShape('serveHooks', receiver.io.out(), true);
  });

  it('hooks events, from the NDJSON log and from the store (with forwards)', async () => {
    expectShape('hooksEvents', await runCli(['hooks', 'events', '--log', log, '--json'], { env: env() }), true);
    const r = await runCli(['hooks', 'events', '--json'], { env: env() });
    const lines = expectShape('hooksEvents', r, true) as Array<Record<string, unknown>>;
    expect(lines.some((l) => l.type === null)).toBe(true);
    expect(lines.some((l) => l.forward !== undefined)).toBe(true);
  });

  it('hooks show, from the NDJSON log and from the store', async () => {
    expectShape('hooksShow', await runCli(['hooks', 'show', '1', '--log', log, '--json'], { env: env() }));
    const [first] = (await runCli(['hooks', 'events', '--json', '--type', 'task.end'], { env: env() })).out.split('\n');
    const id = (JSON.parse(first!) as { id: string }).id;
    const [shown] = expectShape('hooksShow', await runCli(['hooks', 'show', id, '--json'], { env: env() }));
    expect(shown).toMatchObject({ id, type: 'task.end', arrivals: 2, forward: { state: 'done' } });
  });

  it('hooks replay', async () => {
    const r = await runCli(['hooks', 'replay', '--log', log, '--to', receiver.url, '--json'], { env: env() });
    expect(r.code, r.err).toBe(0);
    expect(expectShape('hooksReplay', r, true)).toHaveLength(TYPES.length);
  });

  it('store migrate (a new database, then an up-to-date one) and store status', async () => {
    const fresh = await freshDatabase('shapes_migrate');
    const first = await runCli(['store', 'migrate', '--json'], { env: { ...env(), CALLCTL_STORE: fresh } });
    expect(first.code, first.err).toBe(0);
    expect((expectShape('storeMigrate', first)[0] as { applied: number[] }).applied.length).toBeGreaterThan(0);
    const again = await runCli(['store', 'migrate', '--json'], { env: env() });
    expect(again.code, again.err).toBe(0);
    expect(expectShape('storeMigrate', again)[0]).toMatchObject({ applied: [] });
    const status = await runCli(['store', 'status', '--json'], { env: env() });
    expect(status.code, status.err).toBe(0);
    expect((expectShape('storeStatus', status)[0] as { events: number }).events).toBeGreaterThan(0);
  });
});

it('sandbox prints one line its schema accepts, then serves until SIGTERM', async () => {
  const io = signalIO({ CALLCTL_CONFIG_DIR: tempConfigDir() });
  const running = main(['sandbox', '--json', '--port', '0'], io);
  await until(() => io.out().includes('\n'));
  io.fire('SIGTERM');
  expect(await running).toBe(0);
  expectShape('sandbox', io.out());
});
