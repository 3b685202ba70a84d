/**
 * API-key scopes: what a key may be used for, which roles may give them, and which scope each API
 * route group needs. Pure data and functions (no server imports), shared by the settings page and
 * the server.
 */

export const SCOPES = ['agents:run', 'decisions:write', 'inbox:read', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];
type Role = 'user' | 'reviewer' | 'admin';

/** What each scope allows, in words for the key form. */
export const SCOPE_LABELS: Record<Scope, string> = {
  'agents:run': 'Run agents and chats (stream, generate, list suspended runs, threads)',
  'decisions:write': 'Approve, decline and answer tool calls',
  'inbox:read': 'Read the approval inbox',
  'audit:read': 'Read the audit log',
};

/**
 * The scopes a person of `role` may put on a key: what their role may do anyway. users: agents:run,
 * decisions:write; reviewers add inbox:read; admins add audit:read.
 */
export function scopesForRole(role: Role): Scope[] {
  if (role === 'admin') return [...SCOPES];
  if (role === 'reviewer') return ['agents:run', 'decisions:write', 'inbox:read'];
  return ['agents:run', 'decisions:write'];
}

/** Agents routes that decide or answer a paused call, rather than start or read runs. */
const DECIDING_AGENT_ROUTES = new Set([
  'approve-tool-call',
  'decline-tool-call',
  'approve-tool-call-generate',
  'decline-tool-call-generate',
  'resume-stream',
  'send-tool-approval',
]);

/**
 * Reads any valid key may make whatever its scopes: who the key acts as (`GET /api/me`), so a
 * program can learn the user id the agents API takes as `resourceId`.
 */
export function keyNeedsNoScope(pathname: string, method = 'GET'): boolean {
  return pathname.replace(/\/+$/, '') === '/api/me' && READ_METHODS.has(method.toUpperCase());
}

/** Methods that only read. Any other method on a read-scoped group changes state. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The scope an API request with a key needs, from its path (`/api/...`) and method:
 * - `agents:run`: /api/agents/{id}/stream, generate, suspended-runs; /api/chat/*; /api/threads/*
 * - `decisions:write`: the agents routes that approve, decline or resume, /api/runs/…/decision,
 *   /resume, and every write to /api/inbox/* (assign, release, notes, questions: any method but
 *   GET, HEAD, OPTIONS) — a read scope never allows a write
 * - `inbox:read`: reads of /api/inbox/*; `audit:read`: reads of /api/audit/*
 * @param method the HTTP method (default GET); case-insensitive
 * @returns the scope, or null for routes no key may use (key management, user administration,
 *   writes to the audit, anything unknown): those need a signed-in session
 */
export function scopeForPath(pathname: string, method = 'GET'): Scope | null {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] !== 'api') return null;
  const reads = READ_METHODS.has(method.toUpperCase());
  switch (parts[1]) {
    case 'agents':
      return DECIDING_AGENT_ROUTES.has(parts[3] ?? '') ? 'decisions:write' : 'agents:run';
    case 'chat':
    case 'threads':
      return 'agents:run';
    case 'runs':
      return 'decisions:write';
    case 'inbox':
      return reads ? 'inbox:read' : 'decisions:write';
    case 'audit':
      return reads ? 'audit:read' : null;
    default:
      return null;
  }
}
