import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import { recordBody } from '../../src/store/events.js';
import { schemaWarnings, detectType } from '../../src/schemas/detect.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody } from '../../src/hooks/samples.js';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { post, readRecords, tempDir, logEvents, startListener, type Listener } from './helpers.js';
import { SAMPLE_TYPES } from '../../src/commands/hooks/trigger.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function listener(options: Partial<Parameters<typeof startListener>[0]> = {}) {
  const logPath = join(tempDir(), 'events.ndjson');
  const log = EventLog.open(logPath);
  const l: Listener = await startListener({ port: 0, keys: ['trig-key'], store: logEvents(log), ...options });
  cleanup.push(async () => {
    await l.close();
    await log.close();
  });
  return { url: l.url, logPath };
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--config-dir', tempConfigDir()], { env });

describe('hooks trigger', () => {
  it.each(SAMPLE_TYPES)('%s: a schema-valid sample, correctly signed, answered 200', async (type) => {
    const secret = 'trigger-chat-secret';
    const { url, logPath } = await listener({ chatbotSecret: secret });
    const r = await cli(['hooks', 'trigger', type, '--url', url, '--key', 'trig-key', '--json'], {
      CALLCTL_CHATBOT_SECRET: secret,
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ type, status: 200, body: '{}' });
    const [record] = readRecords(logPath);
    expect(record).toMatchObject({ type, status: 200 });
    expect(record!.warnings).toBeUndefined();
    expect(record!.verdict).toBe(type.startsWith('chatbot.') || type.endsWith('.end') ? 'verified' : 'unsigned');
    expect(r.out + r.err).not.toContain(secret);
  });

  it('--tamper sign and --tamper body are answered 401, exit 1', async () => {
    const { url } = await listener();
    for (const tamper of ['sign', 'body']) {
      const r = await cli(['hooks', 'trigger', 'plan.end', '--url', url, '--key', 'trig-key', '--tamper', tamper]);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/^plan\.end\t401\t/);
      expect(r.err).toMatch(/answered HTTP 401/);
    }
  });

  it('--set changes fields before signing (field=text, field:=json)', async () => {
    const { url, logPath } = await listener();
    const now = Math.floor(Date.now() / 1000); // a fresh Timestamp: a stale one is refused
    const r = await cli(
      [
        'hooks',
        'trigger',
        'plan.end',
        '--url',
        url,
        '--set',
        'PlanName=PLAN-X',
        '--set',
        `Timestamp:=${now}`,
        '--set',
        'PlanDetails.0.Status=canceled',
      ],
      {
        CALLCTL_HOOK_KEYS: 'trig-key',
      },
    );
    expect(r.code, r.err).toBe(0);
    const body = JSON.parse(readRecords(logPath)[0]!.body!) as {
      PlanName: string;
      Timestamp: number;
      PlanDetails: Array<{ Status: string }>;
    };
    expect(body).toMatchObject({ PlanName: 'PLAN-X', Timestamp: now });
    expect(body.PlanDetails[0]!.Status).toBe('canceled');
    expect(readRecords(logPath)[0]).toMatchObject({ verdict: 'verified' });
  });

  it('--dry-run prints a body of the type that passes its schema', async () => {
    const r = await cli(['hooks', 'trigger', 'template.status', '--dry-run']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out) as unknown;
    expect(detectType(body)).toBe('template.status');
    expect(schemaWarnings('template.status', body)).toEqual([]);
  });

  it.each([
    [['hooks', 'trigger', 'task.end', '--url', 'http://127.0.0.1:9'], /task\.end is signed with a KEY/],
    [['hooks', 'trigger', 'nope.end', '--url', 'http://127.0.0.1:9'], /unknown type nope\.end/],
    [
      ['hooks', 'trigger', 'template.status', '--url', 'http://127.0.0.1:9', '--tamper', 'sign'],
      /not signed: --tamper does not apply/,
    ],
    [['hooks', 'trigger', 'template.status'], /missing --url/],
    [
      ['hooks', 'trigger', 'template.status', '--url', 'http://127.0.0.1:9', '--set', 'oops'],
      /--set: expected field=value/,
    ],
  ])('%j is a usage error', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('a receiver answering 5xx or 429 (a receiver whose store is down answers 503) may pass by itself: exit 5, not 1', async () => {
    for (const status of [503, 500, 429]) {
      const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(status).end('{}')));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const r = await cli([
          'hooks',
          'trigger',
          'task.end',
          '--key',
          'k',
          '--url',
          `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        ]);
        expect(r.code, r.err).toBe(5);
        expect(r.err).toMatch(
          new RegExp(
            `^error: hooks trigger: the receiver answered HTTP ${status}; this may pass by itself: run again later`,
          ),
        );
      } finally {
        server.close();
      }
    }
  });

  it('a receiver that cannot be reached is a network error, exit 5', async () => {
    const r = await cli(['hooks', 'trigger', 'template.status', '--url', 'http://127.0.0.1:9/hooks']);
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/^error: hooks trigger: POST http:\/\/127.0.0.1:9: connection refused/);
  });
});

describe('hooks replay', () => {
  async function receiver(statuses: number[] = []) {
    const got: Array<{ body: Buffer; headers: IncomingHttpHeaders }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          got.push({ body: Buffer.concat(chunks), headers: req.headers });
          res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise((r) => server.close(r)));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app`, got };
  }

  /** A log with: task end (twice: a retry), a rejected task end, a template status, a chatbot transfer, a 415. */
  async function recorded(secret: string) {
    const { url, logPath } = await listener({ chatbotSecret: secret });
    const task = await signNotification('task.end', sampleBody('task.end'), { key: 'trig-key' });
    await post(url, task.body, task.headers);
    await post(url, task.body, task.headers);
    const bad = await signNotification('task.end', sampleBody('task.end'), { key: 'wrong' });
    await post(url, bad.body, bad.headers);
    const tpl = await signNotification('template.status', sampleBody('template.status'));
    await post(url, tpl.body, { ...tpl.headers, 'user-agent': 'the-service/1.0' });
    const chat = await signNotification('chatbot.transfer', sampleBody('chatbot.transfer'), { chatbot: { secret } });
    await post(url, chat.body, chat.headers);
    await post(url, '{}', { 'content-type': 'text/plain' });
    return { logPath, task, tpl, chat };
  }

  it('sends accepted events again byte for byte, each once, in order; re-signs chatbot events', async () => {
    const secret = 'replay-secret';
    const { logPath, task, tpl, chat } = await recorded(secret);
    const app = await receiver();
    const r = await cli(['hooks', 'replay', '--log', logPath, '--to', app.url], { CALLCTL_CHATBOT_SECRET: secret });
    expect(r.code, r.err).toBe(0);
    expect(app.got.map((g) => g.body.toString())).toEqual([
      task.body.toString(),
      tpl.body.toString(),
      chat.body.toString(),
    ]);
    expect(app.got[1]!.headers['user-agent']).toBe('the-service/1.0');
    expect(app.got[2]!.headers['x-service-sign']).toBe(defaultServiceSign(chat.body, secret));
    expect(
      r.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['task.end', 'template.status', 'chatbot.transfer']);
    expect(r.err).toMatch(/replayed 3 events/);
  });

  it('filters by --events and --since; warns when chatbot events cannot be signed again', async () => {
    const { logPath, chat } = await recorded('s');
    const app = await receiver();
    const r = await cli([
      'hooks',
      'replay',
      '--log',
      logPath,
      '--to',
      app.url,
      '--events',
      'chatbot.transfer',
      '--since',
      '1h',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(app.got.map((g) => g.body.equals(chat.body))).toEqual([true]);
    expect(app.got[0]!.headers['x-service-sign']).toBeUndefined();
    expect(r.err).toMatch(/X-Service-Sign is not kept in the log/);
    const later = await cli([
      'hooks',
      'replay',
      '--log',
      logPath,
      '--to',
      app.url,
      '--since',
      new Date(Date.now() + 60_000).toISOString(),
    ]);
    expect(later.code).toBe(0);
    expect(later.err).toMatch(/replayed 0 events/);
  });

  it('exits 5 (run again later) when the receiver keeps answering 5xx, after retrying', async () => {
    const { logPath } = await recorded('s');
    const app = await receiver([500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500]);
    const r = await cli(['hooks', 'replay', '--log', logPath, '--to', app.url, '--events', 'task.end']);
    expect(r.code).toBe(5);
    expect(app.got).toHaveLength(4); // the first try and 3 retries
    expect(r.err).toMatch(/1 answered with an error \(HTTP 500\).*this may pass by itself: run again later/);
  });

  it('exits 1 when the receiver refuses (4xx): running again will not help', async () => {
    const { logPath } = await recorded('s4');
    const app = await receiver([400, 400, 400, 400]);
    const r = await cli(['hooks', 'replay', '--log', logPath, '--to', app.url, '--events', 'task.end']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/1 answered with an error \(HTTP 400\)/);
  });

  it('never signs an event that was not verified on arrival: skipped, or sent unsigned with --include-unverified', async () => {
    // Received without a chatbot secret: the (forged) transfer is recorded as unverified.
    const { url, logPath } = await listener();
    const forged = await signNotification('chatbot.transfer', sampleBody('chatbot.transfer'), {
      chatbot: { signature: 'f'.repeat(64) },
    });
    expect((await post(url, forged.body, forged.headers)).status).toBe(200);
    const task = await signNotification('task.end', sampleBody('task.end'), { key: 'trig-key' });
    await post(url, task.body, task.headers);
    const app = await receiver();
    const secret = { CALLCTL_CHATBOT_SECRET: 'replay-secret' };
    const r = await cli(['hooks', 'replay', '--log', logPath, '--to', app.url], secret);
    expect(r.code, r.err).toBe(0);
    expect(app.got.map((g) => g.body.toString())).toEqual([task.body.toString()]);
    expect(r.err).toMatch(/skipped 1 event not verified on arrival/);
    const all = await cli(['hooks', 'replay', '--log', logPath, '--to', app.url, '--include-unverified'], secret);
    expect(all.code, all.err).toBe(0);
    expect(app.got.slice(1).map((g) => [g.body.toString(), g.headers['x-service-sign']])).toEqual([
      [forged.body.toString(), undefined],
      [task.body.toString(), undefined],
    ]);
  });

  it('keeps a body that is not UTF-8 exact through the log', async () => {
    const { url, logPath } = await listener();
    const raw = Buffer.concat([Buffer.from('{"TaskID":"T-\xff'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    await post(url, raw);
    expect(recordBody(readRecords(logPath)[0]!).equals(raw)).toBe(true);
  });
});
