import type { ModelMessage } from 'ai';
import type { CallOutcome, PendingCall, RunState } from './store';

/** What the model reads after a decline, before the decider's reason (`declinedText`). */
export const DECLINED_PREFIX = 'A person declined this tool call, so it was NOT executed. Their reason: ';

/**
 * What the model reads for a declined call: that a person declined it and it was not executed,
 * with the reason they gave (or the default reason), so no model takes a bare reason for the
 * tool's own answer.
 */
export function declinedText(reason: string): string {
  return `${DECLINED_PREFIX}${reason}`;
}

/** A call's outcome as the model reads it; a decline reaches the model as `declinedText`. */
export function toModelOutput(outcome: CallOutcome) {
  switch (outcome.type) {
    case 'result':
      return { type: 'json' as const, value: (outcome.output ?? null) as never };
    case 'error':
      return { type: 'error-text' as const, value: outcome.message };
    case 'denied':
      return { type: 'text' as const, value: declinedText(outcome.reason) };
  }
}

/** What the model reads for a call that was executing when its run stopped. */
export const OUTCOME_UNKNOWN =
  'The run stopped while this call was running, so whether it took effect is unknown. It was not retried; check before calling it again.';
/** What the model reads for a call that waited on a person when its run stopped. */
const NEVER_DECIDED = 'The run stopped before this call was decided; it did not run.';

const CLAIMED = new Set(['approved', 'resumed', 'unknown', 'waiting']);

/**
 * The messages a run that stopped early (a failed model call, a lost process) leaves in its
 * thread's memory: everything it generated, and for the step it stopped in, a result for every
 * call — its outcome when known, "outcome unknown" for a call that was executing (or a sub-agent
 * still working), "not decided" for one still waiting on a person. Every tool call then has a
 * result, so the history replays to any provider, and the next turn's model knows what already
 * happened (a deleted record stays deleted; "try again" does not silently repeat it).
 *
 * @param state the run's last known state
 * @param rows the run's own pending-call rows (closed ones carry the decided calls' outcomes)
 * @returns model messages to append to the thread, oldest first
 */
export function historyOfStoppedRun(state: RunState, rows: PendingCall[]): ModelMessage[] {
  const messages = state.messages.slice(state.historyLength);
  if (state.stepCalls.length === 0) return messages;
  const content = state.stepCalls.map((call) => {
    const row = rows.filter((candidate) => candidate.toolCallId === call.toolCallId).at(-1);
    const outcome: CallOutcome =
      call.outcome ??
      row?.output ?? {
        type: 'error',
        message: !row || CLAIMED.has(row.status) ? OUTCOME_UNKNOWN : NEVER_DECIDED,
      };
    return { type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, output: toModelOutput(outcome) };
  });
  return [...messages, { role: 'tool', content }];
}

/**
 * Names of the tools that ran (a result) or may have (outcome unknown) in `messages` — what a
 * failed run's error tells the user is already done.
 */
export function toolsThatRan(messages: ModelMessage[]): string[] {
  const names: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      if (part.output.type === 'json' || (part.output.type === 'error-text' && part.output.value === OUTCOME_UNKNOWN)) names.push(part.toolName);
    }
  }
  return names;
}
