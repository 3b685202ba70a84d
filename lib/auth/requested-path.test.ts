import { describe, expect, it } from 'vitest';
import { requestedPath, signInHref } from './requested-path';

describe('requestedPath', () => {
  it('is the path and query of the URL, without its origin or fragment', () => {
    expect(requestedPath(new URL('http://localhost:3000/inbox/threads/t-1'))).toBe('/inbox/threads/t-1');
    expect(requestedPath(new URL('https://app.test/inbox?view=done&toolName=issue-refund#top'))).toBe('/inbox?view=done&toolName=issue-refund');
    expect(requestedPath(new URL('http://localhost/chat/not%20an%20id?agent=supervisor'))).toBe('/chat/not%20an%20id?agent=supervisor');
    expect(requestedPath(new URL('http://localhost/'))).toBe('/');
  });
});

describe('signInHref', () => {
  it('sends the visitor to sign in, to come back to the path and query they asked for', () => {
    expect(signInHref('/inbox/threads/t-1')).toBe('/sign-in?next=%2Finbox%2Fthreads%2Ft-1');
    expect(signInHref('/audit?toolName=issue-refund&kind=approval')).toBe('/sign-in?next=%2Faudit%3FtoolName%3Dissue-refund%26kind%3Dapproval');
  });

  it('returns to / without a path, or for anything that is not a same-site path', () => {
    for (const next of [null, undefined, '', 'inbox', 'https://evil.test/', '//evil.test/x', '/\\evil.test/x']) {
      expect(signInHref(next), String(next)).toBe('/sign-in?next=%2F');
    }
  });
});
