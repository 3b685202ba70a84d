import { describe, expect, it } from 'vitest';
import { passwordRefusal } from './password-rules';

describe('passwordRefusal', () => {
  it('accepts ordinary passwords, inner spaces and any script', () => {
    for (const password of ['a-brand-new-secret', 'correct horse battery staple', 'пароль-длинный', '密码密码密码密码', ' leading and trailing ']) {
      expect(passwordRefusal(password), password).toBeNull();
    }
  });

  it('refuses a password of only white space or invisible characters, or with a control character', () => {
    expect(passwordRefusal('        ')).toBe('A password cannot be only spaces or invisible characters.');
    expect(passwordRefusal('\t\u00a0\u2003 \n  ')).toBe('A password cannot be only spaces or invisible characters.');
    expect(passwordRefusal('\u200b'.repeat(10))).toBe('A password cannot be only spaces or invisible characters.');
    expect(passwordRefusal('\u200d\u2060\u200e\ufeff '.repeat(3))).toBe('A password cannot be only spaces or invisible characters.');
    for (const password of ['\u0000'.repeat(8), 'abc\u0000defgh', 'two\nlines-pass', 'bell\u0007bell']) {
      expect(passwordRefusal(password), JSON.stringify(password)).toMatch(/control characters/);
    }
  });

  it("leaves what is not a string to the route's own validation", () => {
    expect(passwordRefusal(undefined)).toBeNull();
    expect(passwordRefusal(12345678)).toBeNull();
  });
});
