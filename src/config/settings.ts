import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { SETTING_NAMES, SETTINGS, type SettingKey } from './keys.js';
import { readProfile, type Profile } from './config-file.js';
import { named, Said, said } from '../said.js';

export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

export interface Resolved {
  value: string | undefined;
  source: SettingSource | undefined;
}

/** Settings of one run: flag, then environment, then the stored profile, then the default. */
export class Settings {
  private profileData: Profile | undefined;

  constructor(
    readonly dir: string,
    readonly profile: string,
    private readonly env: Record<string, string | undefined>,
    private readonly flags: Partial<Record<SettingKey, string | undefined>> = {},
  ) {}

  /** The stored profile, read once. */
  stored(): Profile {
    this.profileData ??= readProfile(this.dir, this.profile);
    return this.profileData;
  }

  resolve(key: SettingKey): Resolved {
    const flag = this.flags[key];
    if (flag !== undefined && flag !== '') return { value: flag, source: 'flag' };
    const envName = (SETTINGS[key] as { env?: string }).env;
    const fromEnv = envName ? this.env[envName] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: 'env' };
    const stored = this.stored()[key];
    if (stored !== undefined && stored !== '') return { value: stored, source: 'profile' };
    return { value: undefined, source: undefined };
  }

  get(key: SettingKey): string | undefined {
    return this.resolve(key).value;
  }

  /** A setting that must be present; the error names every way to give it. */
  require(key: SettingKey, flag?: Said): string {
    const value = this.get(key);
    if (value !== undefined) return value;
    const envName = (SETTINGS[key] as { env?: string }).env;
    const name = named(key, SETTING_NAMES);
    const ways = [flag, envName ? named(envName, SETTING_NAMES) : undefined, said`callctl config set ${name} ...`];
    throw new UsageError(
      said`missing ${name}: give it with ${Said.join(
        ways.filter((w) => w !== undefined),
        said`, `,
      )}`,
    );
  }
}

/**
 * A secret from the environment or the file an environment variable names (never a flag value:
 * flags show in `ps` and shell history). Trailing newlines of a file are dropped.
 */
export function secretFromEnv(
  env: Record<string, string | undefined>,
  name: string,
  fileName?: string,
): string | undefined {
  const direct = env[name];
  if (direct) return direct;
  const file = fileName ? env[fileName] : undefined;
  if (!file) return undefined;
  return readSecretFile(file, fileName!);
}

export function readSecretFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(said`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new UsageError(said`${what} ${path} is empty`);
  return secret;
}
