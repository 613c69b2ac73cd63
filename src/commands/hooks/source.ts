import type { Context } from '../../context.js';
import { LocalError, NetworkError, UsageError } from '../../errors.js';
import { openStoreForReading } from '../../state/open.js';
import type { EventStore } from '../../state/types.js';
import type { StoreFlags } from '../../state/choice.js';

export interface SourceFlags extends StoreFlags {
  log?: string;
}

/**
 * The store to read events from: `--log FILE` (an NDJSON log), else the store of `--store`,
 * `--store-file`, CALLCTL_STORE, CALLCTL_STORE_FILE or the profile (a postgres:// URL or a file).
 */
export async function readSource(ctx: Context, flags: SourceFlags): Promise<EventStore> {
  if (flags.log !== undefined && (flags.store !== undefined || flags.storeFile !== undefined))
    throw new UsageError('give --log or --store, not both');
  const choice = flags.log !== undefined ? undefined : (await ctx.state(flags)).choice;
  const chosen =
    flags.log !== undefined
      ? { value: flags.log, from: '--log' }
      : choice?.kind === 'postgres'
        ? { value: choice.url, from: choice.from }
        : choice?.kind === 'ndjson'
          ? { value: choice.path, from: choice.from }
          : undefined;
  if (!chosen)
    throw new UsageError(
      'no events to read: give --log FILE, or a store (--store-file, CALLCTL_STORE, CALLCTL_STORE_FILE)',
    );
  if (chosen.value.startsWith('/') || !/^[a-z]+:/i.test(chosen.value) || chosen.value.startsWith('file:')) {
    const { existsSync } = await import('node:fs');
    const path = chosen.value.replace(/^file:(\/\/)?/, '');
    if (!existsSync(path)) throw new UsageError(`${chosen.from}: no such file ${path}`);
  }
  try {
    return await openStoreForReading(chosen.value);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const { SchemaError, describe, shownUrl } = await import('../../state/postgres.js');
    if (error instanceof SchemaError) throw new UsageError(error.message);
    throw new NetworkError(`cannot reach the store ${shownUrl(chosen.value)}: ${describe(error)}`);
  }
}

/**
 * A read that failed half-way: the database went away (exit 5, store named without its
 * password), or the NDJSON log is a folder or unreadable (exit 6: running again will not help).
 */
export async function readFailed(store: EventStore, error: unknown): Promise<never> {
  if (error instanceof UsageError || error instanceof NetworkError || error instanceof LocalError) throw error;
  const { describe } = await import('../../state/postgres.js');
  if (store.kind === 'ndjson') throw new LocalError(`cannot read the event log ${store.where}: ${describe(error)}`);
  throw new NetworkError(`cannot read the store ${store.where}: ${describe(error)}`);
}
