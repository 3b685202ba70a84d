import type { Metadata } from 'next';
import { AuditView } from '@/components/audit/audit-view';
import { filterValues, reversedRangeNote, unreadFiltersNote, withoutUnread } from '@/components/inbox/filter-values';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { auditQueryFieldsSchema, listAudit, rangeReversed } from '@/lib/audit/queries';
import { describeModel, env } from '@/lib/env';
import { parseLeavingOut } from '@/lib/http/query';
import { filterOptions } from '@/lib/inbox/filter-options';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Audit' };

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await requirePageActor(['admin']);
  const raw = await searchParams;
  const filters = { ...filterValues(raw), actorId: typeof raw.actorId === 'string' ? raw.actorId.slice(0, 100) : '' };
  const cursor = typeof raw.cursor === 'string' ? raw.cursor.slice(0, 200) : undefined;
  // Filters that cannot be read (a bad date, a NUL) are left out and shown empty.
  const { data: query, leftOut } = parseLeavingOut(auditQueryFieldsSchema, { ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)), cursor });
  // A range that starts after it ends is refused (as the API refuses it), not answered as an empty list.
  const rangeError = rangeReversed(query) ? reversedRangeNote(filters.from, filters.to) : null;
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const page = rangeError ? { entries: [], nextCursor: null } : await listAudit(query).catch(() => listAudit({ ...query, cursor: undefined }));
  const nextCursor = page.nextCursor;
  // The chain fields are for the exports; the page does not send them to the browser.
  const entries = page.entries.map(({ chained: _chained, ...entry }) => entry);
  const people = await displayNames([
    admin.id,
    ...entries.flatMap((entry) => [entry.actorId, entry.requester, ...entry.activity.flatMap((item) => [item.actorId, ...(item.assignee ? [item.assignee] : [])])]),
  ]);
  return (
    <AuditView
      entries={entries}
      nextCursor={nextCursor}
      filters={withoutUnread(filters, leftOut)}
      filterError={unreadFiltersNote(leftOut)}
      rangeError={rangeError}
      options={filterOptions()}
      people={people}
      viewer={{ id: admin.id, name: admin.name, role: admin.role }}
      model={describeModel(env().model)}
    />
  );
}
