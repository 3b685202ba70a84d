import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AgentError } from '@/lib/agent/errors';
import { ApiError, checkOrigin, errorResponse, generateResponse, invalidRequestMessage, MAX_BODY_BYTES, parseJson, readBodyText, readJson, toErrorResponse, withErrors } from './errors';

/** `{ status, code }` of the ApiError `run` throws (sync or async). */
async function refusal(run: () => unknown) {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('nothing was thrown');
}

async function json(response: Response) {
  return { status: response.status, body: await response.json() };
}

/** A POST whose body arrives as the given chunks, without Content-Length (a chunked upload). */
function streamed(chunks: Uint8Array[]) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Request('http://app.test/api/x', { method: 'POST', body, duplex: 'half' } as RequestInit);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('errorResponse / toErrorResponse', () => {
  it('answers { error: { code, message, details? } } with the status', async () => {
    expect(await json(errorResponse(404, 'NOT_FOUND', 'No such run.'))).toStrictEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'No such run.' } } });
    expect(await json(errorResponse(422, 'INVALID_ARGS', 'Bad args.', [{ path: ['id'] }]))).toStrictEqual({
      status: 422,
      body: { error: { code: 'INVALID_ARGS', message: 'Bad args.', details: [{ path: ['id'] }] } },
    });
  });

  it('maps an ApiError, with Retry-After on a 429', async () => {
    const limited = toErrorResponse(new ApiError(429, 'RATE_LIMITED', 'Too many requests; try again in 7 s.', { retryAfterSeconds: 7 }));
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await json(limited)).toStrictEqual({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'Too many requests; try again in 7 s.', details: { retryAfterSeconds: 7 } } },
    });
    expect(toErrorResponse(new ApiError(400, 'INVALID_CURSOR', 'x')).headers.get('retry-after')).toBeNull();
  });

  it('maps an AgentError to the status of its code', async () => {
    const response = toErrorResponse(new AgentError('ALREADY_DECIDED', 'Already decided.', { decidedBy: 'rita' }));
    expect(await json(response)).toStrictEqual({ status: 409, body: { error: { code: 'ALREADY_DECIDED', message: 'Already decided.', details: { decidedBy: 'rita' } } } });
  });

  it('maps a ZodError to 400 BAD_REQUEST with its issues', async () => {
    const parsed = z.object({ id: z.string() }).safeParse({ id: 1 });
    if (parsed.success) throw new Error('unreachable');
    const { status, body } = await json(toErrorResponse(parsed.error));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', message: 'The request is not valid: id: expected string, received number.', details: [{ path: ['id'], code: 'invalid_type' }] });
  });

  it('keeps an unexpected error generic (500 INTERNAL) and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const error = new Error('connection string postgres://secret@db');
    expect(await json(toErrorResponse(error))).toStrictEqual({ status: 500, body: { error: { code: 'INTERNAL', message: 'Something went wrong on our side. Try again.' } } });
    expect(log).toHaveBeenCalledWith('[api] unexpected error', error);
  });
});

describe('checkOrigin', () => {
  const request = (method: string, headers: Record<string, string>) => new Request('http://app.test/api/x', { method, headers });

  it('lets through reads, requests without Origin and requests from this host', () => {
    expect(checkOrigin(request('GET', { host: 'app.test', origin: 'https://evil.test' }))).toBeUndefined();
    expect(checkOrigin(request('POST', { host: 'app.test' }))).toBeUndefined();
    expect(checkOrigin(request('POST', { host: 'app.test', origin: 'http://app.test' }))).toBeUndefined();
    expect(checkOrigin(request('POST', { host: 'internal:3000', 'x-forwarded-host': 'app.test', origin: 'https://app.test' }))).toBeUndefined();
  });

  it('refuses a state-changing request from another origin with 403 CSRF_ORIGIN', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(await refusal(() => checkOrigin(request(method, { host: 'app.test', origin: 'https://evil.test' })))).toEqual({ status: 403, code: 'CSRF_ORIGIN' });
    }
    expect(await refusal(() => checkOrigin(request('POST', { host: 'app.test', origin: 'null' })))).toEqual({ status: 403, code: 'CSRF_ORIGIN' });
    expect(await refusal(() => checkOrigin(request('POST', { host: 'app.test', origin: 'http://app.test:8080' })))).toEqual({ status: 403, code: 'CSRF_ORIGIN' });
    expect(await refusal(() => checkOrigin(request('POST', { host: 'app.test', 'x-forwarded-host': 'proxy.test', origin: 'http://app.test' })))).toEqual({
      status: 403,
      code: 'CSRF_ORIGIN',
    });
  });
});

describe('withErrors', () => {
  it('runs the handler and turns what it throws into the JSON error response', async () => {
    const handler = withErrors(async (_request: Request) => {
      throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
    });
    expect(await json(await handler(new Request('http://app.test/api/x')))).toStrictEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'No such thread.' } } });
  });

  it('checks the origin before the handler runs', async () => {
    const inner = vi.fn(async (_request: Request) => new Response('ran'));
    const response = await withErrors(inner)(new Request('http://app.test/api/x', { method: 'POST', headers: { host: 'app.test', origin: 'https://evil.test' } }));
    expect(response.status).toBe(403);
    expect(inner).not.toHaveBeenCalled();
  });
});

describe('readBodyText', () => {
  it('reads a UTF-8 body, and no body as ""', async () => {
    expect(await readBodyText(new Request('http://app.test/api/x', { method: 'POST', body: 'héllo ✓' }))).toBe('héllo ✓');
    expect(await readBodyText(streamed([Buffer.from([0xe2, 0x9c]), Buffer.from([0x93])]))).toBe('✓');
    expect(await readBodyText(new Request('http://app.test/api/x'))).toBe('');
  });

  it('refuses a body over MAX_BODY_BYTES with 413 BODY_TOO_LARGE, by its Content-Length or while streaming', async () => {
    expect(MAX_BODY_BYTES).toBe(262_144);
    const declared = new Request('http://app.test/api/x', { method: 'POST', headers: { 'content-length': String(MAX_BODY_BYTES + 1) }, body: 'x' });
    expect(await refusal(() => readBodyText(declared))).toEqual({ status: 413, code: 'BODY_TOO_LARGE' });
    const half = new Uint8Array(MAX_BODY_BYTES / 2).fill(0x61);
    expect(await readBodyText(streamed([half, half]))).toHaveLength(MAX_BODY_BYTES);
    expect(await refusal(() => readBodyText(streamed([half, half, new Uint8Array([0x61])])))).toEqual({ status: 413, code: 'BODY_TOO_LARGE' });
  });

  it('refuses bytes that are not UTF-8 with 400 INVALID_BODY', async () => {
    expect(await refusal(() => readBodyText(streamed([new Uint8Array([0x7b, 0xff, 0x7d])])))).toEqual({ status: 400, code: 'INVALID_BODY' });
  });
});

describe('parseJson / readJson', () => {
  const schema = z.object({ message: z.string().min(1), limit: z.coerce.number().default(10) });

  it('returns the parsed, validated value', () => {
    expect(parseJson('{"message":"hi"}', schema)).toStrictEqual({ message: 'hi', limit: 10 });
    expect(parseJson('{"message":"\\ud83d\\ude00","limit":"3"}', schema)).toStrictEqual({ message: '😀', limit: 3 });
  });

  it('refuses text that is not JSON with 400 INVALID_JSON', async () => {
    expect(await refusal(() => parseJson('{"message":', schema))).toEqual({ status: 400, code: 'INVALID_JSON' });
    expect(await refusal(() => parseJson('', schema))).toEqual({ status: 400, code: 'INVALID_JSON' });
  });

  it('refuses a NUL or a lone surrogate anywhere, keys included, with 400 INVALID_TEXT', async () => {
    for (const text of [
      '{"message":"a\\u0000b"}',
      '{"message":"\\ud83d"}',
      '{"message":"\\ude00x"}',
      '{"message":"ok","nested":[{"deep":"\\ud800"}]}',
      '{"message":"ok","k\\u0000":1}',
    ]) {
      expect({ text, ...(await refusal(() => parseJson(text, schema))) }).toEqual({ text, status: 400, code: 'INVALID_TEXT' });
    }
  });

  it('refuses an address with a NUL in its path or query with 400 INVALID_TEXT, before the handler runs', async () => {
    let ran = 0;
    const route = withErrors(async (_request: Request) => {
      ran += 1;
      return new Response('ok');
    });
    for (const url of ['http://localhost/api/chat/%00', 'http://localhost/api/inbox?toolName=a%00b', 'http://localhost/api/audit?person=%00']) {
      const response = await route(new Request(url));
      expect({ url, status: response.status, code: (await response.json()).error.code }).toEqual({ url, status: 400, code: 'INVALID_TEXT' });
    }
    expect(ran).toBe(0);
    // An encoded percent sign followed by zeros is not a NUL.
    expect((await route(new Request('http://localhost/api/inbox?toolName=%2500'))).status).toBe(200);
    expect(ran).toBe(1);
  });

  it('refuses JSON nested deeper than 64 levels with 400 JSON_TOO_DEEP, however deep (no stack overflow)', async () => {
    const deep = (levels: number) => `{"message":"hi","x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    expect(parseJson(deep(63), schema)).toMatchObject({ message: 'hi' });
    for (const levels of [64, 100_000]) {
      expect(await refusal(() => parseJson(deep(levels), schema))).toEqual({ status: 400, code: 'JSON_TOO_DEEP' });
    }
  });

  it('refuses a value the schema does not take with 400 BAD_REQUEST and the issues as details', () => {
    try {
      parseJson('{"message":""}', schema);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const { status, code, details } = error as ApiError;
      expect({ status, code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
      expect(details).toMatchObject([{ path: ['message'], code: 'too_small' }]);
    }
  });

  it('readJson reads and validates a request body', async () => {
    expect(await readJson(new Request('http://app.test/api/x', { method: 'POST', body: '{"message":"hi","limit":2}' }), schema)).toStrictEqual({ message: 'hi', limit: 2 });
  });
});

describe('generateResponse', () => {
  const result = { runId: 'run-1', text: 'partial', finishReason: 'stop' as const, toolCalls: [], toolResults: [{ toolCallId: 'c1', toolName: 't', args: {}, result: { ok: true } }], suspendedToolCalls: [] };

  it('a finished run is 200 with the result', async () => {
    expect(await json(generateResponse(result))).toEqual({ status: 200, body: result });
  });

  it("a failed run answers its code's status, with what already ran in details", async () => {
    const failed = { ...result, finishReason: 'error' as const };
    const config = await json(generateResponse({ ...failed, error: { code: 'MODEL_PROVIDER_CONFIG', message: 'check the key' } }));
    expect(config).toEqual({
      status: 502,
      body: { error: { code: 'MODEL_PROVIDER_CONFIG', message: 'check the key', details: { runId: 'run-1', text: 'partial', toolCalls: [], toolResults: result.toolResults } } },
    });
    expect((await json(generateResponse({ ...failed, error: { code: 'MODEL_PROVIDER_BUSY', message: 'busy' } }))).status).toBe(503);
    expect((await json(generateResponse({ ...failed, error: { code: 'MODEL_PROVIDER_DOWN', message: 'down' } }))).status).toBe(502);
    // A code the table does not know is the generic runtime failure.
    expect((await json(generateResponse({ ...failed, error: { code: 'SOMETHING_NEW', message: 'x' } }))).body.error.code).toBe('RUN_FAILED');
  });
});

describe('invalidRequestMessage', () => {
  it('names where the first problem is and what it is, and counts the rest', () => {
    const schema = z.object({ messages: z.array(z.object({ parts: z.array(z.object({ type: z.string() })) })), id: z.string() });
    const one = schema.safeParse({ id: 't', messages: [{}] });
    expect(invalidRequestMessage(one.error!)).toBe('The request is not valid: messages[0].parts: expected array, received undefined.');
    const two = schema.safeParse({ messages: [{ parts: [null] }] });
    expect(invalidRequestMessage(two.error!)).toMatch(/^The request is not valid: messages\[0\]\.parts\[0\]: expected object, received null \(1 more in details\)\.$/);
  });
});
