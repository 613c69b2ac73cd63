import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

/**
 * Where callctl keeps state that is not configuration (journals, ledgers, locks):
 * `$XDG_STATE_HOME/callctl` when set (any platform), else `~/.local/state/callctl` on Linux,
 * `~/Library/Application Support/callctl/State` on macOS, `%LOCALAPPDATA%\callctl\State` on Windows.
 */
export function stateDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'callctl');
  const home = env.HOME || env.USERPROFILE || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'callctl', 'State');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'callctl', 'State');
  return join(home, '.local', 'state', 'callctl');
}

/**
 * Where spool files go (large, short-lived, safe to lose): `$XDG_CACHE_HOME/callctl` when set,
 * else `~/.cache/callctl` on Linux, `~/Library/Caches/callctl` on macOS, `%LOCALAPPDATA%\callctl\Cache`
 * on Windows; the temp folder when no home is known.
 */
export function cacheDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'callctl');
  const home = env.HOME || env.USERPROFILE || (platform === 'win32' ? undefined : safeHome());
  if (!home) return join(tmpdir(), 'callctl');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'callctl');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'callctl', 'Cache');
  return join(home, '.cache', 'callctl');
}

function safeHome(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
