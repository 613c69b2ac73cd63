import { readFileSync } from 'node:fs';
import type { CommandUnknownOpts as Command } from '../commands/commander.js';
import { UsageError } from '../errors.js';
import { closest } from '../commands/suggest.js';
import { packagedFile } from '../packaged.js';
import { said } from '../said.js';

/**
 * The help page `argv` asks for, as a key of the pages the build rendered ('' for the program,
 * 'workflow update' for `workflow update --help`), or undefined when `argv` is anything else.
 * Only the plain forms: `--help`/`-h` after command names, or `help [command]`.
 */
export function helpPageKey(argv: readonly string[]): string | undefined {
  let words: readonly string[];
  if (argv[0] === 'help') words = argv.slice(1);
  else if (argv.length > 0 && (argv.at(-1) === '--help' || argv.at(-1) === '-h')) words = argv.slice(0, -1);
  else return undefined;
  return words.every((w) => /^[a-z][a-z0-9-]*$/.test(w)) ? words.join(' ') : undefined;
}

/**
 * A page from the rendered help file (the one the single executable carries, else `file`), or
 * undefined when there is no such page or no file (a run from the sources): commander then renders it.
 */
export function readHelpPage(file: URL, key: string): string | undefined {
  let pages: Record<string, unknown>;
  try {
    pages = JSON.parse(packagedFile('help.json') ?? readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const page = Object.hasOwn(pages, key) ? pages[key] : undefined;
  return typeof page === 'string' ? page : undefined;
}

/**
 * The command `words` names in `program`, for its help (`callctl help workflow update`); an unknown
 * name is a usage error (exit 2) naming it, with the closest command when one is near.
 */
export function helpFor(program: Command, words: readonly string[]): Command {
  let command = program;
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const names = command.commands.map((c) => c.name()).filter((n) => !n.startsWith('_'));
      const near = closest(word, names);
      const where = command === program ? '' : ` ${command.name()}`;
      throw new UsageError(
        said`unknown command '${[...words.slice(0, words.indexOf(word)), word].join(' ')}'${near ? ` (did you mean${where} ${near}?)` : `; commands${where}: ${names.join(', ')}`}`,
      );
    }
    command = next;
  }
  return command;
}
