import { execSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The children run the built CLI (`npm test` builds first); builds when it is missing. */
export function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/main.js'))) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
}

export interface ChildHooks {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stdout: () => string;
}

/**
 * Starts the built `callctl serve-hooks` in a child and resolves once it listens. `fileLimitKiB`
 * runs it under `ulimit -f` (RLIMIT_FSIZE, the disk-full fault: writes past it fail with EFBIG;
 * SIGXFSZ is ignored so the process lives to see the error).
 */
export function serveHooksChild(
  args: string[],
  options: { fileLimitKiB?: number; env?: Record<string, string>; stdoutFile?: string } = {},
  scheme: 'http' | 'https' = 'http',
): Promise<ChildHooks> {
  const cli = [process.execPath, 'bin/callctl.js', 'serve-hooks', '--port', '0', ...args];
  const env = { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-'), ...options.env };
  // stdout to a file of its own when asked (under the file size limit too), else a pipe.
  const fd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'a');
  const stdio: StdioOptions = ['ignore', fd ?? 'pipe', 'pipe'];
  const child =
    options.fileLimitKiB === undefined
      ? spawn(cli[0]!, cli.slice(1), { cwd: ROOT, env, stdio })
      : spawn('bash', ['-c', `trap '' XFSZ; ulimit -f ${options.fileLimitKiB}; exec "$@"`, 'bash', ...cli], {
          cwd: ROOT,
          env,
          stdio,
        });
  if (fd !== undefined) closeSync(fd);
  let err = '';
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = new RegExp(`listening on (${scheme}://[\\d.]+:\\d+)`).exec(err);
      if (m) resolve({ child, url: m[1]!, stderr: () => err, stdout: () => out });
    });
    child.on('exit', (code) => reject(new Error(`serve-hooks exited with ${code}: ${err}`)));
  });
}

/** Resolves with how the child ended (at once when it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.on('exit', (code, signal) => resolve({ code, signal }));
  });
