import { writeFileSync } from 'node:fs';
import { beforeEach } from 'vitest';
import { join } from 'node:path';
import type { ListEntry } from '../../src/schemas/workflow.js';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

export { tempDir };

export const WORKFLOW = SEED.workflowId;

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
  const e: ListEntry = {
    callee: `+62812${String(i).padStart(8, '0')}`,
    platform: `shop-${i % 7}`,
    variables,
    caseid: `C${i}`,
  };
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

/** The sandbox, one folder for the test file and the environment a CLI upload needs. */
export interface UploadSetup {
  sandbox: Sandbox;
  env: Record<string, string>;
  /** Removed after the file. */
  dir: string;
  configDir: string;
}

/**
 * The upload suites' fixture: the sandbox fixture (test/helpers/sandbox.ts, which resets it before
 * each test) and one folder for the whole file, with the config, state and cache folders of the
 * CLI's runs inside it (journals and spools stay from one test to the next). `use` is told the setup
 * once, before the first test.
 */
export function useUploadSandbox(use: (setup: UploadSetup) => void): void {
  const fixture = useSandbox();
  let setup: UploadSetup | undefined;
  beforeEach(() => {
    if (setup) return;
    const dir = tempDir('callctl-upload-', 'file');
    const configDir = join(dir, 'config');
    // Journals, locks and spools go to the state and cache folders: both temporary here.
    const env = {
      CALLCTL_TOKEN: fixture.token,
      // The account a workflow update's journal is kept for (src/store/destination.ts).
      CALLCTL_APP_KEY: fixture.sandbox.appKey,
      CALLCTL_CONFIG_DIR: configDir,
      CALLCTL_BASE_URL: fixture.sandbox.url,
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    };
    setup = { sandbox: fixture.sandbox, env, dir, configDir };
    use(setup);
  });
}

/** What the sandbox accepted for a workflow, in arrival order. */
export function received(sandbox: Sandbox, workflowId = WORKFLOW): ListEntry[] {
  return sandbox.state.received.updates.get(workflowId)?.entries ?? [];
}
