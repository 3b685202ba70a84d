import { describe, expect, it } from 'vitest';
import { parseSecuritySettings } from './settings-schema';

describe('security settings', () => {
  it('defaults: sign-up off, no trusted proxy, lockout after 5 failures for 15 minutes', () => {
    expect(parseSecuritySettings({})).toEqual({
      SIGN_UP_ENABLED: false,
      SIGN_UP_EMAIL_DOMAINS: [],
      TRUSTED_PROXIES: [],
      SIGN_IN_MAX_FAILURES: 5,
      SIGN_IN_LOCKOUT_MINUTES: 15,
      SIGN_IN_RATE_LIMIT_PER_MINUTE: 10,
      SSE_MAX_CONNECTIONS_PER_USER: 10,
      AGENTS_RATE_LIMIT_PER_MINUTE: 60,
      RUNS_RATE_LIMIT_PER_MINUTE: 120,
    });
    // Empty variables count as unset.
    expect(parseSecuritySettings({ SIGN_UP_ENABLED: '', TRUSTED_PROXIES: '' }).SIGN_UP_ENABLED).toBe(false);
  });

  it('valid values are parsed and normalised', () => {
    const settings = parseSecuritySettings({
      SIGN_UP_ENABLED: 'true',
      SIGN_UP_EMAIL_DOMAINS: ' Example.ORG, corp.example.com ',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1, ::1, fd00::/8',
      SIGN_IN_MAX_FAILURES: '3',
      SSE_MAX_CONNECTIONS_PER_USER: '2',
    });
    expect(settings).toMatchObject({
      SIGN_UP_ENABLED: true,
      SIGN_UP_EMAIL_DOMAINS: ['example.org', 'corp.example.com'],
      TRUSTED_PROXIES: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'],
      SIGN_IN_MAX_FAILURES: 3,
      SSE_MAX_CONNECTIONS_PER_USER: 2,
    });
  });

  it.each([
    ['SIGN_UP_ENABLED', 'yes'],
    ['SIGN_UP_ENABLED', '1'],
    ['SIGN_UP_EMAIL_DOMAINS', 'example.org,not a domain'],
    ['SIGN_UP_EMAIL_DOMAINS', '@example.org'],
    ['TRUSTED_PROXIES', 'my-proxy.internal'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['SIGN_IN_MAX_FAILURES', '0'],
    ['SSE_MAX_CONNECTIONS_PER_USER', 'lots'],
    ['AGENTS_RATE_LIMIT_PER_MINUTE', '-1'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(() => parseSecuritySettings({ [name]: value })).toThrow(new RegExp(`Invalid settings: .*${name}`));
  });
});
