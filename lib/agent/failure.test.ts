import { APICallError, InvalidResponseDataError, LoadAPIKeyError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyModelError, runErrorMessage } from './failure';

const apiError = (statusCode: number | undefined, body = '{"error":{"message":"Incorrect API key provided: sk-live-abc123"}}') =>
  new APICallError({ message: 'provider said no', url: 'http://127.0.0.1/v1/chat/completions', requestBodyValues: {}, statusCode, responseBody: body, isRetryable: statusCode === undefined || statusCode === 429 || statusCode >= 500 });

const retried = (error: APICallError) => new RetryError({ message: 'failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [error, error, error] });

describe('classifyModelError', () => {
  it('tells configuration, busy, down and rejected apart, never quoting the provider', () => {
    const config = classifyModelError(apiError(401));
    expect(config).toMatchObject({ code: 'MODEL_PROVIDER_CONFIG', providerStatus: 401 });
    expect(config.message).toContain('HTTP 401');
    expect(config.message).not.toContain('sk-live');
    expect(classifyModelError(apiError(403)).code).toBe('MODEL_PROVIDER_CONFIG');
    expect(classifyModelError(apiError(404)).code).toBe('MODEL_PROVIDER_CONFIG');
    expect(classifyModelError(retried(apiError(429)))).toMatchObject({ code: 'MODEL_PROVIDER_BUSY', message: expect.stringContaining('HTTP 429, 3 attempts') });
    expect(classifyModelError(retried(apiError(500)))).toMatchObject({ code: 'MODEL_PROVIDER_DOWN', message: expect.stringContaining('HTTP 500, 3 attempts') });
    expect(classifyModelError(retried(apiError(undefined)))).toMatchObject({ code: 'MODEL_PROVIDER_DOWN', message: expect.stringContaining('could not be reached') });
    expect(classifyModelError(apiError(400)).code).toBe('MODEL_PROVIDER_REJECTED');
  });

  it('a missing key is configuration; a stream that ended early or a reset connection is down', () => {
    expect(classifyModelError(new LoadAPIKeyError({ message: 'OPENAI_API_KEY is missing' })).code).toBe('MODEL_PROVIDER_CONFIG');
    expect(classifyModelError(new InvalidResponseDataError({ data: undefined, message: 'Response stream ended without a finish reason.' })).code).toBe(
      'MODEL_PROVIDER_DOWN',
    );
    expect(classifyModelError(new TypeError('terminated')).code).toBe('MODEL_PROVIDER_DOWN');
    // A 200 whose body broke off while streaming ("Failed to process successful response").
    expect(classifyModelError(apiError(200))).toMatchObject({ code: 'MODEL_PROVIDER_DOWN', message: expect.stringContaining('broke off') });
    // Anthropic's in-stream `overloaded_error` arrives as an error carrying a status.
    expect(classifyModelError(Object.assign(new Error('Overloaded'), { statusCode: 529 })).code).toBe('MODEL_PROVIDER_BUSY');
  });

  it('anything else is the generic run failure', () => {
    expect(classifyModelError(new Error('boom'))).toMatchObject({ code: 'RUN_FAILED', message: expect.stringContaining('stopped because of an error') });
  });
});

describe('runErrorMessage', () => {
  it('says which actions already happened, once each', () => {
    const failure = classifyModelError(apiError(500));
    expect(runErrorMessage(failure, [])).toBe(failure.message);
    const message = runErrorMessage(failure, ['delete-record', 'delete-record']);
    expect(message).toContain('Already done before the error: delete-record —');
    expect(message.match(/delete-record/g)).toHaveLength(1);
  });
});
