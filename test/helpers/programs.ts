import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { it } from 'vitest';

/** True when `program` is an executable file in one of PATH's folders (or, given as a path, is one itself). */
export function hasProgram(program: string): boolean {
  if (program.includes('/')) return executable(program);
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && executable(join(dir, program)));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** CI sets CI=true: there every program a test needs must be present (.ci/run installs them). */
function required(): boolean {
  return /^(1|true|yes)$/i.test(process.env.CI ?? '');
}

/**
 * `it`, for a test that drives outside programs the machine may lack (zsh, fish, tmux; a path for
 * one that is not on PATH, as Debian's PostgreSQL server). When one is absent the test is skipped with a visible line naming it (and the title says
 * so), so `npm test` passes on a fresh machine; with CI=true the test fails instead, so CI still runs it.
 */
export function itWith(
  programs: string | readonly string[],
  title: string,
  fn: () => unknown | Promise<unknown>,
  timeout?: number,
): void {
  const program = [programs].flat().find((p) => !hasProgram(p));
  if (program === undefined) {
    it(title, fn, timeout);
  } else if (required()) {
    it(title, () => {
      throw new Error(`${program} is required when CI=true but is not installed (.ci/run installs it)`);
    });
  } else {
    // console.warn at collection time: vitest prints it under the file's name, whatever the reporter.
    console.warn(`skipped: "${title}" needs ${program}, which is not installed (with CI=true it is required)`);
    it.skip(`${title} [skipped: ${program} not installed]`, fn);
  }
}
