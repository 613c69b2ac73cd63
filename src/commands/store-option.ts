import { readFileSync } from 'node:fs';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { isPostgresUrl, storePassword } from '../state/open.js';

export interface StoreFlags {
  store?: string;
  storeFile?: string;
}

/**
 * The event store a command uses: `--store`, else `--store-file` (a file holding the URL), else
 * CALLCTL_STORE, else CALLCTL_STORE_FILE, else the profile's `store`; undefined when none.
 * A PostgreSQL URL's password becomes a secret of the run (redacted from any output); `--store`
 * refuses a URL holding one (usage error).
 */
export async function storeValue(
  ctx: Context,
  flags: StoreFlags,
): Promise<{ value: string; from: string } | undefined> {
  const env = ctx.io.env;
  let found: { value: string; from: string } | undefined;
  if (flags.store !== undefined) found = { value: flags.store, from: '--store' };
  else if (flags.storeFile !== undefined)
    found = { value: readUrlFile(flags.storeFile, '--store-file'), from: '--store-file' };
  else if (env.CALLCTL_STORE) found = { value: env.CALLCTL_STORE, from: 'CALLCTL_STORE' };
  else if (env.CALLCTL_STORE_FILE)
    found = { value: readUrlFile(env.CALLCTL_STORE_FILE, 'CALLCTL_STORE_FILE'), from: 'CALLCTL_STORE_FILE' };
  else {
    const stored = (await ctx.settings()).get('store');
    if (stored) found = { value: stored, from: 'profile store' };
  }
  if (!found) return undefined;
  found.value = found.value.trim();
  if (found.value === '') throw new UsageError(`${found.from}: empty store`);
  const password = storePassword(found.value);
  ctx.addSecret(password);
  // Secrets are never flag values (design.md): a command line is visible to other users in ps.
  // A URL without a password (PGPASSWORD gives it) is no secret, and stays welcome as a flag.
  if (found.from === '--store' && password) {
    throw new UsageError(
      '--store: the URL holds a password, which other users would see in ps: give it in CALLCTL_STORE or a file (--store-file, CALLCTL_STORE_FILE)',
    );
  }
  // Anything else that looks like a URL (mysql://, a mistyped postgress:// or postgres:/) is not
  // a file to read: taken as one, `hooks events` listed nothing and exited 0. The value is not
  // echoed (it may hold a password no redaction knows of).
  if (
    !isPostgresUrl(found.value) &&
    (/^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) || /^postgres(?:ql)?:/i.test(found.value)) &&
    !/^file:/i.test(found.value)
  ) {
    throw new UsageError(`${found.from}: not a store: give a postgres:// URL or an NDJSON file's path`);
  }
  if (isPostgresUrl(found.value)) {
    try {
      new URL(found.value);
    } catch {
      throw new UsageError(`${found.from}: not a valid postgres:// URL`);
    }
  }
  return found;
}

function readUrlFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/)[0]!;
  } catch (error) {
    throw new UsageError(`${what}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
