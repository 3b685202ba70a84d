/**
 * Ids of pending calls as people address them.
 *
 * A model's tool call id is unique only within one model call of one run; several sub-agent runs
 * (and several runs of a thread, or processes) may hand out the same ids. So a call raised below the
 * top level is addressed, from its top-level run, by the path of call ids that leads to it:
 * `<top-level delegation id>~<next delegation id>~…~<the call's own id>`. The path is built from
 * stored ids only, so it is deterministic and stable (a re-suspension keeps it), and two calls in
 * different child runs differ in at least one delegation id of the path. A top-level call keeps its
 * own id, unchanged.
 */

/** Separates the levels of a qualified call id (URL-safe; not used by the providers' own ids). */
export const CALL_ID_SEPARATOR = '~';

/**
 * The id of a call as addressed from the top-level run.
 *
 * @param delegationCallId the qualified id of the delegation call that started the call's run, or
 *   null for a call of the top-level run itself
 * @param toolCallId the call's own id (from its model)
 * @returns `toolCallId` at the top level, `${delegationCallId}~${toolCallId}` below
 */
export function qualifiedCallId(delegationCallId: string | null, toolCallId: string): string {
  return delegationCallId === null ? toolCallId : `${delegationCallId}${CALL_ID_SEPARATOR}${toolCallId}`;
}

/**
 * The calls an id given by a person or client means, in order of preference: the call whose
 * qualified id it is; else every call whose own (leaf) id it is, or which runs below the delegation
 * call it names (the older way of addressing a sub-agent's call). Callers refuse more than one match
 * as AMBIGUOUS_TOOL_CALL.
 *
 * @param calls rows with their qualified id (`rootToolCallId`) and own id (`toolCallId`)
 * @param id the id as given; undefined means every call
 */
export function callsAddressedBy<T extends { rootToolCallId: string; toolCallId: string }>(calls: T[], id: string | undefined): T[] {
  if (id === undefined) return calls;
  const exact = calls.filter((call) => call.rootToolCallId === id);
  if (exact.length > 0) return exact;
  const below = `${id}${CALL_ID_SEPARATOR}`;
  return calls.filter((call) => call.toolCallId === id || call.rootToolCallId.startsWith(below));
}
