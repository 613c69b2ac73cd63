import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

test('smoke', async () => {
  const auth = await fetch(`${sb.url}/service/cloud/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ APPKey: sb.appKey, APPSecret: sb.appSecret }) });
  const { data } = (await auth.json()) as { data: { token: string } };
  const r = await fetch(`${sb.url}/service/cloud/detail?TaskID=T-DEBT-0001`, { headers: { authorization: `Token ${data.token}` } });
  const j = await r.json();
  expect((j as {data:{TaskID:string}}).data.TaskID).toBe('T-DEBT-0001');
  expect(r.status).toBe(200);
});
