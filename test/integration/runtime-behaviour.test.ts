import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentError } from '../../lib/agent/errors';
import { createTool } from '../../lib/agent/tool';
import { collect, createRuntime, newThreadId, only } from '../support/harness';
import { RecordingModel } from '../support/recording-model';

const user = { id: 'user-ada', role: 'user' as const };
const reviewer = { id: 'reviewer-rita', role: 'reviewer' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** Tools that count their executions in memory (the counts are what the tests assert). */
function countingTools() {
  const executions: Record<string, unknown[]> = {};
  const record = (name: string, input: unknown) => {
    (executions[name] ??= []).push(input);
  };
  const tools = [
    createTool({
      id: 'free',
      description: 'needs no approval',
      inputSchema: z.object({ n: z.number() }),
      execute: (input) => {
        record('free', input);
        return { ok: input.n };
      },
    }),
    createTool({
      id: 'gated',
      description: 'needs approval',
      inputSchema: z.object({ n: z.number() }),
      requireApproval: true,
      execute: (input) => {
        record('gated', input);
        return { ok: input.n };
      },
    }),
    createTool({
      id: 'maybe',
      description: 'needs approval above 10',
      inputSchema: z.object({ n: z.number() }),
      requireApproval: ({ n }) => n > 10,
      execute: (input) => {
        record('maybe', input);
        return { ok: input.n };
      },
    }),
    createTool({
      id: 'ask',
      description: 'asks for a code until it is "ok"',
      inputSchema: z.object({ label: z.string() }),
      suspendSchema: z.object({ message: z.string() }),
      resumeSchema: z.object({ code: z.string().min(1) }),
      execute: (input, { agent }) => {
        record('ask', { ...input, resumeData: agent.resumeData });
        if (!agent.resumeData) return agent.suspend({ message: `Code for ${input.label}?` });
        if (agent.resumeData.code !== 'ok') return agent.suspend({ message: `Wrong code for ${input.label}, again?` });
        return { label: input.label, accepted: true };
      },
    }),
  ];
  return { tools, executions };
}

async function setup(options: Parameters<typeof createRuntime>[0] = {}) {
  const model = new RecordingModel();
  const { tools, executions } = countingTools();
  const rt = await createRuntime({ model, tools, ...options });
  closers.push(rt.close);
  return { ...rt, model, executions };
}

const toolLines = (...calls: [string, object][]) => calls.map(([name, args]) => `/tool ${name} ${JSON.stringify(args)}`).join('\n');

describe('approval policy', () => {
  it('applies a sync and an async request function with toolName, args and requestContext', async () => {
    const rt = await setup();
    const seen: unknown[] = [];
    const sync = await rt.agent.generate(toolLines(['free', { n: 1 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
      requestContext: { tenant: 'acme' },
      requireToolApproval: (call) => {
        seen.push(call);
        return call.toolName === 'free';
      },
    });
    expect(sync.finishReason).toBe('suspended');
    expect(seen).toEqual([{ toolName: 'free', args: { n: 1 }, requestContext: { tenant: 'acme' } }]);

    const asyncNo = await rt.agent.generate(toolLines(['free', { n: 2 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
      requireToolApproval: async () => false,
    });
    expect(asyncNo.finishReason).toBe('stop');
    expect(rt.executions.free).toEqual([{ n: 2 }]);
  });

  it('a request function that throws requires approval', async () => {
    const rt = await setup();
    const result = await rt.agent.generate(toolLines(['free', { n: 1 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
      requireToolApproval: () => {
        throw new Error('policy service down');
      },
    });
    expect(result.finishReason).toBe('suspended');
    expect(result.suspendedToolCalls[0]).toMatchObject({ toolName: 'free', requiresApproval: true });
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: result.runId } });
    expect(row.policy).toBe('policy-error');
    expect(rt.executions.free).toBeUndefined();
  });

  it("a tool's function adds approval but never removes one the request requires", async () => {
    const rt = await setup();
    const added = await rt.agent.generate(toolLines(['maybe', { n: 50 }]), { threadId: newThreadId(), resourceId: user.id });
    expect(added.finishReason).toBe('suspended');
    const kept = await rt.agent.generate(toolLines(['maybe', { n: 5 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
      requireToolApproval: true,
    });
    expect(kept.finishReason).toBe('suspended');
    expect(rt.executions.maybe).toBeUndefined();
  });

  it('a resumed run never re-evaluates the policy', async () => {
    const rt = await setup();
    let evaluations = 0;
    const paused = await rt.agent.generate(toolLines(['free', { n: 1 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
      requireToolApproval: () => {
        evaluations += 1;
        return true;
      },
    });
    expect(evaluations).toBe(1);
    const done = await rt.agent.approveToolCallGenerate({ runId: paused.runId, actor: user });
    expect(done.finishReason).toBe('stop');
    expect(evaluations).toBe(1);
    expect(rt.executions.free).toEqual([{ n: 1 }]);
  });
});

describe('parallel calls of one step', () => {
  it('runs the free call at once, keeps both approvals pending together, and continues once both are decided in reverse order', async () => {
    const rt = await setup();
    const threadId = newThreadId();
    const started = await rt.agent.stream(toolLines(['gated', { n: 1 }], ['free', { n: 2 }], ['maybe', { n: 99 }]), {
      threadId,
      resourceId: user.id,
    });
    const chunks = await collect(started.fullStream);
    expect(rt.executions.free).toEqual([{ n: 2 }]);
    const approvals = only(chunks, 'tool-call-approval');
    expect(approvals.map((chunk) => chunk.payload.toolName)).toEqual(['gated', 'maybe']);

    const listed = await rt.agent.listSuspendedRuns({ threadId });
    expect(listed.total).toBe(1);
    expect(listed.runs[0].toolCalls.map((call) => call.toolName).sort()).toEqual(['gated', 'maybe']);

    // Decide the second first: the run must keep waiting for the other.
    const first = await rt.agent.declineToolCallGenerate({
      runId: started.runId,
      toolCallId: approvals[1].payload.toolCallId,
      actor: user,
      reason: 'too big',
    });
    expect(first.finishReason).toBe('suspended');
    expect(first.text).toBe('');
    const second = await rt.agent.approveToolCallGenerate({
      runId: started.runId,
      toolCallId: approvals[0].payload.toolCallId,
      actor: user,
    });
    expect(second.finishReason).toBe('stop');
    expect(rt.executions.gated).toEqual([{ n: 1 }]);
    expect(rt.executions.maybe).toBeUndefined();

    // The model read all three results of the step, in the model's order.
    const lastStep = rt.model.prompts.at(-1)!.at(-1)!;
    expect(lastStep.role).toBe('tool');
    expect(lastStep.role === 'tool' && lastStep.content.map((part) => part.type === 'tool-result' && part.toolName)).toEqual([
      'gated',
      'free',
      'maybe',
    ]);
    expect(second.text).toContain('I did not run maybe: too big');
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('completed');
  });

  it('two parallel calls of the same tool that both suspend resume independently, in either order', async () => {
    const rt = await setup();
    const started = await rt.agent.generate(toolLines(['ask', { label: 'A' }], ['ask', { label: 'B' }]), {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    expect(started.suspendedToolCalls.map((call) => call.suspendPayload)).toEqual([
      { message: 'Code for A?' },
      { message: 'Code for B?' },
    ]);
    const [a, b] = started.suspendedToolCalls;
    const afterB = await rt.agent.resumeGenerate({ code: 'ok' }, { runId: started.runId, toolCallId: b.toolCallId, actor: user });
    expect(afterB.finishReason).toBe('suspended');
    const afterA = await rt.agent.resumeGenerate({ code: 'ok' }, { runId: started.runId, toolCallId: a.toolCallId, actor: user });
    expect(afterA.finishReason).toBe('stop');
    expect(afterA.text).toContain('"label":"A"');
    expect(afterA.text).toContain('"label":"B"');
  });
});

describe('decline', () => {
  it('the model reads that a person declined the call and it was NOT executed, with the reason or the default text when it is missing or blank', async () => {
    const rt = await setup();
    for (const [reason, expected] of [
      ['not today', 'not today'],
      [undefined, 'Tool call was not approved by the user'],
      ['   ', 'Tool call was not approved by the user'],
    ] as const) {
      const paused = await rt.agent.generate(toolLines(['gated', { n: 7 }]), { threadId: newThreadId(), resourceId: user.id });
      const done = await rt.agent.declineToolCallGenerate({ runId: paused.runId, actor: user, reason });
      const seen = rt.model.toolResultsSeen().at(-1)!;
      expect(seen.output).toEqual({ type: 'text', value: `A person declined this tool call, so it was NOT executed. Their reason: ${expected}` });
      expect(done.text).toContain(expected);
    }
    expect(rt.executions.gated).toBeUndefined();
  });
});

describe('which call', () => {
  it('omitting toolCallId works with one pending call and is ambiguous with two; nothing executes on errors', async () => {
    const rt = await setup();
    const two = await rt.agent.generate(toolLines(['gated', { n: 1 }], ['gated', { n: 2 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    const error = await rt.agent.approveToolCall({ runId: two.runId, actor: user }).catch((e: AgentError) => e);
    expect(error).toMatchObject({ code: 'AMBIGUOUS_TOOL_CALL', status: 409 });
    expect(rt.executions.gated).toBeUndefined();

    await rt.agent.approveToolCallGenerate({ runId: two.runId, toolCallId: two.suspendedToolCalls[0].toolCallId, actor: user });
    // One left: toolCallId may be omitted now.
    const done = await rt.agent.approveToolCallGenerate({ runId: two.runId, actor: user });
    expect(done.finishReason).toBe('stop');
    expect(rt.executions.gated).toEqual([{ n: 1 }, { n: 2 }]);

    const again = await rt.agent
      .approveToolCall({ runId: two.runId, toolCallId: two.suspendedToolCalls[0].toolCallId, actor: user })
      .catch((e: AgentError) => e);
    expect(again).toMatchObject({ code: 'ALREADY_DECIDED', status: 409, details: { status: 'completed' } });
    expect(rt.executions.gated).toHaveLength(2);
  });

  it('an already-decided call of a still-paused run is refused with the winning decision', async () => {
    const rt = await setup();
    const two = await rt.agent.generate(toolLines(['gated', { n: 1 }], ['gated', { n: 2 }]), {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    const toolCallId = two.suspendedToolCalls[0].toolCallId;
    await rt.agent.declineToolCallGenerate({ runId: two.runId, toolCallId, actor: user, reason: 'no' });
    const again = await rt.agent.approveToolCall({ runId: two.runId, toolCallId, actor: reviewer }).catch((e: AgentError) => e);
    expect(again).toMatchObject({ code: 'ALREADY_DECIDED', status: 409, details: { status: 'declined', decidedBy: user.id, reason: 'no' } });
    expect(rt.executions.gated).toBeUndefined();
  });
});

describe('chunks', () => {
  it('tool-call-resumed comes exactly once per cleared call, before its tool-result, and never when nothing was pending', async () => {
    const rt = await setup();
    const plain = await rt.agent.stream(toolLines(['free', { n: 1 }]), { threadId: newThreadId(), resourceId: user.id });
    expect(only(await collect(plain.fullStream), 'tool-call-resumed')).toHaveLength(0);

    const paused = await rt.agent.stream(toolLines(['gated', { n: 1 }]), { threadId: newThreadId(), resourceId: user.id });
    await collect(paused.fullStream);
    const cont = await rt.agent.approveToolCall({ runId: paused.runId, actor: user });
    const chunks = await collect(cont.fullStream);
    const resumed = only(chunks, 'tool-call-resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0].payload).toMatchObject({ kind: 'approval', toolName: 'gated', args: { n: 1 }, decision: { approved: true, by: user.id } });
    expect(chunks.indexOf(resumed[0])).toBeLessThan(chunks.findIndex((chunk) => chunk.type === 'tool-result'));
    expect(chunks.every((chunk) => chunk.from === 'AGENT' && chunk.runId === paused.runId)).toBe(true);
  });
});

describe('resume data', () => {
  it('a tool that suspends again after a resume yields a new pending suspension', async () => {
    const rt = await setup();
    const paused = await rt.agent.generate(toolLines(['ask', { label: 'X' }]), { threadId: newThreadId(), resourceId: user.id });
    const wrong = await rt.agent.resumeGenerate({ code: 'nope' }, { runId: paused.runId, actor: user });
    expect(wrong.finishReason).toBe('suspended');
    expect(wrong.suspendPayload).toEqual({ message: 'Wrong code for X, again?' });
    const rows = await rt.db.pendingToolCall.findMany({ where: { runId: paused.runId }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((row) => row.status)).toEqual(['superseded', 'pending']);
    const refused = await rt.agent.resumeStream({ code: '' }, { runId: paused.runId, actor: user }).catch((e: AgentError) => e);
    expect(refused).toMatchObject({ code: 'INVALID_RESUME_DATA' });
    const extra = await rt.agent.resumeStream({ code: 'ok', cod: 'ok' }, { runId: paused.runId, actor: user }).catch((e: AgentError) => e);
    expect(extra).toMatchObject({ code: 'INVALID_RESUME_DATA', details: [{ code: 'unrecognized_keys', keys: ['cod'], path: [] }] });
    const right = await rt.agent.resumeGenerate({ code: 'ok' }, { runId: paused.runId, actor: user });
    expect(right.finishReason).toBe('stop');
    expect(right.text).toContain('"accepted":true');
  });
});

describe('fingerprint and edit', () => {
  it('a wrong fingerprint is refused; edited args are validated, executed, and audited with both versions', async () => {
    const rt = await setup();
    const paused = await rt.agent.generate(toolLines(['gated', { n: 1 }]), { threadId: newThreadId(), resourceId: user.id });
    const mismatch = await rt.agent
      .approveToolCall({ runId: paused.runId, actor: reviewer, fingerprint: '0'.repeat(64) })
      .catch((e: AgentError) => e);
    expect(mismatch).toMatchObject({ code: 'FINGERPRINT_MISMATCH', status: 409 });
    const invalid = await rt.agent
      .approveToolCall({ runId: paused.runId, actor: reviewer, args: { n: 'three' } })
      .catch((e: AgentError) => e);
    expect(invalid).toMatchObject({ code: 'INVALID_ARGS', status: 422 });
    expect(rt.executions.gated).toBeUndefined();
    // A field the tool does not take is refused, not silently dropped (zod strips unknown keys).
    const misspelt = await rt.agent
      .approveToolCall({ runId: paused.runId, actor: reviewer, args: { n: 1, m: 3 } })
      .catch((e: AgentError) => e);
    expect(misspelt).toMatchObject({ code: 'INVALID_ARGS', status: 422, message: expect.stringContaining('$.m'), details: [{ code: 'unrecognized_keys', keys: ['m'], path: [] }] });
    // Misspelt without the right one: the missing field and the unknown one are both named.
    const instead = await rt.agent.approveToolCall({ runId: paused.runId, actor: reviewer, args: { m: 3 } }).catch((e: AgentError) => e);
    expect(instead).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining('$.m') });
    expect((instead as AgentError).details).toEqual([expect.objectContaining({ path: ['n'] }), expect.objectContaining({ code: 'unrecognized_keys', keys: ['m'] })]);
    expect(rt.executions.gated).toBeUndefined();

    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: paused.runId } });
    const approved = await rt.agent.approveToolCall({ runId: paused.runId, actor: reviewer, fingerprint: row.fingerprint, args: { n: 3 } });
    const [resumed] = only(await collect(approved.fullStream), 'tool-call-resumed');
    // The requester's card shows the edited args and what they first asked for.
    expect(resumed.payload).toMatchObject({ args: { n: 3 }, decision: { approved: true, editedFrom: { n: 1 } } });
    const done = { finishReason: await approved.finishReason };
    expect(done.finishReason).toBe('stop');
    expect(rt.executions.gated).toEqual([{ n: 3 }]);
    const decision = await rt.db.decision.findFirstOrThrow({ where: { runId: paused.runId } });
    expect(decision).toMatchObject({ args: { n: 1 }, editedArgs: { n: 3 }, fingerprint: row.fingerprint, actorId: reviewer.id });
    expect(decision.editedFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(decision.editedFingerprint).not.toBe(row.fingerprint);
  });
});

describe('auto-resume', () => {
  it('"what\'s the weather?" then "Paris" completes the weather call and leaves nothing pending', async () => {
    const rt = await createRuntime({ defaultOptions: { autoResumeSuspendedTools: true } });
    closers.push(rt.close);
    const threadId = newThreadId();
    const asked = await rt.agent.generate("what's the weather?", { threadId, resourceId: user.id });
    expect(asked.finishReason).toBe('suspended');
    const answered = await rt.agent.generate('Paris', { threadId, resourceId: user.id });
    expect(answered.runId).toBe(asked.runId);
    expect(answered.finishReason).toBe('stop');
    expect(answered.text).toContain('Weather in Paris');
    expect(await rt.db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(0);
    expect((await rt.agent.listSuspendedRuns({ threadId })).total).toBe(0);
  });

  it('a pending approval is not resumed by "yes"', async () => {
    const rt = await createRuntime({ defaultOptions: { autoResumeSuspendedTools: true } });
    closers.push(rt.close);
    const threadId = newThreadId();
    await rt.db.record.upsert({ where: { id: 'rec-30' }, create: { id: 'rec-30', title: 't', body: 'b' }, update: {} });
    const asked = await rt.agent.generate('delete record rec-30', { threadId, resourceId: user.id });
    expect(asked.finishReason).toBe('suspended');
    const reply = await rt.agent.generate('yes', { threadId, resourceId: user.id });
    expect(reply.runId).not.toBe(asked.runId);
    expect(await rt.db.record.count({ where: { id: 'rec-30' } })).toBe(1);
    expect(await rt.db.pendingToolCall.count({ where: { runId: asked.runId, status: 'pending' } })).toBe(1);
  });
});

describe('hooks and lifecycle', () => {
  it('beforeToolCall returning { proceed: false, output } skips execution and the model receives output', async () => {
    const rt = await setup({
      hooks: { beforeToolCall: ({ toolName }) => (toolName === 'free' ? { proceed: false, output: { blocked: 'by hook' } } : undefined) },
    });
    const result = await rt.agent.generate(toolLines(['free', { n: 1 }]), { threadId: newThreadId(), resourceId: user.id });
    expect(rt.executions.free).toBeUndefined();
    expect(rt.model.toolResultsSeen().at(-1)!.output).toEqual({ type: 'json', value: { blocked: 'by hook' } });
    expect(result.text).toContain('by hook');
  });

  it('a completed run keeps no resume state and resuming it is NO_SNAPSHOT_FOUND', async () => {
    const rt = await setup();
    const paused = await rt.agent.generate(toolLines(['ask', { label: 'L' }]), { threadId: newThreadId(), resourceId: user.id });
    await rt.agent.resumeGenerate({ code: 'ok' }, { runId: paused.runId, actor: user });
    const run = await rt.db.run.findUniqueOrThrow({ where: { id: paused.runId } });
    expect(run.status).toBe('completed');
    expect(run.state).toBeNull();
    await expect(rt.agent.resumeStream({ code: 'ok' }, { runId: paused.runId, actor: user })).rejects.toMatchObject({
      code: 'NO_SNAPSHOT_FOUND',
    });
    await expect(rt.agent.resumeStream({ code: 'ok' }, { runId: 'no-such-run', actor: user })).rejects.toMatchObject({
      code: 'NO_SNAPSHOT_FOUND',
    });
  });
});
