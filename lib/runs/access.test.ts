import { describe, expect, it } from 'vitest';
import { checkRunAccess, mayReachRun, ownsThread, reachableRuns } from './access';

describe('the access rule', () => {
  const ada = { id: 'user-ada', role: 'user' as const };
  const rita = { id: 'user-rita', role: 'reviewer' as const };

  it('a thread is its owner’s alone, whatever their role, and a deleted thread is nobody’s', () => {
    expect(ownsThread({ resourceId: 'user-ada', deletedAt: null }, ada)).toBe(true);
    expect(ownsThread({ resourceId: 'user-ada', deletedAt: null }, rita)).toBe(false);
    expect(ownsThread({ resourceId: 'user-ada', deletedAt: new Date() }, ada)).toBe(false);
  });

  it('a run is reachable by its resource and by reviewers and admins', () => {
    expect(mayReachRun({ resourceId: 'user-ada' }, ada)).toBe(true);
    expect(mayReachRun({ resourceId: 'user-ben' }, ada)).toBe(false);
    expect(mayReachRun({ resourceId: 'user-ben' }, rita)).toBe(true);
    expect(mayReachRun({ resourceId: 'user-ben' }, { id: 'user-alex', role: 'admin' })).toBe(true);
  });

  it('run listings are narrowed to the end user’s own runs, whatever they ask for', () => {
    expect(reachableRuns({ resourceId: 'user-ben', page: 1 }, ada)).toEqual({ resourceId: 'user-ada', page: 1 });
    expect(reachableRuns({ resourceId: 'user-ben' }, rita)).toEqual({ resourceId: 'user-ben' });
  });

  it('the run rule on a row read already: top-level, reachable, and of the named thread; anything else is 404 NO_SNAPSHOT_FOUND', () => {
    const run = { agentId: 'ops-agent', threadId: 'thread-1', resourceId: 'user-ada', parentRunId: null };
    expect(checkRunAccess(run, 'run-1', ada, 'thread-1')).toEqual({ agentId: 'ops-agent', threadId: 'thread-1' });
    expect(checkRunAccess({ ...run, resourceId: 'user-ben' }, 'run-1', rita)).toEqual({ agentId: 'ops-agent', threadId: 'thread-1' });
    const refused = { status: 404, code: 'NO_SNAPSHOT_FOUND' };
    expect(() => checkRunAccess(null, 'run-1', ada)).toThrow(expect.objectContaining(refused));
    expect(() => checkRunAccess({ ...run, resourceId: 'user-ben' }, 'run-1', ada)).toThrow(expect.objectContaining(refused));
    expect(() => checkRunAccess({ ...run, parentRunId: 'run-0' }, 'run-1', ada)).toThrow(expect.objectContaining(refused));
    expect(() => checkRunAccess(run, 'run-1', ada, 'thread-2')).toThrow(expect.objectContaining(refused));
  });
});
