// What a decided call's tool did, in words: plain functions for the inbox's toasts and its Done view.
import { readableErrorText, summarizeValue } from '@/components/ui/readable';

/** A tool's result as a reviewer reads it: whether it did what was asked, and one sentence. */
export interface ToolResultText {
  /** `done`: the tool did it; `refused`: it ran but did not do it (e.g. `refunded: false`); `failed`: it threw. */
  outcome: 'done' | 'refused' | 'failed';
  text: string;
}

/**
 * Reads a tool's output (a `tool-output-available` chunk's `output`) or its error text (a
 * `tool-output-error` chunk's `errorText`). A tool says it did not do what was asked by an object
 * whose first boolean field is false — the demo tools' convention (`{ refunded: false, message:
 * "Refused: only $0 is left…" }`, `{ deleted: false, … }`); its `message`, when a string, is the
 * sentence, else a one-line summary of the output.
 *
 * @param result `{ output }` or `{ errorText }`
 * @returns the outcome and its sentence (at most about 300 characters)
 */
export function toolResultText(result: { output?: unknown; errorText?: string }): ToolResultText {
  if (result.errorText !== undefined) return { outcome: 'failed', text: readableErrorText(result.errorText).slice(0, 300) };
  const output = result.output;
  if (output && typeof output === 'object' && !Array.isArray(output)) {
    const fields = Object.values(output as Record<string, unknown>);
    const firstBoolean = fields.find((value) => typeof value === 'boolean');
    const message = (output as Record<string, unknown>).message;
    const text = typeof message === 'string' && message.trim() ? message.trim().slice(0, 300) : summarizeValue(output, 300);
    return { outcome: firstBoolean === false ? 'refused' : 'done', text };
  }
  return { outcome: 'done', text: typeof output === 'string' ? output.slice(0, 300) : summarizeValue(output, 300) };
}
