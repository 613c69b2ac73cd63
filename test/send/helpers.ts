import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '../../src/sandbox/server.js';

/** A fresh temporary folder. */
export function tempDir(prefix = 'callctl-send-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes a file in `dir` and returns its path. */
export function writeIn(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Requests the sandbox received on a route, by route key such as `POST /flex/api/push/<token>`. */
export function received(sandbox: Sandbox, pathPrefix: string) {
  return sandbox.requests.filter((r) => r.path.startsWith(pathPrefix));
}

/** A CSV of push rows: caller ids +628000000001.. with a debt amount per row. */
export function pushCsv(rows: number, start = 1): string {
  const lines = ['caller_id,client_name,debt_amount'];
  for (let i = start; i < start + rows; i++) lines.push(`+628${String(i).padStart(9, '0')},Client ${i},${i * 1000}`);
  return `${lines.join('\n')}\n`;
}
