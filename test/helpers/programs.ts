import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { it } from 'vitest';

/** True when `program` is an executable file in one of PATH's folders. */
export function hasProgram(program: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** CI sets CI=true: there every program a test needs must be present (.ci/run installs them). */
function required(): boolean {
  return /^(1|true|yes)$/i.test(process.env.CI ?? '');
}

/**
 * `it`, for a test that drives an outside program the machine may lack (zsh, fish, tmux).
 * When the program is absent the test is skipped with a visible line naming it (and the title says
 * so), so `npm test` passes on a fresh machine; with CI=true the test fails instead, so CI still runs it.
 */
export function itWith(program: string, title: string, fn: () => unknown | Promise<unknown>, timeout?: number): void {
  if (hasProgram(program)) {
    it(title, fn, timeout);
  } else if (required()) {
    it(title, () => {
      throw new Error(`${program} is required when CI=true but is not on PATH (.ci/run installs it)`);
    });
  } else {
    // console.warn at collection time: vitest prints it under the file's name, whatever the reporter.
    console.warn(`skipped: "${title}" needs ${program}, which is not installed (with CI=true it is required)`);
    it.skip(`${title} [skipped: ${program} not installed]`, fn);
  }
}
