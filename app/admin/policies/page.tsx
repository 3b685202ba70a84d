import type { Metadata } from 'next';
import { PolicyEditor } from '@/components/policies/policy-editor';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { appToolInputSchemas } from '@/lib/policies/app-tools';
import { listPolicyChanges, readPolicies } from '@/lib/policies/store';
import { prisma } from '@/lib/store/db';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Approval policies' };

/** Admins edit the ordered approval rules here; the latest changes are listed below the rules. */
export default async function PoliciesPage() {
  const admin = await requirePageActor(['admin']);
  const [set, changes] = await Promise.all([readPolicies(prisma()), listPolicyChanges(prisma())]);
  const people = await displayNames([admin.id, ...changes.map((change) => change.changedBy)]);
  return (
    <PolicyEditor
      initial={{ version: set.version, rules: set.rules }}
      changes={changes.map((change) => ({ ...change, createdAt: change.createdAt.toISOString() }))}
      people={people}
      toolInputs={appToolInputSchemas()}
      viewer={{ id: admin.id, name: admin.name, role: admin.role }}
    />
  );
}
