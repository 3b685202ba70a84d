import type { AgentChunk } from './chunks';

/**
 * Chunk fan-out for one segment of a run: keeps every chunk so each reader replays from the start,
 * and a reader that goes away (a closed browser tab) never stops the run.
 */
export class ChunkChannel {
  private readonly chunks: AgentChunk[] = [];
  private readonly listeners = new Set<() => void>();
  private closed = false;

  push(chunk: AgentChunk) {
    this.chunks.push(chunk);
    this.notify();
  }

  close() {
    this.closed = true;
    this.notify();
  }

  private notify() {
    for (const listener of [...this.listeners]) listener();
  }

  /** A new stream over all chunks so far and to come. */
  readable(): ReadableStream<AgentChunk> {
    let index = 0;
    let listener: (() => void) | undefined;
    const drain = (controller: ReadableStreamDefaultController<AgentChunk>) => {
      if (index < this.chunks.length) controller.enqueue(this.chunks[index++]);
      else if (this.closed) controller.close();
      else return false;
      return true;
    };
    return new ReadableStream<AgentChunk>({
      pull: (controller) =>
        new Promise<void>((resolve) => {
          if (drain(controller)) return resolve();
          listener = () => {
            if (!drain(controller)) return;
            this.listeners.delete(listener!);
            resolve();
          };
          this.listeners.add(listener);
        }),
      cancel: () => {
        if (listener) this.listeners.delete(listener);
      },
    });
  }
}
