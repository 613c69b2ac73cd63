import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, fsReason } from './errors.js';
import { cacheDir } from './files/state.js';
import { helpPageKey, readHelpPage } from './help/request.js';
import { VERSION } from './version.js';

/**
 * The answers that need none of callctl's modules: `--version` and the help pages the build
 * rendered (dist/help.json). The build makes this file CommonJS (dist/quick.cjs), which
 * bin/callctl.js runs before anything else: answering from here costs what `node -e 0` costs,
 * where loading the ESM entry (Node's ESM loader) and the standard streams cost a third more.
 * Returns the exit code, or undefined when the program has to run (src/main.ts, which gives the
 * same answers when called in-process).
 */
export function quickAnswer(argv: readonly string[]): number | undefined {
  if (argv.length === 1 && argv[0] === '--version') return write(1, `${VERSION}\n`, 0);
  const key = argv.length === 0 ? '' : helpPageKey(argv);
  const page = key === undefined ? undefined : readHelpPage(new URL('./help.json', import.meta.url), key);
  if (page === undefined) return undefined;
  // No arguments: the program's page on stderr, and a usage error (as in src/main.ts).
  return argv.length === 0 ? write(2, page, 2) : write(1, page, 0);
}

/**
 * Where Node 22+ keeps callctl's compiled code between runs: in callctl's cache folder, not the
 * temp folder (Node's default), so that it goes where the user's cache goes, and with it.
 */
export function compileCacheDir(): string {
  return join(cacheDir(process.env), 'compile');
}

/**
 * Writes `text` to the file descriptor whole, without creating process.stdout (a stream, and a
 * socket for a pipe). A reader that went away (`callctl push --help | head -1`) ends the run
 * quietly with 0, as src/io.ts does; a descriptor that would block hands the rest to the stream.
 */
function write(fd: 1 | 2, text: string, exitCode: number): number {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return 0;
    if (code !== 'EAGAIN') {
      // A full disk under `> file`: one line and local trouble (exit 6), as src/io.ts says it.
      if (fd === 1) writeSync(2, `error: cannot write to stdout: ${code} (${fsReason(code)})\n`);
      return ExitCode.LOCAL;
    }
    (fd === 1 ? process.stdout : process.stderr).write(rest);
  }
  return exitCode;
}
