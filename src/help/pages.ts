import type { CommandUnknownOpts as Command } from '../commands/commander.js';
import { buildProgram } from '../program.js';
import { PassThrough, Writable } from 'node:stream';
import type { IO } from '../io.js';

/**
 * Every help page of the command tree, keyed by command path ('' for the program itself,
 * 'workflow update' for `callctl workflow update --help`). The build writes them to
 * dist/help.json, so that a request for help is answered without loading the tree (see
 * ./request.ts); each page is what commander itself prints, and a test holds the two equal.
 */
export async function renderHelpPages(): Promise<Record<string, string>> {
  const pages: Record<string, string> = {};
  for (const path of await commandPaths()) {
    const page = await renderHelp(path);
    if (page !== undefined) pages[path.join(' ')] = page;
  }
  return pages;
}

/**
 * What `callctl <path> --help` prints on stdout, rendered by commander; undefined for a command
 * without help.
 */
export async function renderHelp(path: readonly string[]): Promise<string | undefined> {
  let page = '';
  const program = await buildProgram(
    quietIO((text) => (page += text)),
    { exitCode: 0 },
  );
  try {
    await program.parseAsync([...path, '--help'], { from: 'user' });
  } catch (error) {
    if ((error as { code?: string }).code === 'commander.helpDisplayed') return page;
  }
  return undefined;
}

/**
 * Every command path of the tree, the program's own ([]) first; not the hidden commands (an old
 * spelling such as `state`, the completion protocol), which help and the man page do not list.
 */
export async function commandPaths(): Promise<string[][]> {
  const program = await buildProgram(quietIO(), { exitCode: 0 });
  const paths: string[][] = [];
  const walk = (command: Command, path: string[]) => {
    paths.push(path);
    for (const sub of command.commands)
      if ((sub as unknown as { _hidden?: boolean })._hidden !== true) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return paths;
}

/** An IO without a terminal, person or environment: what is written on stdout goes to `write`. */
function quietIO(write: (text: string) => void = () => {}): IO {
  const sink = (take: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        take(chunk.toString());
        done();
      },
    });
  const ask = () => Promise.reject(new Error('no one to ask while help pages are rendered'));
  return {
    stdout: sink(write),
    stderr: sink(() => {}),
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    env: {},
    prompter: { password: ask, input: ask, confirm: ask },
    now: () => Date.now(),
    sleep: async () => {},
    onSignal: () => () => undefined,
    onHangup: () => () => undefined,
    onOutputError: () => () => undefined,
    cwd: process.cwd(),
  };
}
