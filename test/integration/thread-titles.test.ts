import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, newThreadId } from '../support/harness';

// Titles are set by the store's one-statement run start (SQL), so they are tested against PostgreSQL.
describe('thread titles', () => {
  let runtime: Awaited<ReturnType<typeof createRuntime>>;
  beforeAll(async () => {
    runtime = await createRuntime();
  });
  afterAll(async () => {
    await runtime.close();
  });

  const start = async (resourceId: string, text: string) => {
    const threadId = newThreadId();
    await runtime.agent.generate(text, { threadId, resourceId });
    const thread = await runtime.db.thread.findUniqueOrThrow({ where: { id: threadId } });
    return { threadId, title: thread.title };
  };

  it('numbers a repeated first request (2), (3) per owner, fills gaps, and ignores deleted threads', async () => {
    const owner = `titles-${crypto.randomUUID()}`;
    const first = await start(owner, '  look up   customer cus-1 ');
    expect(first.title).toBe('look up customer cus-1');
    expect((await start(owner, 'look up customer cus-1')).title).toBe('look up customer cus-1 (2)');
    const third = await start(owner, 'look up customer cus-1');
    expect(third.title).toBe('look up customer cus-1 (3)');
    // Someone else's threads do not count.
    expect((await start(`other-${crypto.randomUUID()}`, 'look up customer cus-1')).title).toBe('look up customer cus-1');
    // A freed number is used again; a deleted thread's title is free.
    await runtime.db.thread.update({ where: { id: third.threadId }, data: { deletedAt: new Date() } });
    expect((await start(owner, 'look up customer cus-1')).title).toBe('look up customer cus-1 (3)');
    // A later message in an existing thread keeps its title.
    await runtime.agent.generate('look up customer cus-2', { threadId: first.threadId, resourceId: owner });
    expect((await runtime.db.thread.findUniqueOrThrow({ where: { id: first.threadId } })).title).toBe('look up customer cus-1');
  });

  it('treats %, _ and \\ in a title literally', async () => {
    const owner = `titles-${crypto.randomUUID()}`;
    expect((await start(owner, 'look up customer 100%_a\\b')).title).toBe('look up customer 100%_a\\b');
    // Titles that only match as a LIKE pattern are not repeats.
    expect((await start(owner, 'look up customer 100xya\\b')).title).toBe('look up customer 100xya\\b');
    expect((await start(owner, 'look up customer 100%_a\\b')).title).toBe('look up customer 100%_a\\b (2)');
  });

  it('a deleted thread cannot be continued', async () => {
    const owner = `titles-${crypto.randomUUID()}`;
    const { threadId } = await start(owner, 'look up customer cus-3');
    await runtime.db.thread.update({ where: { id: threadId }, data: { deletedAt: new Date() } });
    const [messages, runs] = [await runtime.db.message.count({ where: { threadId } }), await runtime.db.run.count({ where: { threadId } })];
    await expect(runtime.agent.generate('look up customer cus-3', { threadId, resourceId: owner })).rejects.toThrow(/deleted/);
    expect(await runtime.db.message.count({ where: { threadId } })).toBe(messages);
    expect(await runtime.db.run.count({ where: { threadId } })).toBe(runs);
  });
});
