import { describe, expect, it } from 'vitest';
import { otherMethods } from './methods';

describe('otherMethods', () => {
  it('answers a method the route lacks with 405 METHOD_NOT_ALLOWED and an Allow header naming what it serves', async () => {
    const { DELETE } = otherMethods('GET', 'POST');
    const response = DELETE(new Request('http://localhost/api/x', { method: 'DELETE' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(await response.json()).toEqual({
      error: { code: 'METHOD_NOT_ALLOWED', message: 'This route does not accept DELETE; it accepts GET, POST.' },
    });
  });

  it('names HEAD only for a route that serves GET; OPTIONS answers 204 with the same header', () => {
    const { GET, OPTIONS } = otherMethods('POST');
    expect(GET(new Request('http://localhost/api/x')).headers.get('allow')).toBe('POST, OPTIONS');
    const options = OPTIONS(new Request('http://localhost/api/x', { method: 'OPTIONS' }));
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
