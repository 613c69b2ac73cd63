// Property and load tests of serve-hooks (issue 13, 8): generated bodies, headers and signatures
// over real HTTP, slow clients and a slow app; bounded to seconds. Invariants: no crash, only the
// documented status codes, every 200 in the log, nothing unverified forwarded as verified.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import { recordBody } from '../../src/store/events.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody } from '../../src/hooks/samples.js';
import { notificationTransport } from '../../src/hooks/send.js';
import { post, readRecords, tempDir, until, logEvents, startListener, type Listener } from './helpers.js';
import { SAMPLE_TYPES } from '../../src/commands/hooks/trigger.js';

const DOCUMENTED = new Set([200, 400, 401, 405, 413, 415, 503]);
const KEY = 'prop-key';
const SECRET = 'prop-secret';
const TYPES = SAMPLE_TYPES;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let listener: Listener;
let log: EventLog;
let logPath: string;
let app: Server;
/** What reached the app behind: body hash -> the verdict header it came with. */
const forwarded: Array<{ hash: string; verdict: string | undefined }> = [];

beforeAll(async () => {
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        forwarded.push({
          hash: sha(Buffer.concat(chunks)),
          verdict: req.headers['x-callctl-verdict'] as string | undefined,
        });
        res.end('{}');
      });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  logPath = join(tempDir(), 'props.ndjson');
  log = EventLog.open(logPath);
  listener = await startListener({
    port: 0,
    keys: [KEY],
    chatbotSecret: SECRET,
    store: logEvents(log),
    refusedLogRate: 100_000,
    forwardTo: `http://127.0.0.1:${(app.address() as AddressInfo).port}/app`,
    forwardTransport: notificationTransport({ sleep: async () => undefined }),
  });
});
afterAll(async () => {
  await listener.close();
  await log.close();
  app.close();
});

/** A request: a sample of a type, signed right, signed wrong or not at all, maybe changed after signing. */
const request = fc.record({
  type: fc.constantFrom(...TYPES),
  signing: fc.constantFrom('right', 'wrong-key', 'none', 'garbage'),
  change: fc.option(
    fc.tuple(
      fc.constantFrom('TaskID', 'PlanName', 'Timestamp', 'call_id', 'event', 'msg_id', 'Sign', 'PlanDetails'),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { nil: undefined },
  ),
  contentType: fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/vnd.x+json',
    '',
  ),
  extraHeader: fc.option(fc.constantFrom('x-callctl-verdict', 'x-service-sign', 'user-agent'), { nil: undefined }),
  junk: fc.option(
    fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.string({ maxLength: 200 }).map((t) => Buffer.from(t)),
    ),
    { freq: 4, nil: undefined },
  ),
});

describe('serve-hooks under generated requests (fast-check)', () => {
  it('answers only documented codes, logs every 200, and never forwards an unverified event as verified', async () => {
    /** Bodies the generator signed correctly and did not change after: the only ones that may be "verified". */
    const genuine = new Set<string>();
    const acked: string[] = [];
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        let raw: Buffer;
        let headers: Record<string, string> = {};
        if (r.junk) raw = Buffer.from(r.junk);
        else {
          const body = sampleBody(r.type);
          const signer =
            r.signing === 'right'
              ? { key: KEY, chatbot: { secret: SECRET } }
              : r.signing === 'wrong-key'
                ? { key: 'not-the-key', chatbot: { secret: 'not-the-secret' } }
                : {};
          if (r.signing === 'none' || r.signing === 'garbage')
            (body as Record<string, unknown>).Sign = r.signing === 'garbage' ? 'x'.repeat(32) : 'set';
          const out = await signNotification(r.type, body, signer);
          raw = out.body;
          headers = out.headers;
          // What the signature covers: Timestamp (plan), TaskID (task), every byte (chatbot).
          const covered =
            r.type === 'plan.end' ? ['Timestamp', 'Sign'] : r.type === 'task.end' ? ['TaskID', 'Sign'] : null;
          if (r.change) {
            const o = JSON.parse(raw.toString()) as Record<string, unknown>;
            o[r.change[0]] = r.change[1];
            raw = Buffer.from(JSON.stringify(o));
          }
          const intact = !r.change || (covered !== null && !covered.includes(r.change[0]));
          if (r.signing === 'right' && intact) genuine.add(sha(raw));
        }
        headers['content-type'] = r.contentType;
        if (r.extraHeader) headers[r.extraHeader] = r.extraHeader === 'x-callctl-verdict' ? 'verified' : 'f'.repeat(64);
        const answer = await post(listener.url, raw, headers);
        expect(DOCUMENTED.has(answer.status), `status ${answer.status}`).toBe(true);
        if (answer.status === 200) acked.push(sha(raw));
      }),
      { numRuns: 400, seed: 13 },
    );
    // Every 200 is in the log with its exact bytes.
    const logged = new Set(
      readRecords(logPath)
        .filter((r) => r.status === 200)
        .map((r) => sha(recordBody(r))),
    );
    expect(acked.filter((h) => !logged.has(h))).toEqual([]);
    // Forwards finish; none of them claims "verified" for a body that was not genuinely signed.
    await until(() => listener.stats().forwardQueue === 0 && listener.stats().forwardDeferred === 0, 10_000);
    expect(forwarded.length).toBeGreaterThan(0);
    expect(forwarded.filter((f) => f.verdict === 'verified' && !genuine.has(f.hash))).toEqual([]);
    expect(forwarded.every((f) => ['verified', 'unverified', 'unsigned', 'skipped'].includes(f.verdict ?? ''))).toBe(
      true,
    );
    expect((await post(`${listener.url}/healthz`, '', {}, 'GET')).status).toBe(200);
  }, 60_000);
});

describe('slow clients and a slow app', () => {
  it('slow clients are cut off by the timeouts while the service still gets through', async () => {
    const l = await startListener({
      port: 0,
      keys: [KEY],
      store: logEvents(),
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      maxConnectionsPerPeer: 40,
    });
    const { port } = new URL(l.url);
    const sockets: Socket[] = [];
    const closed: number[] = [];
    const started = Date.now();
    // Clients trickling a request byte by byte, never finishing it.
    const SLOW = 30;
    for (let i = 0; i < SLOW; i++) {
      const s = connect(Number(port), '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => closed.push(Date.now() - started));
      const text =
        'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"TaskID":';
      let at = 0;
      const timer = setInterval(
        () => (at < text.length && !s.destroyed ? s.write(text[at++]!) : clearInterval(timer)),
        50,
      );
      s.on('close', () => clearInterval(timer));
      sockets.push(s);
    }
    const body = (await signNotification('task.end', sampleBody('task.end'), { key: KEY })).body;
    const answer = await post(l.url, body);
    expect(answer.status).toBe(200);
    await until(() => closed.length === SLOW, 8_000).catch(() => {
      throw new Error(`${closed.length} of ${SLOW} slow clients cut off: ${JSON.stringify(closed)}`);
    });
    expect(Math.max(...closed)).toBeLessThan(5_000);
    sockets.forEach((s) => s.destroy());
    await l.close();
  });

  it('a slow app holds only the forward queue; every event is still answered 200 at once and logged', async () => {
    const held: Array<() => void> = [];
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(() => res.end('{}')));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const path = join(tempDir(), 'slow-app.ndjson');
    const slowLog = EventLog.open(path);
    const l = await startListener({
      port: 0,
      keys: [KEY],
      store: logEvents(slowLog),
      forwardQueue: 8,
      forwardTo: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`,
    });
    const started = Date.now();
    const answers = await Promise.all(
      Array.from(
        { length: 60 },
        async () =>
          (await post(l.url, (await signNotification('task.end', sampleBody('task.end'), { key: KEY })).body)).status,
      ),
    );
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readRecords(path)).toHaveLength(60);
    expect(l.stats()).toMatchObject({ forwardQueue: 8, forwardDeferred: 52 });
    expect(held.length).toBeLessThanOrEqual(8);
    // Let the app answer everything: the rest follow from the log.
    const drain = setInterval(() => held.splice(0).forEach((f) => f()), 20);
    await until(() => l.stats().forwardQueue === 0 && l.stats().forwardDeferred === 0, 10_000);
    clearInterval(drain);
    await l.close();
    await slowLog.close();
    slow.close();
  });
});
