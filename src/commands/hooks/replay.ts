import type { HooksReplayLine } from '../../schemas/hooks-output.js';
import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import { NetworkError, ServiceError, ServiceUnavailableError, UsageError } from '../../errors.js';
import { recordBody, type HookRecord } from '../../state/event-log.js';
import { readFailed, readSource } from './source.js';
import { runSignCommand } from '../../signing/sign-command.js';
import { defaultServiceSign } from '../../signing/sign.js';
import { post } from '../../hooks/send.js';
import { timeOf } from '../time-flags.js';
import { chatbotSigning, parseEventTypes } from './secrets.js';
import { httpUrl } from '../../config/http-url.js';

export interface ReplayOptions {
  log?: string;
  store?: string;
  storeFile?: string;
  to?: string;
  events?: string;
  since?: string;
  chatbotSecretFile?: string;
  signCommand?: string;
  includeUnverified?: boolean;
}

/**
 * Whether a record is an event to send again: a JSON body that was not refused or rejected, and
 * the first arrival (retries of the same event are not sent twice).
 */
export function replayable(r: HookRecord): boolean {
  return (
    r.type !== null &&
    r.body !== undefined &&
    !r.duplicate &&
    r.verdict !== 'rejected' &&
    r.verdict !== 'unavailable' &&
    r.answer === 200
  );
}

/**
 * Whether callctl stands behind a record's authenticity: verified on arrival, or of a type the
 * spec does not sign. Only verified events are signed again; an event that was not verified
 * (no secret at the time, `--skip-verify`) is never made to look verified.
 */
export function vouched(r: HookRecord): boolean {
  return r.verdict === 'verified' || r.verdict === 'unsigned';
}

/** Sends recorded events again, byte for byte, in the order they arrived. */
export async function runHooksReplay(ctx: Context, opts: ReplayOptions): Promise<number> {
  if (opts.log !== undefined && !existsSync(opts.log)) throw new UsageError(`--log: no such file ${opts.log}`);
  const to = httpUrl(opts.to, '--to');
  const types = parseEventTypes(opts.events);
  const since = opts.since === undefined ? undefined : timeOf(opts.since, ctx.io.now(), '--since');
  const chatbot = chatbotSigning(ctx, opts);
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
  const store = await readSource(ctx, opts);
  try {
    for await (const { record: r } of store.read({
      ...(types ? { types } : {}),
      ...(since !== undefined ? { since } : {}),
      retries: false,
    })) {
      if (!replayable(r)) continue;
      const trusted = vouched(r);
      if (!trusted && !opts.includeUnverified) {
        skipped += 1;
        continue;
      }
      const body = recordBody(r);
      const headers: Record<string, string> = { 'content-type': r.headers['content-type'] ?? 'application/json' };
      if (r.headers['user-agent']) headers['user-agent'] = r.headers['user-agent'];
      // Not verified on arrival (--include-unverified): sent as it came, without a signature of ours.
      if (trusted && 'x-service-sign' in r.headers) {
        // The log never keeps X-Service-Sign; it is made again from the same bytes when possible.
        if (chatbot.command) headers['x-service-sign'] = await runSignCommand(chatbot.command, body).catch(() => '');
        else if (chatbot.secret) headers['x-service-sign'] = defaultServiceSign(body, chatbot.secret);
        else if (!unsignedWarned) {
          unsignedWarned = true;
          out.warn(
            'X-Service-Sign is not kept in the log and no chatbot secret or --sign-command is given: chatbot events go unsigned',
          );
        }
        if (headers['x-service-sign'] === '') delete headers['x-service-sign'];
      }
      const outcome = await post(transport, to, body, headers);
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
    `replayed ${sent} event${sent === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''} to ${new URL(to).origin}`,
  );
  if (skipped)
    out.warn(
      `skipped ${skipped} event${skipped === 1 ? '' : 's'} not verified on arrival (--include-unverified sends them unsigned)`,
    );
  if (sent === 0 && failed === 0) return 0;
  if (failed > 0 && lastError && !/^HTTP /.test(lastError))
    throw new NetworkError(`hooks replay: ${failed} not delivered (${lastError})`);
  if (failed > 0 && refused === 0)
    throw new ServiceUnavailableError(
      `hooks replay: ${failed} answered with an error (${lastError})`,
      'replay',
      0,
      undefined,
    );
  if (failed > 0)
    throw new ServiceError(`hooks replay: ${failed} answered with an error (${lastError})`, 'replay', 0, undefined);
  return 0;
}
