import { describe, expect, it } from 'vitest';
import { toErrorResponse } from '@/lib/http/errors';
import { reversedRangeNote } from '@/components/inbox/filter-values';
import { adminActionsQuerySchema } from './admin-actions';
import { auditCsv, auditQuerySchema, dateBound, type ChainedAuditEntry } from './queries';

const entry: ChainedAuditEntry = {
  id: 'dec-1',
  at: '2025-03-03T14:02:05.678Z',
  actorId: 'rita',
  actorName: 'Rita Reviewer',
  actorEmail: 'rita@example.com',
  actorRole: 'reviewer',
  kind: 'approval',
  approved: true,
  reason: null,
  toolName: 'issue-refund',
  description: null,
  agentId: 'support',
  chain: [],
  runId: 'run-1',
  toolCallId: 'call-1',
  threadId: 'thread-1',
  requester: 'ada',
  requesterName: 'Ada Lovelace',
  requesterEmail: 'ada@example.com',
  fingerprint: 'ab12',
  args: { orderId: 'ord-1', amount: 250 },
  editedArgs: null,
  editedFingerprint: null,
  resumeData: null,
  why: 'amount 250 > 100: reviewer required, not the requester',
  quorum: null,
  approvedBy: [],
  activity: [],
  chained: {
    id: 'dec-1',
    pendingCallId: 'pc-1',
    runId: 'run-1',
    toolCallId: 'call-1',
    toolName: 'issue-refund',
    kind: 'approval',
    approved: true,
    reason: null,
    actorId: 'rita',
    actorRole: 'reviewer',
    fingerprint: 'ab12',
    args: { orderId: 'ord-1', amount: 250 },
    editedArgs: null,
    editedFingerprint: null,
    resumeData: null,
    createdAt: new Date('2025-03-03T14:02:05.678Z'),
    chainSeq: '7',
    contentHash: 'c'.repeat(64),
    prevHash: 'p'.repeat(64),
    hash: 'h'.repeat(64),
  },
};

/** The byte-order mark (for spreadsheet programs), then the columns: each person id with the person's name and email beside it. */
const HEADER = '\uFEFFat,actorId,actorName,actorEmail,actorRole,kind,approved,reason,toolName,agentId,requester,requesterName,requesterEmail,runId,toolCallId,fingerprint,args,editedArgs,editedFingerprint,resumeData,why,id,chainSeq,contentHash,prevHash,hash,chainEntry';
/** The chain columns of `entry`: its id, link and the decision as its hash covers it (as JSON). */
const CHAIN_CELLS =
  `,dec-1,7,${'c'.repeat(64)},${'p'.repeat(64)},${'h'.repeat(64)},` +
  '"{""entry"":""decision"",""id"":""dec-1"",""pendingCallId"":""pc-1"",""runId"":""run-1"",""toolCallId"":""call-1"",""toolName"":""issue-refund"",""kind"":""approval"",""approved"":true,""reason"":null,""actorId"":""rita"",""actorRole"":""reviewer"",""fingerprint"":""ab12"",""args"":{""orderId"":""ord-1"",""amount"":250},""editedArgs"":null,""editedFingerprint"":null,""resumeData"":null,""createdAt"":""2025-03-03T14:02:05.678Z""}"';

describe('auditCsv', () => {
  it('writes the header and one CRLF-terminated row per entry; JSON columns as JSON text, null as empty', () => {
    expect(auditCsv([entry])).toBe(
      `${HEADER}\r\n` + '2025-03-03T14:02:05.678Z,rita,Rita Reviewer,rita@example.com,reviewer,approval,true,,issue-refund,support,ada,Ada Lovelace,ada@example.com,run-1,call-1,ab12,"{""orderId"":""ord-1"",""amount"":250}",,,,"amount 250 > 100: reviewer required, not the requester"' + CHAIN_CELLS + '\r\n',
    );
  });

  it('is only the header for no entries', () => {
    expect(auditCsv([])).toBe(`${HEADER}\r\n`);
  });

  it('quotes cells with commas, quotes or line breaks (RFC 4180) and leaves others bare', () => {
    const decline: ChainedAuditEntry = {
      ...entry,
      kind: 'decline',
      approved: false,
      reason: 'Wrong order, "ord-1"\r\nask again',
      args: 'plain text',
      editedArgs: [1, 2],
      editedFingerprint: 'cd34',
      resumeData: { city: 'Oslo' },
      why: null,
    };
    expect(auditCsv([decline])).toBe(
      `${HEADER}\r\n` +
        '2025-03-03T14:02:05.678Z,rita,Rita Reviewer,rita@example.com,reviewer,decline,false,"Wrong order, ""ord-1""\r\nask again",issue-refund,support,ada,Ada Lovelace,ada@example.com,run-1,call-1,ab12,plain text,"[1,2]",cd34,"{""city"":""Oslo""}",' + CHAIN_CELLS + '\r\n',
    );
    // A line break alone is reason enough to quote, be it CR or LF.
    for (const reason of ['line one\rline two', 'line one\nline two']) {
      expect(auditCsv([{ ...entry, reason, args: null }]).slice(HEADER.length + 2).split(',')[7]).toBe(`"${reason}"`);
    }
  });
});

describe('auditCsv against CSV injection (OWASP)', () => {
  it.each(['=', '+', '-', '@', '\t', '\r', '\uFF1D'])('a cell starting with %j gets a leading apostrophe', (lead) => {
    const payload = `${lead}HYPERLINK("http://evil.example")`;
    const row = auditCsv([{ ...entry, reason: payload }]).slice(HEADER.length + 2);
    // Quoted because of the quotes inside (RFC 4180 doubles them); prefixed with ', shown as text.
    expect(row).toContain(`,"'${payload.replaceAll('"', '""')}",`);
    expect(row).not.toContain(`,"${payload.replaceAll('"', '""')}",`);
  });

  it('a bare cell starting with a formula character is prefixed too, and one holding a semicolon is quoted', () => {
    expect(auditCsv([{ ...entry, reason: '=1+1' }]).split('\r\n')[1].split(',')[7]).toBe("'=1+1");
    expect(auditCsv([{ ...entry, reason: 'x;=1+1' }]).split('\r\n')[1].split(',')[7]).toBe('"x;=1+1"');
    // Numbers are not text a spreadsheet would run; a JSON column starts with a brace or bracket.
    expect(auditCsv([{ ...entry, args: { amount: -5 } }]).split('\r\n')[1]).toContain('"{""amount"":-5}"');
  });
});

describe('date filters', () => {
  const from = dateBound(false);
  const to = dateBound(true);
  it('reads a UTC day or an instant with a zone; the end of a day is the next midnight', () => {
    expect(from.parse('2026-11-30')).toEqual(new Date('2026-11-30T00:00:00Z'));
    expect(to.parse('2026-11-30')).toEqual(new Date('2026-12-01T00:00:00Z'));
    expect(from.parse('2026-11-30T10:00:00+01:00')).toEqual(new Date('2026-11-30T09:00:00Z'));
    expect(from.parse('9999-12-31')).toEqual(new Date('9999-12-31T00:00:00Z'));
    expect(to.parse('9999-12-30')).toEqual(new Date('9999-12-31T00:00:00Z'));
    // Its end would be in year 10000, which PostgreSQL's parameters cannot carry: the range ends at
    // the last millisecond of 9999 instead (a person picking the last day means "until the end").
    expect(to.parse('9999-12-31')).toEqual(new Date('9999-12-31T23:59:59.999Z'));
    expect(to.parse('9999-12-31T23:59:59.999Z')).toEqual(new Date('9999-12-31T23:59:59.999Z'));
    expect(from.parse('  ')).toBeUndefined();
  });

  it('refuses days a month does not have, times without a zone, and years PostgreSQL cannot store', () => {
    for (const text of ['2026-02-31', '2026-13-01', '2026-11-30T10:00:00', 'someday', '0000-01-01', '-004714-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00Z']) {
      expect(from.safeParse(text).success, text).toBe(false);
      expect(to.safeParse(text).success, text).toBe(false);
    }
  });
});

describe('a date range that starts after it ends', () => {
  /** The answer the API routes give for a query that fails (withErrors maps the thrown ZodError). */
  const answer = async (parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      const response = toErrorResponse(error);
      return { status: response.status, body: (await response.json()) as { error: { code: string; message: string; details: { path: string[] }[] } } };
    }
    return null;
  };

  it('is refused by both audit queries as 400 BAD_REQUEST, its message naming from and to', async () => {
    for (const schema of [auditQuerySchema, adminActionsQuerySchema]) {
      for (const range of [
        { from: '2026-12-01', to: '2026-11-30' },
        { from: '2026-11-30T12:00:00Z', to: '2026-11-30T11:59:59.999Z' },
        { from: '2026-12-01', to: '2026-11-30T23:59:59Z' },
      ]) {
        const refused = await answer(() => schema.parse(range));
        expect(refused, JSON.stringify(range)).toEqual({
          status: 400,
          body: { error: { code: 'BAD_REQUEST', message: 'The request is not valid: from: must not be after to (the range starts after it ends).', details: [expect.objectContaining({ path: ['from'] })] } },
        });
      }
    }
  });

  it('one day, one instant, or one bound alone is a range in order', () => {
    for (const range of [
      { from: '2026-11-30', to: '2026-11-30' },
      { from: '2026-11-30T12:00:00Z', to: '2026-11-30T12:00:00Z' },
      { from: '2026-11-30T23:59:59Z', to: '2026-11-30' },
      { from: '2026-12-01' },
      { to: '2020-01-01' },
      { from: '', to: '2020-01-01' },
    ]) {
      expect(auditQuerySchema.safeParse(range).success, JSON.stringify(range)).toBe(true);
      expect(adminActionsQuerySchema.safeParse(range).success, JSON.stringify(range)).toBe(true);
    }
  });

  it('the pages say so with both dates, in the filters\' words', () => {
    expect(reversedRangeNote('2026-12-01', '2026-11-30')).toBe(
      'The dates are the wrong way round: from (2026-12-01) is after until (2026-11-30), so nothing can match. Swap them to search that range.',
    );
  });
});
