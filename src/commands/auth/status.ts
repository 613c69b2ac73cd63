import { AuthError } from '../../errors.js';
import type { Context } from '../../context.js';

export interface StatusOptions {
  /** Answer from the local files only, without asking the service. */
  offline?: boolean;
}

/**
 * Reports the token this profile would use and, unless `--offline`, asks the service whether it
 * works (one cheap request: GET /service/cloud/robot). Exit 4 when there is no usable token or
 * the service rejects it; a service that cannot answer is exit 5 as for any request.
 */
export async function run(ctx: Context, opts: StatusOptions = {}): Promise<number> {
  const settings = await ctx.settings();
  const token = settings.resolve('token');
  const baseUrl = settings.get('base-url');
  const obtainedAt = token.source === 'profile' ? settings.stored()['token-obtained-at'] : undefined;
  const credentials = await ctx.envCredentials();
  const { tokenBaseUrl } = await import('../../config/token-url.js');
  const tokenFor = token.source === 'profile' ? tokenBaseUrl(settings.stored()) : undefined;
  const usable = baseUrl && token.value ? await ctx.tokenFor(baseUrl) : {};
  const loggedIn = usable.token !== undefined || credentials !== undefined || (!baseUrl && token.value !== undefined);
  let accepted: boolean | null = null;
  let problem: string | undefined;
  if (!opts.offline && loggedIn && baseUrl) {
    const { listRobots } = await import('../../api/cloud.js');
    try {
      await listRobots(await ctx.client());
      accepted = true;
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      accepted = false;
      problem = error.message;
    }
  }
  const out = await ctx.output();
  const status = {
    profile: ctx.profile,
    baseUrl: baseUrl ?? null,
    tokenSource: token.source === 'env' ? 'CALLCTL_TOKEN' : token.source === 'profile' ? 'profile' : credentials ? 'credentials in the environment' : null,
    tokenBaseUrl: tokenFor ?? null,
    tokenObtainedAt: obtainedAt ?? null,
    loggedIn,
    /** What the service said of the token: true, false, or null when not asked (--offline). */
    accepted,
  };
  if (out.json) out.writeJson(status);
  else
    out.record([
      ['profile', status.profile],
      ['base URL', status.baseUrl ?? '(not set)'],
      ['token', status.tokenSource ?? '(none)'],
      ['token for', status.tokenBaseUrl ?? ''],
      ['obtained', status.tokenObtainedAt ?? ''],
      ['service', accepted === null ? '(not asked)' : accepted ? 'token accepted' : 'token rejected'],
    ]);
  if (usable.mismatch && !credentials) {
    throw new AuthError(`profile ${ctx.profile} holds a token for ${usable.mismatch}, not for ${baseUrl}: log in to ${baseUrl} with \`callctl --base-url ${baseUrl} -p OTHER auth login\``);
  }
  if (!loggedIn) throw new AuthError(`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  if (accepted === false) throw new AuthError(problem!);
  return 0;
}
