import { AuthError, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { callerPerson, type CallerReading, type PushTarget } from '../../reach/push.js';
import { httpUrl } from '../../config/http-url.js';
import { readAll } from '../../io-read.js';
import { regionOf } from '../flags/send.js';
import { said } from '../../said.js';

/** The flags that say where a push goes: `--test`, `--flex-url`, `--push-token-stdin`. */
interface TargetFlags {
  test?: true;
  flexUrl?: string;
  pushTokenStdin?: true;
}

/**
 * The flex-route address (flag, environment, profile) and the push token (stdin, environment,
 * profile; never a flag). `--test` uses the test pair.
 */
export async function resolvePushTarget(ctx: Context, opts: TargetFlags): Promise<PushTarget> {
  const settings = await ctx.settings();
  const test = opts.test === true;
  const flexUrl = httpUrl(
    opts.flexUrl || settings.require(test ? 'flex-test-url' : 'flex-url', said`--flex-url`),
    test ? 'flex-test-url' : 'flex-url',
  );
  const urlKey = test ? 'flex-test-url' : 'flex-url';
  ctx.noteAddress(
    flexUrl,
    said`the ${test ? said`test ` : ''}flex-route URL, from ${opts.flexUrl ? said`--flex-url` : ctx.sourceOf(urlKey, said`--flex-url`)}`,
  );
  const tokenKey = test ? 'push-test-token' : 'push-token';
  const token = opts.pushTokenStdin
    ? await secretFromStdin(ctx, '--push-token-stdin')
    : settings.require(tokenKey, said`--push-token-stdin`);
  if (!opts.pushTokenStdin && settings.resolve(tokenKey).source === 'profile') {
    // The profile's push token goes only to the address it was set for.
    const { pushTokenFlexUrl, sameBaseUrl } = await import('../../config/token-url.js');
    const bound = pushTokenFlexUrl(settings.stored(), test);
    if (bound === undefined || !sameBaseUrl(bound, flexUrl)) {
      throw new AuthError(
        bound === undefined
          ? said`profile ${ctx.profile}'s ${tokenKey} has no flex-route address recorded, so it is not sent to ${flexUrl}: set it with \`callctl config set ${test ? 'flex-test-url' : 'flex-url'} ${flexUrl}\` and set ${tokenKey} again`
          : said`profile ${ctx.profile}'s ${tokenKey} is for ${bound}, not for ${flexUrl}; it is not sent elsewhere. To push to ${flexUrl}, give its token (--push-token-stdin or ${test ? 'CALLCTL_PUSH_TEST_TOKEN' : 'CALLCTL_PUSH_TOKEN'}) or use a profile set up for it`,
        { flexUrl, tokenFlexUrl: bound ?? null },
      );
    }
  }
  ctx.addSecret(token);
  // The path carries the token percent-encoded; that form must not be printed either.
  ctx.addSecret(encodeURIComponent(token));
  const resolved = settings.resolve(tokenKey);
  const from = opts.pushTokenStdin
    ? '--push-token-stdin'
    : resolved.source === 'env'
      ? test
        ? 'CALLCTL_PUSH_TEST_TOKEN'
        : 'CALLCTL_PUSH_TOKEN'
      : `profile ${ctx.profile}'s ${tokenKey}`;
  return {
    flexUrl,
    token,
    environment: test ? 'test' : 'live',
    tokenSource: { what: 'the push token', from, key: tokenKey, inPath: true },
  };
}

/** How callers are read: `--region` (or the profile's), `--e164`, and `--phone-only` (or the profile's caller-id-phone-only). */
export async function callerReading(
  ctx: Context,
  opts: { region?: string; e164?: true; phoneOnly?: true },
): Promise<CallerReading> {
  const region = await regionOf(ctx, opts);
  const stored = (await ctx.settings()).get('caller-id-phone-only');
  const phoneOnly = opts.phoneOnly
    ? '--phone-only'
    : stored === 'true'
      ? `profile ${ctx.profile}'s caller-id-phone-only`
      : undefined;
  return { region, e164: opts.e164 === true, ...(phoneOnly ? { phoneOnly } : {}) };
}

/** The person an earlier callctl's ledger entry (a caller_id as written) is now. */
export const rekeyCaller =
  (reading: CallerReading) =>
  (written: string): string => {
    const p = callerPerson(written, { region: reading.region });
    return p.ok ? p.key : written.normalize('NFKC').trim();
  };

/** A secret read from stdin (`--push-token-stdin`): one trailing newline dropped. */
async function secretFromStdin(ctx: Context, flag: string): Promise<string> {
  const value = (await readAll(ctx.io.stdin)).toString('utf8').replace(/\r?\n$/, '');
  if (!value) throw new UsageError(said`${flag}: stdin was empty`);
  ctx.addSecret(value);
  return value;
}
