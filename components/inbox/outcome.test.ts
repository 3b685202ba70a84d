import { describe, expect, it } from 'vitest';
import { outcomeOf } from './outcome';

const decision = { editedArgs: null, actorRole: 'reviewer', actorId: 'reviewer-rita', quorum: null, approvedBy: [] };

describe('outcomeOf', () => {
  it('counts a quorum vote and the approval that filled the quorum, as the audit thread view does', () => {
    const call = { quorum: 2, approvedBy: ['reviewer-rita', 'reviewer-sam'] };
    expect(outcomeOf({ ...decision, ...call, kind: 'vote' })).toEqual({ label: 'Approved (1 of 2)', tone: 'success' });
    expect(outcomeOf({ ...decision, ...call, kind: 'approval', actorId: 'reviewer-sam' })).toEqual({ label: 'Approved (2 of 2)', tone: 'success' });
    // A vote on a call that is still waiting (or was declined later) keeps its place.
    expect(outcomeOf({ ...decision, quorum: 2, approvedBy: ['reviewer-rita'], kind: 'vote' }).label).toBe('Approved (1 of 2)');
  });

  it('labels every other decision as before', () => {
    expect(outcomeOf({ ...decision, kind: 'approval' })).toEqual({ label: 'Approved', tone: 'success' });
    expect(outcomeOf({ ...decision, kind: 'approval', editedArgs: { amount: 1 } }).label).toBe('Approved with edits');
    expect(outcomeOf({ ...decision, kind: 'decline' })).toEqual({ label: 'Declined', tone: 'danger' });
    expect(outcomeOf({ ...decision, kind: 'decline', actorRole: 'system' }).label).toBe('Declined at deadline');
    expect(outcomeOf({ ...decision, kind: 'resume' })).toEqual({ label: 'Answered', tone: 'neutral' });
    expect(outcomeOf({ ...decision, kind: 'escalation' })).toEqual({ label: 'Escalated to admins', tone: 'neutral' });
  });
});
