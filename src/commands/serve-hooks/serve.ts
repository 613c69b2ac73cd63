import { isIP } from 'node:net';
import type { Context } from '../../context.js';
import { redactValues } from '../../redact.js';
import { CliError, UsageError } from '../../errors.js';
import { historyWindowMs } from '../../hooks/intake.js';
import { Receiver } from '../../hooks/receiver.js';
import { chatbotSigning, forwardKey, hookKeys, parseEventTypes } from '../hooks/secrets.js';
import { httpUrl } from '../../config/http-url.js';
import { receiverOutput } from './output.js';
import { render, stoppedLine, type RenderOptions } from './render.js';
import { said } from '../../said.js';

export interface ServeOptions {
  host: string;
  port: number;
  path?: string;
  key?: string[];
  keyFile?: string;
  skipVerify?: boolean;
  onBadSign: 'reject' | 'ack';
  chatbotSecretFile?: string;
  signCommand?: string;
  strict?: boolean;
  maxAge?: number;
  log?: string;
  fsync?: boolean;
  events?: string;
  showNumbers?: boolean;
  forwardTo?: string;
  forwardSecretFile?: string;
  forwardQueue?: number;
  forwardQueueMib?: number;
  maxConnections?: number;
  maxConnectionsPerPeer?: number;
  /** Seconds. */
  headerTimeout?: number;
  /** Seconds. */
  requestTimeout?: number;
  refusedLogRate?: number;
  maxBodyKib?: number;
  maxHeaderKib?: number;
  /** Seconds. */
  keepAliveTimeout?: number;
  /** Seconds. */
  signTimeout?: number;
  signConcurrency?: number;
  store?: string;
  storeFile?: string;
  /** Seconds. */
  forwardLease?: number;
  /** Seconds. */
  drainTimeout?: number;
  tlsCert?: string;
  tlsKey?: string;
  /** Applied to the options before the run (config.ts); kept for --print-config. */
  config?: string;
  printConfig?: boolean;
  trustProxy?: string;
  metricsPort?: number;
  metricsHost?: string;
  metricsPath?: string;
  /** Serve the inspector page too (`hooks ui`), on --ui-host:--ui-port. */
  ui?: boolean;
  uiHost?: string;
  uiPort?: number;
  uiTokenFile?: string;
  open?: boolean;
  /** Not a flag: lets an in-process caller (a test) stop the listener, as SIGTERM would. */
  stop?: AbortSignal;
  /** Not a flag: told the listener's URL once it listens. */
  onListening?: (url: string) => void;
}

/**
 * Runs the listener until SIGINT or SIGTERM, rendering what it emits: events on stdout (a line on
 * a terminal, NDJSON when piped or with --json), messages on stderr. On a signal it stops
 * accepting, finishes what is in flight, flushes the log and ends with 0.
 */
export async function runServeHooks(ctx: Context, opts: ServeOptions): Promise<number> {
  // A receiver runs for days: every line it says on stderr carries its time.
  ctx.stampLines = 'always';
  if (opts.path !== undefined && !opts.path.startsWith('/')) throw new UsageError(said`--path must start with /`);
  const trustProxy = opts.trustProxy?.split(',').map((a) => a.trim());
  if (trustProxy?.some((a) => isIP(a) === 0))
    throw new UsageError(said`--trust-proxy: give the proxies' IP addresses, comma-separated (127.0.0.1,::1)`);
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined))
    throw new UsageError(said`--tls-cert and --tls-key go together`);
  if (opts.metricsPath !== undefined) {
    if (!opts.metricsPath.startsWith('/')) throw new UsageError(said`--metrics-path must start with /`);
    if (['/healthz', '/readyz', opts.path].includes(opts.metricsPath))
      throw new UsageError(said`--metrics-path must differ from /healthz, /readyz and --path`);
  }
  if ((opts.requestTimeout ?? 30) < (opts.headerTimeout ?? 10)) {
    throw new UsageError(said`--request-timeout covers the headers too: give it at least --header-timeout`);
  }
  // A secret segment in --path is never shown: a secret of the run, redacted wherever it would appear.
  ctx.addSecret(opts.path);
  if (opts.printConfig) {
    const { printedConfig } = await import('./config.js');
    const { stop: _stop, onListening: _listening, ...settings } = opts;
    ctx.io.stdout.write(await printedConfig(settings));
    return 0;
  }
  const keys = await hookKeys(ctx, opts);
  if (keys.length === 0 && !opts.skipVerify) {
    throw new UsageError(
      said`no KEY to verify plan and task Sign: give --key, --key-file or CALLCTL_HOOK_KEYS, or start with --skip-verify`,
    );
  }
  if (opts.strict && opts.skipVerify)
    throw new UsageError(said`--strict refuses events that are not verified: it cannot be used with --skip-verify`);
  const chatbot = chatbotSigning(ctx, opts);
  const events = parseEventTypes(opts.events);
  const forwardTo = opts.forwardTo === undefined ? undefined : httpUrl(opts.forwardTo, '--forward-to');
  const key = forwardKey(ctx, opts, forwardTo);
  const out = await ctx.output();

  const maxAgeMs = (opts.maxAge ?? 15) * 60_000;
  // Its --log is the events' file (Store.events), not a reading command's --log.
  const runStore = await ctx.store({ store: opts.store, storeFile: opts.storeFile });
  const store = await runStore.events({
    write: true,
    log: opts.log,
    fsync: opts.fsync,
    rememberMs: historyWindowMs(maxAgeMs),
    now: () => ctx.io.now(),
  });
  if (opts.ui && store.writesTo === 'memory') {
    await store.close();
    throw new UsageError(said`--ui shows what is recorded: give --log FILE or a store`);
  }

  let receiver: Receiver;
  try {
    receiver = await Receiver.start({
      host: opts.host,
      port: opts.port,
      path: opts.path,
      keys,
      skipVerify: opts.skipVerify,
      chatbotSecret: chatbot.secret,
      signCommand: chatbot.command,
      onBadSign: opts.onBadSign,
      strict: opts.strict,
      maxAgeMs,
      store,
      forwardTo,
      ...(key ? { forwardKey: key } : {}),
      forwardQueue: opts.forwardQueue,
      forwardQueueBytes: opts.forwardQueueMib === undefined ? undefined : opts.forwardQueueMib * 1024 * 1024,
      maxConnections: opts.maxConnections,
      maxConnectionsPerPeer: opts.maxConnectionsPerPeer,
      ...(trustProxy ? { trustProxy } : {}),
      ...(opts.headerTimeout !== undefined ? { headersTimeoutMs: Math.round(opts.headerTimeout * 1000) } : {}),
      ...(opts.requestTimeout !== undefined ? { requestTimeoutMs: Math.round(opts.requestTimeout * 1000) } : {}),
      refusedLogRate: opts.refusedLogRate,
      ...(opts.maxBodyKib !== undefined ? { maxBodyBytes: opts.maxBodyKib * 1024 } : {}),
      ...(opts.maxHeaderKib !== undefined ? { maxHeaderBytes: opts.maxHeaderKib * 1024 } : {}),
      ...(opts.keepAliveTimeout !== undefined ? { keepAliveTimeoutMs: Math.round(opts.keepAliveTimeout * 1000) } : {}),
      ...(opts.signTimeout !== undefined ? { signCommandTimeoutMs: Math.round(opts.signTimeout * 1000) } : {}),
      signConcurrency: opts.signConcurrency,
      ...(opts.forwardLease !== undefined ? { forwardLeaseMs: opts.forwardLease * 1000 } : {}),
      ...(opts.drainTimeout !== undefined ? { drainTimeoutMs: Math.round(opts.drainTimeout * 1000) } : {}),
      ...(opts.tlsCert && opts.tlsKey ? { tlsFiles: { cert: opts.tlsCert, key: opts.tlsKey } } : {}),
      metricsPath: opts.metricsPath,
      metricsPort: opts.metricsPort,
      metricsHost: opts.metricsHost,
      // The run's one transport: --timeout and --verbose apply to forwards too.
      forwardTransport: forwardTo ? await ctx.transport() : undefined,
      now: () => ctx.io.now(),
    });
  } catch (error) {
    await store.close();
    if (error instanceof CliError) throw error; // the certificate, say
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      said`cannot listen on ${opts.host}:${opts.port}: ${code === 'EADDRINUSE' ? 'the port is in use (--port 0 picks a free one)' : (code ?? (error as Error).message)}`,
    );
  }

  const options: RenderOptions = {
    json: out.json || !ctx.io.stdoutIsTTY,
    showNumbers: !!opts.showNumbers,
    skipVerify: !!opts.skipVerify,
    events,
  };
  const {
    stdout,
    stderr,
    close: closeOutput,
  } = receiverOutput(
    ctx.io,
    (lines) => receiver.outputLost(lines),
    () => ctx.stamp(),
  );
  receiver.on((event) => {
    const text = render(event, options, out);
    // What a person or a pipe reads: every known secret redacted, also where a body holds one.
    if (text.out) stdout.write(redactValues(text.out));
    if (text.err) {
      stdout.flush(); // keep the order of what a person reads on one terminal
      stderr.write(`${ctx.stamp()}${redactValues(text.err)}`);
      stderr.flush();
    }
  });

  const where = [
    `listening on ${receiver.url}${opts.path ? ' (POST on --path only)' : ''}; GET /healthz, /readyz${opts.metricsPath ? `, ${opts.metricsPath}` : ''}`,
    receiver.metricsUrl ? `metrics on ${receiver.metricsUrl}` : undefined,
    keys.length ? `${keys.length} key${keys.length > 1 ? 's' : ''}` : undefined,
    chatbot.command ? 'chatbot: sign command' : chatbot.secret ? 'chatbot: secret' : 'chatbot: unverified',
    store.summary,
    forwardTo
      ? `forwarding to ${new URL(forwardTo).origin} ${key ? 'signed' : 'unsigned (no --forward-secret-file or CALLCTL_FORWARD_SECRET)'}`
      : undefined,
  ].filter(Boolean);
  out.info(where.join('; '));
  for (const notice of store.notices) out.warn(notice);
  if (opts.skipVerify) out.warn(said`--skip-verify: plan and task Sign are NOT checked; every event says so`);
  // The inspector over what this run records, read through a store of its own (as hooks ui reads it).
  const stopUi = opts.ui
    ? await (
        await import('./ui.js')
      ).serveBeside(
        ctx,
        {
          host: opts.uiHost,
          port: opts.uiPort,
          tokenFile: opts.uiTokenFile,
          open: opts.open,
          forwardTo: opts.forwardTo,
          forwardSecretFile: opts.forwardSecretFile,
          chatbotSecretFile: opts.chatbotSecretFile,
          signCommand: opts.signCommand,
        },
        runStore,
        opts.log,
        (handler, error) => receiver.handlerFailed(handler, error),
      )
    : undefined;
  opts.onListening?.(receiver.url);

  // The first signal drains (within --drain-timeout); a second one cuts what is left at once.
  let signals = 0;
  let first!: (s: string) => void;
  let second!: () => void;
  const stop = new Promise<string>((r) => (first = r));
  const now = new Promise<void>((r) => (second = r));
  const off = ctx.io.onSignal((s) => (++signals === 1 ? first(s) : second()));
  // SIGHUP: the certificate and key are read again (after a renewal), without dropping
  // connections, and the log is reopened (logrotate moved it away).
  const offHangup = ctx.io.onHangup(() => receiver.hangup());
  opts.stop?.addEventListener('abort', () => first('stop'));
  void stop.then((s) =>
    out.info(
      said`${s === 'stop' ? 'stopping' : `${s}: stopping`}: finishing requests in flight (a second signal stops at once)`,
    ),
  );
  const summary = await receiver.run(stop, now);
  await stopUi?.();
  off();
  offHangup();
  closeOutput();
  stdout.flush();
  // The log and the store are flushed and closed within what is left of the drain (a store that
  // cannot be reached does not hold the stop).
  const closing = store.close();
  await Promise.race([closing, now, new Promise((r) => setTimeout(r, 1000 * (opts.drainTimeout ?? 10)).unref())]);
  out.info(stoppedLine(summary));
  if (signals > 1) {
    out.info(said`stopped at once on a second signal: what was still in flight was cut (never acknowledged)`);
    return 130;
  }
  return 0;
}
