import 'server-only';
import { z } from 'zod';
import { allAgents } from '@/lib/runs/agents';
import type { JsonSchema, ToolInputSchemas } from './arg-types';

let cached: ToolInputSchemas | undefined;

/**
 * The input schemas (JSON Schema, from each tool's zod `inputSchema`) of the app's tools by name,
 * for checking a rule's condition against the tools it applies to when it is saved
 * (lib/policies/arg-types.ts). Delegation tools (`agent-<key>`) are left out; a tool whose schema
 * has no JSON Schema form is left out too (its fields are then not checked). Computed once.
 */
export function appToolInputSchemas(): ToolInputSchemas {
  if (!cached) {
    const schemas: ToolInputSchemas = {};
    for (const agent of allAgents()) {
      for (const tool of agent.tools.values()) {
        if (tool.id.startsWith('agent-') || schemas[tool.id]) continue;
        try {
          schemas[tool.id] = z.toJSONSchema(tool.inputSchema) as JsonSchema;
        } catch {
          // No JSON Schema form: not checked.
        }
      }
    }
    cached = schemas;
  }
  return cached;
}
