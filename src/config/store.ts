import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE } from './paths.js';
import type { SettingKey } from './keys.js';

export type Profile = Partial<Record<SettingKey, string>>;
export interface StoreData {
  profiles?: Record<string, Profile>;
  /** The profile used when neither `-p` nor CALLCTL_PROFILE names one (`config use`). */
  current?: string;
}

/**
 * Reads the store without loading conf (start-up time matters for every command): the file is
 * plain JSON that conf writes. A missing file is an empty store.
 */
export function readStore(dir: string): StoreData {
  let text: string;
  try {
    text = readFileSync(join(dir, CONFIG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    return JSON.parse(text) as StoreData;
  } catch {
    throw new Error(`the config file ${join(dir, CONFIG_FILE)} is not valid JSON`);
  }
}

/** The profile `config use` made the default, if any. */
export function readCurrent(dir: string): string | undefined {
  const current = readStore(dir).current;
  return typeof current === 'string' && current !== '' ? current : undefined;
}

export function readProfile(dir: string, profile: string): Profile {
  return readStore(dir).profiles?.[profile] ?? {};
}

/**
 * Writes through conf (0600 file, 0700 folder). Only `auth` and `config` commands call this:
 * conf loses updates under concurrent writers.
 */
export async function updateProfile(
  dir: string,
  profile: string,
  change: (current: Profile) => Profile | undefined,
): Promise<void> {
  const conf = await openConf(dir);
  const profiles = { ...(conf.get('profiles') ?? {}) };
  const next = change({ ...(profiles[profile] ?? {}) });
  if (next === undefined || Object.keys(next).length === 0) delete profiles[profile];
  else profiles[profile] = next;
  conf.set('profiles', profiles);
  chmodSync(join(dir, CONFIG_FILE), 0o600);
}

/** Makes `profile` the default profile (`config use`); undefined goes back to `default`. */
export async function setCurrent(dir: string, profile: string | undefined): Promise<void> {
  const conf = await openConf(dir);
  if (profile === undefined) conf.delete('current');
  else conf.set('current', profile);
  chmodSync(join(dir, CONFIG_FILE), 0o600);
}

async function openConf(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const { default: Conf } = await import('conf');
  return new Conf<StoreData>({
    projectName: 'callctl',
    projectSuffix: '',
    cwd: dir,
    configName: CONFIG_FILE.replace(/\.json$/, ''),
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
  });
}
