/**
 * The settings a profile holds, with the environment variable that overrides each
 * (README, "Configuration"). Precedence: flag, environment, profile, default.
 */
export interface SettingSpec {
  env?: string;
  /** Masked by `config list`, redacted everywhere else. */
  secret?: boolean;
  /** Written by callctl itself (auth login), not by `config set`. */
  internal?: boolean;
  /** The values `config set` takes, when only some are meaningful. */
  values?: readonly string[];
  description: string;
}

export const SETTINGS = {
  'base-url': { env: 'CALLCTL_BASE_URL', description: "the service's base URL" },
  'app-key': { env: 'CALLCTL_APP_KEY', description: 'APPKey for the token endpoint' },
  token: { env: 'CALLCTL_TOKEN', secret: true, internal: true, description: 'token from auth login' },
  'token-obtained-at': { internal: true, description: 'when the token was obtained (ISO time)' },
  'token-base-url': { internal: true, description: 'the base URL that issued the token (it is sent nowhere else)' },
  'flex-url': { env: 'CALLCTL_FLEX_URL', description: 'direct call-push address (live)' },
  'flex-test-url': { env: 'CALLCTL_FLEX_TEST_URL', description: 'direct call-push address (test)' },
  'push-token': { env: 'CALLCTL_PUSH_TOKEN', secret: true, description: 'push token (live)' },
  'push-test-token': { env: 'CALLCTL_PUSH_TEST_TOKEN', secret: true, description: 'push token (test)' },
  'push-token-flex-url': {
    internal: true,
    description: 'the flex-route address push-token was set for (it is sent nowhere else)',
  },
  'push-test-token-flex-url': { internal: true, description: 'the flex-route address push-test-token was set for' },
  'sign-key': { env: 'CALLCTL_SIGN_KEY', secret: true, description: 'X-Service-Sign-Key (template API key)' },
  'sign-secret': {
    env: 'CALLCTL_SIGN_SECRET',
    secret: true,
    description: 'secret of the default X-Service-Sign (set it with --stdin)',
  },
  'hook-keys': { env: 'CALLCTL_HOOK_KEYS', secret: true, description: 'comma-separated KEYs for plan/task Sign' },
  region: {
    description:
      'region of phone numbers written without + and a country code (ISO 3166, e.g. US): push, template send, workflow update',
  },
  'caller-id-phone-only': {
    values: ['true', 'false'],
    description:
      'true: push sends only a caller_id that is a phone number (as --phone-only); else any text the spec allows',
  },
  store: {
    env: 'CALLCTL_STORE',
    secret: true,
    description: 'event store: postgres://user:password@host/db, or an NDJSON file',
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/** Secrets that come only from the environment (or a file it names), never from the store. */
export const SECRET_ENV = {
  appSecret: 'CALLCTL_APP_SECRET',
  appSecretFile: 'CALLCTL_APP_SECRET_FILE',
  signSecret: 'CALLCTL_SIGN_SECRET',
  signSecretFile: 'CALLCTL_SIGN_SECRET_FILE',
  chatbotSecret: 'CALLCTL_CHATBOT_SECRET',
  forwardSecret: 'CALLCTL_FORWARD_SECRET',
} as const;

/** Environment variables that hold a secret value (not a file name): registered for redaction at start. */
export const SECRET_ENV_NAMES: readonly string[] = [
  ...Object.values(SETTINGS).flatMap((spec: SettingSpec) => (spec.secret && spec.env ? [spec.env] : [])),
  SECRET_ENV.appSecret,
  SECRET_ENV.signSecret,
  SECRET_ENV.chatbotSecret,
  SECRET_ENV.forwardSecret,
];

/** The settings' keys and variables: callctl's names, shown as written in its messages (src/said.ts). */
export const SETTING_NAMES: ReadonlySet<string> = new Set([
  ...SETTING_KEYS,
  ...Object.values(SETTINGS).flatMap((spec: SettingSpec) => (spec.env ? [spec.env] : [])),
  ...Object.values(SECRET_ENV),
]);
