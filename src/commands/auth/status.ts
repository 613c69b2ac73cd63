import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { AuthError, CliError, ExitCode } from '../../errors.js';
import { Context } from '../../context.js';
import type { AuthStatusJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(auth: Command) {
  return auth
    .command('status')
    .description('show the token in use and ask the service whether it works (exit 4 when not)')
    .option('--offline', 'answer from the local files only, without asking the service')
    .option(
      '--all',
      'check every stored profile, one row each (exit 4 when any has no usable token, else 5 when the service could not answer)',
    )
    .addHelpText(
      'after',
      `
Asks the service with one cheap request (GET /service/cloud/robot) whether the token works.
Exit 0 when it does, 4 when there is no token, the service rejects it, or the profile's token
belongs to another base URL; 5 when the service cannot answer (run again). With --offline: 0
when a token is at hand (CALLCTL_TOKEN, the profile's, or credentials in the environment).

Examples:
  callctl auth status
  callctl auth status --offline
  callctl auth status --all
  callctl -p prod auth status --json | jq .accepted

JSON (--json); with --all, an array of them, each with "problem" (null, or the reason it is not usable):
${JSON_SHAPES.authStatus}`,
    );
}

export type StatusOptions = FlagsOf<typeof declare>;

export function register(auth: Command, { start }: Deps): void {
  declare(auth).action((flags, command) => start(command, runAuthStatus, flags));
}

/**
 * Reports the token this profile would use and, unless `--offline`, asks the service whether it
 * works (one cheap request: GET /service/cloud/robot). Exit 4 when there is no usable token or
 * the service rejects it; a service that cannot answer is exit 5 as for any request.
 */
export async function runAuthStatus(ctx: Context, opts: StatusOptions): Promise<number> {
  if (opts.all) return runAll(ctx, opts);
  const { status, failure, uses } = await inspect(ctx, opts);
  const out = await ctx.output();
  if (out.json) out.writeJson(status satisfies AuthStatusJson);
  else
    out.record([
      ['profile', status.profile],
      ['base URL', status.baseUrl ?? '(not set)'],
      ['token', status.tokenSource ?? '(none)'],
      ['token for', status.tokenBaseUrl ?? ''],
      ['obtained', status.tokenObtainedAt ?? ''],
      ['a run uses', uses],
      ['service', status.accepted === null ? '(not asked)' : status.accepted ? 'token accepted' : 'token rejected'],
    ]);
  if (failure) throw failure;
  return 0;
}

/** What `auth status` finds for the profile of `ctx`, and the error it ends with, if any. */
async function inspect(ctx: Context, opts: StatusOptions) {
  const settings = await ctx.settings();
  const token = settings.resolve('token');
  const baseUrl = settings.get('base-url');
  const obtainedAt = token.source === 'profile' ? settings.stored()['token-obtained-at'] : undefined;
  const credentials = await ctx.envCredentials();
  const { tokenBaseUrl } = await import('../../config/token-url.js');
  const tokenFor = token.source === 'profile' ? tokenBaseUrl(settings.stored()) : undefined;
  const usable = baseUrl && token.value ? await ctx.tokenFor(baseUrl) : {};
  // What a command run now would authenticate with (credentials in the environment win over a stored token).
  const uses = baseUrl ? (await ctx.authFor(baseUrl)).used : '(no base URL)';
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
  const status: AuthStatusJson = {
    profile: ctx.profile,
    baseUrl: baseUrl ?? null,
    tokenSource:
      token.source === 'env'
        ? 'CALLCTL_TOKEN'
        : credentials
          ? 'credentials in the environment'
          : token.source === 'profile'
            ? 'profile'
            : null,
    tokenBaseUrl: tokenFor ?? null,
    tokenObtainedAt: obtainedAt ?? null,
    loggedIn,
    /** What the service said of the token: true, false, or null when not asked (--offline). */
    accepted,
  };
  let failure: AuthError | undefined;
  if (usable.mismatch && !credentials) {
    failure = new AuthError(
      said`profile ${ctx.profile} holds a token for ${usable.mismatch}, not for ${baseUrl}: log in to ${baseUrl} with \`callctl --base-url ${baseUrl} -p OTHER auth login\``,
    );
  } else if (!loggedIn) failure = new AuthError(said`no token for profile ${ctx.profile}: run \`callctl auth login\``);
  else if (accepted === false) failure = new AuthError(problem!);
  return { status, failure, uses };
}

/**
 * `auth status --all`: every stored profile checked as `auth status -p NAME` would (one request
 * each unless --offline), one row each. Exit 4 when any profile has no usable token, else 5 when
 * the service could not answer for one, else 0.
 */
async function runAll(ctx: Context, opts: StatusOptions): Promise<number> {
  const { readConfigFile } = await import('../../config/config-file.js');
  const names = Object.keys(readConfigFile(await ctx.configDir()).profiles ?? {}).sort();
  const rows: Array<AuthStatusJson & { problem: string | null }> = [];
  let exitCode: number = ExitCode.OK;
  for (const name of names) {
    const child = new Context(ctx.io, { ...ctx.globals, profile: name });
    try {
      const { status, failure } = await inspect(child, opts);
      rows.push({ ...status, problem: failure ? redactWith(child, failure.message) : null });
      if (failure) exitCode = ExitCode.AUTH;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      // A profile the service cannot be asked about (network, a refusal) is reported, not fatal.
      rows.push({
        profile: name,
        baseUrl: null,
        tokenSource: null,
        tokenBaseUrl: null,
        tokenObtainedAt: null,
        loggedIn: false,
        accepted: null,
        problem: redactWith(child, error.message),
      });
      if (exitCode === ExitCode.OK || (exitCode !== ExitCode.AUTH && error.exitCode === ExitCode.AUTH))
        exitCode = error.exitCode;
    } finally {
      for (const secret of child.secrets) ctx.addSecret(secret);
      await child.close();
    }
  }
  const out = await ctx.output();
  await out.list(
    rows,
    [
      { header: 'PROFILE', value: (r) => r.profile, kind: 'id' },
      { header: 'BASE URL', value: (r) => r.baseUrl ?? '', kind: 'id' },
      { header: 'TOKEN', value: (r) => r.tokenSource ?? 'none' },
      {
        header: 'SERVICE',
        value: (r) => (r.accepted === null ? (opts.offline ? 'not asked' : '') : r.accepted ? 'accepted' : 'rejected'),
      },
      { header: 'PROBLEM', value: (r) => r.problem ?? '', kind: 'text' },
    ],
    { json: rows satisfies AuthStatusJson[] },
  );
  if (names.length === 0)
    out.info(said`no stored profile: log in with \`callctl auth login\` (or \`-p NAME auth login\`)`);
  return exitCode;
}

function redactWith(ctx: Context, text: string): string {
  let out = text;
  for (const s of ctx.secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}
