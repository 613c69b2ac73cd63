import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/commands/serve-hooks/render.js';
import { DedupStore } from '../../src/store/files/memory.js';
import { dedupKey } from '../../src/store/dedup.js';
import { detectType, schemaWarnings, summarize } from '../../src/schemas/detect.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { readRecentRecords } from '../../src/store/files/log-read.js';
import { type HookRecord } from '../../src/store/events.js';
import { sampleBody } from '../../src/hooks/samples.js';
import { planSign } from '../../src/signing/sign.js';
import { createVerifier, tempDir } from './helpers.js';
import { SAMPLE_TYPES } from '../../src/commands/hooks/trigger.js';

const TYPES = SAMPLE_TYPES;

describe('detection and schemas', () => {
  it.each(TYPES)('a %s sample is told apart by its shape and is valid', (type) => {
    const body = sampleBody(type);
    expect(detectType(body)).toBe(type);
    if (type === 'plan.end' || type === 'task.end') body.Sign = 'x';
    expect(schemaWarnings(type, body)).toEqual([]);
  });

  it.each([
    [{ PlanName: 'P', Timestamp: 1 }, 'plan.end'],
    [{ TaskID: 'T' }, 'task.end'],
    [{ event: 'session.other', call_id: 'c' }, 'unknown'],
    [{ msg_id: 'm', nodetask_id: 'n' }, 'template.status'],
    [{ workflow_id: 'w', node_id: 'n', call: {} }, 'workflow.api_push'],
    [{ hello: 1 }, 'unknown'],
    [[1, 2], 'unknown'],
    ['text', 'unknown'],
    [null, 'unknown'],
  ])('%j is %s', (body, type) => expect(detectType(body)).toBe(type));

  it('accepts the plan-end variant with task-level fields and an integer Timestamp; unknown fields pass', () => {
    const body = {
      ...sampleBody('plan.end'),
      Sign: 'x',
      Timestamp: 1764000000,
      task_id: 'T-1',
      task_name: 'P_1',
      status: 'finished',
      created_at: '2026-11-22T10:00:00Z',
      repeat_interval: 30,
      repeat_number: 2,
      robot_hash: 'r',
      robot_method: 'single',
      sip_line: 'line-1',
      schedule_start_time: '2026-11-22T10:00:00Z',
      schedule_end_time: '2026-11-22T18:00:00Z',
      details: [
        {
          id: 1,
          callee: '+6281234567001',
          result: 'ok',
          duration: 31,
          hangup_type: 'ByCallee',
          ring_type: 'normal',
          question_answer: [{ question_name: 'q', answer: 'a' }],
          call_id: 'C-1',
          call_times: 1,
        },
      ],
      something_new: { a: 1 },
    };
    expect(schemaWarnings('plan.end', body)).toEqual([]);
    expect(summarize('plan.end', body)).toMatchObject({ task: 'T-1', status: 'finished', rounds: 2 });
    expect(schemaWarnings('plan.end', { ...body, details: [{ duration: 'long' }] })).toEqual([
      expect.stringMatching(/^details\.0\.duration: /),
    ]);
  });

  it('names the path of each schema problem', () => {
    const body = { ...sampleBody('template.status'), timestamp: '2026', variables: { a: 1 } };
    expect(schemaWarnings('template.status', body)).toEqual([
      expect.stringMatching(/^timestamp: /),
      expect.stringMatching(/^variables\.a: /),
    ]);
  });
});

describe('verification', () => {
  it('checks plan Sign against the text of an integer Timestamp, with every key', () => {
    const verify = createVerifier({ keys: ['a', 'b'], now: () => 1764000000_000 });
    const raw = Buffer.from('{}');
    expect(verify('plan.end', { Timestamp: 1764000000, Sign: planSign('1764000000', 'b') }, undefined, raw)).toEqual({
      state: 'verified',
      by: 'key 2',
    });
    expect(
      verify('plan.end', { Timestamp: 1764000000, Sign: planSign('1764000000', 'b').toUpperCase() }, undefined, raw),
    ).toMatchObject({ state: 'rejected', reason: 'Sign is not 32 lowercase hex characters' });
    expect(verify('plan.end', { Sign: planSign('', 'b') }, undefined, raw)).toMatchObject({ state: 'rejected' });
  });

  it('records an unsigned chatbot event as unverified when there is nothing to check with, never verified', () => {
    const verify = createVerifier({ keys: [] });
    expect(verify('chatbot.transfer', {}, 'abc', Buffer.from('{}'))).toMatchObject({ state: 'unverified' });
    expect(verify('chatbot.transfer', {}, undefined, Buffer.from('{}'))).toMatchObject({ state: 'unverified' });
  });

  it('a sign command that fails makes the event unavailable (fail closed: refused, not let through as unverified)', async () => {
    const verify = createVerifier({ keys: [], signCommand: 'exit 3' });
    expect(await verify('chatbot.transfer', {}, 'abc', Buffer.from('{}'))).toEqual({
      state: 'unavailable',
      reason: 'sign command exited with 3',
    });
  });
});

describe('dedup', () => {
  it('identifies each type by what says which event it is, never by Timestamp or Sign (a retry with a new Timestamp and Sign is one event)', () => {
    const raw = Buffer.from('x');
    const other = Buffer.from('y');
    // Task end: TaskID (+PlanName); the Sign and the bytes may change.
    expect(dedupKey('task.end', { TaskID: 'T', Sign: 's', TaskName: 'a' }, raw)).toBe(
      dedupKey('task.end', { TaskID: 'T', Sign: 't', TaskName: 'b' }, other),
    );
    expect(dedupKey('task.end', { TaskID: 'T', Sign: 's' }, raw)).not.toBe(
      dedupKey('task.end', { TaskID: 'T', Sign: 's', PlanName: 'P' }, raw),
    );
    // Plan end: PlanName + PlanDetails content (key order ignored), not Timestamp/Sign.
    const details = [{ Rounds: '1', TaskName: 'n', TaskID: 'T1', Status: 'done' }];
    expect(dedupKey('plan.end', { PlanName: 'P', Timestamp: '1', Sign: 'a', PlanDetails: details }, raw)).toBe(
      dedupKey(
        'plan.end',
        {
          PlanName: 'P',
          Timestamp: 2,
          Sign: 'b',
          PlanDetails: [{ Status: 'done', TaskID: 'T1', TaskName: 'n', Rounds: '1' }],
        },
        other,
      ),
    );
    expect(dedupKey('plan.end', { PlanName: 'P', PlanDetails: details }, raw)).not.toBe(
      dedupKey('plan.end', { PlanName: 'P', PlanDetails: [{ ...details[0], Status: 'failed' }] }, raw),
    );
    expect(dedupKey('plan.end', { PlanName: 'P', PlanDetails: details }, raw)).not.toBe(
      dedupKey('plan.end', { PlanName: 'Q', PlanDetails: details }, raw),
    );
    // Template status: msg_id + status, not its timestamp.
    expect(dedupKey('template.status', { msg_id: 'm', status: 'read', timestamp: 1 }, raw)).toBe(
      dedupKey('template.status', { msg_id: 'm', status: 'read', timestamp: 2 }, other),
    );
    expect(dedupKey('template.status', { msg_id: 'm', status: 'read' }, raw)).not.toBe(
      dedupKey('template.status', { msg_id: 'm', status: 'replied' }, raw),
    );
    // API push: workflow + node + call id; without a call id, task id + callee number + start time.
    const push = sampleBody('workflow.api_push');
    expect(dedupKey('workflow.api_push', push, raw)).toBe(
      dedupKey('workflow.api_push', { ...push, custom_attribute: {} }, other),
    );
    const noId = { ...push, call: { ...(push.call as object), call_id: undefined } };
    expect(dedupKey('workflow.api_push', noId, raw)).toBe(
      dedupKey('workflow.api_push', { ...noId, custom_attribute: { x: '1' } }, other),
    );
    expect(dedupKey('workflow.api_push', noId, raw)).not.toBe(
      dedupKey('workflow.api_push', { ...noId, callee: { callee_number: '+1' } }, raw),
    );
    // Chatbot: call_id + event.
    expect(dedupKey('chatbot.transfer', { call_id: 'c', event: 'session.transfer', company: 'a' }, raw)).toBe(
      dedupKey('chatbot.transfer', { call_id: 'c', event: 'session.transfer', company: 'b' }, other),
    );
    // Missing parts, and unknown bodies: the bytes decide.
    expect(dedupKey('unknown', {}, Buffer.from('a'))).not.toBe(dedupKey('unknown', {}, Buffer.from('b')));
    expect(dedupKey('plan.end', { PlanName: 'P' }, Buffer.from('a'))).toMatch(/#sha256:/);
  });

  it('remembers for the window after the latest arrival, then forgets; caps its size', () => {
    const store = new DedupStore(15 * 60_000, 3);
    expect(store.hit('a', 0)).toBe(0);
    expect(store.hit('a', 14 * 60_000)).toBe(1);
    expect(store.hit('a', 28 * 60_000)).toBe(2); // within 15 minutes of the previous arrival
    expect(store.hit('a', 44 * 60_000)).toBe(0); // forgotten
    for (const k of ['b', 'c', 'd']) store.hit(k, 44 * 60_000);
    expect(store.size).toBe(3);
    expect(store.hit('a', 44 * 60_000)).toBe(0); // pushed out by the cap
  });
});

describe('event log', () => {
  const rec = (time: number, key: string): HookRecord => ({
    v: 1,
    time: new Date(time).toISOString(),
    method: 'POST',
    path: '/',
    headers: {},
    bytes: 0,
    type: 'task.end',
    key,
    duplicate: false,
    retry: 0,
    status: 200,
  });

  it('reads recent records from the end, skipping a torn last line', () => {
    const path = join(tempDir(), 'log.ndjson');
    writeFileSync(
      path,
      [0, 1, 2, 3, 4, 5].map((m) => JSON.stringify(rec(m * 60_000, `k${m}`))).join('\n') + '\n{"v":1,"ti',
    );
    const recent = readRecentRecords(path, 3 * 60_000, 64); // tiny chunks cross line boundaries
    expect(recent.map((r) => r.key)).toEqual(['k3', 'k4', 'k5']);
    expect(readRecentRecords(join(tempDir(), 'none.ndjson'), 0)).toEqual([]);
  });

  it('cuts a torn last line off before appending, and commits concurrent records together with fsync', async () => {
    const path = join(tempDir(), 'log.ndjson');
    appendFileSync(path, `${JSON.stringify(rec(0, 'whole'))}\n{"torn":`);
    const log = EventLog.open(path, { fsync: true });
    expect(log.repaired).toBe('{"torn":'.length);
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(rec(i, `k${i}`))));
    await log.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect((JSON.parse(lines[0]!) as HookRecord).key).toBe('whole');
    expect(lines.slice(1, 51).map((l) => (JSON.parse(l) as HookRecord).key)).toEqual(
      Array.from({ length: 50 }, (_, i) => `k${i}`),
    );
    await expect(log.append(rec(0, 'late'))).rejects.toThrow(/closed/);
  });
});

describe('rendering', () => {
  const c = { out: new Chalk({ level: 0 }), err: new Chalk({ level: 0 }) };
  const options = { json: false, showNumbers: false, skipVerify: false };
  it('shows forward results on stderr', () => {
    expect(render({ kind: 'forward', seq: 3, attempt: 1, final: false, status: 502, ms: 4 }, options, c)).toEqual({
      err: '↻ forward #3 attempt 1: 502 in 4 ms; retrying\n',
    });
    expect(render({ kind: 'forward', seq: 3, attempt: 2, final: true, status: 200, ms: 5 }, options, c)).toEqual({
      err: '→ forward #3: 200 in 5 ms after 2 attempts\n',
    });
    expect(
      render({ kind: 'forward', seq: 4, attempt: 4, final: true, error: 'network error ECONNREFUSED' }, options, c).err,
    ).toMatch(/✗ forward #4: network error ECONNREFUSED after 4 attempts/);
  });
});
