import 'server-only';
import { z } from 'zod';
import { describeCall } from '@/lib/agent/describe';
import type { Tool, ToolDescription } from '@/lib/agent/tool';
import { findTool } from '@/lib/runs/agents';

/**
 * Describes a call of one of the app's tools in the tool's own words (`describe`), for chat cards
 * and the inbox.
 * @returns null when the tool does not describe itself (the UI then shows a generic line)
 */
export function describeAppCall(toolName: string, args: unknown): ToolDescription | null {
  return describeCall(appTool(toolName), args);
}

/**
 * The app's tool of this name. Describing is decoration: where the app's agents cannot be built (a
 * process without the app's database settings, e.g. a script reading the inbox through its own
 * client) calls are shown with the generic line instead of failing.
 */
function appTool(toolName: string): Tool | undefined {
  try {
    return findTool(toolName);
  } catch {
    return undefined;
  }
}

const inputSchemas = new Map<string, string | null>();

/**
 * The JSON Schema (string) of a tool's input, from its zod schema (`z.toJSONSchema`), for the
 * reviewer's edit form: min/max, enums, formats and nested objects are checked before sending (and
 * again by the server). Computed once per tool.
 * @returns null when the tool is unknown or its schema has no JSON Schema form
 */
export function appToolInputSchema(toolName: string): string | null {
  if (!inputSchemas.has(toolName)) {
    const tool = appTool(toolName);
    let schema: string | null = null;
    try {
      schema = tool ? JSON.stringify(z.toJSONSchema(tool.inputSchema)) : null;
    } catch {
      schema = null;
    }
    inputSchemas.set(toolName, schema);
  }
  return inputSchemas.get(toolName) ?? null;
}
