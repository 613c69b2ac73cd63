import { chmodSync, closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalError, localTrouble, UsageError } from '../errors.js';
import { acquireLock } from '../files/lock.js';
import { CONFIG_FILE } from './paths.js';
import type { SettingKey } from './keys.js';
import { said } from '../said.js';

export type Profile = Partial<Record<SettingKey, string>>;
export interface ConfigData {
  profiles?: Record<string, Profile>;
  /** The profile used when neither `-p` nor CALLCTL_PROFILE names one (`config use`). */
  current?: string;
}

/**
 * What a profile may be called: a letter or digit, then letters, digits, `.`, `_` or `-`, at most
 * 64 in all. Names such as `__proto__` would change the file's prototype instead of adding a
 * profile, and a name with `/` or spaces cannot be typed safely in scripts.
 */
export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Throws a usage error (exit 2) for a profile name outside PROFILE_NAME_RE; `source` says where it came from. */
export function checkProfileName(name: string, source: string): string {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(
      said`${source}: "${name.slice(0, 70)}" is not a profile name (a letter or digit, then letters, digits, ".", "_" or "-"; at most 64)`,
    );
  }
  return name;
}

/**
 * Reads the config file without loading conf (start-up time matters for every command): the file is
 * plain JSON that conf writes. A missing file holds no profile. The file is opened without
 * blocking and must be a regular file (a FIFO would hang the read); a file that cannot be read,
 * is not JSON or not a callctl config file is local trouble (exit 6). The error never quotes the file's
 * text: it holds tokens.
 */
export function readConfigFile(dir: string): ConfigData {
  const path = join(dir, CONFIG_FILE);
  let text: string;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw localTrouble(error, 'the config file');
  }
  try {
    if (!fstatSync(fd).isFile())
      throw new LocalError(
        said`the config file ${path} is not a regular file; remove it or point --config-dir elsewhere`,
        {
          path,
        },
      );
    text = readFileSync(fd, 'utf8');
  } catch (error) {
    throw localTrouble(error, 'the config file');
  } finally {
    closeSync(fd);
  }
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault: it could be part of a token.
    throw new LocalError(said`the config file ${path} is not valid JSON; fix it or remove it (then log in again)`, {
      path,
    });
  }
  const problem = shapeProblem(data);
  if (problem)
    throw new LocalError(said`the config file ${path} is not a callctl config (${problem}); fix it or remove it`, {
      path,
    });
  return data as ConfigData;
}

/** What is wrong with the file's shape, named without its values; undefined when it is fine. */
function shapeProblem(data: unknown): string | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(data)) return 'not a JSON object';
  if (data.current !== undefined && typeof data.current !== 'string') return '"current" is not text';
  if (data.profiles === undefined) return undefined;
  if (!isObject(data.profiles)) return '"profiles" is not an object';
  for (const [name, profile] of Object.entries(data.profiles)) {
    if (!isObject(profile)) return `profile ${name} is not an object`;
    for (const [key, value] of Object.entries(profile))
      if (typeof value !== 'string') return `profile ${name}: ${key} is not text`;
  }
  return undefined;
}

/** The profile `config use` made the default, if any. */
export function readCurrent(dir: string): string | undefined {
  const current = readConfigFile(dir).current;
  return typeof current === 'string' && current !== '' ? current : undefined;
}

export function readProfile(dir: string, profile: string): Profile {
  const profiles = readConfigFile(dir).profiles ?? {};
  return Object.hasOwn(profiles, profile) ? profiles[profile]! : {};
}

/**
 * Writes the stored profile through conf (0600 file, 0700 folder) under the config lock, reading
 * the file again inside it: concurrent writers (twelve `config set` at once) each apply their
 * change to what the previous one wrote, and none is lost.
 */
export async function updateProfile(
  dir: string,
  profile: string,
  change: (current: Profile) => Profile | undefined,
): Promise<void> {
  checkProfileName(profile, 'profile');
  await updateStore(dir, (conf, data) => {
    const stored = data.profiles ?? {};
    const profiles: Record<string, Profile> = { ...stored };
    const next = change({ ...(Object.hasOwn(stored, profile) ? stored[profile] : {}) });
    if (next === undefined || Object.keys(next).length === 0) delete profiles[profile];
    else profiles[profile] = next;
    conf.set('profiles', profiles);
  });
}

/** Makes `profile` the default profile (`config use`); undefined goes back to `default`. */
export async function setCurrent(dir: string, profile: string | undefined): Promise<void> {
  if (profile !== undefined) checkProfileName(profile, 'profile');
  await updateStore(dir, (conf) => {
    if (profile === undefined) conf.delete('current');
    else conf.set('current', profile);
  });
}

/** How long a writer waits for another one to finish with the config file. */
const LOCK_WAIT_MS = 10_000;

type ConfStore = Awaited<ReturnType<typeof openConf>>;

/** Runs `write` with conf open, holding `config.json.lock` in the config folder (stale locks of dead writers are taken over). */
async function updateStore(dir: string, write: (conf: ConfStore, data: ConfigData) => void): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (error) {
    throw localTrouble(error);
  }
  const release = await lockConfig(join(dir, `${CONFIG_FILE}.lock`));
  try {
    // Read (and checked: a corrupt config file is reported, never overwritten) inside the lock.
    const data = readConfigFile(dir);
    const conf = await openConf(dir);
    write(conf, data);
    chmodSync(join(dir, CONFIG_FILE), 0o600);
  } catch (error) {
    throw localTrouble(error, 'the config file');
  } finally {
    release();
  }
}

async function lockConfig(path: string): Promise<() => void> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return acquireLock(path, 'write of the config file');
    } catch (error) {
      if (!(error instanceof UsageError)) throw localTrouble(error);
      if (Date.now() > until)
        throw new LocalError(said`${error.message.replace(/^another /, 'the config file is busy: another ')}`, {
          path,
        });
    }
    await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
  }
}

async function openConf(dir: string) {
  const { default: Conf } = await import('conf');
  return new Conf<ConfigData>({
    projectName: 'callctl',
    projectSuffix: '',
    cwd: dir,
    configName: CONFIG_FILE.replace(/\.json$/, ''),
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
  });
}
