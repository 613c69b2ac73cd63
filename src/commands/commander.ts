import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander, loaded with require: it is CommonJS, and importing it as ESM makes Node scan its
 * sources for exports, which costs start-up time on every run (measured: about 1.3x `node -e 0`
 * through import against 1.16x through require).
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const Command = commander.Command;
export type Command = Commander.Command;
export const Option = commander.Option;
export type Option = Commander.Option;
export const InvalidArgumentError = commander.InvalidArgumentError;
export type InvalidArgumentError = Commander.InvalidArgumentError;
export const Argument = commander.Argument;
export type Argument = Commander.Argument;
