import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The runtime's layout rules, checked on its source: no module over 400 lines, no import cycle
 * among lib/agent's modules (type-only imports included), and nothing imported from outside
 * lib/agent but the few packages below, so neither Next.js nor Prisma can come in, not even
 * through another folder of lib.
 */
const dir = import.meta.dirname;
const modules = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
const source = new Map(modules.map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));

/** Every module a source text imports: static, type-only, bare (`import 'x'`), re-exports and `import()`. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The packages the runtime may use; anything else (`@/…`, `../…`, Next.js, Prisma) is refused. */
const ALLOWED_PACKAGES = /^(ai|ai\/internal|@ai-sdk\/provider|@ai-sdk\/provider-utils|zod|date-fns|canonicalize|node:[a-z_/]+)$/;

/** The local modules each module imports, by file name. */
function graph(): Map<string, string[]> {
  return new Map(
    [...source].map(([name, text]) => [
      name,
      importsOf(text)
        .filter((spec) => spec.startsWith('./'))
        .map((spec) => `${spec.slice(2)}.ts`),
    ]),
  );
}

/** A cycle in `edges` as a path of file names, or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('lib/agent layout', () => {
  it('has no import cycle among its modules', () => {
    expect(findCycle(graph())).toBeNull();
  });

  it('the cycle check finds a cycle when there is one', () => {
    const edges = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(findCycle(edges)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('keeps every module at 400 lines or fewer', () => {
    const long = [...source].filter(([, text]) => text.split('\n').length > 400).map(([name]) => name);
    expect(long).toEqual([]);
  });

  it('imports only its own modules and a few packages (so neither Next.js nor Prisma)', () => {
    const offending = [...source].flatMap(([name, text]) =>
      importsOf(text)
        .filter((spec) => !(spec.startsWith('./') && !spec.slice(2).includes('/')) && !ALLOWED_PACKAGES.test(spec))
        .map((spec) => `${name} → ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('the import check sees every form of import', () => {
    const text = [
      `import "next/server";`,
      `import type { PrismaClient } from "@prisma/client";`,
      `export * from '../store/db';`,
      `const store = await import('@/lib/store/prisma-store');`,
      `import { z } from 'zod';`,
      `import { plan } from './run-loop';`,
    ].join('\n');
    const specs = importsOf(text);
    expect(specs).toEqual(['next/server', '@prisma/client', '../store/db', '@/lib/store/prisma-store', 'zod', './run-loop']);
    expect(specs.filter((spec) => !spec.startsWith('./') && !ALLOWED_PACKAGES.test(spec))).toEqual(['next/server', '@prisma/client', '../store/db', '@/lib/store/prisma-store']);
  });

  it('the engine modules never import the Agent facade', () => {
    const importers = [...graph()].filter(([, deps]) => deps.includes('agent.ts')).map(([name]) => name);
    expect(importers).toEqual([]);
  });
});
