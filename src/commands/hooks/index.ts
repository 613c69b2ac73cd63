import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as events from './events.js';
import * as replay from './replay.js';
import * as show from './show.js';
import * as trigger from './trigger.js';
import * as ui from './ui.js';

export function register(parent: Command, deps: Deps): void {
  const hooks = parent
    .command('hooks')
    .description(
      'recorded notifications: list (events), one whole (show), a page (ui), send again (replay); signed samples (trigger)',
    );
  for (const verb of [trigger, events, show, ui, replay]) verb.register(hooks, deps);
}
