import type { ListEntry } from '../../src/schemas/workflow.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

/** One HTTP exchange with the sandbox over loopback. */
export async function call(base: string, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Token ${o.token}`;
  let body: string | undefined = o.raw;
  if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Gets a token over HTTP. */
export async function login(sb: Sandbox): Promise<string> {
  const r = await call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: sb.appKey, APPSecret: sb.appSecret } });
  if (r.json?.code !== 200) throw new Error(`login failed: ${r.text}`);
  return r.json.data.token as string;
}

/** A sandbox with a token, for suites that are not about auth. */
export async function sandboxWithToken(options: SandboxOptions = {}): Promise<{ sb: Sandbox; token: string }> {
  const sb = await startSandbox(options);
  return { sb, token: sb.issueToken() };
}

/** Rejects with the error fetch gave, or resolves with the answer. */
export async function settle(p: Promise<Answer>): Promise<Answer | Error> {
  return p.catch((e: Error) => e);
}

/** `n` valid list entries with distinct callees and case ids C-<from>... */
export function entries(n: number, from = 0): ListEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    callee: `+6281${String(100_000_000 + from + i)}`,
    platform: 'KreditCepat',
    caseid: `C-${from + i}`,
    variables: { name: `Person ${from + i}`, amount: '1500.00' },
  }));
}
