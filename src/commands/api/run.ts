import { readFileSync } from 'node:fs';
import { Option, type Command, type FlagsOf } from '../commander.js';
import { collect, type Deps } from '../action.js';
import { afterShown, InputError, InterruptedError, UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { redact, redactHeader } from '../../redact.js';
import { isRead, PAGED_ENDPOINT } from '../../api/reads.js';
import type { RawAnswer, RawRequest } from '../../api/raw.js';
import { readAll } from '../../io-read.js';
import { said } from '../../said.js';

function declare(parent: Command) {
  return parent
    .command('api <METHOD> <PATH>')
    .description(
      "send any request of the service's interface with the profile's token, retries (reads only) and redaction",
    )
    .option(
      '-f, --field <key=value>',
      'a string field: the query of a GET, a key of the JSON body of a POST (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '-F, --typed-field <key=value>',
        'as -f, with the value read as JSON when it is (numbers, true, null, arrays)',
      ).argParser(collect),
    )
    .option('--input <file>', 'the exact JSON body of a POST, from a file or - for stdin (fields then go in the query)')
    .option('--flex', 'the flex-route address (flex-url); {push_token} in PATH becomes the push token')
    .option('--test', 'with --flex: the test address and test push token')
    .option('--template-api', 'the template API (at the base URL) with X-Service-Sign-Key and X-Service-Sign headers')
    .option('--signature <sign>', 'with --template-api: X-Service-Sign as given')
    .option(
      '--sign-command <cmd>',
      'with --template-api: a command that reads the body on stdin and prints X-Service-Sign',
    )
    .option(
      '--sign-secret-file <file>',
      'with --template-api: secret of the default signature (HMAC-SHA256, an assumption)',
    )
    .option('--raw', "print the whole answer, not only the envelope's data")
    .option('-i, --include', 'print the status line and the headers (secrets redacted), then the whole answer')
    .option(
      '-H, --header <name:value>',
      'a request header (repeatable); never Authorization, which is the token callctl sends',
      collect,
    )
    .option('--paginate', 'GET /service/cloud/workflow/instancelist: walk every page, print them as one list')
    .option(
      '-y, --yes',
      'send a POST that is not a read without asking (required without a terminal: some operations reach people)',
    )
    .addHelpText(
      'after',
      `
For the operations the service lists by title only (creating tasks, cancelling calls,
recordings...) and for looking at any answer as it comes. PATH is a path under the address, never
a full URL: the token goes only to its own base URL.

Addresses and headers:
  (default)        base URL, Authorization: Token (renewed once when rejected and
                   CALLCTL_APP_KEY/SECRET are set); prints the envelope's data
  --flex           flex-url (flex-test-url with --test), no token header; {push_token} in PATH
  --template-api   base URL, X-Service-Sign-Key (sign-key) and X-Service-Sign of the exact body

A read is sent without asking and retried on network errors, 429 and 5xx: every GET, and the
POSTs that only read (workflow/taskdetail, workflow/apinoticeinfo; the list is READ_ENDPOINTS in
src/api/reads.ts). Any other POST is sent once (it may reach people) and asks first on a
terminal; without one it needs --yes.

Field selection: pipe the JSON to jq, as every example here does. callctl has no --jq of its own:
jq is the language people know from gh api --jq, and no well-kept JavaScript jq exists (the npm
ones wrap a WebAssembly build or download a jq binary at install); a second query dialect (such
as JMESPath) would be one more thing to learn for what jq already does. Secrets are redacted from what is printed
and from --verbose; a field named APPSecret, token, push_token or Sign is refused (use --input).

Exit codes as every command: 1 the service refused (envelope code not 200, HTTP 4xx), 2 usage,
3 --input not readable or not JSON, 4 token missing or rejected, 5 network/timeout/5xx after retries.

Examples:
  callctl api GET /service/cloud/robot
  callctl api GET /service/cloud/detail -f TaskID=T-DEBT-0001 | jq '.detail | length'
  callctl api POST /service/cloud/workflow/taskdetail -f task_id=WT-IC-0001 | jq '.details | length'
  callctl api GET /service/cloud/workflow/instancelist --paginate | jq -r '.lists[].workflow_id'
  callctl api GET /service/cloud/robot -i -H 'Accept-Language: id'
  callctl api GET /service/cloud/planstatus -f PlanName=PLAN-A --raw
  callctl api POST '/api/push/{push_token}' --flex --input call.json --yes
  callctl api POST /api/v1/template/unitcast --template-api --input message.json --yes

JSON: always; the envelope's data (cloud), or the whole answer (--flex, --template-api, --raw).`,
    );
}

/**
 * What runApi is given: the flags of the declaration, `<METHOD>` (GET or POST, any case) and
 * `<PATH>` (the endpoint's path).
 */
export type ApiOptions = FlagsOf<typeof declare> & { method: string; path: string };

export function register(parent: Command, { start }: Deps): void {
  declare(parent).action((method, path, flags, command) => start(command, runApi, { ...flags, method, path }));
}

/** Field names whose values are secrets: never accepted as flag values (they would show in `ps`). */
const SECRET_FIELDS = /^(APPSecret|token|push_token|Sign)$/i;

export async function runApi(ctx: Context, opts: ApiOptions): Promise<number> {
  const { method: methodArg, path: pathArg } = opts;
  const method = methodArg.toUpperCase();
  if (method !== 'GET' && method !== 'POST')
    throw new UsageError(said`METHOD must be GET or POST (the service's interface uses no other), not ${methodArg}`);
  if (opts.flex && opts.templateApi)
    throw new UsageError(said`--flex and --template-api name two different addresses: give one`);
  if (opts.test && !opts.flex)
    throw new UsageError(said`--test goes with --flex (the test flex-route address and push token)`);
  if (
    !opts.templateApi &&
    (opts.signature !== undefined || opts.signCommand !== undefined || opts.signSecretFile !== undefined)
  ) {
    throw new UsageError(said`--signature, --sign-command and --sign-secret-file go with --template-api`);
  }
  const path = checkPath(pathArg);
  const fields = [...parseFields(opts.field ?? [], false), ...parseFields(opts.typedField ?? [], true)];
  const body =
    opts.input !== undefined
      ? await readInput(ctx, opts.input)
      : method === 'POST'
        ? Buffer.from(JSON.stringify(Object.fromEntries(fields)))
        : undefined;
  if (method === 'GET' && opts.input !== undefined)
    throw new UsageError(said`a GET has no body: --input goes with POST (fields of a GET go in the query)`);
  // GET: fields are the query. POST: the body, unless --input gives it; then fields are the query.
  const query =
    method === 'GET' || opts.input !== undefined
      ? Object.fromEntries(fields.map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
      : {};
  const headers = parseHeaders(opts.header ?? []);
  const req: RawRequest = { method, path, query, body, ...(opts.header?.length ? { headers } : {}) };
  if (opts.paginate && (opts.flex || opts.templateApi || `${method} ${path}` !== PAGED_ENDPOINT))
    throw new UsageError(said`--paginate walks the one list the service pages: ${PAGED_ENDPOINT}`);
  if (opts.paginate && (opts.raw || opts.include))
    throw new UsageError(said`--paginate prints the pages as one list: it does not go with --raw or -i`);

  const { cloudRequest, directRequest } = await import('../../api/raw.js');
  let answer: RawAnswer;
  const printHead = (res: { status: number; headers: RawAnswer['headers'] }) => {
    if (opts.include) ctx.io.stdout.write(head(res, [...ctx.secrets]));
  };
  const printAnswer = (res: { status: number; headers: RawAnswer['headers']; text: string }) => {
    printHead(res);
    if (opts.raw || opts.include) ctx.io.stdout.write(`${pretty(redact(res.text, [...ctx.secrets]))}\n`);
  };
  if (opts.flex || opts.templateApi) {
    const target = opts.flex
      ? await flexTarget(ctx, opts, method, path)
      : await templateTarget(ctx, opts, method, path, body);
    await confirmIfWrite(ctx, method, target.endpoint, opts.yes);
    answer = await directRequest(
      await ctx.transport(),
      { ...req, ...target, headers: { ...headers, ...target.headers } },
      printAnswer,
    );
  } else {
    if (path.includes('{push_token}'))
      throw new UsageError(said`{push_token} belongs to the flex-route address: add --flex`);
    const client = await ctx.client();
    if (!isRead(method, path)) await confirmIfWrite(ctx, method, `${method} ${path}`, opts.yes);
    if (opts.paginate) {
      // Page by page into the output (src/output/json-stream.ts), with the bytes of the whole list
      // redacted and indented at once: each page's instances redacted as their JSON text, as the
      // whole text was (a secret's forms and a secret key's value lie within one instance).
      const [{ paginate }, { JsonStream }] = await Promise.all([
        import('./paginate.js'),
        import('../../output/json-stream.js'),
      ]);
      const json = new JsonStream(ctx.io.stdout, 'lists', () => true);
      json.opened({ lists: [] });
      const secrets = [...ctx.secrets];
      const count = await paginate(client, req, (fresh) =>
        json.records(JSON.parse(redact(JSON.stringify(fresh), secrets)) as unknown[]),
      ).catch((error: unknown) => Promise.reject(afterShown(error, json.shown() ?? 0)));
      await json.finish({ lists: [], count });
      return 0;
    }
    answer = await cloudRequest(client, req, printAnswer);
  }
  printHead(answer);
  const shown = opts.raw || opts.include ? answer.text : JSON.stringify(answer.data ?? null);
  ctx.io.stdout.write(`${pretty(redact(shown, [...ctx.secrets]))}\n`);
  return 0;
}

/** A path under the address; a full URL is refused, since the token must go to its own base URL only. */
function checkPath(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new UsageError(
      said`PATH is a path under the address (such as /service/cloud/robot), not a URL: ${path} (use --base-url, --flex or --template-api to pick the address)`,
    );
  }
  if (!path.startsWith('/')) throw new UsageError(said`PATH must start with /: ${path}`);
  if (path.includes('?')) throw new UsageError(said`give the query as -f key=value fields, not in PATH`);
  return path;
}

/** `-f key=value` (a string) and `-F key=value` (JSON when it parses: numbers, true, null, arrays). */
function parseFields(values: readonly string[], typed: boolean): Array<[string, unknown]> {
  return values.map((field) => {
    const eq = field.indexOf('=');
    if (eq <= 0) throw new UsageError(said`${typed ? '-F' : '-f'} ${field}: expected key=value`);
    const key = field.slice(0, eq);
    const text = field.slice(eq + 1);
    if (SECRET_FIELDS.test(key))
      throw new UsageError(
        said`${key} is a secret: give the body with --input FILE or --input - (stdin), not as a flag value`,
      );
    if (!typed) return [key, text];
    try {
      return [key, JSON.parse(text) as unknown];
    } catch {
      return [key, text];
    }
  });
}

/** `--input FILE` or `--input -` (stdin): the exact body, which must be JSON (the service takes JSON). */
async function readInput(ctx: Context, input: string): Promise<Buffer> {
  let body: Buffer;
  if (input === '-') body = await readAll(ctx.io.stdin);
  else {
    try {
      body = readFileSync(input);
    } catch (error) {
      throw new InputError(
        said`--input ${input}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
  }
  try {
    JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new InputError(said`--input ${input}: not JSON (${(error as Error).message}); nothing was sent`);
  }
  return body;
}

/** Headers callctl sets itself: `-H` may not give them (the token goes only where it belongs). */
const OWN_HEADERS = /^(authorization|proxy-authorization|host|content-length|transfer-encoding)$/i;

/** `-H name:value`, as curl and gh take it. */
function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = value.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(said`-H ${value}: expected name:value, such as -H 'Accept-Language: id'`);
    if (OWN_HEADERS.test(name))
      throw new UsageError(
        said`-H ${name}: callctl sets it itself${/authorization/i.test(name) ? " (the profile's token, or CALLCTL_TOKEN; a token is never a flag value)" : ''}`,
      );
    headers[name.toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/** `-i`: the status line and the answer's headers, secrets redacted, then a blank line (as curl -i). */
function head(res: { status: number; headers: RawAnswer['headers'] }, secrets: string[]): string {
  const { STATUS_CODES } = process.getBuiltinModule('node:http');
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(res.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      lines.push(`${name}: ${redactHeader(name, v, secrets)}`);
  return `${lines.join('\n')}\n\n`;
}

/** Anything but a read may reach people (create a task, cancel calls...): confirm, or --yes. */
async function confirmIfWrite(ctx: Context, method: string, endpoint: string, yes: boolean | undefined): Promise<void> {
  if (method === 'GET' || yes) return;
  if (!ctx.canPrompt())
    throw new UsageError(
      said`${endpoint} may reach people (placing calls, sending messages): confirm with --yes (there is no terminal to ask on)`,
    );
  ctx.io.stderr.write(`About to send ${endpoint}; some operations place calls or send messages.\n`);
  if (!(await ctx.io.prompter.confirm('Send it?', false))) throw new InterruptedError(said`declined: nothing was sent`);
}

/** The flex-route address (`--test`: the test one); `{push_token}` in PATH becomes the push token. */
async function flexTarget(ctx: Context, opts: ApiOptions, method: string, path: string) {
  const { resolvePushTarget } = await import('../../reach/push.js');
  const target = await resolvePushTarget(ctx, { test: opts.test });
  const base = target.flexUrl.replace(/\/+$/, '');
  return {
    url: base + path.replaceAll('{push_token}', encodeURIComponent(target.token)),
    endpoint: `${method} ${base}${path.replaceAll('{push_token}', '***')}`,
    headers: {},
  };
}

/** The template API, at the base URL: X-Service-Sign-Key and X-Service-Sign of the exact body. */
async function templateTarget(ctx: Context, opts: ApiOptions, method: string, path: string, body: Buffer | undefined) {
  const { resolveTemplateTarget: target } = await import('../template/target.js');
  const { signBody } = await import('../../signing/service-sign.js');
  const { withSignFlag } = await import('../flags/signature.js');
  const t = await target(ctx, opts);
  const base = t.baseUrl.replace(/\/+$/, '');
  return {
    url: base + path,
    endpoint: `${method} ${path}`,
    headers: {
      'x-service-sign-key': t.signKey,
      'x-service-sign': await withSignFlag(signBody(t.signature, body ?? Buffer.alloc(0))),
    },
  };
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
