import { describe, expect, it } from 'vitest';
import { isApplePlatform } from './modifier-key';

describe('isApplePlatform', () => {
  it('is true for macOS and iOS platforms', () => {
    expect(isApplePlatform({ platform: 'MacIntel' })).toBe(true);
    expect(isApplePlatform({ platform: 'iPhone' })).toBe(true);
    expect(isApplePlatform({ platform: '', userAgentData: { platform: 'macOS' } })).toBe(true);
  });

  it('is false for Windows, Linux and an unknown platform', () => {
    expect(isApplePlatform({ platform: 'Win32' })).toBe(false);
    expect(isApplePlatform({ platform: 'Linux x86_64' })).toBe(false);
    expect(isApplePlatform({ platform: '' })).toBe(false);
  });

  it('prefers userAgentData over the older navigator.platform', () => {
    expect(isApplePlatform({ platform: 'MacIntel', userAgentData: { platform: 'Windows' } })).toBe(false);
  });
});
