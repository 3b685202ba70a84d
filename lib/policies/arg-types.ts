import { parse, type ASTNode } from '@marcbachmann/cel-js';
import picomatch from 'picomatch';
import type { z } from 'zod';
import { children } from './condition-check';

/**
 * Checking a rule's condition against the input schemas of the tools it applies to, when the rule
 * is saved (PUT /api/policies and the editor at /admin/policies). CEL's own checker sees `args` as a
 * map of unknown values, so `args.amount > "100"` type-checks and then fails on every call (int vs
 * string: the call waits for a reviewer). Here a field of `args` compared with a literal is looked
 * up in the JSON Schema of each tool the rule's tool glob matches: a literal of another type than
 * the field, or a field none of those tools has, is refused with the field named.
 */

/** A tool's input as JSON Schema (zod's `z.toJSONSchema` of the tool's `inputSchema`), by tool name. */
export type ToolInputSchemas = Record<string, JsonSchema>;

/** The part of JSON Schema read here. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** The JSON types a schema allows (`unknown` when it does not say: anything goes). */
function jsonTypes(schema: JsonSchema): Set<string> | 'unknown' {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const all = new Set<string>();
    for (const branch of branches) {
      const types = jsonTypes(branch);
      if (types === 'unknown') return 'unknown';
      types.forEach((type) => all.add(type));
    }
    return all;
  }
  if (schema.type !== undefined) return new Set((Array.isArray(schema.type) ? schema.type : [schema.type]).map((type) => (type === 'integer' ? 'number' : type)));
  const values = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (values) return new Set(values.map((value) => (value === null ? 'null' : typeof value)));
  return 'unknown';
}

/** The schema of `path` below `schema`: a schema, `missing` (an object that lists its fields and not this one) or `unknown`. */
function fieldSchema(schema: JsonSchema, path: string[]): JsonSchema | 'missing' | 'unknown' {
  let current = schema;
  for (const key of path) {
    if (current.anyOf || current.oneOf) return 'unknown';
    const next = current.properties?.[key];
    if (next) {
      current = next;
      continue;
    }
    return current.properties ? 'missing' : 'unknown';
  }
  return current;
}

/** The JSON type of a CEL literal (`number` for int, uint and double), or null for one not compared here. */
function literalType(node: ASTNode): string | null {
  if (node.op === '-_') return literalType(node.args);
  if (node.op !== 'value') return null;
  const value = node.args as unknown;
  if (typeof value === 'bigint' || typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'bigint') return 'number';
  return null;
}

const celTypeName: Record<string, string> = { number: 'a number', string: 'a string', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' };

/** The path below `args` a node reads (`args.order.id` → ['order', 'id']), or null. */
function argsPath(node: ASTNode): string[] | null {
  if (node.op !== '.') return null;
  const [inner, key] = node.args;
  if (inner.op === 'id') return inner.args === 'args' ? [key] : null;
  const path = argsPath(inner);
  return path ? [...path, key] : null;
}

/**
 * Why a rule's condition cannot fit the input of the tools it applies to, or null.
 * @param rule the rule's tool glob and condition (a condition that does not parse gives null: the
 *   schema reports it)
 * @param tools the input schemas of the app's tools by name; tools the glob matches that are not
 *   listed, or fields whose schema says nothing of their type, are not checked
 * @returns e.g. `args.amount is a number in issue-refund's input, but is compared with a string`,
 *   or `args.amont is not a field of issue-refund's input (its fields: orderId, amount)`
 */
export function argumentTypeProblem(rule: { tool: string; condition?: string }, tools: ToolInputSchemas): string | null {
  if (!rule.condition) return null;
  const matching = Object.keys(tools).filter((name) => picomatch.isMatch(name, rule.tool));
  if (matching.length === 0) return null;
  let ast: ASTNode;
  try {
    ast = parse(rule.condition).ast;
  } catch {
    return null;
  }
  const problems: string[] = [];
  const checkRead = (path: string[], literal: string | null) => {
    const field = `args.${path.join('.')}`;
    const found = matching.map((name) => ({ name, schema: fieldSchema(tools[name], path) }));
    const having = found.filter((entry) => entry.schema !== 'missing');
    if (having.length === 0) {
      const fields = (name: string) => Object.keys(tools[name].properties ?? {}).join(', ');
      const where = matching.length === 1 ? `${matching[0]}'s input (its fields: ${fields(matching[0])})` : `the input of ${matching.join(', ')}`;
      problems.push(`${field} is not a field of ${where}`);
      return;
    }
    if (literal === null) return;
    for (const { name, schema } of having) {
      if (schema === 'missing' || schema === 'unknown') continue;
      const types = jsonTypes(schema);
      if (types === 'unknown' || types.has(literal)) continue;
      const expected = [...types].map((type) => celTypeName[type] ?? type).join(' or ');
      problems.push(`${field} is ${expected} in ${name}'s input, but the condition compares it with ${celTypeName[literal]}`);
      return;
    }
  };
  const walk = (node: ASTNode) => {
    if (COMPARISONS.has(node.op)) {
      const [left, right] = node.args as [ASTNode, ASTNode];
      const leftPath = argsPath(left);
      const rightPath = argsPath(right);
      if (leftPath) checkRead(leftPath, literalType(right));
      if (rightPath) checkRead(rightPath, literalType(left));
      if (leftPath || rightPath) {
        if (!leftPath) walk(left);
        if (!rightPath) walk(right);
        return;
      }
    }
    const path = argsPath(node);
    if (path) return checkRead(path, null);
    children(node).forEach(walk);
  };
  walk(ast);
  return problems[0] ?? null;
}

/**
 * Adds an issue on `rules.<i>.condition` for each rule whose condition does not fit its tools'
 * input (argumentTypeProblem); for a zod `superRefine` of the rule list being saved.
 */
export function checkArgumentTypes(rules: { tool: string; condition?: string }[], tools: ToolInputSchemas, ctx: z.RefinementCtx): void {
  rules.forEach((rule, index) => {
    const problem = argumentTypeProblem(rule, tools);
    if (problem) ctx.addIssue({ code: 'custom', path: ['rules', index, 'condition'], message: problem });
  });
}
