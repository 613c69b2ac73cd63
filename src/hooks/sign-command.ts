import { spawn } from 'node:child_process';

/** How long an external sign command may take before it counts as failed. */
export const SIGN_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Runs an external command that reads the exact body on stdin and prints the `X-Service-Sign`
 * value (as AWS CLI's credential_process and git's credential helpers do). The command line is
 * run by the shell. Its output is trimmed; its stderr is never shown (it could hold secrets).
 */
export function runSignCommand(command: string, body: Buffer, timeoutMs = SIGN_COMMAND_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'ignore'], timeout: timeoutMs });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', (error) => reject(new Error(`sign command could not start: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)));
    child.on('close', (code, signal) => {
      if (signal) return reject(new Error(`sign command was stopped (${signal})`));
      if (code !== 0) return reject(new Error(`sign command exited with ${code}`));
      const sign = Buffer.concat(out).toString('utf8').trim();
      if (!sign) return reject(new Error('sign command printed nothing'));
      resolve(sign);
    });
    // A command that does not read its stdin closes the pipe early; that is its business.
    child.stdin.on('error', () => {});
    child.stdin.end(body);
  });
}
