import { describe, expect, it } from 'vitest';
import { requestedPath, safeNextPath, signInHref } from './requested-path';

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

describe('safeNextPath', () => {
  it('keeps a same-site path with its query', () => {
    expect(safeNextPath('/inbox?view=done')).toBe('/inbox?view=done');
    // `?next=/inbox&next=/audit` arrives as a list: the first counts (it once made the page fail).
    expect(safeNextPath(['/inbox', '/audit'])).toBe('/inbox');
    expect(safeNextPath(['//evil.test', '/inbox'])).toBe('/');
    expect(safeNextPath([])).toBe('/');
    expect(safeNextPath('/chat/t-1#latest')).toBe('/chat/t-1#latest');
    // A tab is dropped as a browser drops it; what is left is still a path on this site.
    expect(safeNextPath('/\tevil.test')).toBe('/evil.test');
  });

  it('refuses what a browser would read as another site', () => {
    for (const next of ['//evil.test', '/\\evil.test', '/\t/evil.test', '/\n/evil.test', '\\evil.test', 'https://evil.test/', 'javascript:alert(1)', ' /inbox']) {
      expect(safeNextPath(next), JSON.stringify(next)).toBe('/');
    }
  });
});
