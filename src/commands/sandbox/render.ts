import type { SandboxJson } from '../../schemas/local-output.js';
import type { Output } from '../../output/output.js';
import type { Sandbox, SandboxEventMap } from '../../sandbox/server.js';
import { redactPath } from '../../sandbox/recorder.js';
import { SEED } from '../../sandbox/server.js';
import { plural } from '../../plural.js';
import { redact } from '../../redact.js';
import { said } from '../../said.js';

/** What `--json` prints: one JSON object, one line, on stdout. */
export function describe(sb: Sandbox, tokenTtlSeconds: number) {
  return {
    url: sb.url,
    flexUrl: sb.flexUrl,
    flexTestUrl: sb.flexTestUrl,
    appKey: sb.appKey,
    appSecret: sb.appSecret,
    pushToken: sb.pushToken,
    pushTestToken: sb.pushTestToken,
    signKey: sb.signKey,
    signSecret: sb.signSecret,
    notifyUrl: sb.notifyUrl ?? null,
    notifyKey: sb.notifyKey,
    timeScale: sb.timeScale,
    tokenTtlSeconds,
    variants: sb.variants(),
    seed: SEED,
  } satisfies SandboxJson;
}

/**
 * Prints the banner and renders the sandbox's events on stderr (the sandbox itself never prints).
 * Returns a function that stops rendering.
 */
export function render(
  sb: Sandbox,
  out: Output,
  o: { verbose: boolean; banner: ReturnType<typeof describe> },
): () => void {
  const b = o.banner;
  const e = out.err;
  const rows: Array<[string, string]> = [
    ['base URL', b.url],
    ['flex URL', `${b.flexUrl}   (test: ${b.flexTestUrl})`],
    ['app key', b.appKey],
    ['app secret', b.appSecret],
    ['push token', `${b.pushToken}   (test: ${b.pushTestToken})`],
    ['sign key', b.signKey],
    ['sign secret', b.signSecret],
    ['notify', b.notifyUrl ? `${redact(b.notifyUrl)}   (KEY ${b.notifyKey})` : 'off (--notify-url URL)'],
    ['time', `${b.timeScale}x real time; tokens last ${b.tokenTtlSeconds} s`],
    [
      'seeded',
      `task ${b.seed.debtTaskId}, plans ${b.seed.planName}/${b.seed.callingPlanName}/${b.seed.plannedPlanName}, workflow ${b.seed.workflowId}, workflow task ${b.seed.workflowTaskId}`,
    ],
    ['admin', `${b.url}/__sandbox/state  (also /requests, /faults, /variants, /entries, /simulate)`],
  ];
  if (b.variants.length > 0) rows.push(['variants', b.variants.join(', ')]);
  const width = Math.max(...rows.map(([k]) => k.length));
  // The sandbox's own throwaway credentials, printed as they are, to paste: not through the
  // redaction of every other message, which would print *** for a value the environment holds
  // already (the export line of an earlier sandbox, pasted in this shell).
  const banner = (text: string) => out.io.stderr.write(`${text}\n`);
  banner(`${e.bold('callctl sandbox')}: a local simulator of the service, throwaway credentials`);
  for (const [k, v] of rows) banner(`  ${e.dim(k.padEnd(width))}  ${v}`);
  banner(
    `Try, in another terminal (this sets everything the README's tour needs):\n${exportLine(b)}\n  callctl robots\nCtrl-C to stop.`,
  );

  const off: Array<() => void> = [];
  const on = <K extends keyof SandboxEventMap>(name: K, fn: (...args: SandboxEventMap[K]) => void) => {
    sb.events.on(name, fn as never);
    off.push(() => sb.events.off(name, fn as never));
  };
  const line = (text: string) => out.info(said`${e.dim(new Date().toISOString().slice(11, 19))} ${text}`);
  on('task.finished', ({ task, planName }) =>
    line(`task ${task.TaskID} finished (${plural(task.detail.length, 'call')})${planName ? `, plan ${planName}` : ''}`),
  );
  on('plan.finished', ({ plan }) =>
    line(`plan ${plan.PlanName} finished (${plural(plan.PlanDetails.length, 'round')})`),
  );
  on('workflow.updated', ({ workflowId, count, batch, total }) =>
    line(`workflow ${workflowId}: batch ${batch} accepted, ${plural(count, 'entry', 'entries')} (${total} in all)`),
  );
  on('push.received', (p) => line(`push received (${p.environment}) for caller ${p.caller_id}`));
  on('template.received', (t) => line(`template ${t.template_id} on ${t.channel} accepted as ${t.task_id}`));
  on('notify.sent', (n) => line(`notification ${n.kind} delivered (attempt ${n.attempt}, HTTP ${n.status})`));
  on('notify.failed', (n) =>
    line(
      e.yellow(
        `notification ${n.kind} attempt ${n.attempt} failed: ${n.error}${n.willRetry ? '; will retry' : '; giving up'}`,
      ),
    ),
  );
  on('fault', (f) => line(e.yellow(`fault ${f.name}: ${f.method} ${redactPath(f.path)}`)));
  on('internal-error', (err) => line(e.red(`internal error: ${err.message}`)));
  if (o.verbose) {
    on('request', (r) =>
      line(`${r.method} ${redactPath(r.path)} ${r.status ?? r.outcome} ${r.durationMs.toFixed(1)} ms`),
    );
  }
  return () => off.forEach((f) => f());
}

/**
 * The `export` command that points callctl at this sandbox: base URL and app credentials (auth),
 * flex-route addresses and push tokens (push), sign key and secret (template send), and the
 * notification KEY when notifications are on (serve-hooks). Continued lines, to paste as is.
 */
export function exportLine(b: ReturnType<typeof describe>): string {
  const vars: Array<[string, string]> = [
    ['CALLCTL_BASE_URL', b.url],
    ['CALLCTL_APP_KEY', b.appKey],
    ['CALLCTL_APP_SECRET', b.appSecret],
    ['CALLCTL_FLEX_URL', b.flexUrl],
    ['CALLCTL_FLEX_TEST_URL', b.flexTestUrl],
    ['CALLCTL_PUSH_TOKEN', b.pushToken],
    ['CALLCTL_PUSH_TEST_TOKEN', b.pushTestToken],
    ['CALLCTL_SIGN_KEY', b.signKey],
    ['CALLCTL_SIGN_SECRET', b.signSecret],
    ...(b.notifyUrl && b.notifyKey ? ([['CALLCTL_HOOK_KEYS', b.notifyKey]] as Array<[string, string]>) : []),
  ];
  const quote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const lines: string[] = [];
  for (let i = 0; i < vars.length; i += 3)
    lines.push(
      vars
        .slice(i, i + 3)
        .map(([k, v]) => `${k}=${quote(v)}`)
        .join(' '),
    );
  return lines
    .map((l, i) => `${i === 0 ? '  export ' : '         '}${l}${i < lines.length - 1 ? ' \\' : ''}`)
    .join('\n');
}
