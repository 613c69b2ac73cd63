import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideFault, type FaultAction } from './faults.js';
import { fail, HttpError, parseJson, readBody, type Handler, type Reply, type RouteContext } from './http.js';
import { recordBody, startRecord } from './recorder.js';
import { authHandler, requireToken } from './routes/auth.js';
import { planDetailHandler, planStatusHandler, robotsHandler, taskDetailHandler } from './routes/calling.js';
import { instanceListHandler, verifyPushHandler, workflowTaskDetailHandler } from './routes/workflow.js';
import { updateDetailsHandler } from './routes/update-details.js';
import { pushHandler } from './routes/push.js';
import { unitcastHandler } from './routes/template.js';
import { adminHandler, ADMIN_PREFIX } from './routes/admin.js';
import type { Engine, RequestRecord } from './types.js';
import { reasonInMessage, refusalStatus, twoHundredRefusal, type Variants } from './variants.js';

interface Route {
  method: 'GET' | 'POST';
  /** A fixed path, or a pattern whose groups are named params. */
  path: string;
  pattern?: RegExp;
  /** Needs `Authorization: Token <token>`. */
  token: boolean;
  handler: Handler;
}

const CLOUD = '/service/cloud';

/** Every endpoint the sandbox serves (admin endpoints aside). */
export const ROUTES: readonly Route[] = [
  { method: 'POST', path: `${CLOUD}/auth`, token: false, handler: authHandler },
  { method: 'GET', path: `${CLOUD}/robot`, token: true, handler: robotsHandler },
  { method: 'GET', path: `${CLOUD}/detail`, token: true, handler: taskDetailHandler },
  { method: 'GET', path: `${CLOUD}/planstatus`, token: true, handler: planStatusHandler },
  { method: 'GET', path: `${CLOUD}/plandetail`, token: true, handler: planDetailHandler },
  { method: 'GET', path: `${CLOUD}/workflow/instancelist`, token: true, handler: instanceListHandler },
  { method: 'POST', path: `${CLOUD}/workflow/updatedetails`, token: true, handler: updateDetailsHandler },
  { method: 'POST', path: `${CLOUD}/workflow/apinoticeinfo`, token: true, handler: verifyPushHandler },
  { method: 'POST', path: `${CLOUD}/workflow/taskdetail`, token: true, handler: workflowTaskDetailHandler },
  {
    method: 'POST',
    path: '/flex/api/push/<token>',
    pattern: /^\/flex\/api\/push\/(?<token>[^/]+)$/,
    token: false,
    handler: pushHandler('live'),
  },
  {
    method: 'POST',
    path: '/flex-test/api/push/<token>',
    pattern: /^\/flex-test\/api\/push\/(?<token>[^/]+)$/,
    token: false,
    handler: pushHandler('test'),
  },
  { method: 'POST', path: '/api/v1/template/unitcast', token: false, handler: unitcastHandler },
];

const BY_PATH = new Map(ROUTES.filter((r) => !r.pattern).map((r) => [r.path, r]));

function findRoute(path: string): { route: Route; params: Record<string, string> } | undefined {
  const exact = BY_PATH.get(path);
  if (exact) return { route: exact, params: {} };
  for (const route of ROUTES) {
    const m = route.pattern?.exec(path);
    if (m) return { route, params: { ...m.groups } };
  }
  return undefined;
}

function send(res: ServerResponse, reply: Reply): void {
  const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status, {
    'content-type': reply.raw === undefined ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

function faultReply(fault: FaultAction): Reply | undefined {
  if (fault.name === 'fail429') {
    return { ...fail(429, 'too many requests (simulated)', 429), headers: { 'retry-after': String(fault.retryAfter) } };
  }
  if (fault.name === 'fail500' || fault.name === 'failRate') return fail(500, 'internal server error (simulated)', 500);
  return undefined;
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** Answers one request: admin, or record, faults, auth, route. Never throws. */
export async function handle(engine: Engine, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
  const method = req.method ?? 'GET';
  if (path.startsWith(ADMIN_PREFIX)) return adminRequest(engine, req, res, method, path, query);

  const found = findRoute(path);
  const record = startRecord(engine, req, found ? `${method} ${found.route.path}` : `${method} (unknown)`);
  const finish = (outcome: RequestRecord['outcome'], reply?: Reply) => {
    record.outcome = outcome;
    record.durationMs = performance.now() - started;
    if (reply) {
      record.status = reply.status;
      const code = (reply.body as { code?: unknown } | undefined)?.code;
      if (typeof code === 'number') record.code = code;
    }
    engine.events.emit('request', record);
  };
  const drop = (outcome: RequestRecord['outcome']) => {
    finish(outcome);
    req.socket.destroy();
  };

  const { faults, state, events } = engine;
  const fault = decideFault(faults, path, engine.rng);
  if (fault) {
    record.fault = fault.name;
    state.counters.faults[fault.name] = (state.counters.faults[fault.name] ?? 0) + 1;
    events.emit('fault', { name: fault.name, method, path });
  }
  if (faults.delayMs > 0 && (!faults.path || path.startsWith(faults.path))) await sleep(faults.delayMs);
  if (fault?.name === 'drop') return drop('dropped');

  let raw: Buffer;
  try {
    raw = await readBody(req);
  } catch (e) {
    if (e instanceof HttpError) {
      const reply = fail(e.code, e.message, e.status);
      finish('answered', reply);
      res.setHeader('connection', 'close');
      return send(res, reply);
    }
    return finish('aborted');
  }
  recordBody(engine, record, raw);
  if (fault?.name === 'dropAfterBody') return drop('dropped-after-body');

  let reply = fault ? faultReply(fault) : undefined;
  if (!reply) reply = await dispatch(engine, req, found, { method, path, query, raw });
  reply = bend(engine.variants, found?.route.path, reply);
  if (reply.drop) return drop('dropped-after-body');
  if (fault?.name === 'dropAnswer') return drop('dropped-answer');
  finish('answered', reply);
  send(res, reply);
}

/**
 * A refusal as the variants in force answer it (the routes give the spec-literal answer):
 * update-error-200 / verify-exception-200 on their route, else the HTTP status and code of
 * errors-http and the auth-* variants; reach-refusal-200 for push and template.
 */
function bend(v: Variants, routePath: string | undefined, reply: Reply): Reply {
  if (!reply.refusal) return reply;
  // reach-refusal-200: push and template refusals (not envelopes) on HTTP 200 with their code.
  if (reply.refusal === 'reach') return v.has('reach-refusal-200') ? { ...reply, status: 200 } : reply;
  const body = reply.body as Record<string, unknown>;
  const route =
    routePath === `${CLOUD}/workflow/updatedetails`
      ? 'update'
      : routePath === `${CLOUD}/workflow/apinoticeinfo`
        ? 'verify'
        : undefined;
  const two = route && reply.refusal === 'refusal' ? twoHundredRefusal(v, route) : undefined;
  if (two) {
    const { data: _data, ...rest } = body;
    return {
      ...reply,
      status: 200,
      body: two.data === 'absent' ? { ...rest, code: 200 } : { data: null, ...rest, code: 200 },
    };
  }
  const { httpStatus, code } = refusalStatus(v, reply.refusal, body.code as number, reply.status);
  const text = reasonInMessage(v) ? { status: 'ERROR', message: body.status } : {};
  return { ...reply, status: httpStatus, body: { ...body, code, ...text } };
}

async function dispatch(
  engine: Engine,
  req: IncomingMessage,
  found: ReturnType<typeof findRoute>,
  r: { method: string; path: string; query: URLSearchParams; raw: Buffer },
): Promise<Reply> {
  if (!found)
    return fail(404, `no such endpoint: ${r.method} ${r.path.replace(/(\/api\/push\/)[^/]+/, '$1<token>')}`, 404);
  const { route, params } = found;
  if (route.method !== r.method)
    return {
      ...fail(405, `method ${r.method} not allowed; use ${route.method}`, 405),
      headers: { allow: route.method },
    };
  let parsed: unknown;
  let hasParsed = false;
  const ctx: RouteContext = {
    engine,
    req,
    method: r.method,
    path: r.path,
    query: r.query,
    rawBody: r.raw,
    params,
    json: () => {
      if (!hasParsed) {
        parsed = parseJson(r.raw);
        hasParsed = true;
      }
      return parsed;
    },
  };
  try {
    if (route.token) {
      const refused = requireToken(ctx);
      if (refused) return refused;
    }
    // The spec: request bodies are JSON with `Content-Type: application/json`.
    if (r.raw.length > 0 && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      return fail(415, 'Content-Type must be application/json', 415);
    }
    return await route.handler(ctx);
  } catch (e) {
    if (e instanceof HttpError) return fail(e.code, e.message, e.status);
    engine.events.emit('internal-error', e as Error);
    return fail(500, `internal sandbox error: ${(e as Error).message}`, 500);
  }
}

async function adminRequest(
  engine: Engine,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  let reply: Reply;
  try {
    const raw = await readBody(req);
    reply = await adminHandler(engine, method, path, query, raw);
  } catch (e) {
    reply = e instanceof HttpError ? fail(e.code, e.message, e.status) : fail(500, (e as Error).message, 500);
  }
  send(res, reply);
}
