/**
 * What both runtimes get in `npm run bench`: the same zero-latency mock model (the AI SDK's
 * `MockLanguageModelV4` from `ai/test`), the same approval-requiring tool, and one interface the
 * measurement loops drive (bench/measure.ts). The peer's adapter (bench/peer/mastra.ts) imports this
 * file too, so `ai/test` resolves to the app's own `ai` for both.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import type { SqlCounter } from './sql-counter';

/** Name and description of the benchmark's tool; it requires approval in both runtimes. */
export const BENCH_TOOL = {
  id: 'bench-action',
  description: 'Performs the benchmark action identified by key.',
} as const;

/** The user message that makes the mock model call the tool with `key`. */
export const benchPrompt = (key: string) => `bench ${key}`;

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

function lastUserText(prompt: LanguageModelV4CallOptions['prompt']): string {
  const message = [...prompt].reverse().find((entry) => entry.role === 'user');
  if (!message) return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/**
 * A zero-latency mock model: when the prompt ends with a tool result it answers one line of text,
 * otherwise it calls `bench-action` with the key from the last user message (`bench <key>`).
 * Every part is enqueued at once, so the runtime's own cost is all that is measured.
 */
export function createBenchModel(): LanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (prompt.at(-1)?.role === 'tool') {
        parts.push(
          { type: 'text-start', id: 'answer' },
          { type: 'text-delta', id: 'answer', delta: 'Done.' },
          { type: 'text-end', id: 'answer' },
          { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: USAGE },
        );
      } else {
        const key = lastUserText(prompt).replace(/^bench\s+/, '').trim();
        parts.push(
          { type: 'tool-call', toolCallId: `call-${randomUUID()}`, toolName: BENCH_TOOL.id, input: JSON.stringify({ key }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: USAGE },
        );
      }
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

/**
 * Records each execution of the benchmark tool by key (to prove that no call ran twice), and the
 * runtime's statement count when it started (statements before the tool may run).
 */
export class ExecutionLog {
  private readonly runs = new Map<string, number>();
  private readonly sqlAtStart = new Map<string, number>();

  constructor(private readonly sql?: SqlCounter) {}

  /** Called first thing in the tool's `execute`. */
  record(key: string) {
    this.runs.set(key, (this.runs.get(key) ?? 0) + 1);
    if (this.sql && !this.sqlAtStart.has(key)) this.sqlAtStart.set(key, this.sql.count);
  }

  /** How often the tool ran for each key (0 when never). */
  async executions(keys: string[]): Promise<Map<string, number>> {
    return new Map(keys.map((key) => [key, this.runs.get(key) ?? 0]));
  }

  /** The statement count when the tool first started for `key`, if it did. */
  sqlAtExecute(key: string): number | undefined {
    return this.sqlAtStart.get(key);
  }
}

/** A run paused on the benchmark tool's approval. */
export interface PausedRun {
  runId: string;
  toolCallId: string;
  key: string;
}

/** Points in a stream the measurement loop times (and counts statements at). */
export type Milestone = 'approval' | 'tool-result';

/** One runtime instance (an in-process runtime object, or an HTTP client of the app). */
export interface RuntimeInstance {
  /**
   * Starts a run whose model calls the benchmark tool with `key`, reads its stream to the end and
   * calls `mark('approval')` when the approval chunk arrives.
   * @returns the paused run
   * @throws when the stream ends without an approval
   */
  start(input: { key: string; threadId: string }, mark: (milestone: Milestone) => void): Promise<PausedRun>;
  /**
   * Approves the paused call, reads the continuation to its end and calls `mark('tool-result')`
   * when the tool's result arrives.
   * @throws when the continuation has no tool result
   */
  approve(run: PausedRun, mark: (milestone: Milestone) => void): Promise<void>;
}

/** A runtime under test, as the measurement loops see it. */
export interface BenchSystem {
  name: string;
  /** Instance used by client `index` (in process: the same runtime object for all). */
  client(index: number): RuntimeInstance;
  /** Another instance sharing only the database (its own pool, store and agent objects). */
  secondary?: RuntimeInstance;
  /** Measured in the latency loops only (no throughput batch): a reference for another column. */
  latencyOnly?: boolean;
  /** The pid of the server process the clients talk to, when the runtime runs in another process. */
  serverPid?: number;
  /** Statement counter of the runtime's pg pool, when it runs in this process. */
  sql?: SqlCounter;
  executions: Pick<ExecutionLog, 'executions'> & Partial<Pick<ExecutionLog, 'sqlAtExecute'>>;
  close(): Promise<void>;
}
