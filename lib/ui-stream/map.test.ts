import { uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AgentChunk, ChunkPayloads, ChunkType } from '@/lib/agent/chunks';
import { toUIChunks, uiChunkTransform } from './map';

const RUN = 'run-1';
const chunk = <T extends ChunkType>(type: T, payload: ChunkPayloads[T], runId = RUN) => ({ type, runId, from: 'AGENT', payload }) as AgentChunk;

const approval = chunk('tool-call-approval', {
  toolCallId: 'call-1',
  toolName: 'delete-record',
  args: { id: 'rec-12' },
  resumeSchema: '{"type":"object"}',
  fingerprint: 'f'.repeat(64),
  policy: 'tool',
  approvers: 'reviewer',
  chain: ['support', 'records'],
  leafToolCallId: 'leaf-1',
});

const suspension = chunk('tool-call-suspended', {
  toolCallId: 'call-2',
  toolName: 'ask-city',
  args: { topic: 'weather' },
  suspendPayload: { question: 'Which city?' },
  resumeSchema: '{"type":"object","properties":{"city":{"type":"string"}}}',
  chain: ['support'],
  leafToolCallId: 'leaf-2',
});

describe('toUIChunks', () => {
  it('maps the run and step frame to start, start-step, finish-step and finish', () => {
    expect(toUIChunks(chunk('start', { messageId: 'msg-1', threadId: 'thread-1' }))).toStrictEqual([{ type: 'start', messageId: 'msg-1' }]);
    expect(toUIChunks(chunk('step-start', { step: 0 }))).toStrictEqual([{ type: 'start-step' }]);
    expect(toUIChunks(chunk('step-finish', { step: 0, finishReason: 'tool-calls' }))).toStrictEqual([{ type: 'finish-step' }]);
    expect(toUIChunks(chunk('finish', { finishReason: 'suspended' }))).toStrictEqual([{ type: 'finish' }]);
  });

  it('maps text to text-start, text-delta (delta = the text) and text-end with the same id', () => {
    expect(toUIChunks(chunk('text-start', { id: 'text-1' }))).toStrictEqual([{ type: 'text-start', id: 'text-1' }]);
    expect(toUIChunks(chunk('text-delta', { id: 'text-1', text: 'Hello, ' }))).toStrictEqual([{ type: 'text-delta', id: 'text-1', delta: 'Hello, ' }]);
    expect(toUIChunks(chunk('text-end', { id: 'text-1' }))).toStrictEqual([{ type: 'text-end', id: 'text-1' }]);
  });

  it('maps tool calls, results and errors to the standard tool parts', () => {
    expect(toUIChunks(chunk('tool-call', { toolCallId: 'call-1', toolName: 'get-weather', args: { city: 'Oslo' } }))).toStrictEqual([
      { type: 'tool-input-available', toolCallId: 'call-1', toolName: 'get-weather', input: { city: 'Oslo' } },
    ]);
    expect(toUIChunks(chunk('tool-result', { toolCallId: 'call-1', toolName: 'get-weather', args: { city: 'Oslo' }, result: { tempC: 4 } }))).toStrictEqual([
      { type: 'tool-output-available', toolCallId: 'call-1', output: { tempC: 4 } },
    ]);
    expect(toUIChunks(chunk('tool-error', { toolCallId: 'call-1', toolName: 'get-weather', args: { city: 'Oslo' }, error: 'upstream down' }))).toStrictEqual([
      { type: 'tool-output-error', toolCallId: 'call-1', errorText: 'upstream down' },
    ]);
  });

  it('maps a denial to tool-output-denied for the call', () => {
    const denied = chunk('tool-output-denied', {
      toolCallId: 'call-1',
      toolName: 'delete-record',
      args: { id: 'rec-12' },
      approval: { approved: false, reason: 'not now' },
    });
    expect(toUIChunks(denied)).toStrictEqual([{ type: 'tool-output-denied', toolCallId: 'call-1' }]);
  });

  it('maps an approval request to the approval card part, keyed by the call, with the top-level run id', () => {
    const card = {
      type: 'data-tool-call-approval',
      id: 'call-1',
      data: {
        runId: 'root-run',
        toolCallId: 'call-1',
        toolName: 'delete-record',
        args: { id: 'rec-12' },
        fingerprint: 'f'.repeat(64),
        approvers: 'reviewer',
        resumeSchema: '{"type":"object"}',
        chain: ['support', 'records'],
      },
    };
    expect(toUIChunks(approval, 'root-run')).toStrictEqual([card]);
    // Without a run id the chunk's own run is the one decisions go to.
    expect(toUIChunks(approval)).toStrictEqual([{ ...card, data: { ...card.data, runId: RUN } }]);
  });

  it('maps a suspension to the question card part', () => {
    expect(toUIChunks(suspension, 'root-run')).toStrictEqual([
      {
        type: 'data-tool-call-suspended',
        id: 'call-2',
        data: {
          runId: 'root-run',
          toolCallId: 'call-2',
          toolName: 'ask-city',
          args: { topic: 'weather' },
          suspendPayload: { question: 'Which city?' },
          resumeSchema: '{"type":"object","properties":{"city":{"type":"string"}}}',
          chain: ['support'],
        },
      },
    ]);
  });

  it('a resumed approval repeats the card part in full under the same type and id, with resumed: true and the decision', () => {
    const decision = { approved: true, by: 'rita', at: '2025-03-03T14:02:00.000Z', editedFrom: { id: 'rec-1' } };
    const resumed = chunk('tool-call-resumed', {
      toolCallId: 'call-1',
      toolName: 'delete-record',
      kind: 'approval',
      args: { id: 'rec-12' },
      resumeSchema: '{"type":"object"}',
      fingerprint: 'f'.repeat(64),
      approvers: 'reviewer',
      chain: ['support', 'records'],
      leafToolCallId: 'leaf-1',
      decision,
    });
    const [card] = toUIChunks(approval, 'root-run') as { data: object }[];
    expect(toUIChunks(resumed, 'root-run')).toStrictEqual([
      { type: 'data-tool-call-approval', id: 'call-1', data: { ...card.data, resumed: true, decision } },
    ]);
  });

  it('a resumed decline carries the decline and its reason', () => {
    const resumed = chunk('tool-call-resumed', {
      toolCallId: 'call-1',
      toolName: 'delete-record',
      kind: 'approval',
      args: { id: 'rec-12' },
      resumeSchema: '{"type":"object"}',
      fingerprint: 'f'.repeat(64),
      approvers: 'requester',
      decision: { approved: false, reason: 'not now', by: 'ada', at: '2025-03-03T14:02:00.000Z' },
    });
    const [part] = toUIChunks(resumed);
    expect(part).toEqual({
      type: 'data-tool-call-approval',
      id: 'call-1',
      data: {
        runId: RUN,
        toolCallId: 'call-1',
        toolName: 'delete-record',
        args: { id: 'rec-12' },
        fingerprint: 'f'.repeat(64),
        approvers: 'requester',
        resumeSchema: '{"type":"object"}',
        resumed: true,
        decision: { approved: false, reason: 'not now', by: 'ada', at: '2025-03-03T14:02:00.000Z' },
      },
    });
  });

  it('a resumed suspension repeats the question card in full with resumed: true, who answered, when and the answer', () => {
    const resumed = chunk('tool-call-resumed', {
      toolCallId: 'call-2',
      toolName: 'ask-city',
      kind: 'suspension',
      args: { topic: 'weather' },
      suspendPayload: { question: 'Which city?' },
      resumeSchema: '{"type":"object","properties":{"city":{"type":"string"}}}',
      fingerprint: 'e'.repeat(64),
      approvers: 'requester',
      chain: ['support'],
      // Only who, when and the answer reach the question card.
      decision: { by: 'ada', at: '2025-03-03T14:02:00.000Z', resumeData: { city: 'Oslo' }, approved: true, reason: 'x' },
    });
    const [card] = toUIChunks(suspension, 'root-run') as { data: object }[];
    expect(toUIChunks(resumed, 'root-run')).toStrictEqual([
      {
        type: 'data-tool-call-suspended',
        id: 'call-2',
        data: { ...card.data, resumed: true, decision: { by: 'ada', at: '2025-03-03T14:02:00.000Z', resumeData: { city: 'Oslo' } } },
      },
    ]);
  });

  it('maps a run error to a data-run-error part named after the run, so it stays in the message', () => {
    expect(toUIChunks(chunk('error', { message: 'The model failed.' }, 'run-9'), 'root-run')).toStrictEqual([
      { type: 'data-run-error', id: 'error-run-9', data: { message: 'The model failed.' } },
    ]);
  });

  it('produces only chunks the AI SDK UI message stream accepts', async () => {
    const all: AgentChunk[] = [
      chunk('start', { messageId: 'msg-1', threadId: 'thread-1' }),
      chunk('step-start', { step: 0 }),
      chunk('text-start', { id: 't' }),
      chunk('text-delta', { id: 't', text: 'hi' }),
      chunk('text-end', { id: 't' }),
      chunk('tool-call', { toolCallId: 'c', toolName: 'x', args: {} }),
      chunk('tool-result', { toolCallId: 'c', toolName: 'x', args: {}, result: 1 }),
      chunk('tool-error', { toolCallId: 'c', toolName: 'x', args: {}, error: 'e' }),
      chunk('tool-output-denied', { toolCallId: 'c', toolName: 'x', args: {}, approval: { approved: false, reason: '' } }),
      approval,
      suspension,
      chunk('step-finish', { step: 0, finishReason: 'stop' }),
      chunk('error', { message: 'm' }),
      chunk('finish', { finishReason: 'stop' }),
    ];
    const schema = uiMessageChunkSchema();
    const results = await Promise.all(all.flatMap((c) => toUIChunks(c)).map((ui) => schema.validate!(ui)));
    expect(results.map((result) => result.success)).toEqual(Array(all.length).fill(true));
    // The schema does refuse a malformed chunk, e.g. a text delta without its delta.
    expect((await schema.validate!({ type: 'text-delta', id: 't' })).success).toBe(false);
  });
});

describe('uiChunkTransform', () => {
  it('turns a stream of runtime chunks into the UI chunks of each, in order, for the given run', async () => {
    const chunks = [
      chunk('start', { messageId: 'msg-1', threadId: 'thread-1' }),
      chunk('text-delta', { id: 't', text: 'Deleting.' }),
      approval,
      chunk('finish', { finishReason: 'suspended' }),
    ];
    const source = new ReadableStream<AgentChunk>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    const out: UIMessageChunk[] = [];
    for await (const ui of source.pipeThrough(uiChunkTransform('root-run'))) out.push(ui);
    expect(out.map((ui) => ui.type)).toEqual(['start', 'text-delta', 'data-tool-call-approval', 'finish']);
    expect(out[2]).toMatchObject({ id: 'call-1', data: { runId: 'root-run' } });
  });
});
