import type { Command } from '../commander.js';
import type { Deps } from '../action.js';
import * as send from './send.js';

export function register(parent: Command, deps: Deps): void {
  const template = parent.command('template').description('chatbot template messages');
  send.register(template, deps);
}
