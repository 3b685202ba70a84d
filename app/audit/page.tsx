import type { Metadata } from 'next';
import { AuditView } from '@/components/audit/audit-view';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { auditQuerySchema, listAudit } from '@/lib/audit/queries';
import { describeModel, env } from '@/lib/env';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Audit' };

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const admin = await requirePageActor(['admin'], '/audit');
  const raw = await searchParams;
  const parsed = auditQuerySchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, value]) => value)));
  const query = parsed.success ? parsed.data : auditQuerySchema.parse({});
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const { entries, nextCursor } = await listAudit(query).catch(() => listAudit({ ...query, cursor: undefined }));
  const people = await displayNames([
    admin.id,
    ...entries.flatMap((entry) => [entry.actorId, entry.requester, ...entry.activity.flatMap((item) => [item.actorId, ...(item.assignee ? [item.assignee] : [])])]),
  ]);
  return (
    <AuditView
      entries={entries}
      nextCursor={nextCursor}
      filters={{ actorId: query.actorId ?? '', toolName: query.toolName ?? '', kind: query.kind ?? '' }}
      people={people}
      viewer={{ id: admin.id, name: admin.name, role: admin.role }}
      model={describeModel(env().model)}
    />
  );
}
