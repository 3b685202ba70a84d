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
  const parsed = tool.inputSchema.safeParse(args);
  if (!parsed.success) {
    const unknown = unknownTopLevelFields(tool.inputSchema, args);
    throw new AgentError('INVALID_ARGS', `The edited arguments are not valid for this tool${alsoUnknown(unknown, 'it does not take')}.`, [...parsed.error.issues, ...unknown]);
  }
  const dropped = droppedFields(args, parsed.data);
  if (dropped.length > 0) throw new AgentError('INVALID_ARGS', `The edited arguments have fields this tool does not take: ${fieldPaths(dropped).join(', ')}.`, dropped);
  const checked = checkToolArgs(parsed.data);
  if (!checked.ok) throw new AgentError('INVALID_ARGS', checked.problem.replace(/; nothing was run\..*$/, '.'));
  return parsed.data as Record<string, unknown>;
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
  const schema = tool.resumeSchema ?? z.unknown();
  const parsed = schema.safeParse(resumeData);
  if (!parsed.success) {
    const unknown = unknownTopLevelFields(schema, resumeData);
    throw new AgentError('INVALID_RESUME_DATA', `The answer does not match what the tool asked for${alsoUnknown(unknown, 'it did not ask for')}.`, [...parsed.error.issues, ...unknown]);
  }
  const dropped = droppedFields(resumeData, parsed.data);
  if (dropped.length > 0) throw new AgentError('INVALID_RESUME_DATA', `The answer has fields the tool did not ask for: ${fieldPaths(dropped).join(', ')}.`, dropped);
  const problem = answerProblem(parsed.data);
  if (problem) throw new AgentError('INVALID_RESUME_DATA', problem);
  return parsed.data;
}

/** ` (fields it does not take: $.ammount)`, or nothing. */
function alsoUnknown(issues: ReturnType<typeof unknownTopLevelFields>, what: string): string {
  return issues.length > 0 ? ` (fields ${what}: ${fieldPaths(issues).join(', ')})` : '';
}
