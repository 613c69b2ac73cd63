import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import { recordBody } from '../../src/store/events.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody } from '../../src/hooks/samples.js';
import { readRecords, tempDir, logEvents, startListener, type Listener } from './helpers.js';
import { SAMPLE_TYPES } from '../../src/commands/hooks/trigger.js';

const ALLOWED = new Set([200, 400, 401, 405, 413, 415]);
const COUNT = 4_000;
const TYPES = SAMPLE_TYPES;

// A small deterministic generator, so that a failure can be reproduced from the seed.
let seed = 0x5eed1;
const rand = () => {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
const token = () =>
  Array.from({ length: 1 + int(12) }, () => pick('abcdefghijklmnopqrstuvwxyz0123456789-'.split(''))).join('');
const printable = () => Array.from({ length: int(40) }, () => String.fromCharCode(32 + int(95))).join('');

function randomJson(depth = 0): unknown {
  switch (int(depth > 2 ? 5 : 7)) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return int(1e9) * (rand() < 0.5 ? -1 : 1);
    case 3:
      return printable();
    case 4:
      return rand() * 1e6;
    case 5:
      return Array.from({ length: int(4) }, () => randomJson(depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: int(5) }, () => [
          pick(['TaskID', 'Sign', 'PlanName', 'Timestamp', 'event', 'msg_id', 'call', token()]),
          randomJson(depth + 1),
        ]),
      );
  }
}

/** A sample event with one field changed, removed or given a random value. */
async function mutated(): Promise<Buffer> {
  const type = pick(TYPES);
  const body = sampleBody(type);
  const { body: raw } = await signNotification(type, body, { key: 'fuzz-key', chatbot: { secret: 'fuzz-secret' } });
  const obj = JSON.parse(raw.toString()) as Record<string, unknown>;
  const key = pick(Object.keys(obj));
  if (rand() < 0.3) delete obj[key];
  else obj[key] = randomJson(1);
  return Buffer.from(JSON.stringify(obj));
}

async function randomBody(): Promise<Buffer> {
  if (rand() < 0.003) return Buffer.alloc(1024 * 1024 + 1 + int(1000), 0x20);
  switch (int(7)) {
    case 0:
      return bytes(int(300));
    case 1:
      return Buffer.from(JSON.stringify(randomJson()));
    case 2:
      return Buffer.from(printable());
    case 3:
      return Buffer.alloc(0);
    default:
      return mutated();
  }
}

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/vnd.api+json',
  'json',
  '',
];
const METHODS = ['POST', 'POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

let listener: Listener;
let log: EventLog;
let logPath: string;

beforeAll(async () => {
  logPath = join(tempDir(), 'fuzz.ndjson');
  log = EventLog.open(logPath);
  listener = await startListener({
    port: 0,
    keys: ['fuzz-key', 'other-key'],
    chatbotSecret: 'fuzz-secret',
    store: logEvents(log),
  });
});
afterAll(async () => {
  await listener.close();
  await log.close();
});

it(`answers ${COUNT} random requests only with 200, 400, 401, 405, 413 or 415, and keeps serving`, async () => {
  const pool = new Pool(listener.url, { connections: 16, pipelining: 1 });
  const seen = new Map<number, number>();
  const acked: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      next++;
      const method = pick(METHODS);
      const headers: Record<string, string> = {};
      const ct = pick(CONTENT_TYPES);
      if (ct !== undefined) headers['content-type'] = ct;
      for (let i = int(4); i > 0; i--) headers[`x-${token()}`] = printable();
      if (rand() < 0.3) headers['x-service-sign'] = rand() < 0.5 ? printable() : bytes(32).toString('hex');
      if (rand() < 0.1) headers['user-agent'] = printable();
      const path = rand() < 0.8 ? '/' : `/${token()}/${token()}?${token()}=${token()}`;
      const body = method === 'GET' || method === 'HEAD' ? undefined : await randomBody();
      const res = await pool.request({ method: method as 'POST', path, headers, body });
      await res.body.dump();
      if (res.statusCode === 200)
        acked.push(
          createHash('sha256')
            .update(body ?? '')
            .digest('hex'),
        );
      seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await pool.close();
  const statuses = [...seen.keys()];
  expect(
    statuses.filter((s) => !ALLOWED.has(s)),
    JSON.stringify(Object.fromEntries(seen)),
  ).toEqual([]);
  // The mix reached every kind of answer, so the test exercised each path.
  for (const s of ALLOWED) expect(seen.get(s) ?? 0, `status ${s}`).toBeGreaterThan(0);
  expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(COUNT);
  // Every 200 is in the log; a refused request is in it too unless over --refused-log-rate
  // (counted), and then only its metadata and first bytes.
  const records = readRecords(logPath);
  const logged = new Set(
    records.filter((r) => r.status === 200).map((r) => createHash('sha256').update(recordBody(r)).digest('hex')),
  );
  expect(acked.filter((h) => !logged.has(h))).toEqual([]);
  expect(records.length + listener.stats().refusedUnlogged).toBe(COUNT);
  expect(Math.max(...records.filter((r) => r.status !== 200).map((r) => recordBody(r).length))).toBeLessThanOrEqual(
    256,
  );
  const health = await fetch(`${listener.url}/healthz`);
  expect(health.status).toBe(200);
});

it('answers bytes that are not HTTP with 400 or closes, and keeps serving', async () => {
  const { port } = new URL(listener.url);
  const statuses: string[] = [];
  for (let i = 0; i < 200; i++) {
    const garbage =
      i % 2
        ? bytes(1 + int(500))
        : Buffer.from(`${pick(['POST', 'GET', 'BREW'])} /${printable()} HTTP/1.1\r\n${printable()}\r\n\r\n`);
    statuses.push(
      await new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(garbage));
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
        socket.on('error', () => resolve('closed'));
        socket.on('close', () => resolve(text ? text.slice(9, 12) : 'closed'));
      }),
    );
  }
  expect(statuses.filter((s) => s !== 'closed' && !ALLOWED.has(Number(s)))).toEqual([]);
  expect(statuses).toContain('400');
  expect((await fetch(`${listener.url}/healthz`)).status).toBe(200);
});
