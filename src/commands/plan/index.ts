import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as status from './status.js';
import * as detail from './detail.js';
import * as report from './report.js';

export function register(parent: Command, deps: Deps): void {
  const plan = parent.command('plan').description('calling plans');
  for (const verb of [status, detail, report]) verb.register(plan, deps);
}
