import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { HookRecord } from '../../src/hooks/event-log.js';

/** A fresh temporary folder. */
export function tempDir(prefix = 'callctl-hooks-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** POSTs bytes over loopback and reads the answer. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }, method = 'POST'): Promise<Answer> {
  const res = await request(url, { method: method as 'POST', headers, body: method === 'GET' || method === 'HEAD' ? undefined : body });
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

export const vectors = JSON.parse(readFileSync(new URL('../../fixtures/hooks/sign-vectors.json', import.meta.url), 'utf8')) as {
  md5: Array<{ kind: 'task' | 'plan'; value: string; key: string; sign: string }>;
  hmac: Array<{ body: string; secret: string; sign: string }>;
};
