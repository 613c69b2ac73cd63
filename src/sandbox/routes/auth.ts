import { authRequest as authRequestSchema } from '../spec/requests.js';
import { credentialsMatch, TOKEN_PROBLEM_MESSAGES } from '../auth.js';
import { tokenEndpointTrouble } from '../variants.js';
import { fail, objectBody, ok, type Handler, type Reply, type RouteContext } from '../http.js';

/**
 * POST /service/cloud/auth. Errors use the token endpoint's own codes, on HTTP 200 like every
 * envelope outcome: 403 when APPKey or APPSecret is missing or not a string, 401 when they are
 * wrong (the auth-* variants change both; auth-500 answers code 500 to everything).
 */
export const authHandler: Handler = (ctx) => {
  const { options, tokens, state, variants } = ctx.engine;
  if (tokenEndpointTrouble(variants)) return fail(500, 'the token service is unavailable; try again later');
  const parsed = authRequestSchema.safeParse(objectBody(ctx));
  if (!parsed.success)
    return { ...fail(403, 'APPKey and APPSecret are required (non-empty strings)'), refusal: 'credentials' };
  if (
    !credentialsMatch(
      { key: parsed.data.APPKey, secret: parsed.data.APPSecret },
      { key: options.appKey, secret: options.appSecret },
    )
  ) {
    return { ...fail(401, 'invalid APPKey or APPSecret'), refusal: 'credentials' };
  }
  state.counters.tokensIssued++;
  return ok({ token: tokens.issue() });
};

/**
 * Every `/service/cloud/` endpoint but auth: a valid, unexpired `Authorization: Token <token>`,
 * else envelope code 401 on HTTP 200 (the spec reports outcomes in the envelope) with `status`
 * saying why.
 */
export function requireToken(ctx: RouteContext): Reply | undefined {
  const problem = ctx.engine.tokens.check(ctx.req.headers.authorization);
  return problem ? { ...fail(401, TOKEN_PROBLEM_MESSAGES[problem]), refusal: 'token' } : undefined;
}
