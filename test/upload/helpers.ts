import { mkdtempSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListEntry } from '../../src/schemas/workflow.js';
import { startSandbox, SEED, type Sandbox } from '../../src/sandbox/server.js';

export const WORKFLOW = SEED.workflowId;

/** A fresh temporary folder. */
export function tempDir(prefix = 'callctl-upload-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const HEADER = 'callee,platform,caseid,name,amount,note,pds_variables';

/** Row i (from 1) of a generated contact file: a quoted comma, every 97th row a quoted line break, every 50th pds_variables. */
export function row(i: number, eol = '\n'): string {
  const note = i % 97 === 0 ? `"call after 5pm${eol}ask for ${i}"` : i % 3 === 0 ? '' : `note ${i}`;
  const pds = i % 50 === 0 ? `"{""tier"":${i % 5},""agent"":""A${i}""}"` : i % 25 === 0 ? 'plain pds' : '';
  return `+62812${String(i).padStart(8, '0')},shop-${i % 7},C${i},"Name ${i}, Jr",${i}.50,${note},${pds}`;
}

/** The list entry row i maps to. */
export function entry(i: number, eol = '\n'): ListEntry {
  const variables: Record<string, string> = { name: `Name ${i}, Jr`, amount: `${i}.50` };
  if (i % 97 === 0) variables.note = `call after 5pm${eol}ask for ${i}`;
  else if (i % 3 !== 0) variables.note = `note ${i}`;
  const e: ListEntry = { callee: `+62812${String(i).padStart(8, '0')}`, platform: `shop-${i % 7}`, variables, caseid: `C${i}` };
  if (i % 50 === 0) e.pds_variables = { tier: i % 5, agent: `A${i}` };
  else if (i % 25 === 0) e.pds_variables = 'plain pds';
  return e;
}

/** Writes a contact CSV of rows 1..n. */
export function writeContacts(path: string, n: number, options: { eol?: string; bom?: boolean } = {}): string {
  const eol = options.eol ?? '\n';
  const parts: string[] = [`${options.bom ? '\ufeff' : ''}${HEADER}${eol}`];
  for (let i = 1; i <= n; i++) parts.push(row(i, eol) + eol);
  writeFileSync(path, parts.join(''));
  return path;
}

/** An in-process sandbox, a token, a config folder and the environment a CLI run needs. */
export async function uploadSetup(): Promise<{ sandbox: Sandbox; env: Record<string, string>; dir: string; configDir: string; close(): Promise<void> }> {
  const sandbox = await startSandbox();
  const dir = tempDir();
  const configDir = join(dir, 'config');
  // Journals, locks and spools go to the state and cache folders: both temporary here.
  const env = { CALLCTL_TOKEN: sandbox.issueToken(), CALLCTL_CONFIG_DIR: configDir, CALLCTL_BASE_URL: sandbox.url, XDG_STATE_HOME: join(dir, 'state'), XDG_CACHE_HOME: join(dir, 'cache') };
  return { sandbox, env, dir, configDir, close: () => sandbox.close() };
}

export type UploadSetup = Awaited<ReturnType<typeof uploadSetup>>;

/**
 * The upload suites' fixture: one sandbox and temporary folders for the file (`uploadSetup`),
 * closed after it; before each test nothing is received and no fault or variant is on. `use` is told the
 * setup once it exists.
 */
export function useUploadSandbox(use: (setup: UploadSetup) => void): void {
  let setup: UploadSetup | undefined;
  beforeAll(async () => {
    setup = await uploadSetup();
    use(setup);
  });
  afterAll(() => setup?.close());
  beforeEach(() => {
    setup!.sandbox.state.received.updates.clear();
    setup!.sandbox.resetFaults();
    setup!.sandbox.setVariants([]);
  });
}

/** What the sandbox accepted for a workflow, in arrival order. */
export function received(sandbox: Sandbox, workflowId = WORKFLOW): ListEntry[] {
  return sandbox.state.received.updates.get(workflowId)?.entries ?? [];
}
