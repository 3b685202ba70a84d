import { describe, expect, it } from 'vitest';
import { approvalCount, approvalLabel, deciderIds, decidersText, listParts, quorumProgress } from './approvers';

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

describe('quorumProgress', () => {
  it('counts a waiting quorum call’s approvals and names who approved so far, the viewer as "you"', () => {
    const data = { quorum: 2, approvals: 1, approvedBy: ['reviewer-rita'] };
    expect(quorumProgress(data, people)).toEqual({
      count: '1 of 2 approvals.',
      detail: '2 different reviewers must approve this action (so far: Rita (rita@example.com)).',
    });
    expect(quorumProgress(data, people, 'reviewer-rita')?.detail).toBe('2 different reviewers must approve this action (so far: you).');
  });

  it('says nobody approved yet, and nothing for a call without a quorum', () => {
    expect(quorumProgress({ quorum: 3, approvals: 0, approvedBy: [] }, people)).toEqual({ count: '0 of 3 approvals.', detail: '3 different reviewers must approve this action.' });
    expect(quorumProgress({ quorum: 2, approvedBy: ['reviewer-rita'] }, people)?.count).toBe('1 of 2 approvals.');
    expect(quorumProgress({}, people)).toBeNull();
  });
});

describe('approvalCount / approvalLabel', () => {
  const call = { quorum: 3, approvedBy: ['reviewer-rita', 'reviewer-sam', 'admin-alex'] };

  it('places each vote by the order of the call’s approvals', () => {
    expect(approvalCount({ ...call, kind: 'vote', actorId: 'reviewer-rita' })).toEqual({ count: 1, quorum: 3 });
    expect(approvalLabel({ ...call, kind: 'vote', actorId: 'reviewer-sam' })).toBe('Approved (2 of 3)');
  });

  it('counts everyone who approved for the approval that filled the quorum', () => {
    expect(approvalLabel({ ...call, kind: 'approval', actorId: 'admin-alex' })).toBe('Approved (3 of 3)');
    // A call that holds only the votes before it still counts its author.
    expect(approvalLabel({ quorum: 2, approvedBy: ['reviewer-rita'], kind: 'approval', actorId: 'reviewer-sam' })).toBe('Approved (2 of 2)');
  });

  it('leaves other approvals and decisions without a count', () => {
    expect(approvalLabel({ kind: 'approval', actorId: 'reviewer-rita' })).toBe('Approved');
    expect(approvalLabel({ kind: 'approval', actorId: 'reviewer-rita', quorum: null, approvedBy: [] }, 'Approved with edits')).toBe('Approved with edits');
    expect(approvalCount({ ...call, kind: 'decline', actorId: 'reviewer-rita' })).toBeNull();
    // A vote the call does not list cannot be placed.
    expect(approvalLabel({ ...call, kind: 'vote', actorId: 'reviewer-ben' })).toBe('Approved (vote)');
  });
});
