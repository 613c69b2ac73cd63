import { InvalidArgumentError, type Command } from './commander.js';
import { Context, type GlobalOptions } from '../context.js';
import type { IO } from '../io.js';

/** What a verb module exports: `run(ctx, options, ...positional arguments)`. */
export interface VerbModule {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run(ctx: Context, options: any, ...args: any[]): Promise<number | void>;
}

/** Shared by main and the commands: the exit code and the context of the command that ran. */
export interface RunState {
  exitCode: number;
  ctx?: Context;
}

export interface Deps {
  io: IO;
  state: RunState;
  /** An action that imports its verb module only when the command runs. */
  action(load: () => Promise<VerbModule>): (...args: unknown[]) => Promise<void>;
}

export function makeDeps(io: IO, state: RunState): Deps {
  return {
    io,
    state,
    action:
      (load) =>
      async (...args) => {
        // commander calls an action with (...positional, options, command).
        const command = args.at(-1) as Command;
        const positional = args.slice(0, -2);
        const ctx = new Context(io, globalsOf(command));
        state.ctx = ctx;
        await ctx.init();
        const verb = await load();
        state.exitCode = (await verb.run(ctx, command.opts(), ...positional)) ?? 0;
      },
  };
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
