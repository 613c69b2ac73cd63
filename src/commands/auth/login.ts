import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { AuthError, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { readAll } from '../../io-read.js';
import { httpUrl } from '../../config/http-url.js';
import type { AuthLoginJson } from '../../schemas/local-output.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(auth: Command) {
  return auth
    .command('login', { isDefault: true })
    .description('exchange APPKey and APPSecret for a token and store it in the profile')
    .option('--app-key <key>', 'APPKey (env CALLCTL_APP_KEY; prompted on a TTY)')
    .option(
      '--app-secret-stdin',
      'read the APPSecret from stdin (else CALLCTL_APP_SECRET, CALLCTL_APP_SECRET_FILE, or a masked prompt)',
    )
    .addHelpText(
      'after',
      `
The APPSecret is never stored and never a flag value; the token is stored in the profile.

Examples:
  callctl auth login --base-url https://service.example
  printf %s "$SECRET" | callctl auth login --app-key KEY --app-secret-stdin --no-input
  callctl -p test auth login

JSON (--json):
${JSON_SHAPES.authLogin}`,
    );
}

export type LoginOptions = FlagsOf<typeof declare>;

export function register(auth: Command, { start }: Deps): void {
  declare(auth).action((flags, command) => start(command, runLogin, flags));
}

export async function runLogin(ctx: Context, opts: LoginOptions): Promise<number> {
  const settings = await ctx.settings();
  const prompter = ctx.io.prompter;

  let baseUrl = settings.get('base-url');
  if (!baseUrl && ctx.canPrompt()) baseUrl = (await prompter.input('Service base URL')).trim();
  if (!baseUrl)
    throw new UsageError(
      said`missing base URL: give it with --base-url, CALLCTL_BASE_URL or \`callctl config set base-url ...\``,
    );
  httpUrl(baseUrl, 'base URL');
  ctx.noteAddress(
    baseUrl,
    said`the base URL, from ${settings.get('base-url') ? ctx.sourceOf('base-url', said`--base-url`) : said`the prompt`}`,
  );

  let appKey = opts.appKey || settings.get('app-key');
  let appKeyFrom = opts.appKey ? said`--app-key` : ctx.sourceOf('app-key', said`--app-key`);
  if (!appKey && ctx.canPrompt()) {
    appKey = (await prompter.input('APPKey')).trim();
    appKeyFrom = said`the prompt`;
  }
  if (!appKey) throw new UsageError(said`missing APPKey: give it with --app-key or CALLCTL_APP_KEY`);

  let appSecret: string | undefined;
  let appSecretFrom = said`--app-secret-stdin`;
  if (opts.appSecretStdin) {
    appSecret = (await readAll(ctx.io.stdin)).toString('utf8').replace(/\r?\n$/, '');
    if (!appSecret) throw new UsageError(said`--app-secret-stdin: stdin was empty`);
  } else {
    const { secretFromEnv } = await import('../../config/settings.js');
    appSecret = secretFromEnv(ctx.io.env, 'CALLCTL_APP_SECRET', 'CALLCTL_APP_SECRET_FILE');
    appSecretFrom = ctx.io.env.CALLCTL_APP_SECRET ? said`CALLCTL_APP_SECRET` : said`CALLCTL_APP_SECRET_FILE`;
  }
  if (!appSecret && ctx.canPrompt()) {
    appSecret = await prompter.password('APPSecret');
    appSecretFrom = said`the prompt`;
  }
  if (!appSecret) {
    throw new UsageError(
      said`missing APPSecret: give it with --app-secret-stdin, CALLCTL_APP_SECRET or CALLCTL_APP_SECRET_FILE (or run on a terminal to be prompted)`,
    );
  }
  ctx.addSecret(appSecret);

  const { CloudClient } = await import('../../api/client.js');
  const client = new CloudClient(await ctx.transport(), { baseUrl });
  const token = await client.authenticate({
    appKey,
    appSecret,
    from: { appKey: appKeyFrom, appSecret: appSecretFrom },
  });
  ctx.addSecret(token);
  if (!token) throw new AuthError(said`the service returned no token`);
  const obtainedAt = new Date(ctx.io.now()).toISOString();
  const { updateProfile } = await import('../../config/config-file.js');
  await updateProfile(await ctx.configDir(), ctx.profile, (p) => ({
    ...p,
    'base-url': baseUrl,
    'app-key': appKey,
    token,
    'token-obtained-at': obtainedAt,
    'token-base-url': baseUrl,
  }));
  const out = await ctx.output();
  if (out.json) out.writeJson({ profile: ctx.profile, baseUrl, tokenObtainedAt: obtainedAt } satisfies AuthLoginJson);
  else
    out.success(
      said`logged in to ${baseUrl} (profile ${ctx.profile}) with the APPKey from ${appKeyFrom} and the APPSecret from ${appSecretFrom}; token stored`,
    );
  return 0;
}
