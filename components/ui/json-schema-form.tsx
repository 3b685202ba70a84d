'use client';

import dynamic from 'next/dynamic';
import { Skeleton } from './skeleton';
import type { JsonSchemaFormProps } from './json-schema-form-rjsf';

export type { JsonSchemaFormProps };

/** Holds the form's place (two fields and a button) while its script loads. */
function FormLoading() {
  return (
    <div className="flex flex-col gap-3" role="status">
      <span className="sr-only">Loading the form…</span>
      <Skeleton className="h-14" />
      <Skeleton className="h-14" />
      <Skeleton className="h-8 w-24" />
    </div>
  );
}

/**
 * A form generated from a JSON Schema, validated in the browser by the schema the server checks
 * again (json-schema-form-rjsf.tsx). Its script (react-jsonschema-form and Ajv, about 630 KB) is
 * loaded only by a page that shows a form — a question card, the inbox's edit form — not by every
 * chat and inbox page; a form rendered on the server is loaded with its page.
 */
export const JsonSchemaForm = dynamic<JsonSchemaFormProps>(() => import('./json-schema-form-rjsf').then((module) => module.RjsfJsonSchemaForm), {
  loading: FormLoading,
});

/**
 * A JSON Schema for editing a call's arguments, inferred from their current values (strings, numbers
 * and booleans are editable; other values are kept as they are). The server validates the edited
 * arguments against the tool's real input schema.
 *
 * @returns the schema as a string, or null when nothing is editable
 */
export function schemaFromArgs(args: unknown): string | null {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const properties: Record<string, { type: string }> = {};
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (typeof value === 'string') properties[key] = { type: 'string' };
    else if (typeof value === 'number') properties[key] = { type: 'number' };
    else if (typeof value === 'boolean') properties[key] = { type: 'boolean' };
  }
  const keys = Object.keys(properties);
  if (keys.length === 0) return null;
  return JSON.stringify({ type: 'object', properties, required: keys.filter((key) => properties[key]!.type !== 'boolean') });
}
