import { expect, inject, test } from 'vitest';
test('exit code', () => { expect(1).toBe(1); });
