import type { Command, CommandUnknownOpts } from '../commander.js';
import type { Deps } from '../action.js';
import * as print from './print.js';

export function register(parent: Command, deps: Deps): void {
  print.register(parent, deps);
  // Called by the completion scripts: prints one candidate per line.
  parent
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .action(async (words = []) => {
      const { complete } = await import('../../completion/complete.js');
      const { profileNames } = await import('../../config/profiles.js');
      let root: CommandUnknownOpts = parent;
      while (root.parent) root = root.parent;
      const candidates = complete(root, words.length ? words : [''], () => profileNames(deps.io.env));
      if (candidates.length) deps.io.stdout.write(`${candidates.join('\n')}\n`);
    });
}
