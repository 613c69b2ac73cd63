import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { envelopeSchema } from '../helpers/schemas.js';
import { tokenDataSchema } from '../../src/schemas/auth.js';
import { call, login } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ appKey: 'key-1', appSecret: 'secret-1', tokenTtlSeconds: 60 });
});
afterAll(() => sb.close());

describe('POST /service/cloud/auth', () => {
  test('right credentials give a token in the envelope', async () => {
    const r = await call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: 'key-1', APPSecret: 'secret-1' } });
    expect(r.status).toBe(200);
    const env = envelopeSchema(tokenDataSchema).parse(r.json);
    expect(env).toMatchObject({ status: 'OK', code: 200 });
    expect(env.data.token).toMatch(/^sbx\./);
  });

  test('each login gives a new token; the old one stays valid', async () => {
    const a = await login(sb);
    const b = await login(sb);
    expect(a).not.toBe(b);
    expect((await call(sb.url, 'GET', '/service/cloud/robot', { token: a })).json.code).toBe(200);
  });

  test.each([
    ['wrong secret', { APPKey: 'key-1', APPSecret: 'nope' }, 401],
    ['wrong key', { APPKey: 'key-2', APPSecret: 'secret-1' }, 401],
    ['missing secret', { APPKey: 'key-1' }, 403],
    ['empty key', { APPKey: '', APPSecret: 'secret-1' }, 403],
    ['secret not a string', { APPKey: 'key-1', APPSecret: 12 }, 403],
  ])('%s: HTTP 200 with an envelope error', async (_name, body, code) => {
    const r = await call(sb.url, 'POST', '/service/cloud/auth', { body });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ code });
    expect(r.json.status).toMatch(/APPKey|APPSecret/);
    expect(r.json.data).toBeNull();
    expect(r.text).not.toContain('secret-1');
  });

  test('invalid JSON is HTTP 400', async () => {
    const r = await call(sb.url, 'POST', '/service/cloud/auth', { raw: '{"APPKey":' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 400 });
    expect(r.json.status).toMatch(/invalid JSON/);
  });

  test('a JSON array body is refused', async () => {
    const r = await call(sb.url, 'POST', '/service/cloud/auth', { body: [] });
    expect(r.json).toMatchObject({ data: null, code: 400, status: 'request body must be a JSON object' });
  });
});

describe('token on cloud endpoints', () => {
  test.each([
    ['no header', undefined, /missing Authorization/],
    ['wrong scheme', 'Bearer abc', /malformed/],
    ['unknown token', 'Token sbx.nope', /invalid token/],
  ])('%s: HTTP 200, envelope code 401 with the reason in status', async (_n, header, message) => {
    const r = await call(sb.url, 'GET', '/service/cloud/robot', { headers: header ? { authorization: header } : {} });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ data: null, code: 401 });
    expect(r.json.status).toMatch(message);
  });

  test('every cloud endpoint but auth requires the token', async () => {
    const paths: Array<[string, string]> = [
      ['GET', '/service/cloud/robot'],
      ['GET', '/service/cloud/detail?TaskID=T-DEBT-0001'],
      ['GET', '/service/cloud/planstatus?PlanName=PLAN-A'],
      ['GET', '/service/cloud/plandetail?PlanName=PLAN-A'],
      ['GET', '/service/cloud/workflow/instancelist'],
      ['POST', '/service/cloud/workflow/updatedetails'],
      ['POST', '/service/cloud/workflow/apinoticeinfo'],
      ['POST', '/service/cloud/workflow/taskdetail'],
    ];
    const answers = await Promise.all(
      paths.map(([m, p]) => call(sb.url, m, p, { body: m === 'POST' ? {} : undefined })),
    );
    expect(answers.map((a) => [a.status, a.json.code])).toEqual(paths.map(() => [200, 401]));
  });

  test('the scheme is case-insensitive; extra spaces are tolerated', async () => {
    const token = await login(sb);
    const r = await call(sb.url, 'GET', '/service/cloud/robot', { headers: { authorization: `token   ${token}` } });
    expect(r.json.code).toBe(200);
  });

  test('expired tokens are refused with "token expired"; a new login works', async () => {
    const short = await startSandbox({ tokenTtlSeconds: 1 });
    try {
      const token = await login(short);
      expect((await call(short.url, 'GET', '/service/cloud/robot', { token })).json.code).toBe(200);
      await new Promise((r) => setTimeout(r, 1_100));
      const r = await call(short.url, 'GET', '/service/cloud/robot', { token });
      expect(r.json).toMatchObject({ code: 401, status: 'token expired' });
      expect((await call(short.url, 'GET', '/service/cloud/robot', { token: await login(short) })).json.code).toBe(200);
    } finally {
      await short.close();
    }
  });

  test('expireTokens() and POST /__sandbox/expire-tokens expire what was issued', async () => {
    const a = await login(sb);
    sb.expireTokens();
    expect((await call(sb.url, 'GET', '/service/cloud/robot', { token: a })).json.status).toBe('token expired');
    const b = await login(sb);
    await call(sb.url, 'POST', '/__sandbox/expire-tokens');
    expect((await call(sb.url, 'GET', '/service/cloud/robot', { token: b })).json.code).toBe(401);
    expect((await call(sb.url, 'GET', '/service/cloud/robot', { token: await login(sb) })).json.code).toBe(200);
  });

  test('the tokenTtlSeconds fault shortens the life of tokens already issued', async () => {
    const token = await login(sb);
    sb.setFaults({ tokenTtlSeconds: 0 });
    try {
      expect((await call(sb.url, 'GET', '/service/cloud/robot', { token })).json.status).toBe('token expired');
    } finally {
      sb.setFaults({ tokenTtlSeconds: null });
    }
    expect((await call(sb.url, 'GET', '/service/cloud/robot', { token })).json.code).toBe(200);
  });

  test('push and template endpoints do not take the token', async () => {
    const r = await call(sb.url, 'POST', `/flex/api/push/${sb.pushToken}`, {
      body: { caller_id: '+6281234567890', variables: {} },
    });
    expect(r.status).toBe(200);
  });
});
