import { Argument, type Command, type FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { script, SHELLS, type Shell } from '../../completion/scripts.js';

function declare(parent: Command) {
  return parent
    .command('completion')
    .description('print a shell completion script (commands, subcommands, flags, profile names)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  source <(callctl completion bash)              # in ~/.bashrc
  source <(callctl completion zsh)               # in ~/.zshrc, after compinit
  callctl completion fish > ~/.config/fish/completions/callctl.fish

Output: the script, on stdout (there is no --json form).`,
    );
}

/** What runCompletion is given: the shell (commander has checked it is one of SHELLS). */
export type CompletionOptions = FlagsOf<typeof declare> & { shell: Shell };

export function register(parent: Command, { start }: Deps): void {
  declare(parent).action((shell, flags, command) => start(command, runCompletion, { ...flags, shell }));
}

export async function runCompletion(ctx: Context, opts: CompletionOptions): Promise<number> {
  ctx.io.stdout.write(script(opts.shell));
  return 0;
}
