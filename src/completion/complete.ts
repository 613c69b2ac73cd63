import type { CommandUnknownOpts as Command, Option } from '../commands/commander.js';

/**
 * Candidates for the word being completed. `words` are the command line's words after
 * `callctl`, the last one being the (possibly empty) word under the cursor.
 */
export function complete(program: Command, words: readonly string[], profiles: () => string[]): string[] {
  const current = words.at(-1) ?? '';
  let command = program;
  let expectsValue: Option | undefined;
  let positional = 0;
  for (const word of words.slice(0, -1)) {
    if (expectsValue) {
      expectsValue = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = findOption(command, word.split('=')[0]!);
      if (option && (option.required || option.optional) && !word.includes('=')) expectsValue = option;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      command = sub;
      positional = 0;
    } else positional++;
  }
  let candidates: string[];
  if (expectsValue) {
    candidates = expectsValue.long === '--profile' ? profiles() : (expectsValue.argChoices ?? []);
  } else if (current.startsWith('-')) {
    candidates = optionsOf(command)
      .flatMap((o) => [o.long, o.short])
      .filter((f): f is string => Boolean(f));
    candidates.push('--help');
  } else if (command.commands.length > 0) {
    candidates = command.commands.filter((c) => !isHidden(c)).map((c) => c.name());
  } else {
    // A positional argument with known values (hooks trigger <type>), or a profile name.
    const isConfigUse = command.name() === 'use' && command.parent?.name() === 'config';
    candidates =
      isConfigUse && positional === 0 ? profiles() : (command.registeredArguments[positional]?.argChoices ?? []);
  }
  return [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
}

function isHidden(command: Command): boolean {
  return (command as unknown as { _hidden?: boolean })._hidden === true;
}

/** The options of a command and of every command above it (global options apply anywhere). */
function optionsOf(command: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = command; c; c = c.parent) all.push(...c.options.filter((o) => !o.hidden));
  return all;
}

function findOption(command: Command, flag: string): Option | undefined {
  return optionsOf(command).find((o) => o.long === flag || o.short === flag);
}
