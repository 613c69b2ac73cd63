import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { startInspector } from '../../src/hooks/ui/server.js';
import { taskSign } from '../../src/signing/sign.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { NdjsonEvents } from '../../src/store/files/events.js';
import { DedupStore } from '../../src/store/files/memory.js';
import { post, tempDir, startListener, type ListenerEvent } from './helpers.js';
import { runUi, type Running } from './ui-helpers.js';

// Nothing a request sends can stop the receiver: hostile requests to every port serve-hooks opens
// (the receiver, the inspector beside it, the metrics port) and to a token-guarded inspector, each
// over a raw socket (so that any bytes can be sent), then the receiver still takes a notification.

const KEY = 'unbreakable-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'unbreakable', Sign: taskSign(id, KEY) });
const TOKEN = 'a-token-from-a-file-for-the-fuzz-0123';
const dir = tempDir('callctl-unbreakable-');
const log = join(dir, 'events.ndjson');
let hooks: Running;
let guarded: Running;
let metrics: string;
let csrf: string;

beforeAll(async () => {
  hooks = await runUi([
    'serve-hooks',
    '--port',
    '0',
    '--key',
    KEY,
    '--log',
    log,
    '--metrics-port',
    '0',
    '--metrics-path',
    '/metrics',
    '--ui',
    '--ui-port',
    '0',
  ]);
  metrics = /metrics on (http:\/\/\S+)/.exec(hooks.err())![1]!;
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  guarded = await runUi(['hooks', 'ui', '--log', log, '--port', '0', '--token-file', join(dir, 'token')]);
  expect((await post(hooks.hooks!, task('T-FIRST'))).status).toBe(200);
  csrf = /name="csrf-token" content="([^"]+)"/.exec((await post(hooks.ui, '', {}, 'GET')).body)![1]!;
});
afterAll(() => {
  hooks?.child.kill('SIGTERM');
  guarded?.child.kill('SIGTERM');
});

/**
 * Sends `head` (request line and headers, without the blank line) and `body` as bytes (latin1) on
 * a connection of its own; resolves with the status answered, or undefined when the connection
 * ended without an answer.
 */
function raw(base: string, head: string, body = ''): Promise<number | undefined> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.[01] (\d{3}) /.exec(text)?.[1]) || undefined));
    // A peer that resets after answering: the answer read so far decides.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.write(
      Buffer.from(`${head}\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`, 'latin1'),
    );
  });
}

const hostOf = (base: string) => new URL(base).host;

/** A header value of any byte but CR and LF, or one of the values that broke (or could break) a parser of ours. */
const headerValue = fc
  .oneof(
    fc.string({
      unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    }),
    fc.constantFrom(
      'null',
      '',
      'http://',
      'http://[',
      '://',
      'file://',
      'http://a:b@',
      '%',
      '%zz',
      'Bearer',
      'Bearer ',
      `Bearer ${TOKEN}x`,
      '=;=;;',
      'callctl_inspector=',
      `callctl_inspector=${TOKEN}; callctl_inspector=x`,
      'application/json; charset=',
      '1.2.3.4, , ,',
      ', ',
    ),
  )
  .map((v) => v.replace(/[\r\n]/g, ''));

/** A request target, URL-ish characters in any order. */
const target = fc
  .array(fc.constantFrom('/', '/', '\\', ':', '[', ']', '@', '%', '?', '#', '.', 'a', '1', '=', '&', '%2f', '..'), {
    maxLength: 12,
  })
  .map((parts) => parts.join('') || '/');

describe('no request stops serve-hooks', () => {
  it('the inspector: an Origin of null or one that is no URL is refused 4xx, and the receiver goes on', async () => {
    const send = (origin: string) =>
      raw(
        hooks.ui,
        `POST /api/events/1/send HTTP/1.1\r\nhost: ${hostOf(hooks.ui)}\r\ncontent-type: application/json\r\nx-csrf-token: ${csrf}\r\norigin: ${origin}`,
        '{}',
      );
    expect(await send('null')).toBe(403);
    expect(await send('http://[')).toBe(400);
    expect(await send('not a url')).toBe(400);
    expect(await raw(hooks.ui, `GET // HTTP/1.1\r\nhost: ${hostOf(hooks.ui)}`)).toBe(400);
    expect((await post(hooks.hooks!, task('T-AFTER-ORIGIN'))).status).toBe(200);
  });

  it('any header value and request target, to every port: each answered below 500, then a notification is taken', async () => {
    const ports = [
      // The receiver: a notification with one header made hostile.
      (name: string, value: string) =>
        raw(
          hooks.hooks!,
          `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${name}: ${value}`,
          task('T-F'),
        ),
      (name: string, value: string) => raw(hooks.hooks!, `GET /readyz HTTP/1.1\r\nhost: x\r\n${name}: ${value}`),
      (name: string, value: string) => raw(hooks.hooks!, `GET /metrics HTTP/1.1\r\nhost: x\r\n${name}: ${value}`),
      (name: string, value: string) => raw(metrics, `GET /metrics HTTP/1.1\r\nhost: x\r\n${name}: ${value}`),
      // The inspector on loopback (no token), and its one action.
      (name: string, value: string) =>
        raw(hooks.ui, `GET /api/events HTTP/1.1\r\nhost: ${hostOf(hooks.ui)}\r\n${name}: ${value}`),
      (name: string, value: string) =>
        raw(
          hooks.ui,
          `POST /api/events/1/send HTTP/1.1\r\nhost: ${hostOf(hooks.ui)}\r\ncontent-type: application/json\r\nx-csrf-token: ${csrf}\r\n${name}: ${value}`,
          '{}',
        ),
      // The inspector with a token: cookies, bearer and the address's token.
      (name: string, value: string) => raw(guarded.ui, `GET /api/events HTTP/1.1\r\nhost: x\r\n${name}: ${value}`),
      (name: string, value: string) =>
        raw(guarded.ui, `GET /?token=${encodeURIComponent(value)} HTTP/1.1\r\nhost: x\r\n${name}: ${value}`),
    ];
    const names = [
      'origin',
      'host',
      'cookie',
      'authorization',
      'x-csrf-token',
      'content-type',
      'x-forwarded-for',
      'x-service-sign',
      'accept',
      'x-callctl-verdict',
    ];
    await fc.assert(
      fc.asyncProperty(fc.nat(ports.length - 1), fc.constantFrom(...names), headerValue, async (port, name, value) => {
        const status = await ports[port]!(name, value);
        expect(status).toBeDefined();
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(hooks.ui, guarded.ui, hooks.hooks!, metrics), target, async (base, path) => {
        const status = await raw(base, `GET ${path} HTTP/1.1\r\nhost: ${hostOf(base)}`);
        expect(status).toBeDefined();
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
    expect((await post(hooks.hooks!, task('T-AFTER-FUZZ'))).status).toBe(200);
    // Every refusal was the request's doing: no handler failed on the way.
    expect(JSON.parse((await post(`${hooks.hooks}/healthz`, '', {}, 'GET')).body)).toMatchObject({ handlerErrors: 0 });
    expect((await post(`${hooks.ui}api/events?limit=1`, '', {}, 'GET')).status).toBe(200);
    expect(hooks.err()).not.toMatch(/Node\.js v| {4}at /);
    expect(guarded.err()).not.toMatch(/Node\.js v| {4}at /);
  }, 120_000);
});

/** The embedded store over a log, whose readiness fails as a bug would (thrown at once) while `armed`. */
class Faulty extends NdjsonEvents {
  armed = false;
  override ready(): Promise<string | undefined> {
    if (this.armed) throw new TypeError('a bug of ours');
    return super.ready();
  }
}

describe('a handler that fails unexpectedly: 500, counted, told once, and the process goes on', () => {
  it('the health routes, the metrics (on their path and their port), then a notification taken', async () => {
    const path = join(tempDir(), 'events.ndjson');
    const log = EventLog.open(path);
    const store = new Faulty(path, log, new DedupStore());
    const listener = await startListener({ port: 0, keys: [KEY], store, metricsPath: '/metrics', metricsPort: 0 });
    const events: ListenerEvent[] = [];
    listener.on((e) => events.push(e));
    try {
      store.armed = true;
      for (let i = 0; i < 3; i++) {
        const a = await post(`${listener.url}/readyz`, '', {}, 'GET');
        expect(a.status).toBe(500);
        expect(JSON.parse(a.body)).toEqual({ error: 'internal error' });
      }
      // The readiness gauge asks the same store: a scrape fails the same way, on either address.
      expect((await post(`${listener.url}/metrics`, '', {}, 'GET')).status).toBe(500);
      expect((await post(listener.metricsUrl!, '', {}, 'GET')).status).toBe(500);
      store.armed = false;

      expect((await post(`${listener.url}/readyz`, '', {}, 'GET')).status).toBe(200);
      expect((await post(listener.url, task('T-AFTER-500'))).status).toBe(200);
      const scraped = (await post(listener.metricsUrl!, '', {}, 'GET')).body;
      expect(scraped).toContain('callctl_hooks_handler_errors_total{handler="health"} 3');
      expect(scraped).toContain('callctl_hooks_handler_errors_total{handler="metrics"} 2');
      expect(JSON.parse((await post(`${listener.url}/healthz`, '', {}, 'GET')).body)).toMatchObject({
        handlerErrors: 5,
      });
      // Told once per handler and error, however many requests met it.
      expect(events.filter((e) => e.kind === 'error').map((e) => (e as { message: string }).message)).toEqual([
        'internal error in /healthz or /readyz, answered 500 and going on (the same error again is not told): TypeError: a bug of ours',
        'internal error in the metrics, answered 500 and going on (the same error again is not told): TypeError: a bug of ours',
      ]);
    } finally {
      await listener.close();
      await log.close();
    }
  });

  it('the inspector: 500 for its own failure, 503 for the store failing, 400 for what the request gets wrong', async () => {
    const path = join(tempDir(), 'events.ndjson');
    writeFileSync(path, '');
    // Reading one event fails as a store does (a disk, a connection): the store's failure.
    const store = new (class extends NdjsonEvents {
      override get(): ReturnType<NdjsonEvents['get']> {
        return Promise.reject(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      }
    })(path, undefined);
    const failures: unknown[] = [];
    const inspector = await startInspector({
      store,
      host: '127.0.0.1',
      port: 0,
      filterOf: (q) => {
        if (q.has('bug')) throw new TypeError('a bug of ours');
        if (q.has('bad')) throw new UsageError('--type: unknown type x');
        return {};
      },
      exportLines: () => ({ head: '', line: () => '' }),
      onError: (handler, error) => failures.push([handler, (error as Error).message]),
    });
    try {
      expect((await post(`${inspector.url}api/events?bug=1`, '', {}, 'GET')).status).toBe(500);
      expect((await post(`${inspector.url}api/events?bad=1`, '', {}, 'GET')).status).toBe(400);
      expect((await post(`${inspector.url}api/events`, '', {}, 'GET')).status).toBe(200);
      const unreadable = await post(`${inspector.url}api/events/1`, '', {}, 'GET');
      expect(unreadable.status).toBe(503);
      expect(JSON.parse(unreadable.body)).toEqual({ error: `cannot read ${path}: EIO: i/o error, read` });
      expect(failures).toEqual([['inspector', 'a bug of ours']]);
    } finally {
      await inspector.close();
    }
  });
});
