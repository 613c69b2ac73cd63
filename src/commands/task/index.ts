import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as detail from './detail.js';
import * as report from './report.js';

export function register(parent: Command, deps: Deps): void {
  const task = parent.command('task').description('calling tasks');
  for (const verb of [detail, report]) verb.register(task, deps);
}
