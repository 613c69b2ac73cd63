import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import type { HooksReplayLine } from '../../schemas/hooks-output.js';
import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import { NetworkError, ServiceError, ServiceUnavailableError, UsageError } from '../../errors.js';
import { readFailed } from './source.js';
import { timeOf, timeText } from '../time-flags.js';
import { httpUrl } from '../../config/http-url.js';
import { said } from '../../said.js';

function declare(hooks: Command) {
  return hooks
    .command('replay')
    .description('send events recorded by serve-hooks (--log file or the store) again, byte for byte, in order')
    .option('--log <file>', 'the NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--to <url>', 'where to send them')
    .option('--events <types>', 'only these types, comma-separated')
    .option(
      '--since <when>',
      'only events received since a time (2026-11-22T14:00:00+07:00), a date (00:00 UTC) or a duration ago (15m, 2h, 3d)',
      timeText,
    )
    .option('--chatbot-secret-file <file>', 'secret to sign chatbot events again (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that prints X-Service-Sign for a body on stdin')
    .option('--forward-secret-file <file>', 'whsec_ secret signing them as forwards are (or CALLCTL_FORWARD_SECRET)')
    .option('--include-unverified', 'also send events that were not verified on arrival (unsigned); default: skip them')
    .addHelpText(
      'after',
      `
Sent: accepted events, each once (retries from the service, rejected and refused requests are
skipped), with their recorded Content-Type and User-Agent. The log never keeps X-Service-Sign:
chatbot events verified on arrival are signed again when a secret or --sign-command is given.
Events not verified on arrival (no secret then, --skip-verify) are skipped, or with
--include-unverified sent as they came, never signed by callctl. With a forward secret
(--forward-secret-file, else CALLCTL_FORWARD_SECRET) each is signed as serve-hooks signs its
forwards (Standard Webhooks, the same webhook-id as its forward). Failed sends are
retried on network errors, 408, 429 and 5xx with back-off.

Output: one line per event (time, type, the HTTP status); piped or --json one JSON object per event
(shape below). Exit 1 when the receiver refused one (4xx); 5 when
it could not be reached or kept answering 5xx or 429 after retries (run again later).

Examples:
  callctl hooks replay --log events.ndjson --to http://127.0.0.1:3000/hooks --events task.end --since 2h
  callctl hooks replay --log /var/lib/callctl/events.ndjson --to http://127.0.0.1:3000/hooks --since 2026-11-22T08:00:00Z --json

JSON (--json), one object per line ("status": the receiver's, null when none came):
${JSON_SHAPES.hooksReplay}`,
    );
}

export type ReplayOptions = FlagsOf<typeof declare>;

export function register(hooks: Command, { start }: Deps): void {
  declare(hooks).action((flags, command) => start(command, runHooksReplay, flags));
}

/** Sends recorded events again, byte for byte, in the order they arrived. */
export async function runHooksReplay(ctx: Context, opts: ReplayOptions): Promise<number> {
  if (opts.log !== undefined && !existsSync(opts.log)) throw new UsageError(said`--log: no such file ${opts.log}`);
  const { chatbotSigning, forwardKey, parseEventTypes } = await import('../../hooks/plan.js');
  const { resend } = await import('../../hooks/resend.js');
  const to = httpUrl(opts.to, '--to');
  const types = parseEventTypes(opts.events);
  const since = opts.since === undefined ? undefined : timeOf(opts.since, ctx.io.now(), '--since');
  const chatbot = chatbotSigning(opts, ctx.io.env);
  const key = forwardKey(opts, to, ctx.io.env);
  const out = await ctx.output();
  const json = out.json || !ctx.io.stdoutIsTTY;
  let sent = 0;
  let failed = 0;
  let skipped = 0;
  let unsignedWarned = false;
  let lastError: string | undefined;
  // Failures the receiver will answer the same way again (4xx): exit 1; only 5xx/429 ones: exit 5.
  let refused = 0;
  const transport = await ctx.transport();
  const store = await (await ctx.store(opts)).events({});
  try {
    for await (const event of store.read({
      ...(types ? { types } : {}),
      ...(since !== undefined ? { since } : {}),
      retries: false,
    })) {
      const r = event.record;
      const done = await resend(transport, to, event, {
        chatbot,
        includeUnverified: !!opts.includeUnverified,
        ...(key ? { key } : {}),
      });
      if ('skipped' in done) {
        if (done.skipped === 'not verified') skipped += 1;
        continue;
      }
      const { outcome } = done;
      if (done.unsigned && !unsignedWarned) {
        unsignedWarned = true;
        out.warn(
          said`X-Service-Sign is not kept in the log and no chatbot secret or --sign-command is given: chatbot events go unsigned`,
        );
      }
      const status = outcome.answer?.status;
      const ok = status !== undefined && status >= 200 && status < 300;
      if (ok) sent += 1;
      else {
        failed += 1;
        lastError = outcome.error ?? `HTTP ${status}`;
        if (status !== undefined && status < 500 && status !== 408 && status !== 429) refused += 1;
      }
      const row = {
        time: r.time,
        type: r.type,
        status: status ?? null,
        ...(outcome.error ? { error: outcome.error } : {}),
        attempts: outcome.attempts,
      } satisfies HooksReplayLine;
      if (json) ctx.io.stdout.write(`${JSON.stringify(row)}\n`);
      else
        ctx.io.stdout.write(
          `${out.out.dim(r.time)}  ${out.out.cyan(String(r.type).padEnd(22))}  ${ok ? out.out.green(String(status)) : out.out.red(lastError ?? '')}\n`,
        );
    }
  } catch (error) {
    await readFailed(store, error);
  } finally {
    await store.close();
  }
  out.info(
    said`replayed ${sent} event${sent === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''} to ${new URL(to).origin}`,
  );
  if (skipped)
    out.warn(
      said`skipped ${skipped} event${skipped === 1 ? '' : 's'} not verified on arrival (--include-unverified sends them unsigned)`,
    );
  if (failed > 0 && lastError && !/^HTTP /.test(lastError))
    throw new NetworkError(said`hooks replay: ${failed} not delivered (${lastError})`);
  if (failed > 0) {
    const Failed = refused === 0 ? ServiceUnavailableError : ServiceError;
    throw new Failed(said`hooks replay: ${failed} answered with an error (${lastError})`, 'replay', 0, undefined);
  }
  return 0;
}
