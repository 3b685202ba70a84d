/** A thread's version as `threadVersion` (lib/store/thread-version.ts) writes it: 32 lowercase hex digits, an MD5 digest. */
export const THREAD_VERSION = /^[0-9a-f]{32}$/;
