import type { Context } from '../../context.js';
import type { Handler } from '../../hooks/guard.js';
import type { Store } from '../../store/store.js';
import { serveInspector, type InspectorFlags } from '../hooks/ui.js';

/**
 * `serve-hooks --ui`: the inspector of `hooks ui` beside the receiver, on a port of its own, over
 * what this run records (its store's events, or its `--log`), read through an event store opened
 * for reading only. Send again goes to --forward-to; its failures are the receiver's to count and
 * tell (`failed`). Resolves with the function that stops it.
 */
export async function serveBeside(
  ctx: Context,
  flags: InspectorFlags,
  store: Store,
  log: string | undefined,
  failed: (handler: Handler, error: unknown) => void,
): Promise<() => Promise<void>> {
  const events = await store.events({ log });
  const stop = await serveInspector(ctx, events, flags, { announce: 'stderr', failed }).catch(
    async (error: unknown) => {
      await events.close();
      throw error;
    },
  );
  return async () => {
    await stop();
    await events.close();
  };
}
