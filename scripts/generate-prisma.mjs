// postinstall: `prisma generate` offline. It only needs Prisma's WebAssembly, but the CLI insists
// on a schema-engine binary path; any existing file satisfies that check (see ENVIRONMENT notes).
import { execFileSync } from 'node:child_process';

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
execFileSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { stdio: 'inherit', env });
