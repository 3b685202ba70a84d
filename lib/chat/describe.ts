import 'server-only';
import { describeCall } from '@/lib/agent/describe';
import type { ToolDescription } from '@/lib/agent/tool';
import { findTool } from '@/lib/runs/agents';

/**
 * Describes a call of one of the app's tools in the tool's own words (`describe`), for chat cards
 * and the inbox.
 * @returns null when the tool does not describe itself (the UI then shows a generic line)
 */
export function describeAppCall(toolName: string, args: unknown): ToolDescription | null {
  return describeCall(findTool(toolName), args);
}
