import 'server-only';
import { createHash } from 'node:crypto';
import { prisma } from '@/lib/store/db';
import { hotQuery } from '@/lib/store/hot';
import { Prisma } from '@/lib/generated/prisma/client';
import { errorResponse, toErrorResponse } from './errors';

type StoredKey = {
  claimed: boolean;
  requestHash: string | null;
  status: string | null;
  responseStatus: number | null;
  contentType: string | null;
  responseBody: string | null;
};

/** Longest accepted Idempotency-Key, in characters. */
const MAX_KEY_LENGTH = 200;

/**
 * Runs a state-changing request at most once per `Idempotency-Key` and actor: the first request
 * runs and its full response (a stream included, stored as it completes) is kept; a retry with the
 * same key and body gets that response again with no second effect. Without the header the
 * handler simply runs.
 *
 * A 400 or 429 answer is not kept: the request was refused before it did anything (bad input, or
 * over the rate limit), so a corrected request or a later retry with the same key runs anew. As
 * Stripe's idempotency keys treat a request that failed validation.
 *
 * Errors: 400 INVALID_IDEMPOTENCY_KEY (longer than 200 characters), 422 IDEMPOTENCY_KEY_REUSED (same
 * key, different request), 409 IDEMPOTENCY_IN_PROGRESS (the first request is still running).
 *
 * @param input.request the incoming request (its `Idempotency-Key` header is read)
 * @param input.actorId who sends it (keys are per actor)
 * @param input.body the request's raw body text, part of the request fingerprint
 * @param handler produces the response the first time
 */
export async function withIdempotency(
  input: { request: Request; actorId: string; body: string },
  handler: () => Promise<Response>,
): Promise<Response> {
  const key = input.request.headers.get('idempotency-key');
  if (key === null) return handler();
  if (!key || key.length > MAX_KEY_LENGTH) {
    return errorResponse(400, 'INVALID_IDEMPOTENCY_KEY', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`);
  }
  const url = new URL(input.request.url);
  const requestHash = createHash('sha256').update(`${input.request.method} ${url.pathname}\n${input.body}`).digest('hex');
  const db = prisma();
  // One statement: claim the key, or read what the first request with it left.
  const [row] = await hotQuery<StoredKey[]>(db, Prisma.sql`
    WITH claimed AS (
      INSERT INTO idempotency_keys (actor_id, key, request_hash, status)
      VALUES (${input.actorId}, ${key}, ${requestHash}, 'in_progress')
      ON CONFLICT (actor_id, key) DO NOTHING
      RETURNING 1
    )
    SELECT true AS claimed, NULL AS "requestHash", NULL AS status, NULL::int AS "responseStatus", NULL AS "contentType", NULL AS "responseBody"
    FROM claimed
    UNION ALL
    SELECT false, request_hash, status, response_status, content_type, response_body
    FROM idempotency_keys
    WHERE actor_id = ${input.actorId} AND key = ${key} AND NOT EXISTS (SELECT 1 FROM claimed)`);
  // No row: the first request inserted the key after this statement's snapshot; read it now.
  const stored = row ?? { claimed: false, ...(await db.idempotencyKey.findUniqueOrThrow({ where: { actorId_key: { actorId: input.actorId, key } } })) };
  if (!stored.claimed) {
    if (stored.requestHash !== requestHash) {
      return errorResponse(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.');
    }
    if (stored.status !== 'done') {
      const response = errorResponse(409, 'IDEMPOTENCY_IN_PROGRESS', 'The first request with this key is still running; retry shortly.');
      response.headers.set('retry-after', '1');
      return response;
    }
    return new Response(stored.responseBody, {
      status: stored.responseStatus ?? 200,
      headers: { 'content-type': stored.contentType ?? 'application/json', 'idempotent-replayed': 'true' },
    });
  }

  let response: Response;
  try {
    response = await handler();
  } catch (error) {
    response = toErrorResponse(error);
  }
  // Refused (bad input) or rate-limited: nothing was done, so nothing is remembered.
  if (response.status === 400 || response.status === 429) {
    await db.idempotencyKey.delete({ where: { actorId_key: { actorId: input.actorId, key } } });
    return response;
  }
  const save = (body: string) =>
    db.idempotencyKey.update({
      where: { actorId_key: { actorId: input.actorId, key } },
      data: { status: 'done', responseStatus: response.status, contentType: response.headers.get('content-type'), responseBody: body },
    });
  if (!response.body) {
    await save('');
    return response;
  }
  // Keep a copy of the body as it streams to the client; the copy is read even if the client leaves.
  const [toClient, toStore] = response.body.tee();
  void new Response(toStore)
    .text()
    .then(save)
    .catch((error) => console.error('[idempotency] could not store the response:', error));
  return new Response(toClient, { status: response.status, headers: response.headers });
}
