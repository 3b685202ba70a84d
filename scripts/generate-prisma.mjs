// postinstall: `prisma generate` without the internet. Generating the client needs only Prisma's
// WebAssembly query compiler, but the CLI first looks for a schema-engine binary and would try to
// download one; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file (node itself) satisfies
// that check, and `generate` never runs it.
import { execFileSync } from 'node:child_process';

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
execFileSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { stdio: 'inherit', env });
