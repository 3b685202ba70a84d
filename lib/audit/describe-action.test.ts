import { describe, expect, it } from 'vitest';
import { describeAdminAction } from './describe-action';

const people = { 'user-alex': { name: 'Alex Admin', email: 'alex@example.com' }, 'user-ben': { name: 'Ben', email: 'ben@example.com' } };

describe('describeAdminAction', () => {
  it('names who changed which policy rule, between which versions', () => {
    const text = describeAdminAction(
      {
        action: 'policy.changed',
        actorId: 'user-alex',
        targetType: 'policy_version',
        targetId: '4',
        details: { fromVersion: 3, toVersion: 4, changed: [{ id: 'refunds-over-100', name: 'Large refunds' }], added: [], removed: [{ id: 'x', name: 'Old' }], reordered: false },
      },
      people,
    );
    expect(text).toBe('Alex Admin changed the approval policies from version 3 to 4: changed “Large refunds” (refunds-over-100); removed “Old” (x)');
  });

  it('names the target person of user changes, and ids it cannot name as they are', () => {
    expect(describeAdminAction({ action: 'user.role_changed', actorId: 'user-alex', targetType: 'user', targetId: 'user-ben', details: { from: 'user', to: 'reviewer' } }, people)).toBe(
      'Alex Admin changed the role of Ben from user to reviewer',
    );
    const deactivated = { action: 'user.deactivated', actorId: 'user-alex', targetType: 'user', targetId: 'user-ben' };
    expect(describeAdminAction({ ...deactivated, details: { keysRevoked: 1, assignmentsReleased: 2 } }, people)).toBe('Alex Admin deactivated Ben (1 API key revoked, 2 assigned calls released)');
    expect(describeAdminAction({ ...deactivated, details: { keysRevoked: 0 } }, people)).toBe('Alex Admin deactivated Ben (0 API keys revoked)');
    expect(describeAdminAction({ action: 'webhook.secret_rotated', actorId: 'user-alex', targetType: 'webhook_endpoint', targetId: 'wh-1', details: {} }, people)).toBe(
      'Alex Admin rotated the secret of the webhook endpoint wh-1',
    );
    expect(describeAdminAction({ action: 'auth.signed_in', actorId: 'user-zed', targetType: 'user', targetId: 'user-zed', details: {} }, people)).toBe('user-zed signed in');
    expect(describeAdminAction({ action: 'auth.password_changed', actorId: 'user-ben', targetType: 'user', targetId: 'user-ben', details: { otherSessionsSignedOut: true } }, people)).toBe(
      'Ben changed their password',
    );
    expect(describeAdminAction({ action: 'auth.password_changed', actorId: 'user-ben', targetType: 'user', targetId: 'user-ben', details: { otherSessionsSignedOut: false } }, people)).toBe(
      'Ben changed their password (other sessions kept)',
    );
  });
});
