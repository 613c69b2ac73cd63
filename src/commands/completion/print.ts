import type { Context } from '../../context.js';
import { script, type Shell } from '../../completion/scripts.js';

/** `completion <shell>`. */
export interface CompletionOptions {
  shell: Shell;
}

/** Runs `completion`. */
export async function runCompletion(ctx: Context, opts: CompletionOptions): Promise<number> {
  const { shell } = opts;
  ctx.io.stdout.write(script(shell));
  return 0;
}
