import type { IO } from './io.js';
import { Settings, secretFromEnv } from './config/settings.js';
import { checkProfileName, readCurrent } from './config/config-file.js';
import { configDir } from './config/paths.js';
import { sameBaseUrl, tokenBaseUrl } from './config/token-url.js';
import type { CloudClient, Credentials } from './api/client.js';
import { Transport } from './api/transport.js';
import { Output } from './output/output.js';
import { AuthError } from './errors.js';
import { USER_AGENT } from './version.js';
import { DEFAULT_TIMEOUT_SECONDS } from './limits.js';
import { addSecret, addUrlSecrets, secrets } from './redact.js';
import { SECRET_ENV, SECRET_ENV_NAMES, SETTING_KEYS, SETTING_NAMES, SETTINGS } from './config/keys.js';
import type { SettingKey, SettingSpec } from './config/keys.js';
import { httpUrl } from './config/http-url.js';
import type { StoreFlags } from './store/resolve.js';
import type { Store } from './store/store.js';
import { named, said, type Said } from './said.js';

/**
 * Registers the secrets among the settings' values: the secret ones, each hook key apart (they are
 * also used one by one), and the passwords inside URLs.
 */
function addSettingSecrets(get: (key: SettingKey) => string | undefined): void {
  for (const key of SETTING_KEYS) if ((SETTINGS[key] as SettingSpec).secret) addSecret(get(key));
  for (const k of (get('hook-keys') ?? '').split(',')) addSecret(k.trim());
  for (const key of ['base-url', 'flex-url', 'flex-test-url', 'store'] as const) addUrlSecrets(get(key));
}

/** Options every command accepts (README, "Configuration"). */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  configDir?: string;
  json: boolean;
  /** false with `--no-color`. */
  color: boolean;
  verbose: boolean;
  /** Seconds. */
  timeout?: number;
  /** false with `--no-input`. */
  input: boolean;
  /** `--wide`, `--columns`, `--header`: how tables are printed (src/output/table.ts). */
  wide?: boolean;
  columns?: string[];
  header?: boolean;
}

/**
 * What a command is given (the GitHub CLI's Factory): IO, global options, and lazily built
 * settings, transport, API client and output, so that a command pays only for what it uses.
 */
export class Context {
  /** Every secret value this run has seen (the process's one registry, src/redact.ts); redacted from all output and files. */
  readonly secrets = secrets;
  /**
   * When message lines on stderr start with an ISO-8601 time: `piped` for the commands a cron job
   * runs (workflow update, push, template send), without a terminal, their warnings and errors
   * (as their progress lines); `always` for the long-running ones (serve-hooks, hooks ui), every
   * line (information and -v too), whose lines say little without their time.
   */
  stampLines: 'never' | 'piped' | 'always' = 'never';
  private settingsCache: Settings | undefined;
  private outputCache: Output | undefined;
  private transportCache: Transport | undefined;
  private clientCache: CloudClient | undefined;
  private storeCache: Promise<Store> | undefined;
  private currentProfile: string | undefined;
  private readonly addresses = new Map<string, Said>();

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
  ) {
    // Every secret the environment holds is known from the start, whether or not this command uses
    // it: a service that echoes one back never gets it printed or written.
    for (const name of SECRET_ENV_NAMES) this.addSecret(io.env[name]);
    addSettingSecrets((key) => io.env[(SETTINGS[key] as SettingSpec).env ?? '']);
    addUrlSecrets(globals.baseUrl);
  }

  /** `-p`, then CALLCTL_PROFILE, then the profile `config use` chose (read by init), then `default`. */
  get profile(): string {
    return this.globals.profile || this.io.env.CALLCTL_PROFILE || this.currentProfile || 'default';
  }

  /** How the profile was chosen, for messages that say why it is in use. */
  get profileSource(): 'flag' | 'env' | 'config use' | 'default' {
    if (this.globals.profile) return 'flag';
    if (this.io.env.CALLCTL_PROFILE) return 'env';
    return this.currentProfile ? 'config use' : 'default';
  }

  /**
   * Reads what needs a file before any command runs: the default profile chosen by `config use`
   * (only when neither `-p` nor CALLCTL_PROFILE names one). An unreadable store is left for the
   * command that needs it to report.
   */
  async init(): Promise<void> {
    if (this.globals.profile) checkProfileName(this.globals.profile, '--profile');
    else if (this.io.env.CALLCTL_PROFILE) checkProfileName(this.io.env.CALLCTL_PROFILE, 'CALLCTL_PROFILE');
    if (this.globals.profile || this.io.env.CALLCTL_PROFILE) return;
    try {
      this.currentProfile = readCurrent(await this.configDir());
    } catch {
      // reported by the command that reads settings
    }
    if (this.currentProfile) checkProfileName(this.currentProfile, 'the profile chosen by `config use`');
  }

  async configDir(): Promise<string> {
    return configDir(this.globals.configDir, this.io.env);
  }

  async settings(): Promise<Settings> {
    if (!this.settingsCache) {
      this.settingsCache = new Settings(await this.configDir(), this.profile, this.io.env, {
        'base-url': this.globals.baseUrl,
      });
      const settings = this.settingsCache;
      addSettingSecrets((key) => settings.get(key));
    }
    return this.settingsCache;
  }

  addSecret(value: string | undefined): void {
    addSecret(value);
  }

  /** What a message line on stderr starts with now: `2026-11-23T02:30:05.123Z `, or nothing (stampLines). */
  stamp(line: 'info' | 'warning' = 'warning'): string {
    const on =
      this.stampLines === 'always' || (this.stampLines === 'piped' && line === 'warning' && !this.io.stderrIsTTY);
    return on ? `${new Date(this.io.now()).toISOString()} ` : '';
  }

  /** Prompts only when stdin and stderr are terminals and `--no-input` is not set. */
  canPrompt(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stderrIsTTY;
  }

  async output(): Promise<Output> {
    if (!this.outputCache) {
      this.outputCache = await Output.create(this.io, {
        json: this.globals.json,
        color: this.globals.color,
        wide: this.globals.wide,
        columns: this.globals.columns,
        header: this.globals.header,
        stamp: (line) => this.stamp(line),
      });
    }
    return this.outputCache;
  }

  /** Whole milliseconds (`--timeout` allows at most 3 decimals; the product may carry float noise). */
  timeoutMs(): number {
    return Math.round((this.globals.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000);
  }

  /** The one transport of this run. */
  async transport(): Promise<Transport> {
    if (!this.transportCache) {
      this.transportCache = new Transport({
        userAgent: USER_AGENT,
        timeoutMs: this.timeoutMs(),
        sleep: (ms) => this.io.sleep(ms),
        log: this.globals.verbose ? (line) => this.io.stderr.write(`${this.stamp('info')}${line}\n`) : undefined,
        secrets: () => [...this.secrets],
        env: this.io.env,
        addressFrom: (url) => this.addressFrom(url),
      });
    }
    return this.transportCache;
  }

  /** Credentials for the token endpoint from the environment, when a cron job gives them. */
  async envCredentials(): Promise<Credentials | undefined> {
    const appSecret = secretFromEnv(this.io.env, SECRET_ENV.appSecret, SECRET_ENV.appSecretFile);
    this.addSecret(appSecret);
    const appKey = (await this.settings()).get('app-key');
    if (!appKey || !appSecret) return undefined;
    const from = {
      appKey: this.sourceOf('app-key', said`--app-key`),
      appSecret: named(
        this.io.env[SECRET_ENV.appSecret] ? SECRET_ENV.appSecret : SECRET_ENV.appSecretFile,
        SETTING_NAMES,
      ),
    };
    return { appKey, appSecret, from };
  }

  async baseUrl(): Promise<string> {
    const settings = await this.settings();
    const url = httpUrl(settings.require('base-url', said`--base-url`), 'base URL');
    this.noteAddress(url, said`the base URL, from ${this.sourceOf('base-url', said`--base-url`)}`);
    return url;
  }

  /**
   * Where a setting's value came from, as a person would fix it: the flag, the environment
   * variable, or the profile's key.
   */
  sourceOf(key: SettingKey, flag: Said): Said {
    const { source } = this.settingsCache?.resolve(key) ?? {};
    const name = named(key, SETTING_NAMES);
    if (source === 'env') {
      const env = (SETTINGS[key] as { env?: string }).env;
      return env ? named(env, SETTING_NAMES) : name;
    }
    if (source === 'profile') return said`profile ${this.profile}'s ${name}`;
    return flag;
  }

  /** Records where an address came from, for the errors that name it (longest prefix wins). */
  noteAddress(url: string, from: Said): void {
    this.addresses.set(url.replace(/\/+$/, ''), from);
  }

  private addressFrom(url: string): Said | undefined {
    let best: string | undefined;
    for (const prefix of this.addresses.keys())
      if (url.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    return best === undefined ? undefined : this.addresses.get(best);
  }

  /**
   * The token for `baseUrl`: CALLCTL_TOKEN as given, else the profile's, which is sent only to
   * the base URL that issued it (a flag or a stale variable naming another host must not receive
   * it). `mismatch` tells which URL the profile's token is for.
   */
  async tokenFor(baseUrl: string): Promise<{ token?: string; source?: 'env' | 'profile'; mismatch?: string }> {
    const settings = await this.settings();
    const token = settings.resolve('token');
    if (!token.value) return {};
    if (token.source !== 'profile') return { token: token.value, source: 'env' };
    const issuer = tokenBaseUrl(settings.stored());
    if (issuer !== undefined && !sameBaseUrl(issuer, baseUrl)) return { mismatch: issuer };
    return { token: token.value, source: 'profile' };
  }

  /**
   * What a run authenticates with: CALLCTL_TOKEN as given; else the APPKey and an APPSecret from the
   * environment, which win over the profile's stored token (as GH_TOKEN does for gh: a run given
   * credentials uses them, and a wrong one fails now, not the night the stored token expires);
   * else the profile's token (for its own base URL only). `credentials` renew a rejected token.
   */
  async authFor(baseUrl: string): Promise<{
    token?: string;
    source?: 'env' | 'profile';
    mismatch?: string;
    credentials?: Credentials;
    /** What -v and `auth status` say is used (never a secret). */
    used: string;
  }> {
    const credentials = await this.envCredentials();
    const found = await this.tokenFor(baseUrl);
    if (found.source === 'env')
      return {
        ...found,
        credentials,
        used: `the token in CALLCTL_TOKEN${credentials ? ` (renewed with the APPKey from ${credentials.from!.appKey} and the APPSecret from ${credentials.from!.appSecret} if it is rejected)` : ''}`,
      };
    if (credentials) {
      const set = found.source === 'profile' ? `; profile ${this.profile}'s stored token is set aside` : '';
      return {
        credentials,
        used: `the APPKey from ${credentials.from!.appKey} and the APPSecret from ${credentials.from!.appSecret}: a token is got with them for this run, kept in memory, not stored${set}`,
      };
    }
    if (found.source === 'profile') {
      const settings = await this.settings();
      const keyOfToken = settings.stored()['app-key'];
      // An APPKey given without its secret must not borrow another account's stored token.
      if (settings.resolve('app-key').source === 'env' && keyOfToken && settings.get('app-key') !== keyOfToken)
        throw new AuthError(
          said`CALLCTL_APP_KEY is not the APPKey profile ${this.profile}'s token was got with, and no APPSecret is given for it: set CALLCTL_APP_SECRET (or CALLCTL_APP_SECRET_FILE) too, or unset CALLCTL_APP_KEY to use the stored login`,
        );
      const at = settings.stored()['token-obtained-at'];
      return { ...found, used: `profile ${this.profile}'s token (from auth login${at ? `, obtained ${at}` : ''})` };
    }
    return { ...found, used: 'none' };
  }

  /** The client of the cloud endpoints, authenticated as `authFor` says; a renewed token stays in memory (no config write). */
  async client(): Promise<CloudClient> {
    if (!this.clientCache) {
      const { CloudClient } = await import('./api/client.js');
      const out = await this.output();
      const transport = await this.transport();
      const baseUrl = await this.baseUrl();
      const { token, source, mismatch, credentials, used } = await this.authFor(baseUrl);
      if (this.globals.verbose) this.io.stderr.write(`${this.stamp('info')}* credentials: ${used}\n`);
      if (mismatch && !credentials) {
        throw new AuthError(
          said`profile ${this.profile} holds a token for ${mismatch}, not for ${baseUrl}; it is not sent elsewhere. To use ${baseUrl}, log in to it: \`callctl --base-url ${baseUrl} -p OTHER auth login\` (or set CALLCTL_TOKEN, or CALLCTL_APP_KEY with CALLCTL_APP_SECRET)`,
          { tokenBaseUrl: mismatch, baseUrl },
        );
      }
      this.clientCache = new CloudClient(transport, {
        baseUrl,
        token,
        credentials,
        onToken: (t) => this.addSecret(t),
        onWarning: (message) => out.warn(message),
        showBody: this.globals.verbose,
        ...(source === 'env' ? { tokenFrom: said`CALLCTL_TOKEN` } : {}),
      });
    }
    return this.clientCache;
  }

  /**
   * The run's store (journals, ledgers, locks, events; src/store/store.ts): resolved once, from the
   * command's `--store`/`--store-file` (when it takes them; a reading command's `--log`), the
   * environment or the profile, and the same Store is handed to every engine of the run.
   */
  store(flags: StoreFlags = {}): Promise<Store> {
    this.storeCache ??= (async () => {
      // Loaded when a command keeps state, not on every start (node:crypto and the journals' modules).
      const [{ openStore }, { stateDir }] = await Promise.all([
        import('./store/resolve.js'),
        import('./files/state.js'),
      ]);
      const profile = (await this.settings()).resolve('store');
      return openStore({
        flags,
        env: this.io.env,
        profileStore: profile.source === 'profile' ? profile.value : undefined,
        dir: stateDir(this.io.env),
        onLockLost: (what, why) => {
          const at = new Date(this.io.now()).toISOString();
          void this.output().then((out) =>
            out.warn(
              said`the lock of this ${what} in the store was lost at ${at} (${why}): this run sends nothing more; another host may now start the same work`,
            ),
          );
        },
      });
    })();
    return this.storeCache;
  }

  async close(): Promise<void> {
    await this.transportCache?.close();
    await (await this.storeCache?.catch(() => undefined))?.close();
  }
}
