import type { Context } from '../../context.js';
import type { StoreFlags } from '../../store/resolve.js';
import { inventory } from '../../store/inventory.js';
import { said } from '../../said.js';

export type StoreListOptions = StoreFlags;

/** Runs `store list` (and its old spelling `state`): what the store keeps, by destination. */
export async function runStoreList(ctx: Context, opts: StoreListOptions): Promise<number> {
  const found = await inventory(await ctx.store(opts));
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(found);
    return 0;
  }
  out.info(said`kept in ${found.store}`);
  out.heading('Uploads');
  await out.list(found.uploads, [
    { header: 'DESTINATION', value: (u) => u.destination, kind: 'text' },
    { header: 'WORKFLOW', value: (u) => u.workflowId, kind: 'id' },
    { header: 'FILE', value: (u) => u.file, kind: 'text' },
    { header: 'STATUS', value: (u) => u.status },
    { header: 'BATCHES', value: (u) => u.batches },
    { header: 'ENTRIES', value: (u) => u.entries },
    { header: 'UNCERTAIN', value: (u) => u.uncertainBatches },
    { header: 'LAST', value: (u) => u.lastAt },
  ]);
  out.heading('Sends (push, template send --csv)');
  await out.list(found.sends, [
    { header: 'COMMAND', value: (s) => s.command },
    { header: 'DESTINATION', value: (s) => s.destination, kind: 'text' },
    { header: 'FILE', value: (s) => s.file, kind: 'text' },
    { header: 'SENT', value: (s) => s.sent },
    { header: 'FAILED', value: (s) => s.failed },
    { header: 'UNCERTAIN', value: (s) => s.uncertain },
    { header: 'LAST', value: (s) => s.lastAt },
  ]);
  out.heading('Never-twice ledgers');
  await out.list(found.ledgers, [
    { header: 'DESTINATION', value: (l) => l.destination, kind: 'text' },
    { header: 'PEOPLE', value: (l) => l.people },
    { header: 'LAST REACHED', value: (l) => l.lastAt },
  ]);
  return 0;
}
