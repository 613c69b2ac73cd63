import type { HooksShowJson } from '../../schemas/hooks-output.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { eventDetail } from '../../hooks/event-view.js';
import { printable } from '../../output/printable.js';
import { readFailed, readSource, type SourceFlags } from './source.js';
import { plural } from '../../plural.js';
import { said } from '../../said.js';

export interface ShowOptions extends SourceFlags {
  /** `<id>`: the event's number or id. */
  id: string;
  showNumbers?: boolean;
}

/**
 * Prints one recorded event whole: what arrived (headers as recorded, secret ones redacted;
 * the body), the verdict and the key that matched, how many times it arrived, and its forward.
 */
export async function runHooksShow(ctx: Context, opts: ShowOptions): Promise<number> {
  const { id } = opts;
  const store = await readSource(ctx, opts);
  const out = await ctx.output();
  try {
    let detail;
    try {
      detail = await eventDetail(store, id, !!opts.showNumbers, !out.json);
    } catch (error) {
      return await readFailed(store, error);
    }
    if (!detail) throw new NotFoundError(said`no event ${id} in ${store.where} (callctl hooks events lists them)`);
    if (out.json) {
      out.writeJson(detail.json satisfies HooksShowJson);
      return 0;
    }
    const { json: event, body } = detail;
    const r = event;
    const facts = event.ids;
    const arrivals = event.arrivals;
    const f = event.forward;
    out.record(
      [
        ['id', event.id],
        ['time', r.time],
        ['type', r.type ?? '(refused before its type was known)'],
        ...Object.entries(facts).map(([k, v]) => [k, v] as const),
        ['http status', r.status],
        ...(r.error ? ([['error', r.error]] as const) : []),
        ['verdict', r.verdict ?? ''],
        ...(r.by ? ([['key matched', r.by]] as const) : []),
        ...(r.reason ? ([['reason', printable(r.reason)]] as const) : []),
        ...(r.warnings?.length ? ([['warnings', printable(r.warnings.join('; '))]] as const) : []),
        ['identity', printable(r.key ?? '')],
        ['retry', r.retry > 0 ? `retry ${r.retry} of this event` : 'first arrival'],
        ['arrivals', arrivals || 1],
        [
          'forward',
          !f
            ? store.shared
              ? 'not forwarded'
              : 'not recorded in an NDJSON log'
            : `${f.state}${f.status !== undefined ? ` ${f.status}` : ''}${f.error ? ` ${f.error}` : ''}${f.attempts ? ` after ${f.attempts} attempt${f.attempts > 1 ? 's' : ''}` : ''}${f.at ? ` at ${f.at}` : ''}`,
        ],
        ['from', printable(`${r.remote ?? ''} ${r.method} ${r.path}`.trim())],
      ],
      `event ${event.id}`,
    );
    out.heading('headers');
    for (const [k, v] of Object.entries(r.headers))
      ctx.io.stdout.write(
        out.tty ? `  ${out.out.dim(k)}: ${printable(String(v))}\n` : `header\t${k}\t${printable(String(v))}\n`,
      );
    out.heading(`body (${plural(r.bytes, 'byte')}${r.encoding === 'base64' ? ', base64' : ''})`);
    ctx.io.stdout.write(
      out.tty ? `${printable(body, true)}\n` : `body\t${printable(body.replace(/\s*\n\s*/g, ' '))}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
