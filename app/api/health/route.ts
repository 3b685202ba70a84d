import { prisma } from '@/lib/store/db';
import { otherMethods } from '@/lib/http/methods';

/** Liveness and database reachability, for process managers and the test harness. */
export async function GET() {
  await prisma().$queryRaw`SELECT 1`;
  return Response.json({ ok: true });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
