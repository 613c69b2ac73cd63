import { Option, type Command, type FlagsOf } from '../commander.js';
import { collect, type Deps } from '../action.js';
import { port, seconds, wholeNumber } from '../flag-values.js';
import { isIP } from 'node:net';
import type { Context } from '../../context.js';
import { httpUrl } from '../../config/http-url.js';
import { UsageError } from '../../errors.js';
import type { Handler } from '../../hooks/guard.js';
import type { ReceivePlan } from '../../hooks/plan.js';
import type { Store } from '../../store/store.js';
import type { InspectorFlags } from '../hooks/ui.js';
import { SERVE_HOOKS_HELP } from './help.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import { said } from '../../said.js';

function declare(parent: Command) {
  return parent
    .command('serve-hooks')
    .description("receive the service's notifications: verify, record and show every event")
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 picks a free one)', port, 8787)
    .option('--path <path>', 'accept POST on this path only (it may carry a secret segment; never shown)')
    .option(
      '--key <KEY>',
      'KEY for plan/task Sign; repeat for rotation (visible in ps: prefer the file or env)',
      collect,
    )
    .option('--key-file <file>', 'KEYs for plan/task Sign, one per line or comma-separated')
    .option('--skip-verify', 'start without any KEY: plan/task Sign is not checked, and every event says so')
    .addOption(
      new Option('--on-bad-sign <mode>', 'answer to a bad or missing signature')
        .choices(['reject', 'ack'])
        .default('reject'),
    )
    .option('--chatbot-secret-file <file>', 'secret for chatbot X-Service-Sign (or CALLCTL_CHATBOT_SECRET)')
    .option('--sign-command <cmd>', 'command that reads a body on stdin and prints its X-Service-Sign')
    .option(
      '--strict',
      'refuse what is not proven: unsigned or unverified events 401, unknown types and schema problems 400',
    )
    .option(
      '--max-age <minutes>',
      'plan end: refuse a Timestamp further than this from now, either way (0: no check)',
      wholeNumber({ min: 0, max: 1440 }, 'minutes'),
      15,
    )
    .option('--log <file>', 'append every request to this NDJSON file before answering it')
    .option('--fsync', 'with --log: flush each record to disk before answering (group commit)')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option(
      '--forward-lease <seconds>',
      'shared store: a forward unfinished this long is taken over by another receiver; a failed forward is tried again after an eighth of it per attempt (any store)',
      seconds({ min: 1 }),
      120,
    )
    .option('--events <types>', 'show only these types, comma-separated (all are still recorded)')
    .option('--show-numbers', 'show callee numbers in full (masked by default)')
    .option('--forward-to <url>', 'send each new accepted event on, same bytes and headers, to a local app')
    .option(
      '--forward-secret-file <file>',
      'whsec_ secret signing forwards (Standard Webhooks; or CALLCTL_FORWARD_SECRET)',
    )
    .option(
      '--forward-queue <n>',
      'forwards waiting or under way at most; past it events wait in the log or store (else 503)',
      wholeNumber({ min: 1, max: 1_000_000 }),
      1000,
    )
    .option(
      '--forward-queue-mib <n>',
      'bodies in the forward queue at most, in MiB',
      wholeNumber({ min: 1, max: 65_536 }),
      64,
    )
    .option(
      '--header-timeout <seconds>',
      'a request whose headers are not all in by then is answered 408 and closed',
      seconds({ min: 0.1, max: 3600 }),
      10,
    )
    .option(
      '--request-timeout <seconds>',
      'a request not wholly in by then (headers and body) is closed (408 when Node sees it first)',
      seconds({ min: 0.1, max: 3600 }),
      30,
    )
    .option(
      '--max-connections <n>',
      'open connections at most (keep it under the file limit, ulimit -n)',
      wholeNumber({ min: 1, max: 1_000_000 }),
      512,
    )
    .option(
      '--max-connections-per-peer <n>',
      'open connections per peer address at most (behind a proxy: raise to --max-connections)',
      wholeNumber({ min: 1, max: 1_000_000 }),
      64,
    )
    .option(
      '--max-body-kib <n>',
      'a body over this many KiB is answered 413 and not read',
      wholeNumber({ min: 1, max: 1_048_576 }),
      1024,
    )
    .option(
      '--max-header-kib <n>',
      'request headers over this many KiB are answered 431',
      wholeNumber({ min: 1, max: 1024 }),
      16,
    )
    .option(
      '--keep-alive-timeout <seconds>',
      'an idle keep-alive connection is closed after this long',
      seconds({ min: 0.1, max: 3600 }),
      5,
    )
    .option(
      '--sign-timeout <seconds>',
      'a --sign-command that has not answered by then is killed (with what it started): 503',
      seconds({ min: 0.1, max: 600 }),
      5,
    )
    .option(
      '--sign-concurrency <n>',
      'sign commands running at once at most; past it a chatbot event is answered 503',
      wholeNumber({ min: 1, max: 1024 }),
      8,
    )
    .option(
      '--refused-log-rate <n>',
      'refused requests recorded per second at most (metadata and 256 bytes of body); the rest are counted',
      wholeNumber({ min: 0, max: 100_000 }),
      10,
    )
    .option(
      '--drain-timeout <seconds>',
      'on SIGTERM/SIGINT, how long requests in flight and forwards get before the rest is cut',
      seconds({ min: 0.1, max: 3600 }),
      10,
    )
    .option(
      '--trust-proxy <addresses>',
      "reverse proxies in front (IPs, comma-separated): the peer is X-Forwarded-For's last address",
    )
    .option('--config <file>', "read settings from this file (JSON or TOML; keys are these flags' names; flags win)")
    .option('--print-config', 'print the settings in effect (file and flags) as TOML, and exit')
    .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM, chain included); read again on SIGHUP')
    .option('--tls-key <file>', "the certificate's private key (PEM)")
    .option('--metrics-port <n>', 'serve Prometheus metrics on GET /metrics of this port (off by default)', port)
    .option('--metrics-host <host>', 'address the --metrics-port listens on', '127.0.0.1')
    .option('--metrics-path <path>', 'serve Prometheus metrics on GET of this path of --port too (off by default)')
    .option('--ui', 'also serve the inspector page (as hooks ui) over what is recorded, on --ui-port')
    .option('--ui-host <host>', 'address the inspector listens on (default 127.0.0.1; any other needs a token)')
    .option('--ui-port <n>', 'port of the inspector (default 8788; 0 picks a free one)', port)
    .option('--ui-token-file <file>', "the inspector's token (first line; else one is made when needed)")
    .option('--open', 'with --ui: open the inspector in a browser')
    .addHelpText('after', SERVE_HOOKS_HELP);
}

/**
 * What runServeHooks is given: the flags of the declaration, and two hooks for an in-process
 * caller (a test): `stop` stops the run as SIGTERM would, `onListening` is told its URL once it listens.
 */
export type ServeOptions = FlagsOf<typeof declare> & { stop?: AbortSignal; onListening?: (url: string) => void };

export function register(parent: Command, { start }: Deps): void {
  declare(parent)
    // The settings file fills the flags not given, checked by their own parsers, before the run.
    .hook('preAction', async (command) => {
      if (command.getOptionValue('config') !== undefined) await (await import('./config.js')).applyConfig(command);
    })
    .action((flags, command) => start(command, runServeHooks, flags));
}

/**
 * Receives until SIGINT or SIGTERM, rendering what the receiver emits: events on stdout (a line
 * on a terminal, NDJSON when piped or with --json), messages on stderr. The first signal stops
 * accepting and finishes what is in flight (exit 0); a second one cuts what is left (exit 130).
 */
export async function runServeHooks(ctx: Context, opts: ServeOptions): Promise<number> {
  // A receiver runs for days: every line it says on stderr carries its time.
  ctx.stampLines = 'always';
  const [{ receive }, render, { receiverOutput }] = await Promise.all([
    import('../../hooks/receive.js'),
    import('./render.js'),
    import('./output.js'),
  ]);
  checkFlags(ctx, opts);
  if (opts.printConfig) {
    const { stop: _stop, onListening: _listening, ...settings } = opts;
    ctx.io.stdout.write(await (await import('./config.js')).printedConfig(settings));
    return 0;
  }
  // From here on the run reads its plan, not its flags.
  const plan = await receivePlan(ctx, opts);
  // A secret segment in --path is never shown: a secret of the run, redacted wherever it would appear.
  ctx.addSecret(plan.path);
  const out = await ctx.output();
  const store = await ctx.store(plan.storeFlags);
  const shown = {
    json: out.json || !ctx.io.stdoutIsTTY,
    showNumbers: plan.showNumbers,
    skipVerify: !!plan.skipVerify,
    events: plan.shown,
  };
  const output = receiverOutput(ctx.io, () => ctx.stamp());
  const stop = new AbortController();
  const cut = new AbortController();
  const stopping = (s: string) => {
    if (stop.signal.aborted) return;
    out.info(
      said`${s === 'stop' ? 'stopping' : `${s}: stopping`}: finishing requests in flight (a second signal stops at once)`,
    );
    stop.abort();
  };
  // The first signal drains (within --drain-timeout); a second one cuts what is left at once.
  let signals = 0;
  const off = ctx.io.onSignal((s) => (++signals === 1 ? stopping(s) : cut.abort()));
  plan.stop?.addEventListener('abort', () => stopping('stop'));
  let summary;
  try {
    summary = await receive(plan, {
      store,
      signal: stop.signal,
      cut: cut.signal,
      hangups: (reload) => ctx.io.onHangup(reload),
      outputLost: output.onLost,
      // The run's one transport: --timeout and --verbose apply to forwards too.
      transport: plan.forwardTo ? await ctx.transport() : undefined,
      now: () => ctx.io.now(),
      beside: plan.ui ? (failed) => serveBeside(ctx, plan, store, failed) : undefined,
      onEvent: (event) => {
        if (event.kind === 'listening') {
          out.info(render.listeningLine(event, plan));
          for (const notice of event.store.notices) out.warn(notice);
          if (plan.skipVerify) out.warn(said`--skip-verify: plan and task Sign are NOT checked; every event says so`);
        } else if (event.kind === 'ready') plan.onListening?.(event.url);
        else output.write(render.render(event, shown, out));
      },
    });
  } finally {
    off();
    output.close();
  }
  out.info(render.stoppedLine(summary));
  if (signals > 1) {
    out.info(said`stopped at once on a second signal: what was still in flight was cut (never acknowledged)`);
    return 130;
  }
  return 0;
}

/**
 * The flags turned into the plan: KEYs and secrets read from their files or the environment (each
 * a secret of the run from here on: hooks/plan.ts), seconds and KiB into the engine's units.
 */
async function receivePlan(ctx: Context, flags: ServeOptions): Promise<ServePlan> {
  const { chatbotSigning, forwardKey, hookKeys, parseEventTypes } = await import('../../hooks/plan.js');
  const keys = hookKeys(flags, (await ctx.settings()).get('hook-keys'));
  if (keys.length === 0 && !flags.skipVerify) {
    throw new UsageError(
      said`no KEY to verify plan and task Sign: give --key, --key-file or CALLCTL_HOOK_KEYS, or start with --skip-verify`,
    );
  }
  if (flags.strict && flags.skipVerify)
    throw new UsageError(said`--strict refuses events that are not verified: it cannot be used with --skip-verify`);
  const chatbot = chatbotSigning(flags, ctx.io.env);
  const shown = parseEventTypes(flags.events);
  const key = forwardKey(flags, flags.forwardTo, ctx.io.env);
  const forwardTo = flags.forwardTo === undefined ? undefined : httpUrl(flags.forwardTo, '--forward-to');
  const ms = (seconds: number) => Math.round(seconds * 1000);
  return {
    host: flags.host,
    port: flags.port,
    path: flags.path,
    keys,
    skipVerify: flags.skipVerify,
    chatbotSecret: chatbot.secret,
    signCommand: chatbot.command,
    onBadSign: flags.onBadSign,
    strict: flags.strict,
    maxAgeMs: flags.maxAge * 60_000,
    log: flags.log,
    fsync: flags.fsync,
    forwardTo,
    ...(key ? { forwardKey: key } : {}),
    forwardQueue: flags.forwardQueue,
    forwardQueueBytes: flags.forwardQueueMib * 1024 * 1024,
    maxConnections: flags.maxConnections,
    maxConnectionsPerPeer: flags.maxConnectionsPerPeer,
    ...(flags.trustProxy ? { trustProxy: flags.trustProxy.split(',').map((a) => a.trim()) } : {}),
    headersTimeoutMs: ms(flags.headerTimeout),
    requestTimeoutMs: ms(flags.requestTimeout),
    refusedLogRate: flags.refusedLogRate,
    maxBodyBytes: flags.maxBodyKib * 1024,
    maxHeaderBytes: flags.maxHeaderKib * 1024,
    keepAliveTimeoutMs: ms(flags.keepAliveTimeout),
    signCommandTimeoutMs: ms(flags.signTimeout),
    signConcurrency: flags.signConcurrency,
    forwardLeaseMs: flags.forwardLease * 1000,
    drainTimeoutMs: ms(flags.drainTimeout),
    ...(flags.tlsCert && flags.tlsKey ? { tlsFiles: { cert: flags.tlsCert, key: flags.tlsKey } } : {}),
    metricsPath: flags.metricsPath,
    metricsPort: flags.metricsPort,
    metricsHost: flags.metricsHost,
    ui: flags.ui,
    shown,
    storeFlags: { store: flags.store, storeFile: flags.storeFile },
    showNumbers: flags.showNumbers === true,
    inspector: { host: flags.uiHost, port: flags.uiPort, tokenFile: flags.uiTokenFile, open: flags.open },
    stop: flags.stop,
    onListening: flags.onListening,
  };
}

/** The engine's plan, and what the command itself reads of the flags once the run starts. */
type ServePlan = ReceivePlan & {
  /** Where the events are kept: --store or --store-file, else the environment or the profile. */
  storeFlags: { store?: string; storeFile?: string };
  showNumbers: boolean;
  /** --ui's own flags: where the inspector listens, its token, whether to open it. */
  inspector: InspectorFlags;
} & Pick<ServeOptions, 'stop' | 'onListening'>;

/** The checks of the flags alone (before --print-config prints them): each refusal names its flag. */
function checkFlags(ctx: Context, flags: ServeOptions): void {
  if (flags.path !== undefined && !flags.path.startsWith('/')) throw new UsageError(said`--path must start with /`);
  if (flags.trustProxy?.split(',').some((a) => isIP(a.trim()) === 0))
    throw new UsageError(said`--trust-proxy: give the proxies' IP addresses, comma-separated (127.0.0.1,::1)`);
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined))
    throw new UsageError(said`--tls-cert and --tls-key go together`);
  if (flags.metricsPath !== undefined) {
    if (!flags.metricsPath.startsWith('/')) throw new UsageError(said`--metrics-path must start with /`);
    if (['/healthz', '/readyz', flags.path].includes(flags.metricsPath))
      throw new UsageError(said`--metrics-path must differ from /healthz, /readyz and --path`);
  }
  if (flags.requestTimeout < flags.headerTimeout)
    throw new UsageError(said`--request-timeout covers the headers too: give it at least --header-timeout`);
}

/**
 * `--ui`: the inspector of `hooks ui` beside the receiver, on a port of its own, over what this run
 * records (its store's events, or its `--log`), read through an event store opened for reading
 * only. Send again goes to --forward-to, signed as the forwards are; its failures are the
 * receiver's to count and tell (`failed`). Resolves with the function that stops it.
 */
async function serveBeside(
  ctx: Context,
  plan: ServePlan,
  store: Store,
  failed: (handler: Handler, error: unknown) => void,
): Promise<() => Promise<void>> {
  const { serveInspector } = await import('../hooks/ui.js');
  const events = await store.events({ log: plan.log });
  const signing = { secret: plan.chatbotSecret, command: plan.signCommand };
  const forward = () => ({ to: plan.forwardTo, chatbot: signing, key: plan.forwardKey });
  const stop = await serveInspector(ctx, events, plan.inspector, forward, { announce: 'stderr', failed }).catch(
    async (error: unknown) => {
      await events.close();
      throw error;
    },
  );
  return async () => {
    await stop();
    await events.close();
  };
}
