import { parse, type ASTNode } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/**
 * What can be known of a rule's CEL condition without evaluating it, in the browser (the policy
 * editor) as on the server: whether it stays within the limits a saved rule must keep
 * (conditionBudgetProblem), CEL's `matches` on RE2 (linearMatches), and the condition rendered
 * with a call's values (renderFieldReads). Evaluation itself is in lib/policies/condition.ts.
 */

/** How deep comprehensions may nest, and how many one condition may have (CEL's own limits are far larger). */
export const COMPREHENSION_LIMITS = { depth: 2, count: 5 } as const;

/** Longest regular expression `matches` accepts (characters). */
export const PATTERN_MAX = 1_000;

/** The macros that iterate over a list or map. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

const compiledPatterns = new Map<string, RE2JS>();

/**
 * A pattern compiled by RE2 (cached: 500 patterns, the oldest dropped first).
 * @throws Error naming the RE2 syntax problem, or a pattern over PATTERN_MAX characters
 */
export function re2(pattern: string): RE2JS {
  let compiled = compiledPatterns.get(pattern);
  if (compiled) return compiled;
  if (pattern.length > PATTERN_MAX) throw new Error(`regular expression is longer than ${PATTERN_MAX} characters`);
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(`invalid regular expression (RE2 syntax): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (compiledPatterns.size >= 500) compiledPatterns.delete(compiledPatterns.keys().next().value!);
  compiledPatterns.set(pattern, compiled);
  return compiled;
}

/** CEL's `matches`: whether the RE2 pattern matches any part of the string (a partial match, as CEL specifies). */
export function linearMatches(text: string, pattern: string): boolean {
  return re2(pattern).test(text);
}

/** A parsed node as the serializer reads it. */
export type Node = { op: string; args: unknown };
export const isNode = (value: unknown): value is ASTNode => typeof value === 'object' && value !== null && typeof (value as Node).op === 'string' && 'args' in value;

/** Each child node of `node`, in source order. */
export function children(node: ASTNode): ASTNode[] {
  const found: ASTNode[] = [];
  const visit = (value: unknown) => {
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  if (node.op !== 'value' && node.op !== 'id') visit(node.args);
  return found;
}

/**
 * Why a condition exceeds what a saved rule may do, or null: comprehensions nested deeper than
 * COMPREHENSION_LIMITS.depth or more than COMPREHENSION_LIMITS.count of them (each nesting level
 * multiplies the steps: five nested `all` over twenty items are 3.2 million steps), or a literal
 * `matches` pattern that RE2 does not accept (lookaround, backreferences) or that is over
 * PATTERN_MAX characters. A condition that does not parse gives null here (its parse error is
 * reported by the schema).
 */
export function conditionBudgetProblem(condition: string): string | null {
  let ast: ASTNode;
  try {
    ast = parse(condition).ast;
  } catch {
    return null;
  }
  let count = 0;
  let deepest = 0;
  let problem: string | null = null;
  const walk = (node: ASTNode, depth: number) => {
    let inner = depth;
    if (node.op === 'rcall') {
      const [name, , args] = node.args;
      if (COMPREHENSIONS.has(name) && (args.length === 2 || args.length === 3) && args[0]?.op === 'id') {
        count += 1;
        inner = depth + 1;
        deepest = Math.max(deepest, inner);
      }
      const pattern = args[0];
      if (name === 'matches' && pattern?.op === 'value' && typeof pattern.args === 'string' && !problem) {
        try {
          re2(pattern.args);
        } catch (error) {
          problem = `matches: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
    }
    for (const child of children(node)) walk(child, inner);
  };
  walk(ast, 0);
  if (deepest > COMPREHENSION_LIMITS.depth) {
    return `comprehensions (all, exists, exists_one, map, filter) are nested ${deepest} deep; at most ${COMPREHENSION_LIMITS.depth} are allowed, so that a rule evaluates within its budget`;
  }
  if (count > COMPREHENSION_LIMITS.count) {
    return `the condition has ${count} comprehensions (all, exists, exists_one, map, filter); at most ${COMPREHENSION_LIMITS.count} are allowed, so that a rule evaluates within its budget`;
  }
  return problem;
}

/**
 * The condition with the call's values put in, as people read it: every field read from `args`,
 * `context` or `history` becomes its path and value (`args.amount > 100` → `amount 250 > 100`); the
 * rest stays as written, method calls included (`args.id.startsWith('rec-9')` → `id "rec-9x".startsWith('rec-9')`).
 * @param render how one field read is shown: the root variable, the path below it
 * @returns the text, or the condition unchanged when it does not parse
 */
export function renderFieldReads(condition: string, render: (root: string, path: string[]) => string): string {
  let ast: ASTNode;
  try {
    ast = parse(condition).ast;
  } catch {
    return condition;
  }
  const replacements: { start: number; end: number; text: string }[] = [];
  const fieldPath = (node: ASTNode): { root: string; path: string[] } | null => {
    if (node.op === 'id') return { root: node.args, path: [] };
    if (node.op !== '.') return null;
    const inner = fieldPath(node.args[0]);
    return inner ? { root: inner.root, path: [...inner.path, node.args[1]] } : null;
  };
  const walk = (node: ASTNode) => {
    const read = node.op === '.' ? fieldPath(node) : null;
    if (read && ['args', 'context', 'history'].includes(read.root)) {
      replacements.push({ start: node.start, end: node.end, text: render(read.root, read.path) });
      return;
    }
    children(node).forEach(walk);
  };
  walk(ast);
  let text = condition;
  for (const { start, end, text: shown } of replacements.sort((a, b) => b.start - a.start)) text = text.slice(0, start) + shown + text.slice(end);
  return text;
}
