import { putPoliciesSchemaFor } from './schema';
import { requireActor } from '@/lib/auth/session';
import { parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { savePolicies } from '@/lib/policies/app-source';
import { appToolInputSchemas } from '@/lib/policies/app-tools';
import { listPolicyChanges, readPolicies } from '@/lib/policies/store';
import { prisma } from '@/lib/store/db';
import { otherMethods } from '@/lib/http/methods';

/**
 * The approval policy rules in force (admins): `200 { version, rules, changedBy, changedAt, changes }`,
 * `changes` being the latest 20 versions (who, when, rules before and after), newest first.
 * Errors: 401, 403 FORBIDDEN.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const [set, changes] = await Promise.all([readPolicies(prisma()), listPolicyChanges(prisma())]);
  return Response.json({ ...set, changes });
});

/**
 * Replaces the rule list (admins): `{ rules, baseVersion?, note? }` → `200 { version, rules, changed }`.
 * Each save that changes the rules is a new version recorded with who and when and the rules before
 * (`changed: true`); it applies to calls evaluated after it, never to calls already waiting. Rules
 * equal to those in force record nothing and answer the version in force with `changed: false`
 * (with a `baseVersion`, only when it is that version: an older one is still 409 POLICY_CHANGED).
 * Errors: 400 BAD_REQUEST (details: the zod issues, e.g. a condition that does not parse, nests
 * comprehensions over 2 deep, or compares a field of the tool's input with a literal of another
 * type: `args.amount > "100"`),
 * 400 INVALID_JSON, 401, 403 FORBIDDEN / CSRF_ORIGIN, 409 POLICY_CHANGED (someone saved after `baseVersion`).
 */
export const PUT = withErrors(async (request: Request) => {
  const admin = await requireActor(request, ['admin']);
  const body = parseJson(await readBodyText(request), putPoliciesSchemaFor(appToolInputSchemas()));
  const { version, changed } = await savePolicies(admin, body);
  return Response.json({ version, rules: body.rules, changed });
});

export const { POST, PATCH, DELETE, OPTIONS } = otherMethods('GET', 'PUT');
