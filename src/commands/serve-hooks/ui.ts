import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { openStoreForReading } from '../../state/open.js';
import type { Handler } from '../../hooks/guard.js';
import { serveInspector, type InspectorFlags } from '../hooks/ui.js';

/**
 * `serve-hooks --ui`: the inspector of `hooks ui` beside the receiver, on a port of its own, over
 * what this run records (`where`: its NDJSON log or its PostgreSQL store), read through a store
 * opened for reading only. Send again goes to --forward-to; its failures are the receiver's to
 * count and tell (`failed`). Resolves with the function that stops it.
 */
export async function serveBeside(
  ctx: Context,
  flags: InspectorFlags,
  where: string | undefined,
  failed: (handler: Handler, error: unknown) => void,
): Promise<() => Promise<void>> {
  if (where === undefined) throw new UsageError('--ui shows what is recorded: give --log FILE or a store');
  const store = await openStoreForReading(where);
  const stop = await serveInspector(ctx, store, flags, { announce: 'stderr', failed }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  return async () => {
    await stop();
    await store.close();
  };
}
