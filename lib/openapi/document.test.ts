import fs from 'node:fs';
import path from 'node:path';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { CATCH_ALL_PREFIXES, openApiDocument } from './document';

const API_DIR = path.resolve(import.meta.dirname, '../../app/api');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Every route file under app/api with the methods it exports. */
function routeFiles(dir = API_DIR): { file: string; methods: string[] }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    if (entry.name !== 'route.ts') return [];
    const text = fs.readFileSync(full, 'utf8');
    const methods = METHODS.filter((method) => new RegExp(`export (const|async function|function) ${method}\\b`).test(text));
    return [{ file: path.relative(API_DIR, full), methods }];
  });
}

/** app/api/x/[y]/route.ts → /api/x/{y}; a catch-all ([...z]) → its prefix with a trailing slash. */
function openApiPath(file: string): string {
  const segments = path.dirname(file).split(path.sep).filter((segment) => segment !== '.');
  const out: string[] = [];
  for (const segment of segments) {
    if (segment.startsWith('[...')) return `/api/${out.join('/')}${out.length ? '/' : ''}`;
    out.push(segment.replace(/^\[(.+)\]$/, '{$1}'));
  }
  return `/api/${out.join('/')}`;
}

describe('OpenAPI document', () => {
  const document = openApiDocument();

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('describes every route file under app/api, each exported method, with its error responses', () => {
    const files = routeFiles();
    expect(files.length).toBeGreaterThan(20);
    const paths = document.paths ?? {};
    const missing: string[] = [];
    for (const { file, methods } of files) {
      const route = openApiPath(file);
      if (route === '/api/') continue; // app/api/[...path]: the JSON 404 for paths that do not exist
      if (route.endsWith('/')) {
        // A catch-all (better-auth's /api/auth/*): documented path by path.
        expect(CATCH_ALL_PREFIXES).toContain(route);
        if (!Object.keys(paths).some((documented) => documented.startsWith(route))) missing.push(route);
        continue;
      }
      for (const method of methods) {
        const operation = (paths[route] as Record<string, { responses?: Record<string, unknown> }> | undefined)?.[method.toLowerCase()];
        if (!operation) {
          missing.push(`${method} ${route}`);
          continue;
        }
        const statuses = Object.keys(operation.responses ?? {});
        expect(statuses.some((status) => status.startsWith('2')), `${method} ${route} success`).toBe(true);
        if (route !== '/api/openapi.json') expect(statuses.some((status) => /^[45]/.test(status)), `${method} ${route} errors`).toBe(true);
      }
    }
    expect(missing).toEqual([]);
  });

  it('takes request bodies from the routes’ zod schemas', () => {
    const decision = document.paths?.['/api/runs/{runId}/tool-calls/{toolCallId}/decision']?.post;
    const schema = (decision?.requestBody as { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> }).content['application/json'].schema;
    expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(['approved', 'reason', 'args', 'fingerprint']));
    expect(schema.required).toContain('approved');
  });

  it('gives every thread id one rule: THREAD_ID as pattern, 1–100 characters, in bodies, queries and paths', () => {
    const rule = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]{1,100}$' };
    type Operation = { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }; parameters?: { name: string; in: string; schema: unknown }[] };
    const operation = (route: string, method: string) => (document.paths?.[route] as Record<string, Operation> | undefined)?.[method];
    const bodyField = (route: string, field: string) => operation(route, 'post')?.requestBody?.content['application/json'].schema.properties?.[field];
    const parameter = (route: string, method: string, name: string) => operation(route, method)?.parameters?.find((candidate) => candidate.name === name)?.schema;
    expect(bodyField('/api/chat', 'id')).toMatchObject(rule);
    for (const route of ['stream', 'generate']) {
      expect(bodyField(`/api/agents/{agentId}/${route}`, 'threadId'), route).toMatchObject(rule);
      expect(JSON.stringify(bodyField(`/api/agents/{agentId}/${route}`, 'memory')), route).toContain(JSON.stringify(rule.pattern));
    }
    expect(bodyField('/api/agents/{agentId}/send-tool-approval', 'threadId')).toMatchObject(rule);
    expect(parameter('/api/agents/{agentId}/suspended-runs', 'get', 'threadId')).toMatchObject(rule);
    for (const [route, method] of [['/api/threads/{id}', 'patch'], ['/api/threads/{id}', 'delete'], ['/api/chat/{id}', 'get'], ['/api/chat/{id}/stream', 'get'], ['/api/chat/{id}/events', 'get']]) {
      expect(parameter(route, method, 'id'), `${method} ${route}`).toMatchObject(rule);
      expect(Object.keys((operation(route, method) as { responses: object }).responses), `${method} ${route}`).toContain('400');
    }
  });
});
