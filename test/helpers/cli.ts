import { join } from 'node:path';
import { main } from '../../src/main.js';
import { testIO, type TestIO, type TestIOOptions } from './io.js';
import { tempDir } from './temp.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  io: TestIO;
}

export interface RunOptions extends TestIOOptions {
  /** Answers for prompts, in order. */
  answers?: Array<string | boolean | Error>;
}

/** Runs callctl in-process with a test IO and returns what it printed and its exit code. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  // Journals, ledgers, locks and spools never go to the real home from a test.
  const env = { XDG_STATE_HOME: testStateHome(), XDG_CACHE_HOME: join(testStateHome(), 'cache'), ...options.env };
  const io = testIO({ ...options, env });
  io.answers.push(...(options.answers ?? []));
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err(), io };
}

let stateHome: string | undefined;
/** A temporary state folder for this test file (tests that look into it set their own). */
export function testStateHome(): string {
  return (stateHome ??= tempDir('callctl-state-', 'file'));
}

/** A fresh, empty config folder (removed after the test, or after the file when made outside a test). */
export function tempConfigDir(): string {
  return tempDir('callctl-config-');
}

/** A test IO whose SIGINT/SIGTERM the test can fire (for commands that run until Ctrl-C). */
export function signalIO(env: Record<string, string> = {}): TestIO & { fire(s: 'SIGINT' | 'SIGTERM'): void } {
  const io = testIO({ env });
  const handlers = new Set<(s: 'SIGINT' | 'SIGTERM') => void>();
  return Object.assign(io, {
    onSignal(h: (s: 'SIGINT' | 'SIGTERM') => void) {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    fire(s: 'SIGINT' | 'SIGTERM') {
      for (const h of [...handlers]) h(s);
    },
  });
}
