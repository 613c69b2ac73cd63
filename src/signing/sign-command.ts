import { spawn } from 'node:child_process';

/** How long an external sign command may take before it counts as failed (serve-hooks, hooks trigger/replay). */
export const SIGN_COMMAND_TIMEOUT_MS = 5_000;

/** Why a sign command gave no signature; `message` is the text serve-hooks records. */
export class SignCommandError extends Error {
  constructor(
    readonly why:
      | { kind: 'start'; errno: string }
      | { kind: 'signal'; signal: string }
      | { kind: 'timeout'; ms: number }
      | { kind: 'exit'; code: number | null }
      | { kind: 'empty' }
      | { kind: 'lines' },
  ) {
    super(
      why.kind === 'start'
        ? `sign command could not start: ${why.errno}`
        : why.kind === 'timeout'
          ? `sign command took over ${why.ms / 1000} s`
          : why.kind === 'signal'
            ? `sign command was stopped (${why.signal})`
            : why.kind === 'exit'
              ? `sign command exited with ${why.code}`
              : why.kind === 'lines'
                ? 'sign command printed more than one line'
                : 'sign command printed nothing',
    );
  }
}

/**
 * Runs an external command that reads the exact body on stdin and prints the `X-Service-Sign`
 * value (as AWS CLI's credential_process and git's credential helpers do). The command line is
 * run by the shell. Its output is trimmed; its stderr is never shown (it could hold secrets).
 * Rejects with a SignCommandError. Used by serve-hooks, hooks trigger/replay and template send.
 */
export function runSignCommand(command: string, body: Buffer, timeoutMs = SIGN_COMMAND_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    // In a process group of its own, so that a command too slow is stopped with everything it
    // started: killing the shell alone left its children running (a `sleep` in a script), one
    // more with each request, for as long as they liked.
    const group = process.platform !== 'win32';
    const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'ignore'], detached: group });
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      stop(child.pid, group, () => child.kill('SIGKILL'));
    }, timeoutMs);
    child.on('close', () => clearTimeout(timer));
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', (error) =>
      reject(new SignCommandError({ kind: 'start', errno: (error as NodeJS.ErrnoException).code ?? 'error' })),
    );
    child.on('close', (code, signal) => {
      if (late) return reject(new SignCommandError({ kind: 'timeout', ms: timeoutMs }));
      if (signal) return reject(new SignCommandError({ kind: 'signal', signal }));
      if (code !== 0) return reject(new SignCommandError({ kind: 'exit', code }));
      const sign = Buffer.concat(out).toString('utf8').trim();
      if (!sign) return reject(new SignCommandError({ kind: 'empty' }));
      resolve(sign);
    });
    // A command that does not read its stdin closes the pipe early; that is its business.
    child.stdin.on('error', () => {});
    child.stdin.end(body);
  });
}

/** Kills a process group (or the process alone where there are none). */
function stop(pid: number | undefined, group: boolean, alone: () => void): void {
  if (pid === undefined) return;
  try {
    if (group) process.kill(-pid, 'SIGKILL');
    else alone();
  } catch {
    // gone already
  }
}
