import { configDir } from './paths.js';
import { readConfigFile } from './config-file.js';

/** Names of the stored profiles; none when the store cannot be read. */
export function profileNames(env: Record<string, string | undefined>): string[] {
  try {
    return Object.keys(readConfigFile(configDir(undefined, env)).profiles ?? {});
  } catch {
    return [];
  }
}
