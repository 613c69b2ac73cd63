import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The config folder: `--config-dir` / `CALLCTL_CONFIG_DIR`, else where conf puts it with
 * `projectSuffix: ''` (env-paths' config folder for "callctl"). Computed here and handed to conf
 * as `cwd`, so that the fast read path and conf's writes always agree on the file.
 */
export function configDir(flag: string | undefined, env: Record<string, string | undefined>): string {
  if (flag) return flag;
  if (env.CALLCTL_CONFIG_DIR) return env.CALLCTL_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'callctl');
  if (process.platform === 'win32') {
    return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'callctl', 'Config');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'callctl');
}

export const CONFIG_FILE = 'config.json';
