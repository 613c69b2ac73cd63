import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import type { HooksShowJson } from '../../schemas/hooks-output.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { readFailed } from './source.js';
import { plural } from '../../plural.js';
import { said } from '../../said.js';

function declare(hooks: Command) {
  return hooks
    .command('show <id>')
    .description('print one recorded event whole: headers (secrets redacted), body, verdict, key, retries, forward')
    .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--show-numbers', 'show callee numbers in full (masked by default)')
    .addHelpText(
      'after',
      `
The id is the one \`hooks events\` shows (#id): in an NDJSON log, the record's number in the file.
Exit 1 when there is no such event (not found, as a task the service does not know).

Examples:
  callctl hooks show 1842
  callctl hooks show 12 --log events.ndjson --json

JSON (--json): the record as kept (secret headers redacted), its ids, arrivals and forward:
${JSON_SHAPES.hooksShow}`,
    );
}

export type ShowOptions = FlagsOf<typeof declare> & { id: string };

export function register(hooks: Command, { start }: Deps): void {
  declare(hooks).action((id, flags, command) => start(command, runHooksShow, { ...flags, id }));
}

/**
 * Prints one recorded event whole: what arrived (headers as recorded, secret ones redacted;
 * the body), the verdict and the key that matched, how many times it arrived, and its forward.
 */
export async function runHooksShow(ctx: Context, opts: ShowOptions): Promise<number> {
  const { eventDetail } = await import('../../hooks/event-view.js');
  const { printable } = await import('../../output/printable.js');
  const store = await (await ctx.store(opts)).events({});
  const out = await ctx.output();
  try {
    let detail;
    try {
      detail = await eventDetail(store, opts.id, !!opts.showNumbers, !out.json);
    } catch (error) {
      return await readFailed(store, error);
    }
    if (!detail) throw new NotFoundError(said`no event ${opts.id} in ${store.where} (callctl hooks events lists them)`);
    if (out.json) {
      out.writeJson(detail.json satisfies HooksShowJson);
      return 0;
    }
    const { json: r, body } = detail;
    const f = r.forward;
    out.record(
      [
        ['id', r.id],
        ['time', r.time],
        ['type', r.type ?? '(refused before its type was known)'],
        ...Object.entries(r.ids).map(([k, v]) => [k, v] as const),
        ['http status', r.status],
        ...(r.error ? ([['error', r.error]] as const) : []),
        ['verdict', r.verdict ?? ''],
        ...(r.by ? ([['key matched', r.by]] as const) : []),
        ...(r.reason ? ([['reason', printable(r.reason)]] as const) : []),
        ...(r.warnings?.length ? ([['warnings', printable(r.warnings.join('; '))]] as const) : []),
        ['identity', printable(r.key ?? '')],
        ['retry', r.retry > 0 ? `retry ${r.retry} of this event` : 'first arrival'],
        ['arrivals', r.arrivals || 1],
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
      `event ${r.id}`,
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
