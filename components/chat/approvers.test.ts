import { describe, expect, it } from 'vitest';
import { deciderIds, decidersText, listParts } from './approvers';

const people = {
  'reviewer-rita': { name: 'Rita', email: 'rita@example.com' },
  'reviewer-sam': { name: 'Sam', email: 'sam@example.com' },
};
const at = '2026-01-01T10:00:00.000Z';

describe('deciderIds / decidersText', () => {
  it('names every approver of an approved quorum call, earlier votes first, each once', () => {
    const data = { quorum: 2, approvedBy: ['reviewer-rita', 'reviewer-sam'], decision: { approved: true, by: 'reviewer-sam', at } };
    expect(deciderIds(data)).toEqual(['reviewer-rita', 'reviewer-sam']);
    expect(decidersText(data, people)).toBe('Rita (rita@example.com) and Sam (sam@example.com)');
    expect(decidersText(data, people, 'reviewer-rita')).toBe('you and Sam (sam@example.com)');
  });

  it('adds the approval that filled the quorum when the card still holds the votes before it', () => {
    const data = { quorum: 2, approvedBy: ['reviewer-rita'], decision: { approved: true, by: 'reviewer-sam', at } };
    expect(deciderIds(data)).toEqual(['reviewer-rita', 'reviewer-sam']);
  });

  it('names only the decider of a declined quorum call and of an ordinary call', () => {
    expect(deciderIds({ quorum: 2, approvedBy: ['reviewer-rita'], decision: { approved: false, by: 'reviewer-sam', at } })).toEqual(['reviewer-sam']);
    expect(decidersText({ decision: { approved: true, by: 'reviewer-rita', at } }, people)).toBe('Rita (rita@example.com)');
  });

  it('names nobody while the call waits', () => {
    expect(deciderIds({ quorum: 2, approvedBy: ['reviewer-rita'] })).toEqual([]);
    expect(decidersText({}, people)).toBe('someone');
  });
});

describe('listParts', () => {
  it('splits an English list into its items and the words between them', () => {
    expect(listParts(['a', 'b', 'c'])).toEqual([
      { type: 'element', value: 'a' },
      { type: 'literal', value: ', ' },
      { type: 'element', value: 'b' },
      { type: 'literal', value: ', and ' },
      { type: 'element', value: 'c' },
    ]);
  });
});
