import type { AgentChunk } from './chunks';
import { historyOfStoppedRun } from './history';
import type { AgentStore, PendingCall } from './store';

function interruptionMessage(unknown: PendingCall[]): string {
  if (unknown.length === 0) return 'The agent was interrupted because the server stopped. Nothing was retried — please ask again.';
  const tools = [...new Set(unknown.map((call) => call.toolName))].join(', ');
  return `The server stopped while ${tools} was running, so whether it finished is unknown. It was not retried; a reviewer has been told.`;
}

/**
 * Finds top-level runs whose process died (lease expired while a model streamed or a claimed tool
 * executed). A run that died in a model step, with no tool of that step started, is handed to
 * `takeOver` and continues in this process (takeover.ts). Any other is ended honestly: the run
 * is marked failed and the chat says so; a tool call that
 * was executing becomes "outcome unknown" for reviewers and is never re-executed automatically.
 * What the run did stays in the thread's memory — the unknown call with an "outcome unknown"
 * result — so the next turn's model does not repeat it blindly.
 * Source: issue "Reliability" (crashes). Safe to run from every server at once.
 *
 * @param input.store the runtime's store
 * @param input.now the current time (default: now)
 * @param input.takeOver continues a run (resolves true) or declines it (false: another process
 *   took it, or it cannot be continued); without it every abandoned run is ended
 * @returns the runs recovered: continued ones with `continued: true`, ended ones with the tools
 *   whose outcome is now unknown
 */
export async function recoverAbandonedRuns(input: { store: AgentStore; now?: Date; takeOver?: (run: { runId: string; agentId: string }) => Promise<boolean> }) {
  const abandoned = await input.store.listAbandonedRuns({ before: input.now ?? new Date(), limit: 100 });
  const recovered: { runId: string; unknownToolCalls: string[]; continued?: true }[] = [];
  for (const { runId, agentId } of abandoned) {
    // A run whose process died in a model step goes on elsewhere (takeover.ts); others end here.
    if (input.takeOver && (await input.takeOver({ runId, agentId }))) {
      recovered.push({ runId, unknownToolCalls: [], continued: true });
      continue;
    }
    const unknown = await input.store.markRunInterrupted({
      rootRunId: runId,
      error: 'interrupted: the server stopped',
      events: (calls): AgentChunk[] => [
        { type: 'error', runId, from: 'AGENT', payload: { message: interruptionMessage(calls), code: 'RUN_INTERRUPTED' } },
        { type: 'finish', runId, from: 'AGENT', payload: { finishReason: 'error' } },
      ],
      messages: ({ state, rows }) => historyOfStoppedRun(state, rows),
    });
    recovered.push({ runId, unknownToolCalls: unknown.map((call) => call.toolName) });
  }
  return recovered;
}
