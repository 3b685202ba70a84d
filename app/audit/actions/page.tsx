import type { Metadata } from 'next';
import { AdminActionsView } from '@/components/audit/admin-actions-view';
import { reversedRangeNote, unreadFiltersNote, withoutUnread } from '@/components/inbox/filter-values';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { adminActionsQueryFieldsSchema, listAdminActions } from '@/lib/audit/admin-actions';
import { rangeReversed } from '@/lib/audit/queries';
import { peopleInAction } from '@/lib/audit/describe-action';
import { parseLeavingOut } from '@/lib/http/query';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Audit: admin actions' };

export default async function AdminActionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const admin = await requirePageActor(['admin']);
  const raw = await searchParams;
  const text = (key: string) => (typeof raw[key] === 'string' ? (raw[key] as string).slice(0, 200) : '');
  const filters = { actor: text('actor'), action: text('action'), from: text('from'), to: text('to') };
  const cursor = text('cursor') || undefined;
  // Filters that cannot be read (a bad date, a NUL) are left out and shown empty.
  const { data: query, leftOut } = parseLeavingOut(adminActionsQueryFieldsSchema, { ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)), cursor });
  // A range that starts after it ends is refused (as the API refuses it), not answered as an empty list.
  const rangeError = rangeReversed(query) ? reversedRangeNote(filters.from, filters.to) : null;
  // A cursor that is not ours (edited URL) shows the newest page instead of an error page.
  const page = rangeError ? { entries: [], nextCursor: null } : await listAdminActions(query).catch(() => listAdminActions({ ...query, cursor: undefined }));
  const entries = page.entries.map(({ chained: _chained, ...entry }) => entry);
  const people = await displayNames([admin.id, ...entries.flatMap(peopleInAction)]);
  return (
    <AdminActionsView
      entries={entries}
      nextCursor={page.nextCursor}
      filters={withoutUnread(filters, leftOut)}
      filterError={unreadFiltersNote(leftOut)}
      rangeError={rangeError}
      people={people}
      viewer={{ id: admin.id, name: admin.name, role: admin.role }}
    />
  );
}
