import type { HooksShowJson } from '../../schemas/hooks-output.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { recordBody } from '../../state/event-log.js';
import { recordFacts, shownFacts } from '../../state/facts.js';
import { printable } from '../../output/printable.js';
import { maskNumber } from '../serve-hooks/render.js';
import { readFailed, readSource, type SourceFlags } from './source.js';
import { plural } from '../../plural.js';

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
    let event;
    let arrivals = 0;
    try {
      event = await store.get(id);
      if (event?.record.key) for await (const _ of store.read({ key: event.record.key })) arrivals += 1;
    } catch (error) {
      return await readFailed(store, error);
    }
    if (!event) throw new NotFoundError(`no event ${id} in ${store.where} (callctl hooks events lists them)`);
    const r = event.record;
    const facts = out.json ? recordFacts(r) : shownFacts(r);
    if (facts.callee && !opts.showNumbers) facts.callee = maskNumber(facts.callee);
    let body = recordBody(r).toString(r.encoding === 'base64' ? 'base64' : 'utf8');
    let parsed: unknown;
    if (r.encoding !== 'base64' && body) {
      try {
        parsed = JSON.parse(body);
        body = JSON.stringify(parsed, null, 2);
      } catch {
        // shown as it came
      }
    }
    let rawBody = r.body;
    if (!opts.showNumbers && facts.callee !== undefined && r.encoding !== 'base64') {
      const full = recordFacts(r).callee!;
      body = body.split(full).join(facts.callee);
      rawBody = rawBody?.split(full).join(facts.callee);
    }
    if (out.json) {
      out.writeJson({
        id: event.id,
        store: store.where,
        ...r,
        body: rawBody,
        ids: facts,
        arrivals,
        forward: event.forward ?? null,
      } satisfies HooksShowJson);
      return 0;
    }
    const f = event.forward;
    out.record(
      [
        ['id', event.id],
        ['time', r.time],
        ['type', r.type ?? '(refused before its type was known)'],
        ...Object.entries(facts).map(([k, v]) => [k, v] as const),
        ['answer', r.answer],
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
            ? store.kind === 'ndjson'
              ? 'not recorded in an NDJSON log'
              : 'not forwarded'
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
