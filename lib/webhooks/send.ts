import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress, PRIVATE_ADDRESS_CODE, privateAddressError, publicOnlyLookup } from './destination';

/** The most of a receiver's answer read, in bytes; the rest is not read (the connection is closed). */
export const MAX_RESPONSE_BYTES = 4 * 1024;

/** What one POST got: the status, or a coarse reason why there is none. */
export type SendResult = { statusCode: number } | { statusCode: null; error: string };

/**
 * POSTs one webhook body and waits for the status line, reading at most MAX_RESPONSE_BYTES of the
 * answer's body (a receiver's answer is not used; a larger one is cut off by closing the connection,
 * so a 1.5 GB answer costs 4 KiB, not 1.5 GB of memory). Redirects are not followed (a 3xx is the
 * answer). Unless `allowPrivateNetworks`, the destination must be a public address: a literal
 * address is checked here, a name in the connection's own DNS lookup (lib/webhooks/destination.ts).
 *
 * Errors are coarse on purpose — the delivery log must not make the server a port scanner for whoever
 * registers endpoints: `refused: private network address`, `No answer within <timeoutMs> ms`,
 * `Connection failed` (refused, reset, unknown name, TLS, a broken answer: all the same).
 *
 * @param input.timeoutMs the whole attempt (connection, status, the body read), in ms
 * @returns the status code, or `statusCode: null` and the error
 */
export function postWebhook(input: { url: string; headers: Record<string, string>; body: string; timeoutMs: number; allowPrivateNetworks: boolean }): Promise<SendResult> {
  const url = new URL(input.url);
  if (!input.allowPrivateNetworks && isLiteralPrivate(url.hostname)) return Promise.resolve({ statusCode: null, error: describeSendError(privateAddressError(), input.timeoutMs) });
  const client = url.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(input.timeoutMs);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    // Once the status line arrived the attempt has its answer: a body cut off or slow changes nothing.
    let statusCode: number | null = null;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      request.destroy();
      resolve(statusCode === null ? result : { statusCode });
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
        signal,
        agent: false,
        ...(input.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        statusCode = status;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) finish({ statusCode: status });
        });
        response.on('end', () => finish({ statusCode: status }));
        response.on('error', () => finish({ statusCode: status }));
        response.on('aborted', () => finish({ statusCode: status }));
      },
    );
    request.on('error', (error) => finish({ statusCode: null, error: describeSendError(error, input.timeoutMs) }));
    request.end(input.body);
  });
}

/** A literal IP host (`127.0.0.1`, `[::1]`) that is private; names are checked by the lookup. */
function isLiteralPrivate(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 && isPrivateAddress(bare);
}

/**
 * The delivery log's words for a failed request, coarse on purpose (see postWebhook).
 * @returns `refused: private network address`, `No answer within <timeoutMs> ms` or `Connection failed`
 */
export function describeSendError(error: unknown, timeoutMs: number): string {
  const code = error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : '';
  const cause = error instanceof Error && error.cause && typeof error.cause === 'object' && 'code' in error.cause ? String((error.cause as { code: unknown }).code) : '';
  if (code === PRIVATE_ADDRESS_CODE || cause === PRIVATE_ADDRESS_CODE) return 'refused: private network address';
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError' || code === 'ABORT_ERR')) return `No answer within ${timeoutMs} ms`;
  return 'Connection failed';
}
