import { Option, type Command } from './commander.js';
import { seconds } from './flag-values.js';
import type { Context } from '../context.js';
import type { WatchSpec } from '../output/watch.js';

/** `--watch`, `--interval`, and (for a plan or a task) `--exit-status`. */
export interface WatchFlags {
  watch?: boolean;
  interval: number;
  exitStatus?: boolean;
}

/** Default seconds between polls of `--watch`. */
export const WATCH_INTERVAL = 5;

/** Adds the watch flags to a command; `exitStatus` for those with a final state. */
export function watchOptions(command: Command, what: string, exitStatus: boolean): Command {
  command
    .option(
      '-w, --watch',
      `refresh ${what} until Ctrl-C: in place on a terminal, a timestamped line on each change when piped`,
    )
    .addOption(
      new Option(
        '--interval <seconds>',
        'seconds between refreshes with --watch (doubled while the service fails, up to 60)',
      )
        .default(WATCH_INTERVAL)
        .argParser(seconds({ min: 1 })),
    );
  if (exitStatus)
    command.option(
      '--exit-status',
      'watch until a final state: exit 0 when finished, 1 when canceled (implies --watch)',
    );
  return command;
}

/** Runs the watch loop (loaded only when a command watches). */
export async function runWatch<T>(ctx: Context, spec: WatchSpec<T>, flags: WatchFlags): Promise<number> {
  const { watch } = await import('../output/watch.js');
  const out = await ctx.output();
  return watch(ctx.io, spec, { interval: flags.interval, exitStatus: flags.exitStatus === true, output: out.options });
}
