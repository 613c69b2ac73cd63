import { Option } from '../commander.js';
import { seconds } from '../flag-values.js';
import type { Context } from '../../context.js';
import type { WatchSpec } from '../../output/watch.js';

/** Default seconds between polls of `--watch`. */
const WATCH_INTERVAL = 5;

/** `-w, --watch`: `what` is what it refreshes ("the status"). */
export const watchOption = (what: string) =>
  new Option(
    '-w, --watch',
    `refresh ${what} until Ctrl-C: in place on a terminal, a timestamped line on each change when piped`,
  );

/** `--interval <seconds>`, with `--watch`. */
export const intervalOption = () =>
  new Option(
    '--interval <seconds>',
    'seconds between refreshes with --watch (doubled while the service fails, up to 60)',
  )
    .default(WATCH_INTERVAL)
    .argParser(seconds({ min: 1 }));

/** `--exit-status`, for a plan or a task (a final state to wait for). */
export const exitStatusOption = () =>
  new Option('--exit-status', 'watch until a final state: exit 0 when finished, 1 when canceled (implies --watch)');

interface WatchFlags {
  interval: number;
  exitStatus?: boolean;
}

/** Runs the watch loop (loaded only when a command watches). */
export async function runWatch<T>(ctx: Context, spec: WatchSpec<T>, flags: WatchFlags): Promise<number> {
  const { watch } = await import('../../output/watch.js');
  const out = await ctx.output();
  return watch(ctx.io, spec, { interval: flags.interval, exitStatus: flags.exitStatus === true, output: out.options });
}
