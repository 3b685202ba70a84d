import { describe, expect, it } from 'vitest';
import { hasBidiControls, personName, revealBidi, summarizeArgs, formatValue } from '../../components/ui/describe';
import { auditCsv, type AuditEntry } from '../../lib/audit/queries';
import { parseSecuritySettings } from '../../lib/security/settings';

describe('security settings', () => {
  it('defaults: sign-up off, no trusted proxy, lockout after 5 failures for 15 minutes', () => {
    expect(parseSecuritySettings({})).toEqual({
      SIGN_UP_ENABLED: false,
      SIGN_UP_EMAIL_DOMAINS: [],
      TRUSTED_PROXIES: [],
      SIGN_IN_MAX_FAILURES: 5,
      SIGN_IN_LOCKOUT_MINUTES: 15,
      SIGN_IN_RATE_LIMIT_PER_MINUTE: 10,
      SSE_MAX_CONNECTIONS_PER_USER: 10,
      AGENTS_RATE_LIMIT_PER_MINUTE: 60,
      RUNS_RATE_LIMIT_PER_MINUTE: 120,
    });
    // Empty variables count as unset.
    expect(parseSecuritySettings({ SIGN_UP_ENABLED: '', TRUSTED_PROXIES: '' }).SIGN_UP_ENABLED).toBe(false);
  });

  it('valid values are parsed and normalised', () => {
    const settings = parseSecuritySettings({
      SIGN_UP_ENABLED: 'true',
      SIGN_UP_EMAIL_DOMAINS: ' Example.ORG, corp.example.com ',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1, ::1, fd00::/8',
      SIGN_IN_MAX_FAILURES: '3',
      SSE_MAX_CONNECTIONS_PER_USER: '2',
    });
    expect(settings).toMatchObject({
      SIGN_UP_ENABLED: true,
      SIGN_UP_EMAIL_DOMAINS: ['example.org', 'corp.example.com'],
      TRUSTED_PROXIES: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'],
      SIGN_IN_MAX_FAILURES: 3,
      SSE_MAX_CONNECTIONS_PER_USER: 2,
    });
  });

  it.each([
    ['SIGN_UP_ENABLED', 'yes'],
    ['SIGN_UP_ENABLED', '1'],
    ['SIGN_UP_EMAIL_DOMAINS', 'example.org,not a domain'],
    ['SIGN_UP_EMAIL_DOMAINS', '@example.org'],
    ['TRUSTED_PROXIES', 'my-proxy.internal'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['SIGN_IN_MAX_FAILURES', '0'],
    ['SSE_MAX_CONNECTIONS_PER_USER', 'lots'],
    ['AGENTS_RATE_LIMIT_PER_MINUTE', '-1'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(() => parseSecuritySettings({ [name]: value })).toThrow(new RegExp(`Invalid settings: .*${name}`));
  });
});

describe('CSV export neutralises formulas (OWASP CSV injection)', () => {
  const entry = (reason: string): AuditEntry => ({
    id: 'd1',
    at: '2026-12-01T00:00:00.000Z',
    actorId: 'reviewer-rita',
    actorEmail: 'rita@example.com',
    actorRole: 'reviewer',
    kind: 'decline',
    approved: false,
    reason,
    toolName: 'send-email',
    agentId: 'ops-agent',
    chain: [],
    runId: 'r1',
    toolCallId: 'c1',
    threadId: 't1',
    requester: 'user-ada',
    requesterEmail: 'ada@example.com',
    fingerprint: 'f',
    args: { subject: '=HYPERLINK("http://evil.example")' },
    editedArgs: null,
    editedFingerprint: null,
    resumeData: null,
  });

  it.each(['=', '+', '-', '@', '\t', '\r', '\uFF1D'])('a cell starting with %j gets a leading apostrophe', (lead) => {
    const payload = `${lead}cmd|' /C calc'!A0`;
    const csv = auditCsv([entry(payload)]);
    const [header] = csv.split('\r\n');
    expect(header).toBe(
      'at,actorId,actorRole,kind,approved,reason,toolName,agentId,requester,runId,toolCallId,fingerprint,args,editedArgs,editedFingerprint,resumeData,actorEmail,requesterEmail',
    );
    // Quoted (RFC 4180: quotes doubled), prefixed with ': the spreadsheet shows text, runs nothing.
    expect(csv).toContain(`"'${payload.replaceAll('"', '""')}"`);
    expect(csv).not.toContain(`,"${payload.replaceAll('"', '""')}"`);
  });

  it('harmless cells are unchanged; JSON cells start with a brace', () => {
    const csv = auditCsv([entry('not to b')]);
    expect(csv).toContain('"not to b"');
    expect(csv).toContain('"{""subject"":""=HYPERLINK(\\""http://evil.example\\"")""}"');
  });
});

describe('direction controls in untrusted text', () => {
  const tricky = 'invoice\u202Efdp.exe';

  it('are shown as markers instead of obeyed, wherever the UI renders values', () => {
    expect(revealBidi(tricky)).toBe('invoice⟪U+202E⟫fdp.exe');
    expect(formatValue(tricky)).toBe('invoice⟪U+202E⟫fdp.exe');
    expect(formatValue({ name: tricky })).toContain('⟪U+202E⟫');
    expect(summarizeArgs({ ['k\u2066']: tricky })).toBe('k⟪U+2066⟫: invoice⟪U+202E⟫fdp.exe');
    expect(personName('u1', { u1: { name: 'Ada\u202E', email: 'mallory@example.com' } })).toBe('Ada⟪U+202E⟫ (mallory@example.com)');
  });

  it('are detected in nested values and keys', () => {
    expect(hasBidiControls({ a: [{ b: tricky }] })).toBe(true);
    expect(hasBidiControls({ ['\u200F']: 1 })).toBe(true);
    expect(hasBidiControls({ a: ['plain', 'عربى'] })).toBe(false);
  });
});
