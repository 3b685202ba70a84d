import { describe, expect, it } from 'vitest';
import { scopeForPath, scopesForRole } from './scopes';

describe('API-key scopes', () => {
  it('a role may give only the scopes of what it may do', () => {
    expect(scopesForRole('user')).toEqual(['agents:run', 'decisions:write']);
    expect(scopesForRole('reviewer')).toEqual(['agents:run', 'decisions:write', 'inbox:read']);
    expect(scopesForRole('admin')).toEqual(['agents:run', 'decisions:write', 'inbox:read', 'audit:read']);
  });

  it('every route group needs its scope; deciding routes need decisions:write', () => {
    expect(scopeForPath('/api/agents/ops-agent/stream')).toBe('agents:run');
    expect(scopeForPath('/api/agents/ops-agent/generate')).toBe('agents:run');
    expect(scopeForPath('/api/agents/ops-agent/suspended-runs')).toBe('agents:run');
    for (const route of ['approve-tool-call', 'decline-tool-call', 'approve-tool-call-generate', 'decline-tool-call-generate', 'resume-stream', 'send-tool-approval']) {
      expect(scopeForPath(`/api/agents/ops-agent/${route}`), route).toBe('decisions:write');
    }
    expect(scopeForPath('/api/runs/r1/tool-calls/c1/decision')).toBe('decisions:write');
    expect(scopeForPath('/api/chat/t1/events')).toBe('agents:run');
    expect(scopeForPath('/api/threads/t1')).toBe('agents:run');
    expect(scopeForPath('/api/inbox/events')).toBe('inbox:read');
    expect(scopeForPath('/api/audit')).toBe('audit:read');
  });

  it('a write to a read-scoped group needs decisions:write (inbox) or no key at all (audit)', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      expect(scopeForPath('/api/inbox/calls/p1/assignment', method), method).toBe('decisions:write');
      expect(scopeForPath('/api/inbox/calls/p1/notes', method), method).toBe('decisions:write');
      expect(scopeForPath('/api/audit', method), method).toBeNull();
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(scopeForPath('/api/inbox/calls/p1/context', method), method).toBe('inbox:read');
  });

  it('key management, user administration and unknown routes take no key', () => {
    for (const path of ['/api/keys', '/api/keys/k1', '/api/admin/users', '/api/nope', '/settings/keys']) expect(scopeForPath(path), path).toBeNull();
  });
});
