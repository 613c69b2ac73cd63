import { readFileSync } from 'node:fs';

/**
 * The help page `argv` asks for, as a key of the pages the build rendered ('' for the program,
 * 'workflow update' for `workflow update --help`), or undefined when `argv` is anything else.
 * Only the plain forms: `--help`/`-h` after command names, or `help [command]`.
 */
export function helpPageKey(argv: readonly string[]): string | undefined {
  let words: readonly string[];
  if (argv[0] === 'help' && argv.length <= 2) words = argv.slice(1);
  else if (argv.length > 0 && (argv.at(-1) === '--help' || argv.at(-1) === '-h')) words = argv.slice(0, -1);
  else return undefined;
  return words.every((w) => /^[a-z][a-z0-9-]*$/.test(w)) ? words.join(' ') : undefined;
}

/**
 * A page from the rendered help file, or undefined when there is no such page or no file (a run
 * from the sources): commander then renders it.
 */
export function readHelpPage(file: URL, key: string): string | undefined {
  let pages: Record<string, unknown>;
  try {
    pages = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const page = Object.hasOwn(pages, key) ? pages[key] : undefined;
  return typeof page === 'string' ? page : undefined;
}
