import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { checkLinks, GENESIS, type BrokenLink, type ChainLink } from './chain';

/** What a check of the audit hash chain found. */
export interface ChainReport {
  ok: boolean;
  /** Links checked (decisions and audit events). */
  checked: number;
  /** Entries written before the chain existed (not covered). */
  unchained: number;
  /** The chain head: the last link's number and hash. */
  head: { seq: string; hash: string };
  /** The first link that does not hold (null when ok). */
  firstBroken: BrokenLink | null;
}

const PAGE = 1_000;

/**
 * Recomputes the whole audit hash chain from the rows as they are now (lib/audit/chain.ts): each
 * entry's content hash from its columns, each link from the one before, the numbering without
 * gaps, and that the last link is the chain head. Reads page by page (1,000 links), all in one
 * read-only REPEATABLE READ transaction: one snapshot, so decisions written while it reads (the head
 * moving on) are neither half-seen nor reported as broken links.
 * @returns the report; `firstBroken` names the first entry whose link does not hold
 */
export async function verifyAuditChain(db: PrismaClient): Promise<ChainReport> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SET TRANSACTION READ ONLY`;
      return verifySnapshot(tx);
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 10 * 60_000 },
  );
}

async function verifySnapshot(db: Prisma.TransactionClient): Promise<ChainReport> {
  const head = await db.auditChainHead.findUnique({ where: { id: 1 } });
  const legacyDecisions = await db.decision.count({ where: { chainSeq: null } });
  const legacyEvents = await db.auditEvent.count({ where: { chainSeq: null } });
  let state = { seq: 0n, hash: GENESIS };
  let checked = 0;
  const report = (firstBroken: BrokenLink | null): ChainReport => ({
    ok: firstBroken === null,
    checked,
    unchained: legacyDecisions + legacyEvents,
    head: { seq: String(head?.seq ?? 0n), hash: head?.hash ?? GENESIS },
    firstBroken,
  });
  for (;;) {
    const range = { gt: state.seq, lte: state.seq + BigInt(PAGE) };
    const decisions = await db.decision.findMany({ where: { chainSeq: range }, orderBy: { chainSeq: 'asc' } });
    const events = await db.auditEvent.findMany({ where: { chainSeq: range }, orderBy: { chainSeq: 'asc' } });
    const links: ChainLink[] = [
      ...decisions.map((row) => ({ seq: row.chainSeq!, contentHash: row.contentHash, prevHash: row.prevHash, hash: row.hash, table: 'decisions' as const, row })),
      ...events.map((row) => ({ seq: row.chainSeq!, contentHash: row.contentHash, prevHash: row.prevHash, hash: row.hash, table: 'audit_events' as const, row })),
    ].sort((a, b) => (a.seq < b.seq ? -1 : 1));
    if (links.length === 0) {
      // Past the last link: it must be the head (else links at the end were deleted, or the head moved).
      const headSeq = head?.seq ?? 0n;
      if (headSeq > state.seq) {
        return report({ table: 'audit_chain_head', id: '1', seq: String(headSeq), problem: 'missing_link', message: `Link ${state.seq + 1n} is missing (the chain head is at ${headSeq}): an entry was deleted.` });
      }
      if (headSeq !== state.seq || (head?.hash ?? GENESIS) !== state.hash) {
        return report({ table: 'audit_chain_head', id: '1', seq: String(headSeq), problem: 'head_mismatch', message: 'The chain head does not match the last link.' });
      }
      return report(null);
    }
    const result = checkLinks(links, state);
    if ('broken' in result) {
      checked += Number(BigInt(result.broken.seq) - state.seq - 1n);
      return report(result.broken);
    }
    checked += links.length;
    state = result.state;
  }
}
