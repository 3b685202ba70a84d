import { toNextJsHandler } from 'better-auth/next-js';
import { auth } from '@/lib/auth/auth';
import { guardAuthRequest, withErrorEnvelope } from '@/lib/auth/http';

// Sign-in, sign-up, sign-out and session endpoints, served by better-auth.
export async function GET(request: Request) {
  return withErrorEnvelope(await toNextJsHandler(auth()).GET(request));
}

export async function POST(request: Request) {
  const guarded = await guardAuthRequest(request);
  if (guarded instanceof Response) return guarded;
  return withErrorEnvelope(await toNextJsHandler(auth()).POST(guarded));
}
