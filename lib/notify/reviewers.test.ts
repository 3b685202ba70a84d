import { afterEach, describe, expect, it } from 'vitest';
import { appUrl } from './reviewers';

const names = ['APP_URL', 'BETTER_AUTH_URL', 'PORT'] as const;
const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of names) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('links in reviewer mail', () => {
  it('point at APP_URL, else BETTER_AUTH_URL, else the local server on its PORT', () => {
    for (const name of names) delete process.env[name];
    expect(appUrl()).toBe('http://localhost:3000');
    // `PORT=3950 npm run dev` serves on 3950: a link to 3000 would reach nothing.
    process.env.PORT = '3950';
    expect(appUrl()).toBe('http://localhost:3950');
    process.env.BETTER_AUTH_URL = 'https://auth.example/';
    expect(appUrl()).toBe('https://auth.example');
    process.env.APP_URL = 'https://countersign.example//';
    expect(appUrl()).toBe('https://countersign.example');
  });
});
