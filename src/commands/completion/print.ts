import type { Context } from '../../context.js';
import { script, type Shell } from '../../completion/scripts.js';

export async function run(ctx: Context, _opts: unknown, shell: Shell): Promise<number> {
  ctx.io.stdout.write(script(shell));
  return 0;
}
