import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from '../commander.js';
import { fsReason, LocalError, UsageError } from '../../errors.js';
import { redactUrls } from '../../redact.js';
import { storePassword } from '../../store/resolve.js';
import { said } from '../../said.js';

/** Keys a settings file may not hold: secrets come by file reference or from the environment. */
const SECRET_KEYS: Record<string, string> = {
  key: 'give key-file (a file of KEYs) or CALLCTL_HOOK_KEYS instead',
};
/** Keys that are about the file itself. */
const NOT_SETTINGS = new Set(['config', 'print-config']);

/**
 * `serve-hooks --config FILE`: each key of the file (JSON, or TOML for a `.toml` file or one that
 * is not JSON) is the long name of a flag (`max-connections = 100`), its value checked by that
 * flag's own parser (ranges, choices); a flag given on the command line wins. Secrets are never
 * values of the file: `key` is refused (key-file, CALLCTL_HOOK_KEYS), and so is a store URL with
 * a password (store-file, CALLCTL_STORE). Runs before the command does (commander's preAction).
 */
export async function applyConfig(command: Command): Promise<void> {
  const path = command.getOptionValue('config') as string | undefined;
  if (path === undefined) return;
  const settings = await readSettings(path);
  for (const [key, value] of Object.entries(settings)) {
    const where = `--config ${path}: ${key}`;
    const option = command.options.find((o) => o.long === `--${key}`);
    if (!option || NOT_SETTINGS.has(key) || option.hidden)
      throw new UsageError(
        said`${where}: not a serve-hooks setting (keys are its flags' names, such as max-connections)`,
      );
    if (SECRET_KEYS[key]) throw new UsageError(said`${where}: no secrets in the file: ${SECRET_KEYS[key]}`);
    if (key === 'store' && typeof value === 'string' && storePassword(value))
      throw new UsageError(
        said`${where}: the URL holds a password: give store-file (a file holding the URL) or CALLCTL_STORE`,
      );
    const attribute = option.attributeName();
    // A flag on the command line overrides the file.
    if (command.getOptionValueSource(attribute) === 'cli') continue;
    const takesValue = option.required || option.optional;
    let parsed: unknown;
    if (!takesValue) {
      if (typeof value !== 'boolean') throw new UsageError(said`${where}: give true or false`);
      if (!value) continue;
      parsed = true;
    } else {
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new UsageError(said`${where}: give a ${typeof option.defaultValue === 'number' ? 'number' : 'text'}`);
      try {
        parsed = option.parseArg ? option.parseArg(String(value), undefined) : String(value);
      } catch (error) {
        if (error instanceof InvalidArgumentError) throw new UsageError(said`${where}: ${error.message}`);
        throw error;
      }
    }
    command.setOptionValueWithSource(attribute, parsed, 'config');
  }
}

async function readSettings(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LocalError(said`--config: cannot read ${path}: ${fsReason(code)}`, { path, ...(code ? { code } : {}) });
  }
  let settings: unknown;
  if (!/\.toml$/i.test(path)) {
    try {
      settings = JSON.parse(text);
    } catch (error) {
      if (/\.json$/i.test(path)) throw new UsageError(said`--config ${path}: not JSON (${(error as Error).message})`);
    }
  }
  if (settings === undefined) {
    const { parse } = await import('smol-toml');
    try {
      settings = parse(text);
    } catch (error) {
      const first = (error as Error).message.split('\n')[0];
      throw new UsageError(said`--config ${path}: neither JSON nor TOML (${first})`);
    }
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    throw new UsageError(said`--config ${path}: give a table of settings (flag name = value)`);
  return settings as Record<string, unknown>;
}

/**
 * `--print-config`: the settings in effect (file and flags), as TOML a `--config` file can hold;
 * what could be a secret is shown as `***` (a --path segment, KEYs, and a URL's password, only
 * that: `http://user:***@host/`).
 */
export async function printedConfig(opts: Record<string, unknown>): Promise<string> {
  const { stringify } = await import('smol-toml');
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(opts)) {
    if (value === undefined || typeof value === 'function' || (typeof value === 'object' && !Array.isArray(value)))
      continue;
    const key = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (NOT_SETTINGS.has(key)) continue;
    if (key === 'key') shown[key] = (value as string[]).map(() => '***');
    else if (key === 'path') shown[key] = '***';
    else shown[key] = typeof value === 'string' ? redactUrls(value) : value;
  }
  return stringify(shown);
}
