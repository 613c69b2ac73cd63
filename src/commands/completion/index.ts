import { Argument, type Command, type CommandUnknownOpts } from '../commander.js';
import type { Deps } from '../action.js';
import { SHELLS } from '../../completion/scripts.js';

export function register(parent: Command, { run, io }: Deps): void {
  parent
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
    )
    .action(run(() => import('./print.js').then((m) => m.runCompletion)));
  // Called by the completion scripts: prints one candidate per line.
  parent
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .action(async (words: string[] = []) => {
      const { complete } = await import('../../completion/complete.js');
      const { profileNames } = await import('../../config/profiles.js');
      let root: CommandUnknownOpts = parent;
      while (root.parent) root = root.parent;
      const candidates = complete(root, words.length ? words : [''], () => profileNames(io.env));
      if (candidates.length) io.stdout.write(`${candidates.join('\n')}\n`);
    });
}
