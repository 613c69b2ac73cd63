import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import { port } from '../flag-values.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import { readFileSync } from 'node:fs';
import type { Context } from '../../context.js';
import { LocalError, UsageError } from '../../errors.js';
import { httpUrl } from '../../config/http-url.js';
import type { EventStore } from '../../store/events.js';
import type { Handler } from '../../hooks/guard.js';
import type { ChatbotSigning } from '../../hooks/plan.js';
import { said } from '../../said.js';

function declare(hooks: Command) {
  return hooks
    .command('ui')
    .description('a local inspector page over recorded events: live list, filters, detail, send again')
    .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--host <host>', 'address to listen on (any but loopback needs a token)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', port, 8788)
    .option('--token-file <file>', 'the token every request must carry (first line; else one is made when needed)')
    .option('--open', 'open the page in a browser')
    .option('--forward-to <url>', 'where "Send again" sends an event (as hooks replay --to)')
    .option('--forward-secret-file <file>', 'whsec_ secret signing what is sent again (or CALLCTL_FORWARD_SECRET)')
    .option('--chatbot-secret-file <file>', 'secret to sign chatbot events sent again (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that prints X-Service-Sign for a body on stdin')
    .addHelpText(
      'after',
      `
Serves a page listing what serve-hooks recorded, newest first, filling live as events arrive;
filters (those of hooks events) are kept in the address, so a link can be shared. An event's
detail shows what hooks show shows; "Send again" posts it to --forward-to as hooks replay would
(events not verified on arrival only when ticked); "Copy as curl"; export the filtered list as
CSV or NDJSON. Callee numbers are masked unless "Show numbers" is ticked.

Safe by default: 127.0.0.1 only; on any other --host every request needs a token (made at
random and printed once in the address, or read from --token-file). Actions are POSTs with a
CSRF token; the page runs only its own script and fetches nothing from elsewhere.

Examples:
  callctl hooks ui --log events.ndjson --open
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl hooks ui --forward-to http://127.0.0.1:3000/hooks
  callctl hooks ui --log events.ndjson --host 0.0.0.0 --token-file ~/.config/callctl/ui-token`,
    );
}

export type UiOptions = FlagsOf<typeof declare>;

export function register(hooks: Command, { start }: Deps): void {
  declare(hooks).action((flags, command) => start(command, runHooksUi, flags));
}

/** Where the inspector listens, its token, whether to open it (`hooks ui`; `serve-hooks --ui-*`). */
export interface InspectorFlags {
  host?: string;
  port?: number;
  tokenFile?: string;
  open?: boolean;
}

/** Where Send again goes (`to`, none without a forward target), and how it signs. */
export interface InspectorForward {
  to?: string;
  chatbot: ChatbotSigning;
  key?: Buffer;
}

/** The filters of the page's address: those of `hooks events`, by the same names. */
const FILTERS = ['type', 'verdict', 'plan', 'task', 'callee', 'since', 'until'];

/** The token of `--token-file` (its first line), or undefined. */
function tokenOf(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LocalError(said`--token-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'cannot read'}`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (token.length < 16) throw new UsageError(said`--token-file ${file}: the token must be at least 16 characters`);
  return token;
}

/**
 * Serves the inspector over `store` until the run is told to stop; `hooks ui` and
 * `serve-hooks --ui` both start it here. Prints the address (with the token, once, when one was
 * made; on `announce`) and opens a browser with `--open`. A request whose handling fails
 * unexpectedly is answered 500 and told to `failed` (by default: once, on stderr). Resolves with
 * the function that stops it.
 */
export async function serveInspector(
  ctx: Context,
  store: EventStore,
  flags: InspectorFlags,
  forwarding: () => InspectorForward,
  beside: { announce: 'stdout' | 'stderr'; failed?: (handler: Handler, error: unknown) => void } = {
    announce: 'stdout',
  },
): Promise<() => Promise<void>> {
  const out = await ctx.output();
  const { HandlerErrors } = await import('../../hooks/guard.js');
  const { eventFilter, exportLine, CSV_HEAD } = await import('./event-lines.js');
  const failed = beside.failed ?? ((h, e) => handlerErrors.failed(h, e));
  const handlerErrors = new HandlerErrors((message) => out.error(message));
  const host = flags.host ?? '127.0.0.1';
  const { isLoopback, newToken } = await import('../../hooks/ui/access.js');
  const fromFile = tokenOf(flags.tokenFile);
  const token = fromFile ?? (isLoopback(host) ? undefined : newToken());
  const { to: forwardTo, chatbot, key } = forwarding();
  const { startInspector } = await import('../../hooks/ui/server.js');
  const transport = forwardTo ? await ctx.transport() : undefined;
  const { resend } = await import('../../hooks/resend.js');
  let inspector;
  try {
    inspector = await startInspector({
      store,
      host,
      port: flags.port ?? 8788,
      ...(token ? { token } : {}),
      filterOf: (q) => {
        const text = (k: string) => q.get(k) || undefined;
        const [type, verdict, plan, task, callee, since, until] = FILTERS.map(text);
        const retries = { true: true, false: false }[q.get('retries') ?? ''];
        return eventFilter({ type, verdict, plan, task, callee, since, until, retries }, ctx.io.now());
      },
      exportLines: (format, reveal) => ({ head: format === 'csv' ? CSV_HEAD : '', line: exportLine(format, reveal) }),
      ...(forwardTo && transport
        ? {
            forward: {
              to: forwardTo,
              send: (e, includeUnverified) =>
                resend(transport, forwardTo, e, { chatbot, includeUnverified, ...(key ? { key } : {}) }),
            },
          }
        : {}),
      onError: failed,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      said`cannot listen on ${host}:${flags.port ?? 8788}: ${code === 'EADDRINUSE' ? 'the port is in use (--port 0 picks a free one)' : (code ?? 'error')}`,
    );
  }
  // The address on stdout (a script can read it); the token in it is printed this once.
  const shown = fromFile ? inspector.url.replace(/\?token=.*$/, '') : inspector.url;
  if (beside.announce === 'stdout') ctx.io.stdout.write(`inspector: ${shown}\n`);
  else out.info(said`inspector: ${shown}`);
  if (fromFile) out.info(said`every request carries the token of ${flags.tokenFile} (open ${shown}?token=...)`);
  else if (token) out.info(said`the token in this address is printed only now: every request carries it`);
  // From now on the token is a secret like any other: never in -v output, errors or files.
  if (token) ctx.addSecret(token);
  if (flags.open) {
    const { openInBrowser } = await import('./open.js');
    // The token, when one was made, is in the address printed above (and only there).
    openInBrowser(ctx.io, inspector.url, token && !fromFile ? said`the address above` : shown, (line) =>
      out.warn(line),
    );
  }
  return () => inspector.close();
}

/** `hooks ui`: the inspector over what serve-hooks recorded, until Ctrl-C. */
export async function runHooksUi(ctx: Context, opts: UiOptions): Promise<number> {
  // An inspector runs until stopped: every line it says on stderr carries its time.
  ctx.stampLines = 'always';
  // A filter reads through the whole record (pages of it): garbage at the pace of the reading,
  // which V8 meets by growing its heap, not by keeping anything (src/heap.ts).
  const { flatHeap } = await import('../../heap.js');
  const { chatbotSigning, forwardKey } = await import('../../hooks/plan.js');
  flatHeap();
  const store = await (await ctx.store(opts)).events({});
  try {
    const stop = await serveInspector(ctx, store, opts, () => {
      const to = opts.forwardTo === undefined ? undefined : httpUrl(opts.forwardTo, '--forward-to');
      const chatbot = chatbotSigning(opts, ctx.io.env);
      return { to, chatbot, key: forwardKey(opts, to, ctx.io.env) };
    });
    await new Promise<void>((resolve) => {
      const off = ctx.io.onSignal(() => {
        off();
        resolve();
      });
    });
    await stop();
    return 0;
  } finally {
    await store.close();
  }
}
