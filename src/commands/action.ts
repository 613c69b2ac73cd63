import { InvalidArgumentError, type CommandUnknownOpts as Command, type Option } from './commander.js';
import { UsageError } from '../errors.js';
import { Context, type GlobalOptions } from '../context.js';
import type { IO } from '../io.js';
import { said } from '../said.js';

/**
 * A verb's run function (GitHub CLI's shape): everything the command was given is in `opts`, its
 * flags under their camelCase names and its positional arguments under theirs (`<task-id>` is
 * `taskId`); global flags are read through the context.
 */
export type Run<O> = (ctx: Context, opts: O) => Promise<number | void>;

/** Shared by main and the commands: the exit code and the context of the command that ran. */
export interface RunState {
  exitCode: number;
  ctx?: Context;
}

/**
 * Calls a verb once commander has parsed its command line. The default makes the context and
 * runs it; the argv table (test/program.test.ts) records what each verb receives instead.
 */
export type Invoke = <O>(command: Command, opts: O, run: Run<O>) => Promise<number | void>;

export interface Deps {
  io: IO;
  state: RunState;
  /**
   * Runs a verb declared in its own file (CONTRIBUTING.md, "A command"), from its action:
   * `.action((planName, flags, command) => start(command, runPlanStatus, { ...flags, planName }))`.
   * `opts` are the flags commander parsed (typed by the declaration) and the positional arguments
   * by name, checked by tsc against the run's options type.
   */
  start<O>(command: Command, run: Run<O>, opts: NoInfer<O>): Promise<void>;
}

export function makeDeps(io: IO, state: RunState, invoke: Invoke = runVerb(io, state)): Deps {
  return {
    io,
    state,
    start: async (command, run, opts) => {
      checkConflicts(command);
      state.exitCode = (await invoke(command, opts, run)) ?? 0;
    },
  };
}

/** The default Invoke: the context (it reads the profile), then the verb's run. */
function runVerb(io: IO, state: RunState): Invoke {
  return async (command, opts, run) => {
    const ctx = new Context(io, globalsOf(command));
    state.ctx = ctx;
    await ctx.init();
    return run(ctx, opts);
  };
}

const OUTPUT_FLAGS = new WeakSet<object>();

/**
 * Marks a flag that chooses what is printed (`--format`, `--output`): given with `--json`, it is a
 * usage error instead of one of them silently winning. (commander's own `.conflicts()` looks within
 * one command only, and `--json` is the program's.)
 */
export function choosesOutput<T extends Option<string, unknown, unknown, unknown, boolean, unknown>>(option: T): T {
  OUTPUT_FLAGS.add(option);
  return option;
}

function checkConflicts(command: Command): void {
  if (command.optsWithGlobals().json !== true) return;
  for (const option of command.options) {
    const given = command.getOptionValueSource(option.attributeName());
    if (given === undefined || given === 'default' || !OUTPUT_FLAGS.has(option)) continue;
    throw new UsageError(said`${option.long} and --json both choose what is printed: give one of them`);
  }
}

function globalsOf(command: Command): GlobalOptions {
  const o = command.optsWithGlobals() as Record<string, unknown>;
  return {
    profile: o.profile as string | undefined,
    baseUrl: o.baseUrl as string | undefined,
    configDir: o.configDir as string | undefined,
    json: o.json === true,
    color: o.color !== false,
    verbose: o.verbose === true,
    timeout: o.timeout as number | undefined,
    input: o.input !== false,
    wide: o.wide === true,
    columns: o.columns as string[] | undefined,
    header: o.header === true,
  };
}

/** Option parsers that turn a bad value into a usage error (exit 2) naming the flag: see flag-values.ts. */
export { nonNegativeInt, positiveInt } from './flag-values.js';

/** `--columns a,b`: the names in order; an empty name is a usage error. */
export function columnNames(value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => n === ''))
    throw new InvalidArgumentError('expected comma-separated column names, e.g. id,name');
  return names;
}

/** For repeatable options such as `--var k=v`. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
