import { z } from 'zod';
import { AgentError } from './errors';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { answerProblem, checkToolArgs } from './model-output';
import type { Tool } from './tool';
import { droppedFields, fieldPaths, unknownTopLevelFields } from './unknown-fields';

/*
 * What a person sends with a decision, checked before anything is claimed: a reviewer's edited
 * arguments and the answer to a suspended call. Both are untrusted and meet the same bar as a
 * model's output (storable text, depth, size), and both are refused, not trimmed, when they carry
 * a field the tool's schema does not have (a zod object strips unknown keys, which would turn a
 * misspelt edit into an approval of the original).
 */

/**
 * Edited arguments as the tool will run them.
 * @returns the args parsed by the tool's `inputSchema`
 * @throws AgentError INVALID_ARGS: too deep; the schema's zod issues as details, with an
 *   `unrecognized_keys` issue for fields the tool does not take (named in the message too); NUL, a
 *   lone surrogate, an invisible control or oversize text (the checks of a model's args)
 */
export function checkedEditedArgs(tool: Tool, args: unknown): Record<string, unknown> {
  if (exceedsJsonDepth(args)) throw new AgentError('INVALID_ARGS', `The edited arguments are nested deeper than ${MAX_JSON_DEPTH} levels.`);
  const parsed = parseEveryField(tool.inputSchema, args, 'INVALID_ARGS', {
    invalid: 'The edited arguments are not valid for this tool',
    unknown: 'fields it does not take',
    dropped: 'The edited arguments have fields this tool does not take',
  });
  const checked = checkToolArgs(parsed);
  if (!checked.ok) throw new AgentError('INVALID_ARGS', checked.problem.replace(/; nothing was run\..*$/, '.'));
  return parsed as Record<string, unknown>;
}

/**
 * An answer to a suspended call as the tool will read it.
 * @returns the answer parsed by the tool's `resumeSchema` (any JSON when it has none)
 * @throws AgentError INVALID_RESUME_DATA: too deep; the schema's zod issues as details, with an
 *   `unrecognized_keys` issue for fields the tool did not ask for (named in the message too); NUL, a
 *   lone surrogate, a control or bidirectional character
 */
export function checkedAnswer(tool: Tool, resumeData: unknown): unknown {
  if (exceedsJsonDepth(resumeData)) throw new AgentError('INVALID_RESUME_DATA', `The answer is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  const parsed = parseEveryField(tool.resumeSchema ?? z.unknown(), resumeData, 'INVALID_RESUME_DATA', {
    invalid: 'The answer does not match what the tool asked for',
    unknown: 'fields it did not ask for',
    dropped: 'The answer has fields the tool did not ask for',
  });
  const problem = answerProblem(parsed);
  if (problem) throw new AgentError('INVALID_RESUME_DATA', problem);
  return parsed;
}

/**
 * `value` parsed by `schema`, refused as `code` when the parse fails or when it left out a field the
 * sender wrote; the fields are named in the message (`words`) and as `unrecognized_keys` issues.
 * @throws AgentError `code`, details: zod's issues
 */
function parseEveryField(schema: z.ZodType, value: unknown, code: 'INVALID_ARGS' | 'INVALID_RESUME_DATA', words: { invalid: string; unknown: string; dropped: string }): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const unknown = unknownTopLevelFields(schema, value);
    const named = unknown.length > 0 ? ` (${words.unknown}: ${fieldPaths(unknown).join(', ')})` : '';
    throw new AgentError(code, `${words.invalid}${named}.`, [...parsed.error.issues, ...unknown]);
  }
  const dropped = droppedFields(value, parsed.data);
  if (dropped.length > 0) throw new AgentError(code, `${words.dropped}: ${fieldPaths(dropped).join(', ')}.`, dropped);
  return parsed.data;
}
