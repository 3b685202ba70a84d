import { describe, expect, it } from 'vitest';
import {
  callTitle,
  describeToolCall,
  formatJson,
  formatValue,
  hasBidiControls,
  personName,
  policyText,
  questionText,
  revealBidi,
  shortFingerprint,
  summarizeArgs,
} from './describe';

describe('describeToolCall', () => {
  it('says "Runs <tool> with <args>" for any tool (tools describe themselves on the server)', () => {
    expect(describeToolCall('archive', { id: 'a', force: true })).toBe('Runs archive with id: a, force: true');
    expect(describeToolCall('delete-record', { id: '  ' })).toBe('Runs delete-record with id:   ');
    expect(describeToolCall('issue-refund', { orderId: 'ord-1', amount: Number.NaN })).toBe('Runs issue-refund with orderId: ord-1, amount: NaN');
    expect(describeToolCall('ping', undefined)).toBe('Runs ping');
    expect(describeToolCall('ping', 'now')).toBe('Runs ping with now');
  });

  it('prefers the title the tool gave (callTitle), direction controls shown', () => {
    expect(callTitle({ toolName: 'delete-record', args: { id: 'rec-42' }, description: { title: 'Deletes record rec-42' } })).toBe('Deletes record rec-42');
    expect(callTitle({ toolName: 'x', args: {}, description: { title: 'a\u202Eb' } })).toBe('a⟪U+202E⟫b');
    expect(callTitle({ toolName: 'ping', args: undefined, description: null })).toBe('Runs ping');
  });
});

describe('summarizeArgs / formatValue', () => {
  it('renders values on one line, strings unquoted at the top', () => {
    expect(formatValue(undefined)).toBe('—');
    expect(formatValue('text')).toBe('text');
    expect(formatValue(null)).toBe('null');
    expect(formatValue(false)).toBe('false');
    expect(formatValue({ a: ['x', 1] })).toBe('{"a":["x",1]}');
  });

  it('cuts the summary to max characters with an ellipsis', () => {
    expect(summarizeArgs({ note: 'abcdefghij' }, 10)).toBe('note: abc…');
    expect(summarizeArgs({ note: 'abcd' }, 10)).toBe('note: abcd');
    expect(summarizeArgs({ note: 'x'.repeat(100) })).toHaveLength(80);
    expect(summarizeArgs([1, 2])).toBe('[1,2]');
    expect(summarizeArgs(null)).toBe('');
  });
});

describe('personName / questionText / shortFingerprint / policyText', () => {
  it('names the viewer "you", others by display name or id, nobody "someone"', () => {
    const people = { rita: { name: 'Rita Levi', email: null } };
    expect(personName('rita', people, 'rita')).toBe('you');
    expect(personName('rita', people, 'ada')).toBe('Rita Levi');
    expect(personName('bob', people)).toBe('bob');
    expect(personName(null, people)).toBe('someone');
  });

  it('finds the question of a suspend payload', () => {
    expect(questionText('Which city?')).toBe('Which city?');
    expect(questionText({ question: 'Which city?' })).toBe('Which city?');
    expect(questionText({ prompt: ' ', reason: 'Need a city' })).toBe('Need a city');
    expect(questionText({ other: 'x' })).toBeUndefined();
  });

  it('shows the first 8 hex digits of a fingerprint', () => {
    expect(shortFingerprint('0123456789abcdef')).toBe('01234567');
    expect(shortFingerprint('sha256:fedcba9876543210')).toBe('fedcba98');
  });

  it('words each approval reason code', () => {
    expect(policyText('tool')).toBe('The tool always asks');
    expect(policyText('request')).toBe('The request asked for approval');
    expect(policyText('agent-default')).toBe('The agent’s default');
    expect(policyText('policy-error')).toBe('Policy failed, so approval is required');
    expect(policyText('custom')).toBe('custom');
  });
});

describe('people are named with their email', () => {
  it('puts the email beside the display name (names are free text, emails unique)', () => {
    const people = { mallory: { name: 'Ada', email: 'mallory@example.com' } };
    expect(personName('mallory', people)).toBe('Ada (mallory@example.com)');
    expect(personName('mallory', people, 'mallory')).toBe('you');
  });
});

describe('Unicode direction controls in untrusted text', () => {
  const tricky = 'invoice\u202Efdp.exe';

  it('are shown as markers instead of obeyed, wherever values are rendered', () => {
    expect(revealBidi(tricky)).toBe('invoice⟪U+202E⟫fdp.exe');
    expect(formatValue(tricky)).toBe('invoice⟪U+202E⟫fdp.exe');
    expect(formatValue({ name: tricky })).toContain('⟪U+202E⟫');
    expect(formatJson({ name: tricky })).toBe('{\n  "name": "invoice⟪U+202E⟫fdp.exe"\n}');
    expect(summarizeArgs({ ['k\u2066']: tricky })).toBe('k⟪U+2066⟫: invoice⟪U+202E⟫fdp.exe');
    expect(describeToolCall('send-email', { to: 'a@example.com', subject: tricky })).toContain('⟪U+202E⟫');
    expect(questionText({ question: `Which \u202Bcity?` })).toBe('Which ⟪U+202B⟫city?');
    expect(personName('u1', { u1: { name: 'Ada\u202E', email: 'mallory@example.com' } })).toBe('Ada⟪U+202E⟫ (mallory@example.com)');
  });

  it('are found in nested values and keys, and plain right-to-left text is left alone', () => {
    expect(hasBidiControls({ a: [{ b: tricky }] })).toBe(true);
    expect(hasBidiControls({ ['\u200F']: 1 })).toBe(true);
    expect(hasBidiControls({ a: ['plain', 'عربى'] })).toBe(false);
    expect(revealBidi('שלום')).toBe('שלום');
  });
});
