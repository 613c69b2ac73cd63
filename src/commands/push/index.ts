import type { Command } from 'commander';
import type { Deps } from '../action.js';

/** Placeholder: the engineer who owns this command replaces this file. */
export function register(_parent: Command, _deps: Deps): void {}
